"""The convolution primitive (`sx.lax.conv_general_dilated`, `conv`, `conv_transpose`): XLA's Conv, with JAX's
parameters, shape rule, derivatives and batching.

NumPy has no convolution kernel, so the host eager rule is the primitive's own lowering, compiled once per signature
(`stridex._lax.compiled.lowered`, the one cache of the host's compiled programs). The value rule: eager, `jit` and a
device run the same XLA program, so eager and `jit` results agree bit for bit (and with `jax.lax`'s).

Parameters, all static: `window_strides`, `padding` (explicit `(low, high)` pairs: the public function resolves
"SAME"/"VALID"), `lhs_dilation`, `rhs_dilation`, `dimension_numbers` (three tuples of axis positions, JAX's
`ConvDimensionNumbers`: lhs (batch, feature, spatial...), rhs (out feature, in feature, spatial...), out (batch,
feature, spatial...)), `feature_group_count`, `batch_group_count`, and `out_dtype` (the dtype both operands are
computed in, as for `dot_general`).

The rules follow JAX's (jax/_src/lax/convolution.py): bilinear, so the JVP is two convolutions, and the transposes
with respect to each operand are convolutions with transposed dimension numbers, padding and dilations (grad of
grad works as it does in JAX); the batching rule folds the vmapped axis into the batch or feature axes.
"""

from __future__ import annotations

import operator

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._lax import compiled as _compiled
from stridex._exec import jax_bridge as _bridge
from stridex._lax import ops
from stridex._exec import precision as _precision
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import sum_terms


def dilate(size: int, dilation: int) -> int:
    """The size of an axis of `size` elements with `dilation - 1` holes between neighbours."""
    return 0 if size == 0 else 1 + dilation * (size - 1)


def window_count(size: int, window: int, stride: int) -> int:
    """How many windows of `window` elements fit in `size` at `stride` (0 when none does)."""
    return 0 if size < window else (size - window) // stride + 1


def _shape(lhs_shape, rhs_shape, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
           feature_group_count, batch_group_count) -> tuple:
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise ValueError(f"conv_general_dilated: lhs and rhs must have the same number of dimensions, got shapes "
                         f"{lhs_shape} and {rhs_shape}")
    n = len(lhs_shape) - 2
    for name, value in (("window_strides", window_strides), ("padding", padding), ("lhs_dilation", lhs_dilation),
                        ("rhs_dilation", rhs_dilation)):
        if len(value) != n:
            raise ValueError(f"conv_general_dilated: {name} must have one entry per spatial dimension ({n} for "
                             f"shapes {lhs_shape} and {rhs_shape}), got {value}")
    for name, value in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                        ("rhs_dilation", rhs_dilation)):
        if any(v < 1 for v in value):
            raise ValueError(f"conv_general_dilated: {name} must be positive, got {value}")
    for name, count in (("feature_group_count", feature_group_count), ("batch_group_count", batch_group_count)):
        if count < 1:
            raise ValueError(f"conv_general_dilated: {name} must be a positive integer, got {count}")
    if feature_group_count > 1 and batch_group_count > 1:
        raise ValueError(f"conv_general_dilated: at most one of batch_group_count and feature_group_count may be > 1, "
                         f"got batch_group_count={batch_group_count} and feature_group_count={feature_group_count}")
    lhs_batch, lhs_features = lhs_shape[lhs_spec[0]], lhs_shape[lhs_spec[1]]
    rhs_out, rhs_in = rhs_shape[rhs_spec[0]], rhs_shape[rhs_spec[1]]
    if lhs_features % feature_group_count:
        raise ValueError(f"conv_general_dilated: feature_group_count={feature_group_count} must divide the lhs "
                         f"feature dimension size {lhs_features} (lhs shape {lhs_shape})")
    if lhs_features // feature_group_count != rhs_in:
        raise ValueError(f"conv_general_dilated: the lhs feature dimension size divided by feature_group_count must "
                         f"equal the rhs input feature dimension size, but {lhs_features} // {feature_group_count} != "
                         f"{rhs_in} (shapes {lhs_shape} and {rhs_shape})")
    if rhs_out % feature_group_count:
        raise ValueError(f"conv_general_dilated: the rhs output feature dimension size {rhs_out} must be a multiple "
                         f"of feature_group_count={feature_group_count}")
    if lhs_batch % batch_group_count:
        raise ValueError(f"conv_general_dilated: batch_group_count={batch_group_count} must divide the lhs batch "
                         f"dimension size {lhs_batch} (lhs shape {lhs_shape})")
    if rhs_out % batch_group_count:
        raise ValueError(f"conv_general_dilated: the rhs output feature dimension size {rhs_out} must be a multiple "
                         f"of batch_group_count={batch_group_count}")
    spatial = []
    for i in range(n):
        size = dilate(lhs_shape[lhs_spec[2 + i]], lhs_dilation[i]) + padding[i][0] + padding[i][1]
        if size < 0:
            raise ValueError(f"conv_general_dilated: negative padding {padding[i]} is larger than spatial dimension "
                             f"{i} of the lhs (size {lhs_shape[lhs_spec[2 + i]]}, lhs shape {lhs_shape})")
        spatial.append(window_count(size, dilate(rhs_shape[rhs_spec[2 + i]], rhs_dilation[i]), window_strides[i]))
    out = [0] * len(lhs_shape)
    out[out_spec[0]], out[out_spec[1]] = lhs_batch // batch_group_count, rhs_out
    for i, size in enumerate(spatial):
        out[out_spec[2 + i]] = size
    return tuple(out)


def _abstract(lhs, rhs, *, out_dtype, **params):
    return ShapedArray(_shape(lhs.shape, rhs.shape, **params), out_dtype)


def _lower(ctx, lhs, rhs, *, out_dtype, dimension_numbers, **params):
    # The precision is read when JAX traces this rule (as dot_general's: every cache of compiled lowerings keys on
    # `precision.matmul_key()`); half types accumulate in float32 and are rounded once.
    accumulate = _dtypes.float32 if _dtypes.is_half(out_dtype) else out_dtype
    out = _bridge.lax().conv_general_dilated(_bridge.as_dtype(lhs, out_dtype), _bridge.as_dtype(rhs, out_dtype),
                                     dimension_numbers=_bridge.lax().ConvDimensionNumbers(*dimension_numbers),
                                     precision=_precision.lax_precision(out_dtype),
                                     preferred_element_type=accumulate.np, **params)
    return _bridge.as_dtype(out, out_dtype)


def _jvp(primals, tangents, **params):
    (lhs, rhs), (t_lhs, t_rhs) = primals, tangents
    out = conv_general_dilated.bind(lhs, rhs, **params)
    return out, sum_terms(None if t_lhs is None else conv_general_dilated.bind(t_lhs, rhs, **params),
                          None if t_rhs is None else conv_general_dilated.bind(lhs, t_rhs, **params))


# --- the transposes: convolutions with transposed dimension numbers ----------------------------------------------


def _reshape_axis_into(source: int, destination: int, x):
    """`x` with axis `source` merged into axis `destination` (numbered after `source` is removed) as its major part."""
    shape = ops.shape_of(x)
    order = [i for i in range(len(shape)) if i != source]
    order.insert(destination, source)
    x = ops.permute(x, tuple(order))
    rest = [shape[i] for i in range(len(shape)) if i != source]
    rest[destination] *= shape[source]
    return ops.reshape(x, tuple(rest))


def _reshape_axis_out_of(source: int, major: int, x):
    """`x` with axis `source` split into (major, size // major)."""
    shape = list(ops.shape_of(x))
    shape[source:source + 1] = [major, shape[source] // major]
    return ops.reshape(x, tuple(shape))


def _swap_first_two(spec: tuple) -> tuple:
    return (spec[1], spec[0]) + spec[2:]


def _lhs_transpose_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    pads = []
    for i in range(len(in_shape)):
        lhs_size, window_size = dilate(in_shape[i], lhs_dilation[i]), dilate(window[i], rhs_dilation[i])
        before = window_size - padding[i][0] - 1
        pads.append((before, lhs_size + window_size - 1 - dilate(out_shape[i], strides[i]) - before))
    return tuple(pads)


def _rhs_transpose_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    pads = []
    for i in range(len(in_shape)):
        lhs_size, window_size = dilate(in_shape[i], lhs_dilation[i]), dilate(window[i], rhs_dilation[i])
        low = padding[i][0]
        pads.append((low, dilate(out_shape[i], strides[i]) - lhs_size + window_size - low - 1))
    return tuple(pads)


def _transpose_lhs(ct, lhs_shape, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                   feature_group_count, batch_group_count, out_dtype):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    rhs_shape = ops.shape_of(rhs)
    groups = feature_group_count
    if feature_group_count > 1 or batch_group_count > 1:  # the group axis moves into the kernel's input features
        groups = max(feature_group_count, batch_group_count)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], _reshape_axis_out_of(rhs_spec[0], groups, rhs))
    pads = _lhs_transpose_padding([lhs_shape[a] for a in lhs_spec[2:]], [rhs_shape[a] for a in rhs_spec[2:]],
                                  window_strides, [ops.shape_of(ct)[a] for a in out_spec[2:]], padding, lhs_dilation,
                                  rhs_dilation)
    out = conv_general_dilated.bind(
        ct, ops.flip(rhs, tuple(rhs_spec[2:])), window_strides=lhs_dilation, padding=pads,
        lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
        dimension_numbers=(out_spec, _swap_first_two(rhs_spec), lhs_spec), feature_group_count=groups,
        batch_group_count=1, out_dtype=out_dtype)
    if batch_group_count > 1:
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], _reshape_axis_out_of(lhs_spec[1], batch_group_count, out))
    return out


def _transpose_rhs(ct, lhs, rhs_shape, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                   feature_group_count, batch_group_count, out_dtype):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if 0 in ops.shape_of(ct):
        return ops.zeros(tuple(rhs_shape), out_dtype)
    lhs_shape = ops.shape_of(lhs)
    pads = _rhs_transpose_padding([lhs_shape[a] for a in lhs_spec[2:]], [rhs_shape[a] for a in rhs_spec[2:]],
                                  window_strides, [ops.shape_of(ct)[a] for a in out_spec[2:]], padding, lhs_dilation,
                                  rhs_dilation)
    # feature groups transpose to batch groups and back
    return conv_general_dilated.bind(
        lhs, ct, window_strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
        dimension_numbers=(_swap_first_two(lhs_spec), _swap_first_two(out_spec), _swap_first_two(rhs_spec)),
        feature_group_count=batch_group_count, batch_group_count=feature_group_count, out_dtype=out_dtype)


def _is_floating(x) -> bool:
    return ops.dtype_of(x).kind in ("real floating", "complex floating")


def _vjp(ct, lhs, rhs, *, out, **params):
    g_lhs = g_rhs = None
    if _is_floating(lhs):
        g_lhs = _transpose_lhs(ct, ops.shape_of(lhs), rhs, **params)
        if ops.dtype_of(g_lhs) != ops.dtype_of(lhs):
            g_lhs = ops.astype(g_lhs, ops.dtype_of(lhs))
    if _is_floating(rhs):
        g_rhs = _transpose_rhs(ct, lhs, ops.shape_of(rhs), **params)
        if ops.dtype_of(g_rhs) != ops.dtype_of(rhs):
            g_rhs = ops.astype(g_rhs, ops.dtype_of(rhs))
    return g_lhs, g_rhs


# --- batching: the vmapped axis folded into the batch or feature axes --------------------------------------------


def _batch(values, dims, *, axis_size, **params):
    (lhs, rhs), (lhs_dim, rhs_dim) = values, dims
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    features, batches = params["feature_group_count"], params["batch_group_count"]
    if axis_size == 0:  # (no example: nothing to fold, the empty result of the right shape)
        lhs_shape = list(ops.shape_of(lhs))
        rhs_shape = list(ops.shape_of(rhs))
        if lhs_dim is not None:
            lhs_shape.pop(lhs_dim)
        if rhs_dim is not None:
            rhs_shape.pop(rhs_dim)
        shape = _shape(tuple(lhs_shape), tuple(rhs_shape), **{k: v for k, v in params.items() if k != "out_dtype"})
        return ops.zeros((0, *shape), params["out_dtype"]), 0
    if lhs_dim is not None and rhs_dim is not None:
        if batches > 1:
            lhs = _reshape_axis_into(lhs_dim, lhs_spec[0], lhs)
            params = {**params, "batch_group_count": batches * axis_size}
        else:
            lhs = _reshape_axis_into(lhs_dim, lhs_spec[1], lhs)
            params = {**params, "feature_group_count": features * axis_size}
        out = conv_general_dilated.bind(lhs, _reshape_axis_into(rhs_dim, rhs_spec[0], rhs), **params)
        return _reshape_axis_out_of(out_spec[1], axis_size, out), out_spec[1]
    if lhs_dim is not None:
        if batches > 1:  # the batch groups stay outermost: the vmapped axis goes inside each group
            lhs = _reshape_axis_out_of(lhs_spec[0] + int(lhs_dim <= lhs_spec[0]), batches, lhs)
            lhs = _reshape_axis_into(lhs_dim + int(lhs_spec[0] < lhs_dim), lhs_spec[0] + 1, lhs)
            lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], lhs)
        else:
            lhs = _reshape_axis_into(lhs_dim, lhs_spec[0], lhs)
        out = conv_general_dilated.bind(lhs, rhs, **params)
        return _reshape_axis_out_of(out_spec[0], axis_size, out), out_spec[0]
    if features == 1 and batches == 1:
        out = conv_general_dilated.bind(lhs, _reshape_axis_into(rhs_dim, rhs_spec[0], rhs), **params)
        return _reshape_axis_out_of(out_spec[1], axis_size, out), out_spec[1]
    # the groups stay outermost in the kernel's output features: the vmapped axis goes inside each group
    groups = max(features, batches)
    rhs = _reshape_axis_out_of(rhs_spec[0] + int(rhs_dim <= rhs_spec[0]), groups, rhs)
    rhs = _reshape_axis_into(rhs_dim + int(rhs_spec[0] < rhs_dim), rhs_spec[0] + 1, rhs)
    rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], rhs)
    out = conv_general_dilated.bind(lhs, rhs, **params)
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, axis_size, out)
    return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


conv_general_dilated = Primitive(
    "conv_general_dilated",
    impl=_compiled.lowered,
    abstract_eval=_abstract,
    lower=_lower,
    jvp=_jvp,
    vjp=_vjp,
    batch=_batch,
)


def padding_of(padding, in_shape, window_shape, strides) -> tuple:
    """Explicit `(low, high)` pairs for `padding`: "SAME" (the output as long as the input over the stride, the odd
    element of padding after), "SAME_LOWER" (before), "VALID" (none), or a sequence of pairs (checked)."""
    if any(s < 1 for s in strides):
        raise ValueError(f"window_strides must be positive, got {tuple(strides)}")
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * len(in_shape)
        if mode in ("SAME", "SAME_LOWER"):
            pads = []
            for size, window, stride in zip(in_shape, window_shape, strides):
                total = max(0, (-(-size // stride) - 1) * stride + window - size)
                half = total // 2
                pads.append((half, total - half) if mode == "SAME" else (total - half, half))
            return tuple(pads)
        raise ValueError(f"padding must be 'SAME', 'SAME_LOWER', 'VALID' or a sequence of (low, high) pairs, "
                         f"got {padding!r}")
    try:
        pairs = tuple((operator.index(low), operator.index(high)) for low, high in padding)
    except (TypeError, ValueError):
        raise ValueError(f"padding must be 'SAME', 'SAME_LOWER', 'VALID' or a sequence of (low, high) pairs, "
                         f"got {padding!r}") from None
    if len(pairs) != len(in_shape):
        raise ValueError(f"padding must have one (low, high) pair per spatial dimension ({len(in_shape)}), "
                         f"got {padding!r}")
    return pairs
