"""FFT primitives: one `fft` record for every transform (the JAX way: a `kind` param), and `fftfreq`.

`fft(x, kind, axes, lengths, norm)`: `kind` is "fft", "ifft", "rfft", "irfft", "hfft" or "ihfft"; `axes` are
normalised, distinct axes; `lengths` are the logical transform sizes along them (the input is zero-padded
or trimmed to them; for "irfft"/"hfft" they are output sizes and the last axis reads `n // 2 + 1`
inputs). Results keep the input's precision: complex64/float32 in, complex64/float32 out.
"""

from __future__ import annotations

import math

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core.avals import ShapedArray
from stridex._core.storage import aligned_result, output_buffer
from stridex._lax import ops
from stridex._exec.jax_bridge import as_dtype, jnp, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import batch_unary_axes, linear_jvp

# --- fft: every discrete Fourier transform, over any axes -------------------------------------------------
# Every transform is linear (over the reals: irfft/hfft read only part of their input), so the JVP
# transforms the tangent. The VJP is the transpose under the pairing Re(sum(a * b)) (JAX's convention):
# the DFT matrix is symmetric, so fft/ifft transpose to themselves; rfft to the real part of a full fft of
# the zero-padded half spectrum; irfft to c * conj(rfft) with the opposite norm, where c counts how many
# output terms each stored coefficient stands for (1 for the zero and Nyquist terms, else 2); the input
# padding or trimming to `lengths` transposes to trimming or padding.
# VJP hand-written: each transform's transpose is another single transform; a decomposition into passes
# would differentiate through the padding, the half-spectrum and the normalisation one by one.

_REAL_OUTPUT = ("irfft", "hfft")
_HALVED_OUTPUT = ("rfft", "ihfft")  # the last transformed axis has n // 2 + 1 entries


def _fft_abstract(x, *, kind, axes, lengths, norm):
    shape = list(x.shape)
    for axis, n in zip(axes, lengths):
        shape[axis] = n
    if kind in _HALVED_OUTPUT:
        shape[axes[-1]] = lengths[-1] // 2 + 1
    dtype = _dtypes.real_of(x.dtype) if kind in _REAL_OUTPUT else _dtypes.complex_of(x.dtype)
    return ShapedArray(tuple(shape), dtype)


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
# NumPy's n-D transform for each kind, by name: `np.fft` is imported on first use (NumPy loads it lazily), not
# by `import stridex`.
_NUMPY = {"fft": "fftn", "ifft": "ifftn", "rfft": "rfftn", "irfft": "irfftn"}


def _fft_impl(x, *, kind, axes, lengths, norm):
    aval = _fft_abstract(ShapedArray(x.shape, _dtypes.FROM_NUMPY[x.dtype]), kind=kind, axes=axes, lengths=lengths,
                         norm=norm)
    # Results go straight into the output buffer (aligned when large: JAX then takes them without a copy)
    # where NumPy can write every pass there; otherwise large ones are moved to aligned storage afterwards.
    out = output_buffer(aval.shape, aval.dtype.np) if _out_fits_every_pass(x.shape, kind, axes, lengths) else None
    with np.errstate(all="ignore"):  # inf/NaN inputs give inf/NaN outputs, without warnings
        if kind == "hfft":  # np.fft.hfft ignores `out`; it is irfft(conj(x)) with the direction of norm swapped
            result = np.fft.irfft(np.conjugate(x), n=lengths[0], axis=axes[0], norm=_SWAP[norm], out=out)
        elif kind == "ihfft":
            result = np.fft.ihfft(x, n=lengths[0], axis=axes[0], norm=norm, out=out)
        else:
            result = getattr(np.fft, _NUMPY[kind])(x, s=lengths, axes=axes, norm=norm, out=out)
    return aligned_result(result, aval.dtype.np)


def _out_fits_every_pass(shape: tuple, kind: str, axes: tuple, lengths: tuple) -> bool:
    """Whether one array of the final shape can take the output of each 1-D pass NumPy makes.

    NumPy's fftn, ifftn and rfftn hand `out` to every 1-D pass, the last axis first, so each intermediate
    must already have the final shape: only the last transformed axis may change length. irfftn hands
    `out` only to its final pass, and the 1-D transforms make a single pass.
    """
    if kind in ("irfft", "hfft", "ihfft") or len(axes) == 1:
        return True
    return all(shape[axis] == n for axis, n in zip(axes[:-1], lengths[:-1]))


def _resize(x, axis: int, size: int):
    """Lowering helper: `x` trimmed or zero-padded along `axis` to `size` entries."""
    L = lax()
    have = x.shape[axis]
    if have > size:
        return L.slice_in_dim(x, 0, size, axis=axis)
    if have < size:
        config = [(0, 0, 0)] * x.ndim
        config[axis] = (0, size - have, 0)
        return L.pad(x, L.convert_element_type(0, x.dtype), config)
    return x


def _on_trailing(x, fft_type: str, lengths: tuple):
    """lax.fft over the trailing len(lengths) axes, one axis at a time beyond the three lax.fft takes."""
    L = lax()
    k = len(lengths)
    if k <= 3:
        return L.fft(x, fft_type, lengths)
    nd = x.ndim
    # Separable: the complex passes run on the other axes; rfft runs first, irfft last, on the last axis.
    complex_type = "ifft" if fft_type in ("ifft", "irfft") else "fft"
    if fft_type == "rfft":
        x = L.fft(x, "rfft", lengths[-1:])
    for i in range(nd - k, nd - 1):
        perm = list(range(nd))
        perm[i], perm[-1] = perm[-1], perm[i]
        x = L.transpose(L.fft(L.transpose(x, perm), complex_type, (x.shape[i],)), perm)
    if fft_type in ("fft", "ifft"):
        return L.fft(x, fft_type, lengths[-1:])
    if fft_type == "irfft":
        return L.fft(x, "irfft", lengths[-1:])
    return x


def _fft_lower(ctx, x, *, kind, axes, lengths, norm):
    L, J = lax(), jnp()
    base = {"hfft": "irfft", "ihfft": "rfft"}.get(kind, kind)
    if kind in ("hfft", "ihfft"):
        # hfft(x) = irfft(conj(x)) and ihfft(x) = conj(rfft(x)), each with the direction of `norm` swapped.
        norm = _SWAP[norm]
    if kind == "hfft":
        x = J.conj(x)
    in_lengths = list(lengths)
    if base == "irfft":
        in_lengths[-1] = lengths[-1] // 2 + 1
    for axis, n in zip(axes, in_lengths):
        x = _resize(x, axis, n)
    nd = x.ndim
    perm = [a for a in range(nd) if a not in axes] + list(axes)
    x = _on_trailing(L.transpose(x, perm), base, tuple(lengths))
    x = L.transpose(x, tuple(int(a) for a in np.argsort(perm)))
    count = math.prod(lengths)
    inverse = base in ("ifft", "irfft")  # lax already divides these by `count`
    if norm == "ortho":
        factor = math.sqrt(count) if inverse else 1 / math.sqrt(count)
    elif norm == "forward":
        factor = count if inverse else 1 / count
    else:
        factor = 1
    if factor != 1:
        x = x * factor
    if kind == "ihfft":
        x = J.conj(x)
    return as_dtype(x, ctx.aval_out.dtype)


def _fit_axes(g, shape, axes):
    """g trimmed or zero-padded along `axes` to `shape`."""
    for axis in axes:
        have, want = g.shape[axis], shape[axis]
        if have == want:
            continue
        entries = tuple(("slice", 0, min(have, want), 1) if a == axis else ("slice", 0, n, 1)
                        for a, n in enumerate(g.shape))
        if have > want:
            g = ops.index(g, entries)
        else:
            target = g.shape[:axis] + (want,) + g.shape[axis + 1:]
            g = ops.scatter(ops.zeros(target, ops.dtype_of(g)), g, entries)
    return g


def _half_spectrum_weights(n: int, axis: int, ndim: int, dtype, like):
    """c along `axis`: 1 for the zero-frequency (and, for even n, the Nyquist) term, 2 for the others."""
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return ops.constant(weights.reshape((n // 2 + 1,) + (1,) * (ndim - 1 - axis)), dtype, like=like)


def _fft_vjp(ct, x, *, out, kind, axes, lengths, norm):
    if kind in ("fft", "ifft"):
        g = fft.bind(ct, kind=kind, axes=axes, lengths=lengths, norm=norm)
    elif kind == "rfft":  # the full transform pads the half spectrum; autodiff keeps the real part
        g = fft.bind(ct, kind="fft", axes=axes, lengths=lengths, norm=norm)
    elif kind == "ihfft":  # ihfft = conj(rfft) with the opposite norm
        g = fft.bind(ops.conj(ct), kind="fft", axes=axes, lengths=lengths, norm=_SWAP[norm])
    else:
        weights = _half_spectrum_weights(lengths[-1], axes[-1], ct.ndim, _dtypes.real_of(ct.dtype), ct)
        if kind == "irfft":
            g = ops.conj(fft.bind(ct, kind="rfft", axes=axes, lengths=lengths, norm=_SWAP[norm])) * weights
        else:  # hfft = irfft(conj(x)) with the opposite norm
            g = fft.bind(ct, kind="rfft", axes=axes, lengths=lengths, norm=norm) * weights
    return (_fit_axes(g, x.shape, axes),)


fft = Primitive(
    "fft",
    impl=_fft_impl,
    abstract_eval=_fft_abstract,
    lower=_fft_lower,
    jvp=linear_jvp,
    vjp=_fft_vjp,
    batch=batch_unary_axes("axes"),
)


# --- fftfreq: the sample frequencies of fft (real=False, n values) or rfft (real=True, n // 2 + 1) -------------
# A creation primitive (no array inputs), computed in float64 and rounded once to `dtype`.


def _fftfreq_impl(*, n, d, dtype, real):
    out = np.fft.rfftfreq(n, d) if real else np.fft.fftfreq(n, d)
    return out.astype(dtype.np)


def _fftfreq_abstract(*, n, d, dtype, real):
    return ShapedArray((n // 2 + 1 if real else n,), dtype)


def _fftfreq_lower(ctx, *, n, d, dtype, real):
    J = jnp()
    out = J.fft.rfftfreq(n, d, dtype=np.float64) if real else J.fft.fftfreq(n, d, dtype=np.float64)
    return as_dtype(out, dtype)


def _fftfreq_batch(values, dims, *, axis_size, **params):
    # fftfreq has no array inputs, so vmap never batches it; the rule exists for completeness.
    return fftfreq.bind(**params), None


fftfreq = Primitive(
    "fftfreq",
    impl=_fftfreq_impl,
    abstract_eval=_fftfreq_abstract,
    lower=_fftfreq_lower,
    batch=_fftfreq_batch,
    differentiable=False,
)
