"""Values that carry a derivative cannot leave stridex as constants (issue 42): every conversion (NumPy, Python
numbers, DLPack) under every differentiating transformation, alone, under `jit` and under `vmap`, raises JAX's
error; a Python branch on a value, conversions of values that carry no derivative, and graph breaks under plain
`jit` keep working."""

from __future__ import annotations

import operator
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stridex as sx
from stridex.errors import ConcretizationError, ConcretizationTypeError, TracerArrayConversionError

DEV = os.environ.get("STRIDEX_TEST_DEVICE", "cpu:1")


@pytest.fixture(autouse=True)
def _jax_reference_in_64_bit():
    """The JAX references are computed with 64-bit types, like stridex's."""
    with jax.enable_x64(True):
        yield
HERE = os.path.basename(__file__)

# Each conversion takes a value that carries a derivative, leaves stridex with it and comes back.
CONVERSIONS = {
    "np.asarray": (lambda v: sx.asarray(np.asarray(v)), TracerArrayConversionError, "np.asarray"),
    "__array__": (lambda v: sx.asarray(v.__array__()), TracerArrayConversionError, "np.asarray"),
    "float": (lambda v: v * float(v[0]), ConcretizationTypeError, r"float\(\)"),
    "int": (lambda v: v * int(v[0]), ConcretizationTypeError, r"int\(\)"),
    "complex": (lambda v: sx.real(v * complex(v[0])), ConcretizationTypeError, r"complex\(\)"),
    "operator.index": (lambda v: v[: operator.index(v[0])], ConcretizationTypeError, "operator.index"),
    "dlpack": (lambda v: sx.from_dlpack(np.from_dlpack(v)), ConcretizationTypeError, "__dlpack__"),
}


def _apply(transform: str, f, x):
    """`transform` of `f` (vector -> vector; summed where a scalar is needed) applied at x."""
    scalar = lambda v: sx.sum(f(v))  # noqa: E731
    if transform == "grad":
        return sx.grad(scalar)(x)
    if transform == "vjp":
        out, pullback = sx.vjp(f, x)
        return pullback(sx.ones_like(out))[0]
    if transform == "jvp":
        return sx.jvp(f, (x,), (sx.ones_like(x),))[1]
    if transform == "jacfwd":
        return sx.jacfwd(f)(x)
    if transform == "jacrev":
        return sx.jacrev(f)(x)
    assert transform == "hessian"
    return sx.hessian(scalar)(x)


TRANSFORMS = ["grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian"]


@pytest.mark.parametrize("where", ["alone", "under jit", "under vmap"])
@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("conversion", list(CONVERSIONS))
def test_converting_a_value_that_carries_a_derivative_raises(conversion, transform, where):
    convert, error, name = CONVERSIONS[conversion]

    def f(v):
        w = v * 2.0
        return convert(w) + w

    x = sx.asarray([0.5, 1.5, 2.5])
    if where == "alone":
        call = lambda: _apply(transform, f, x)  # noqa: E731
    elif where == "under jit":
        call = lambda: sx.jit(lambda v: _apply(transform, f, v))(x)  # noqa: E731
    else:
        call = lambda: sx.vmap(lambda v: _apply(transform, f, v))(sx.stack([x, x + 1]))  # noqa: E731
    with pytest.raises(error) as info:
        call()
    message = str(info.value)
    assert re.search(name, message), message
    assert "carries a derivative" in message and "sx.stop_gradient" in message, message
    assert re.search(rf"{HERE}:\d+", message), message  # the user's line
    assert isinstance(info.value, TypeError) and isinstance(info.value, ConcretizationError)


def test_the_issues_examples_raise_instead_of_giving_zeros():
    a = sx.asarray([0.1, 0.2, 0.3])
    with pytest.raises(TracerArrayConversionError):
        sx.grad(lambda a: sx.sum(sx.asarray(np.sin(np.asarray(a)))))(a)
    with pytest.raises(ConcretizationTypeError):
        sx.grad(lambda a: float(a[0]) * a[1])(a)
    with pytest.raises(TracerArrayConversionError):
        sx.jit(sx.grad(lambda a: sx.sum(sx.asarray(np.asarray(a) ** 2))))(a)
    with pytest.raises(TracerArrayConversionError):
        sx.jvp(lambda a: sx.asarray(np.asarray(a) * 2), (a,), (sx.ones_like(a),))
    with pytest.raises(ConcretizationTypeError):
        sx.grad(lambda a: sx.sum(sx.from_dlpack(np.from_dlpack(a))))(a)


def test_errors_are_exported_under_jaxs_names():
    assert sx.errors.TracerArrayConversionError is TracerArrayConversionError
    assert issubclass(TracerArrayConversionError, TypeError) and issubclass(ConcretizationTypeError, TypeError)
    # (as in JAX, neither is the other's subclass; stridex's ConcretizationError is the base of both)
    assert not issubclass(TracerArrayConversionError, ConcretizationTypeError)
    assert {e.__name__ for e in (TracerArrayConversionError, ConcretizationTypeError)} == {
        jax.errors.TracerArrayConversionError.__name__, jax.errors.ConcretizationTypeError.__name__}


def test_inside_a_loop_body():
    x = sx.asarray([0.5, 1.5])

    def python_loop(v):
        total = sx.zeros(())
        for _ in range(3):
            total = total + sx.sum(sx.asarray(np.tanh(np.asarray(v))))
        return total

    def fori_loop(v):
        return sx.fori_loop(0, 3, lambda i, c: c + sx.sum(sx.asarray(np.tanh(np.asarray(v)))), sx.zeros(()))

    for f in (python_loop, fori_loop):
        for how in (sx.grad, lambda f: sx.jit(sx.grad(f))):
            with pytest.raises(TracerArrayConversionError, match=rf"{HERE}:\d+"):
                how(f)(x)
    # A loop body is traced once: its carry has no value there, derivative or not (a value from outside the loop
    # has one under jit: the graph breaks outside the loop).
    body = lambda i, c: c + sx.asarray(np.tanh(np.asarray(c)))  # noqa: E731
    with pytest.raises(TracerArrayConversionError, match="body_fun"):
        sx.jit(lambda v: sx.fori_loop(0, 3, body, v))(x)
    np.testing.assert_allclose(np.asarray(sx.jit(fori_loop)(x)), 3 * np.tanh([0.5, 1.5]).sum())


def test_inside_a_scipy_call_names_the_library_line_and_the_users():
    scipy_special = pytest.importorskip("scipy.special")
    scipy_linalg = pytest.importorskip("scipy.linalg")
    x = sx.asarray([0.5, 1.5])
    with pytest.raises(TracerArrayConversionError, match=rf"{HERE}:\d+") as info:
        sx.grad(lambda v: sx.sum(sx.asarray(scipy_special.erf(v))))(x)
    assert "np.asarray" in str(info.value)
    m = sx.asarray([[0.1, 0.2], [0.3, 0.4]])
    with pytest.raises(TracerArrayConversionError) as info:
        sx.grad(lambda a: sx.sum(sx.asarray(scipy_linalg.expm(a))))(m)
    # expm converts inside SciPy: the error names SciPy's line and the line here that called it
    assert re.search(rf"scipy.*called from .*{HERE}:\d+", str(info.value)), str(info.value)


# --- what keeps working -----------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["grad", "jit(grad)"])
def test_a_branch_on_a_value_is_differentiated_along_the_branch_taken(how):
    def f(v):
        if v[0] > 0:  # bool() of a comparison
            out = sx.sum(v ** 2)
        else:
            out = sx.sum(v ** 3)
        if sx.sum(v) * 1.0:  # bool() of a value that itself carries a derivative
            out = out * 2
        return out

    def f_jax(v):
        out = jnp.sum(v ** 2) if v[0] > 0 else jnp.sum(v ** 3)
        return out * 2 if jnp.sum(v) * 1.0 else out

    transform = sx.grad if how == "grad" else lambda f: sx.jit(sx.grad(f))
    for values in ([1.0, 2.0], [-1.0, 2.0], [-1.0, 1.0]):
        got = transform(f)(sx.asarray(values))
        np.testing.assert_allclose(np.asarray(got), np.asarray(jax.grad(f_jax)(jnp.asarray(values))), rtol=1e-12)


@pytest.mark.parametrize("how", ["grad", "jit(grad)", "vjp", "jvp", "jacfwd", "jacrev"])
def test_conversions_of_values_that_carry_no_derivative_work(how):
    """A non-differentiated argument, a stop_gradient result and an integer value leave stridex freely."""
    def f(v, scale):
        s = float(scale[0])  # not differentiated
        held = np.asarray(sx.stop_gradient(v))  # no derivative through it
        k = int(sx.argmax(v))  # an integer value
        back = sx.asarray(np.tanh(held))
        return v * s * v[k] + back

    def f_jax(v, scale):
        return v * scale[0] * v[jnp.argmax(v)] + jax.lax.stop_gradient(jnp.tanh(v))

    x, scale = sx.asarray([0.5, 1.5, 1.0]), sx.asarray([3.0])
    jx, jscale = jnp.asarray(np.asarray(x)), jnp.asarray(np.asarray(scale))
    if how in ("grad", "jit(grad)"):
        transform = sx.grad if how == "grad" else lambda g: sx.jit(sx.grad(g))
        got = transform(lambda v, s: sx.sum(f(v, s)))(x, scale)
        want = jax.grad(lambda v, s: jnp.sum(f_jax(v, s)))(jx, jscale)
    elif how == "vjp":
        got = sx.vjp(lambda v: f(v, scale), x)[1](sx.ones(3))[0]
        want = jax.vjp(lambda v: f_jax(v, jscale), jx)[1](jnp.ones(3))[0]
    elif how == "jvp":
        got = sx.jvp(lambda v: f(v, scale), (x,), (sx.ones(3),))[1]
        want = jax.jvp(lambda v: f_jax(v, jscale), (jx,), (jnp.ones(3),))[1]
    else:
        got = getattr(sx, how)(f)(x, scale)
        want = getattr(jax, how)(f_jax)(jx, jscale)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


def test_graph_breaks_under_plain_jit_still_convert():
    f = sx.jit(lambda v: sx.asarray(np.sin(np.asarray(v))) * float(v[0]) + int(v[1] > 0))
    x = sx.asarray([0.5, 1.5])
    np.testing.assert_allclose(np.asarray(f(x)), np.sin([0.5, 1.5]) * 0.5 + 1)
    # without graph breaks, JAX's errors
    with pytest.raises(TracerArrayConversionError):
        sx.jit(lambda v: sx.asarray(np.asarray(v)), graph_breaks=False)(x)
    with pytest.raises(ConcretizationTypeError, match=r"float\(\)"):
        sx.jit(lambda v: float(v[0]), graph_breaks=False)(x)


def test_vmap_raises_jaxs_errors():
    xs = sx.ones((2, 3))
    with pytest.raises(TracerArrayConversionError, match="vmap"):
        sx.vmap(lambda v: sx.asarray(np.asarray(v)))(xs)
    with pytest.raises(ConcretizationTypeError, match=r"float\(\)"):
        sx.vmap(lambda v: v * float(v[0]))(xs)


def test_under_grad_of_device_arrays():
    x = sx.asarray([0.5, 1.5], device=DEV)
    with pytest.raises(TracerArrayConversionError):
        sx.grad(lambda v: sx.sum(sx.asarray(np.asarray(v))))(x)
    with pytest.raises(ConcretizationTypeError):
        sx.jit(sx.grad(lambda v: float(v[0]) * v[1]))(x)
    g = sx.grad(lambda v: sx.sum(v * sx.asarray(np.asarray(sx.stop_gradient(v)), device=DEV)))(x)
    assert g.device == x.device
    np.testing.assert_allclose(np.asarray(g.to_device("cpu")), [0.5, 1.5])
