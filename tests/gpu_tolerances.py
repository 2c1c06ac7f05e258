"""How far XLA on a GPU may stray from NumPy, per operation: the one table tests consult, and its assertions.

Lowering and `jit` tests compare what XLA computes with what NumPy computes eagerly. On the CPU the two agree
bitwise wherever a test compares bitwise, and those tests stay bitwise there: the rows below apply only when
JAX's default backend is not "cpu". On an NVIDIA GPU, XLA generates code through LLVM's NVPTX backend, which
rounds differently from NumPy's loops in these ways (the reasons the rows cite):

- **float32 division and square root** are not correctly rounded by XLA there (PTX `div.full.f32`, within 2
  ulp; the square root: 1-ulp differences in a GPU run), so stridex computes float32 `/`, `reciprocal` and
  `sqrt` through float64 on a GPU (`stridex._exec.jax_bridge.correctly_rounded_float32`): correctly rounded, as
  the standard requires, hence exact here (sqrt checked on an H200; division's final form not yet on a GPU,
  see docs/semantics.md). complex64 division still divides float32 components (the row).
- **fused multiply-add**: XLA lets LLVM contract a multiply feeding an add into one FMA (`AllowFPOpFusion =
  Fast`), rounded once where NumPy rounds the product and the sum separately.
- **the complex modulus** is libdevice's `hypot` (`__nv_hypotf` within 3 ulp, `__nv_hypot` within 2, as CUDA's
  math API documents; an expansion max·sqrt(1 + (min/max)²) stays within the same bounds), where NumPy calls
  the C library's hypot (within 1 ulp).

Everything else these tests compare exactly is exact on a GPU too: IEEE add, subtract and multiply are
correctly rounded there (`add.rn`, `mul.rn`), float64 division and square root too; float remainder is libdevice's `fmod` (exact);
comparisons, integer and bool arithmetic, bit manipulation (copysign, nextafter, sign of a real), selects,
conversions and data movement do not round differently. So an operation without a row is compared exactly on
every backend, integer and bool results always are, and NaN positions, infinities (with their signs), zeros
(and, where a test asks, their signs) must match exactly everywhere: a row only widens the comparison of
finite nonzero values. Transcendental functions have no rows: their lowering tests compare to a relative
tolerance on every backend (XLA's approximations differ from NumPy's libm on the CPU too), which covers
libdevice's documented 1-4 ulp; so does complex division in general (see the divide row).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EPS64 = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class GpuTolerance:
    """The ulps an operation computed in each listed dtype may differ from NumPy on a GPU, and why."""

    ulps: dict[str, int]
    reason: str


GPU_TOLERANCES: dict[str, GpuTolerance] = {
    "divide": GpuTolerance(
        {"complex64": 2},
        "Smith's algorithm (XLA's and NumPy's) divides float32 components with XLA's float32 division, PTX "
        "div.full.f32, documented within 2 ulp: 2 ulp apart where its products are exact (operands with zero "
        "imaginary parts, as tests compare exactly); in general cancellation inside it leaves no per-component "
        "bound, and tests compare complex quotients to a relative tolerance on the modulus. Real float32 division "
        "goes through float64 on a GPU (correctly rounded): exact."),
    "abs": GpuTolerance(
        {"complex64": 4, "complex128": 3},
        "|z| of a complex z is libdevice's hypot (hypotf 3 ulp, hypot 2 ulp) against NumPy's C-library hypot "
        "(within 1 ulp; hypotf is computed in double, within 1/2): 3.5 -> 4 and 3 ulp. abs of a real clears the "
        "sign bit: exact."),
    "sign": GpuTolerance(
        {"complex64": 12, "complex128": 8},
        "sign(z) = z / |z| per component: the modulus's error (the abs row) reaches the quotient as the same relative "
        "error, which is up to twice as many ulps of the quotient (an ulp is 1/2 to 1 eps of its value), plus each "
        "side's division: float32 div.full (2) against NumPy's (1/2), float64 1/2 + 1/2. complex64: 2*4 + 2.5 -> "
        "12; complex128: 2*3 + 1 -> 8. sign of a real is a select: exact."),
    "linspace": GpuTolerance(
        {"float32": 1},
        "start + i * step is computed in float64 and rounded once to the output dtype; on a GPU the multiply and the "
        "add fuse into one FMA, half a float64 ulp of i * step apart from NumPy's two roundings. Unless start and "
        "i * step nearly cancel (by 2**-28), that is far below a float32 ulp of the result: a float32 value moves by "
        "at most 1 ulp, when the float64 value sits at a float32 rounding boundary. float64 results: exact in the "
        "tested ranges (steps exact in binary, or one value)."),
}


@dataclass(frozen=True)
class ProgramTolerance:
    """How closely a float64 program compiled by `jit` follows the same program run eagerly on NumPy.

    `rtol` is `eps_factor` float64 epsilons relative to each value, on every backend. On a GPU an absolute
    `eps_factor` epsilons of the program's `scale` (the magnitude of its largest intermediate terms, which the
    caller states) is allowed on top: there a multiply feeding an add or subtract fuses into one FMA, whose error
    is relative to the product's magnitude, not the sum's, so where terms cancel the relative error of the result
    is unbounded while the absolute error stays a few ulp of the terms.
    """

    eps_factor: int
    reason: str

    def kwargs(self, scale: float = 1.0, backend: str = "cpu") -> dict:
        """rtol and atol for np.testing.assert_allclose of a program XLA ran on `backend`: "cpu" for a program
        on host arrays, which `jit` runs on JAX's CPU device whatever JAX's default ("gpu" for GPU arrays)."""
        tol = self.eps_factor * EPS64
        return {"rtol": tol, "atol": 0.0 if on_cpu(backend) else tol * scale}


JIT_OF_DERIVATIVES = ProgramTolerance(
    512,
    "A derivative program runs tens of rounded operations; XLA evaluates them in its own order and fuses them, "
    "each rounding up to an ulp or two apart from NumPy's (libdevice's float64 transcendentals: 1-2 ulp), so the "
    "results agree to a few hundred epsilons relative (2**9 eps = 1.1e-13). On a GPU, FMAs add error relative to "
    "the terms (see ProgramTolerance).")


def on_cpu(backend: str | None = None) -> bool:
    """Whether XLA runs on the CPU: `backend` when given (tests of this module force one), else JAX's default."""
    if backend is None:
        import jax  # here, not at the top: a test module that never compares against JAX never imports it

        backend = jax.default_backend()
    return backend == "cpu"


def allowed_ulps(op: str, dtype, backend: str | None = None) -> int:
    """The ulps `op` computed in `dtype` may differ from NumPy on the backend: 0 on the CPU and without a row."""
    if on_cpu(backend) or op not in GPU_TOLERANCES:
        return 0
    return GPU_TOLERANCES[op].ulps.get(np.dtype(dtype).name, 0)


def computed_in(in_dtypes, out_dtype) -> np.dtype:
    """The dtype an operation computes in: its array operands' and its result's common dtype.

    For most operations that is the result's dtype; abs of a complex array computes in the complex dtype though
    its result is real, and divide of integers in the float dtype of its result.
    """
    return np.result_type(*in_dtypes, out_dtype)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How many representable values of their (real floating) dtype lie between `got` and `want`, elementwise.

    Counted through zero (the distance from -tiny to +tiny is 2); +0 and -0 are 0 apart. For finite values.
    """
    assert got.dtype == want.dtype and got.dtype.kind == "f", (got.dtype, want.dtype)
    unsigned = {4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    sign = np.uint64(1) << np.uint64(8 * got.dtype.itemsize - 1)
    g = np.ascontiguousarray(got).view(unsigned).astype(np.uint64)
    w = np.ascontiguousarray(want).view(unsigned).astype(np.uint64)
    g_magnitude, w_magnitude = g & ~sign, w & ~sign
    same_sign = (g & sign) == (w & sign)
    apart = np.maximum(g_magnitude, w_magnitude) - np.minimum(g_magnitude, w_magnitude)
    return np.where(same_sign, apart, g_magnitude + w_magnitude)  # magnitudes < 2**63: the sum fits


def _components(got: np.ndarray, want: np.ndarray):
    if want.dtype.kind == "c":
        return [(got.real, want.real, "real part"), (got.imag, want.imag, "imaginary part")]
    return [(got, want, "values")]


def _check_real(got, want, ulps: int, signed_zeros: bool, what: str) -> None:
    """Special values exactly where `want` has them; every other value within `ulps` ulps (0: bitwise)."""
    got, want = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), f"{what}: NaN at {np.flatnonzero(np.isnan(got) != nan)}, " \
        f"got {got[np.isnan(got) != nan]}, expected {want[np.isnan(got) != nan]}"
    special = np.isinf(want) | (want == 0)
    exact = ~nan & (special | np.isinf(got) | (got == 0))
    wrong = exact & ((got != want) | (signed_zeros & (np.signbit(got) != np.signbit(want))))
    assert not wrong.any(), f"{what}: special values differ at {np.flatnonzero(wrong)}: got {got[wrong]}, " \
        f"expected {want[wrong]}"
    rest = ~nan & ~exact
    distance = ulp_distance(got[rest], want[rest])
    far = distance > ulps
    assert not far.any(), f"{what}: {int(far.sum())} values more than {ulps} ulp apart: got {got[rest][far]}, " \
        f"expected {want[rest][far]} ({distance[far]} ulp)"


def assert_lowering_equal(got, want, op: str, *, dtype=None, signed_zeros: bool = True,
                          backend: str | None = None, err_msg: str = "") -> None:
    """A JAX result `got` equals NumPy's `want`: dtype and shape, and values bitwise on the CPU.

    On another backend, finite nonzero values of `op` computed in `dtype` (default: `want`'s) may differ by the
    ulps GPU_TOLERANCES grants; NaN positions, infinities and zeros (their signs too, unless `signed_zeros` is
    False) match exactly, and integer and bool results match exactly everywhere.
    """
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (err_msg, op, got.dtype, want.dtype)
    assert got.shape == want.shape, (err_msg, op, got.shape, want.shape)
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=f"{err_msg} {op}")
        return
    ulps = allowed_ulps(op, want.dtype if dtype is None else dtype, backend)
    for g, w, part in _components(got, want):
        _check_real(g, w, ulps, signed_zeros, f"{err_msg} {op} {part}")


def assert_lowering_close(got, want, op: str, *, rtol: float, atol: float, dtype=None,
                          backend: str | None = None, err_msg: str = "") -> None:
    """np.testing.assert_allclose(got, want, rtol, atol, equal_nan=True), the caller's tolerance for `op`.

    On another backend an element also passes where it is within GPU_TOLERANCES' ulps of `want` (per component,
    with special values exact): that widens a tolerance the GPU's rounding can exceed (an exact `rtol=0`, say).
    """
    got, want = np.asarray(got), np.asarray(want)
    ulps = allowed_ulps(op, want.dtype if dtype is None else dtype, backend)
    if ulps == 0 or want.dtype.kind not in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"{err_msg} {op}")
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (err_msg, op, got.dtype, want.dtype)
    far = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    for g, w, part in _components(got[far], want[far]):
        _check_real(g, w, ulps, False, f"{err_msg} {op} {part}, beyond rtol={rtol}, atol={atol}")
