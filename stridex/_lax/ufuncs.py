"""What the ufunc primitives share (`stridex._lax.elementwise`, `stridex._lax.transcendental`): calling a NumPy ufunc
as an eager rule (aligned storage for large results), the factories of their abstract evaluation, eager rules and
records, and the lowering helpers their JAX rules are written with."""

from __future__ import annotations

from math import prod

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray, aval_of, promote_avals
from stridex._core.storage import ALIGNED_OUTPUT_ELEMENTS, aligned_empty
from stridex._core.view import broadcast_shapes
from stridex._exec.jax_bridge import as_dtype, broadcast_to_aval, lax
from stridex._lax.half import BFLOAT16_KIND, bfloat16_scalars
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_elementwise

# What `ufunc.resolve_dtypes` accepts for a Python scalar operand (it takes no `bool`; a strong bool
# promotes exactly like a weak one because bool is the lowest type). A NumPy scalar (the bfloat16 one that
# `bfloat16_scalars` makes of a Python float) gives its dtype.
_RESOLVE_PY = {bool: np.dtype(bool), int: int, float: float, complex: complex}


def call_ufunc(ufunc, *args, **kwargs):
    """Run a ufunc and return an ndarray (never a NumPy scalar); large results go to aligned storage."""
    shape = None
    bfloat16 = False
    for a in args:
        if type(a) is np.ndarray:
            s = a.shape
            if shape is None:
                shape = s
            elif s != shape:
                shape = np.broadcast_shapes(shape, s)
            if a.dtype.kind == BFLOAT16_KIND:
                bfloat16 = True
    if bfloat16:
        # ml_dtypes' loops: a Python float must be made weak by hand, and ordered comparisons with NaN raise
        # the "invalid" flag (signalling comparisons, where NumPy's own loops are quiet), so it is ignored.
        with np.errstate(invalid="ignore"):
            return _run_ufunc(ufunc, shape, bfloat16_scalars(args), kwargs)
    return _run_ufunc(ufunc, shape, args, kwargs)


def _run_ufunc(ufunc, shape, args, kwargs):
    # (NumPy's own allocation below the storage policy's threshold: resolving the dtype costs more there.)
    if shape is None or prod(shape) < ALIGNED_OUTPUT_ELEMENTS:
        return ufunc(*args, out=..., **kwargs)
    dtype = kwargs.get("dtype")
    if dtype is None:
        dtype = ufunc.resolve_dtypes(tuple(a.dtype if hasattr(a, "dtype") else _RESOLVE_PY[type(a)] for a in args)
                                     + (None,) * ufunc.nout)[-1]
    out = aligned_empty(shape, dtype)
    ufunc(*args, out=out, **kwargs)
    return out


def _quiet(impl):
    """The impl with NumPy's floating-point warnings silenced (for ops that warn on valid inputs)."""

    def quiet_impl(*args, **params):
        with np.errstate(all="ignore"):
            return impl(*args, **params)

    return quiet_impl


def same_as_ufunc(impl, ufunc, quiet: bool = False, complex_results: bool = True):
    """Mark eager rule `impl` as giving exactly `ufunc(*operands)` when no operand is bfloat16 (and, unless
    `complex_results`, when the result is not complex), with NumPy's warnings silenced if `quiet`: eager fusion
    (`stridex._exec.fusion`) then calls the ufunc itself into its scratch memory, block by block."""
    impl.same_as_ufunc = (ufunc, quiet, complex_results)
    return impl


# --- factories: abstract evaluation, eager rules and records of ufunc primitives ---------------------


def binary_abstract(result_dtype=None, dtype_rule=None):
    """Broadcast shapes; dtype by promotion, then `dtype_rule(promoted)` or a fixed `result_dtype`."""

    def abstract_eval(x1, x2):
        a1, a2 = aval_of(x1), aval_of(x2)
        if a1.dtype is a2.dtype and a1.weak_type == a2.weak_type:  # (what promotion gives for one dtype)
            dtype, weak = a1.dtype, a1.weak_type
        else:
            dtype, weak = promote_avals(a1, a2)
        if dtype_rule is not None:
            dtype = dtype_rule(dtype)
        if result_dtype is not None:
            dtype, weak = result_dtype, False
        shape = a1.shape if a1.shape == a2.shape else broadcast_shapes(a1.shape, a2.shape)
        return ShapedArray(shape, dtype, weak)

    return abstract_eval


def unary_abstract(dtype_rule=None):
    def abstract_eval(x):
        a = aval_of(x)
        dtype = a.dtype if dtype_rule is None else dtype_rule(a.dtype)
        return ShapedArray(a.shape, dtype, a.weak_type and dtype is a.dtype)

    return abstract_eval


def ufunc_binary_impl(ufunc):
    """The eager rule `ufunc(x1, x2)`, with a lean path for small operands (the dispatch-bound case)."""

    # (closure cells: cheaper than global lookups)
    ndarray, small, bfloat16 = np.ndarray, ALIGNED_OUTPUT_ELEMENTS, BFLOAT16_KIND

    def impl(x1, x2):
        # A broadcast result has at most size(x1) * size(x2) elements, so small products are safe to
        # leave in NumPy's own (unaligned) allocation. bfloat16 goes to call_ufunc, which handles ml_dtypes'
        # loops (the operands have one dtype: the namespace converts mixed ones with a half type first).
        if type(x1) is ndarray:
            if type(x2) is ndarray:
                # (the result's size is at most the product of theirs, and theirs where they have one shape)
                n = x1.size
                if (n * x2.size < small or n < small and x1.shape == x2.shape) and x1.dtype.kind != bfloat16:
                    return ufunc(x1, x2, out=...)
            elif x1.size < small and x1.dtype.kind != bfloat16:
                return ufunc(x1, x2, out=...)
        elif type(x2) is ndarray and x2.size < small and x2.dtype.kind != bfloat16:
            return ufunc(x1, x2, out=...)
        return call_ufunc(ufunc, x1, x2)

    return same_as_ufunc(impl, ufunc)


def ufunc_unary_impl(ufunc):
    """The eager rule `ufunc(x)`, with the same lean path for small operands."""

    ndarray, small = np.ndarray, ALIGNED_OUTPUT_ELEMENTS

    def impl(x):
        if type(x) is not ndarray or x.size < small:
            return ufunc(x, out=...)
        return call_ufunc(ufunc, x)

    return same_as_ufunc(impl, ufunc)


def ufunc_binary(name: str, ufunc, **rules) -> Primitive:
    """A binary primitive whose eager rule is exactly `ufunc` (dtype by promotion unless `rules` give an
    abstract_eval); it batches elementwise."""
    rules.setdefault("abstract_eval", binary_abstract())
    return Primitive(name, impl=ufunc_binary_impl(ufunc), batch=batch_elementwise, elementwise=True, **rules)


def ufunc_unary(name: str, ufunc, **rules) -> Primitive:
    """A unary primitive whose eager rule is exactly `ufunc` (the input's dtype unless `rules` give an
    abstract_eval); it batches elementwise."""
    rules.setdefault("abstract_eval", unary_abstract())
    return Primitive(name, impl=ufunc_unary_impl(ufunc), batch=batch_elementwise, elementwise=True, **rules)


# --- lowering helpers --------------------------------------------------------------------------------


def _promoted(ctx):
    """The dtype the inputs promote to (what a comparison computes in)."""
    return promote_avals(*ctx.avals_in)[0]


def operands(ctx, args, dtype=None):
    """`args` converted to `dtype` (default: the result dtype) and broadcast to the result shape."""
    aval = ShapedArray(ctx.aval_out.shape, ctx.aval_out.dtype if dtype is None else dtype)
    return [broadcast_to_aval(a, aval) for a in args]


def lower_binary(fn, compute=None):
    """Lowering that applies `fn(a, b)` to operands in the result dtype (or `compute(ctx)`)."""

    def lower(ctx, x1, x2):
        a, b = operands(ctx, (x1, x2), None if compute is None else compute(ctx))
        return fn(a, b)

    return lower


def lower_unary(fn):
    """Lowering that applies `fn(a, aval_in)` to the input in its own dtype."""

    def lower(ctx, x):
        aval = ctx.avals_in[0]
        return fn(as_dtype(x, aval.dtype), aval)

    return lower


def _is_complex(x) -> bool:
    return np.dtype(x.dtype).kind == "c"


def _is_float(x) -> bool:
    return _dtypes.np_kind(x.dtype) == "f"


def _zeros_like(x):
    return lax().full_like(x, 0)


def _select(cond, a, b):
    """Elementwise `a where cond else b`, broadcasting Python scalars to `cond`'s shape."""
    L = lax()
    like = a if hasattr(a, "dtype") else b
    if not hasattr(a, "dtype"):
        a = L.full_like(like, a)
    if not hasattr(b, "dtype"):
        b = L.full_like(like, b)
    return L.select(cond, a, b)


def _signbit(x):
    """The sign bit of a real floating JAX value (NaN payload signs included)."""
    L = lax()
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[np.dtype(x.dtype).itemsize]
    return L.lt(L.bitcast_convert_type(x, bits), L.full_like(x, 0, bits))


def _copysign(magnitude, sign):
    """Bitwise copysign: |magnitude| with the sign bit of `sign` (exact for NaN and signed zeros)."""
    L = lax()
    size = np.dtype(magnitude.dtype).itemsize
    ubits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    mask = np.array(1 << (8 * size - 1), ubits)
    m = L.bitcast_convert_type(magnitude, ubits)
    s = L.bitcast_convert_type(sign, ubits)
    bits = L.bitwise_or(L.bitwise_and(m, L.full_like(m, ~mask)), L.bitwise_and(s, L.full_like(s, mask)))
    return L.bitcast_convert_type(bits, magnitude.dtype)


def _isinf(x):
    L = lax()
    return L.eq(L.abs(x), L.full_like(x, np.inf))


def _isnan(x):
    return lax().ne(x, x)
