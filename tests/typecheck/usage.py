"""Ordinary stridex code, as a user writes it: `mypy --strict` must accept every line, and each `assert_type`
must hold (tests/test_typing.py). It is checked, not run."""

from __future__ import annotations

from types import ModuleType
from typing import Any, assert_type

import stridex as sx
from stridex import Array, Device

# --- creation --------------------------------------------------------------------------------------------

x = sx.asarray([1.0, 2.0, 3.0])
m = sx.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=sx.float64)
assert_type(x, Array)
assert_type(sx.asarray(3), Array)
assert_type(sx.asarray(x, copy=True), Array)
assert_type(sx.arange(10), Array)
assert_type(sx.arange(0.0, 1.0, 0.25, dtype=sx.float32), Array)
assert_type(sx.zeros((2, 3)), Array)
assert_type(sx.ones(4, dtype=sx.int32, device="cpu"), Array)
assert_type(sx.empty((2,)), Array)
assert_type(sx.full((2, 2), 7), Array)
assert_type(sx.full_like(x, 1.5), Array)
assert_type(sx.zeros_like(x), Array)
assert_type(sx.ones_like(x), Array)
assert_type(sx.empty_like(x), Array)
assert_type(sx.eye(3, k=1), Array)
assert_type(sx.linspace(0, 1, num=5), Array)
assert_type(sx.meshgrid(x, x, indexing="ij"), tuple[Array, ...])
assert_type(sx.tril(m), Array)
assert_type(sx.triu(m, k=1), Array)
assert_type(sx.from_dlpack(x), Array)

# --- the array object: operators, reflected and in-place, comparisons, indexing -------------------------------

assert_type(x + 1.0, Array)
assert_type(1.0 + x, Array)
assert_type(x - x, Array)
assert_type(2 - x, Array)
assert_type(x * 2, Array)
assert_type(2.5 * x, Array)
assert_type(x / 3, Array)
assert_type(1 / x, Array)
assert_type(x // 2, Array)
assert_type(x % 2, Array)
assert_type(x**2, Array)
assert_type(2**x, Array)
assert_type(m @ m, Array)
assert_type(-x, Array)
assert_type(+x, Array)
assert_type(abs(x), Array)
i = sx.arange(5)
assert_type(~i, Array)
assert_type(i & 1, Array)
assert_type(1 | i, Array)
assert_type(i ^ i, Array)
assert_type(i << 1, Array)
assert_type(i >> 1, Array)
assert_type(x > 0, Array)
assert_type(0 < x, Array)
assert_type(x <= x, Array)
assert_type(x >= 1.5, Array)
assert_type(x == 1, Array)
assert_type(x != x, Array)
x += 1
x -= 1.0
x *= x
x /= 2
x **= 1
i //= 2
i %= 3
i &= 1
i |= 2
i ^= 1
i <<= 1
i >>= 1
m @= m
assert_type(x, Array)

assert_type(x[0], Array)
assert_type(x[1:], Array)
assert_type(x[...], Array)
assert_type(x[None], Array)
assert_type(m[0, 1], Array)
assert_type(m[:, None, ...], Array)
assert_type(x[x > 1], Array)
assert_type(x[sx.asarray([0, 2])], Array)
x[0] = 3.0
x[1:] = sx.zeros(2)
x[x > 2] = 0
m[..., 0] = 1

assert_type(x.shape, tuple[int, ...])
assert_type(x.ndim, int)
assert_type(x.size, int)
assert_type(x.dtype, sx.DType)
assert_type(x.device, Device)
assert_type(m.T, Array)
assert_type(m.mT, Array)
assert_type(x.to_device("cpu"), Array)
assert_type(x.to_device(x.device), Array)
assert_type(x.__array_namespace__(), ModuleType)
assert_type(x.__array_namespace__(api_version="2024.12"), ModuleType)
assert_type(x.__dlpack_device__(), tuple[int, int])
capsule: Any = x.__dlpack__(max_version=(1, 0))
assert_type(float(x[0]), float)
assert_type(int(i[0]), int)
assert_type(bool(x[0] > 1), bool)
assert_type(complex(x[0]), complex)
assert_type(len(x), int)
for row in m:
    assert_type(row, Array)
if x[0] > 0:  # an Array in a condition: its __bool__
    pass
y: Array = sx.where(x > 1, x, 0.0)

# --- every chapter --------------------------------------------------------------------------------------------

assert_type(sx.astype(x, sx.float32), Array)
assert_type(sx.can_cast(sx.int8, sx.int64), bool)
assert_type(sx.finfo(sx.float32).eps, float)
assert_type(sx.iinfo(sx.int8).max, int)
assert_type(sx.isdtype(x.dtype, ("real floating", sx.complex64)), bool)
assert_type(sx.result_type(x, 1.0, sx.float32), sx.DType)

assert_type(sx.sin(x), Array)
assert_type(sx.exp(x), Array)
assert_type(sx.add(x, 1), Array)
assert_type(sx.add(1.0, x), Array)
assert_type(sx.pow(x, 2), Array)
assert_type(sx.atan2(x, 1.0), Array)
assert_type(sx.equal(x, True), Array)
assert_type(sx.bitwise_and(i, True), Array)
assert_type(sx.bitwise_left_shift(i, 2), Array)
assert_type(sx.logical_and(x > 0, True), Array)
assert_type(sx.clip(x, 0.0, 1.0), Array)
assert_type(sx.clip(x, max=x), Array)
assert_type(sx.nextafter(x, 2.0), Array)
assert_type(sx.round(x), Array)

assert_type(sx.take(x, sx.asarray([0, 1]), axis=0), Array)
assert_type(sx.take_along_axis(m, sx.asarray([[0], [1]]), axis=1), Array)

assert_type(sx.matmul(m, m), Array)
assert_type(sx.matrix_transpose(m), Array)
assert_type(sx.tensordot(m, m, axes=([1], [0])), Array)
assert_type(sx.vecdot(x, x), Array)

assert_type(sx.reshape(x, (3, 1)), Array)
assert_type(sx.permute_dims(m, (1, 0)), Array)
assert_type(sx.broadcast_to(x, (2, 3)), Array)
assert_type(sx.broadcast_arrays(x, x), tuple[Array, ...])
assert_type(sx.broadcast_shapes((2, 1), (3,)), tuple[int, ...])
assert_type(sx.concat([x, x]), Array)
assert_type(sx.concat((x, x), axis=None), Array)
assert_type(sx.stack([x, x], axis=1), Array)
assert_type(sx.expand_dims(x, axis=0), Array)
assert_type(sx.squeeze(sx.expand_dims(x, axis=0), axis=0), Array)
assert_type(sx.flip(x), Array)
assert_type(sx.moveaxis(m, 0, 1), Array)
assert_type(sx.repeat(x, 2), Array)
assert_type(sx.roll(x, 1), Array)
assert_type(sx.tile(x, (2,)), Array)
assert_type(sx.unstack(m), tuple[Array, ...])

assert_type(sx.argmax(x), Array)
assert_type(sx.argmin(x, axis=0, keepdims=True), Array)
assert_type(sx.count_nonzero(x), Array)
assert_type(sx.nonzero(x), tuple[Array, ...])
assert_type(sx.searchsorted(x, 2.0, side="right"), Array)

values, counts = sx.unique_counts(x)
assert_type(values, Array)
assert_type(sx.unique_all(x).indices, Array)
assert_type(sx.unique_inverse(x).inverse_indices, Array)
assert_type(sx.unique_values(x), Array)
assert_type(sx.isin(i, 3), Array)

assert_type(sx.sort(x, descending=True), Array)
assert_type(sx.argsort(x, stable=False), Array)

assert_type(sx.sum(x), Array)
assert_type(sx.sum(m, axis=(0, 1), dtype=sx.float32), Array)
assert_type(sx.prod(x, keepdims=True), Array)
assert_type(sx.max(x), Array)
assert_type(sx.min(x, axis=0), Array)
assert_type(sx.mean(x), Array)
assert_type(sx.var(x, correction=1), Array)
assert_type(sx.std(x, correction=0.5), Array)
assert_type(sx.cumulative_sum(x, include_initial=True), Array)
assert_type(sx.cumulative_prod(x), Array)

assert_type(sx.all(x > 0), Array)
assert_type(sx.any(x > 0, axis=0), Array)
assert_type(sx.diff(x, prepend=x), Array)

assert_type(sx.e, float)
assert_type(sx.pi, float)
assert_type(sx.inf, float)
assert_type(sx.nan, float)
assert_type(sx.newaxis, None)
assert_type(sx.__array_api_version__, str)

# --- linalg and fft --------------------------------------------------------------------------------------------

assert_type(sx.linalg.det(m), Array)
assert_type(sx.linalg.inv(m), Array)
assert_type(sx.linalg.cholesky(sx.asarray([[2.0, 1.0], [1.0, 2.0]]), upper=True), Array)
assert_type(sx.linalg.solve(m, x[:2]), Array)
assert_type(sx.linalg.eigh(m).eigenvectors, Array)
w, v = sx.linalg.eigh(m)
assert_type(w, Array)
assert_type(sx.linalg.eig(m).eigenvalues, Array)
assert_type(sx.linalg.eigvals(m), Array)
assert_type(sx.linalg.eigvalsh(m), Array)
q, r = sx.linalg.qr(m, mode="complete")
assert_type(q, Array)
assert_type(sx.linalg.svd(m, full_matrices=False).S, Array)
assert_type(sx.linalg.svdvals(m), Array)
assert_type(sx.linalg.slogdet(m).logabsdet, Array)
assert_type(sx.linalg.matrix_norm(m, ord="nuc"), Array)
assert_type(sx.linalg.matrix_norm(m, ord=2, keepdims=True), Array)
assert_type(sx.linalg.vector_norm(x, ord=sx.inf, axis=0), Array)
assert_type(sx.linalg.matrix_rank(m, rtol=1e-6), Array)
assert_type(sx.linalg.pinv(m), Array)
assert_type(sx.linalg.matrix_power(m, 3), Array)
assert_type(sx.linalg.outer(x, x), Array)
assert_type(sx.linalg.cross(x, x), Array)
assert_type(sx.linalg.trace(m, offset=0, dtype=sx.float64), Array)
assert_type(sx.linalg.diagonal(m), Array)
assert_type(sx.linalg.matmul(m, m), Array)
assert_type(sx.linalg.tensordot(m, m), Array)
assert_type(sx.linalg.vecdot(x, x), Array)
assert_type(sx.linalg.matrix_transpose(m), Array)

c = sx.astype(x, sx.complex128)
assert_type(sx.fft.fft(c, n=4, norm="ortho"), Array)
assert_type(sx.fft.ifft(c, axis=-1), Array)
assert_type(sx.fft.fftn(c, s=[4], axes=[0]), Array)
assert_type(sx.fft.ifftn(c), Array)
assert_type(sx.fft.rfft(x), Array)
assert_type(sx.fft.irfft(c, norm="forward"), Array)
assert_type(sx.fft.rfftn(x), Array)
assert_type(sx.fft.irfftn(c), Array)
assert_type(sx.fft.hfft(c), Array)
assert_type(sx.fft.ihfft(x), Array)
assert_type(sx.fft.fftfreq(8, d=0.1), Array)
assert_type(sx.fft.rfftfreq(8, dtype=sx.float32), Array)
assert_type(sx.fft.fftshift(x), Array)
assert_type(sx.fft.ifftshift(x, axes=0), Array)

# --- inspection -------------------------------------------------------------------------------------------------

info = sx.__array_namespace_info__()
assert_type(info.default_device(), Device)
assert_type(info.devices(), tuple[Device, ...])
assert_type(info.dtypes(kind="real floating"), dict[str, sx.DType])
assert_type(info.default_dtypes(device="cpu")["indexing"], sx.DType)
assert_type(info.capabilities(), dict[str, bool | int | None])

# --- transformations --------------------------------------------------------------------------------------------


def loss(w: Array, b: float) -> Array:
    return sx.sum(w * w) + b


jitted = sx.jit(loss)
assert_type(jitted(x, 1.0), Array)
jitted_static = sx.jit(loss, static_argnums=1, donate_argnums=())
assert_type(jitted_static(x, b=2.0), Array)


@sx.jit
def step(w: Array) -> tuple[Array, Array]:
    return w * 2, sx.sum(w)


twice, total = step(x)
assert_type(twice, Array)


@sx.jit(static_argnames="n")
def power(w: Array, n: int) -> Array:
    return w**n


assert_type(power(x, n=3), Array)
assert_type(jitted.lower(x, 1.0).as_text(), str)
program = sx.make_ir(loss)(x, 1.0)
assert_type(str(program), str)

g = sx.grad(loss)
gx: Array = g(x, 1.0)
value, grads = sx.value_and_grad(loss, argnums=(0,))(x, 1.0)
out, pullback = sx.vjp(sx.sin, x)
assert_type(out, Array)
cotangents = pullback(sx.ones_like(x))
assert_type(cotangents, tuple[Any, ...])
primal_out, tangent_out = sx.jvp(sx.sin, (x,), (sx.ones_like(x),))
assert_type(tangent_out, Array)
jac: Array = sx.jacfwd(sx.sin)(x)
jac = sx.jacrev(sx.sin)(x)
hess: Array = sx.hessian(loss)(x, 0.0)
batched = sx.vmap(sx.sin)
assert_type(batched(m), Array)
assert_type(sx.vmap(loss, in_axes=(0, None))(m, 1.0), Array)

# structured control flow, custom rules, checkpointing, pytrees
assert_type(sx.cond(x[0] > 0, sx.sin, sx.cos, x), Array)
assert_type(sx.switch(1, [sx.sin, sx.cos], x), Array)
assert_type(sx.while_loop(lambda c: c[0] < 10.0, lambda c: c + 1.0, x), Array)
assert_type(sx.fori_loop(0, 3, lambda i, c: c + 1.0, x), Array)


def scan_step(c: Array, v: Array) -> tuple[Array, Array]:
    return c * v, c


carry, ys = sx.scan(scan_step, x[0], x)
assert_type(carry, Array)
assert_type(ys, Array)


@sx.custom_jvp
def softplus(v: Array) -> Array:
    return sx.log1p(sx.exp(v))


@softplus.defjvp
def softplus_jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
    return softplus(primals[0]), tangents[0] / (1.0 + sx.exp(-primals[0]))


assert_type(softplus(x), Array)
assert_type(sx.checkpoint(loss)(x, 1.0), Array)
leaves, treedef = sx.tree_util.tree_flatten({"a": x, "b": (x, 1.0)})
assert_type(leaves, list[Any])

with sx.default_device("cpu") as device:
    assert_type(device, Device)
with sx.matmul_precision("highest"):
    assert_type(sx.get_matmul_precision(), str | None)
previous = sx.set_matmul_precision(None)
assert_type(previous, str | None)

# --- code generic over the namespace ---------------------------------------------------------------------------


def normalize(a: Array) -> Array:
    xp = a.__array_namespace__()
    result: Array = a / xp.sqrt(xp.sum(a * a))
    return result
