"""stridex.numpy's dtypes: the names (stridex's own dtype objects, callable as JAX's scalar types), dtype-likes,
JAX's promotion lattice (every pair, with weak Python scalars) against jax.numpy, `issubdtype` over NumPy's
hierarchy, `finfo`/`iinfo`, and the errors for what stridex has no dtype for."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
import stridex.numpy as snp
from tests.numpy.helpers import jnp, x64

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
         "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("a", NAMES)
def test_promote_types_is_jaxs_lattice(a):
    with x64():
        for b in NAMES + [int, float, complex]:
            want = str(jnp.promote_types(a, b))
            assert str(snp.promote_types(a, b)) == want, (a, b)
            assert str(snp.promote_types(b, a)) == want, (b, a)


@pytest.mark.parametrize("a", NAMES)
def test_result_type_with_weak_scalars_is_jaxs(a):
    with x64():
        x, y = jnp.ones(2, a), snp.ones(2, dtype=a)
        for scalar in (True, 2, 2.5, 1j):
            assert str(snp.result_type(y, scalar)) == str(jnp.result_type(x, scalar)), (a, scalar)
            assert str(snp.result_type(scalar, y)) == str(jnp.result_type(scalar, x)), (a, scalar)
    assert snp.result_type(1, 2.0) is snp.float64 and snp.result_type(True) is snp.bool


def test_the_names_are_stridexs_dtypes_and_make_arrays():
    assert snp.float32 is sx.float32 and snp.float_ is sx.float64 and snp.int_ is sx.int64 and snp.uint is sx.uint64
    assert snp.complex_ is sx.complex128 and snp.single is sx.float32 and snp.csingle is sx.complex64
    assert snp.ones(2, dtype=snp.float32).dtype == snp.float32
    x = snp.float32(0.5)
    assert isinstance(x, snp.ndarray) and x.dtype == snp.float32 and x.shape == ()
    np.testing.assert_array_equal(np.asarray(snp.int8([1.7, -2.2])), [1, -2])
    assert snp.bfloat16(1.0).dtype == snp.bfloat16
    with x64():
        assert str(snp.uint8(3).dtype) == str(jnp.uint8(3).dtype)


@pytest.mark.parametrize("like", ["float32", np.float32, np.dtype("float32"), sx.float32, jnp.float32])
def test_dtype_likes(like):
    assert snp.dtype(like) is snp.float32
    assert snp.zeros(2, like).dtype is snp.float32
    assert snp.astype(snp.ones(2), like).dtype is snp.float32


def test_dtype_is_a_class_of_stridex_dtypes():
    assert isinstance(snp.float64, snp.dtype) and not isinstance(np.dtype("float64"), snp.dtype)
    assert snp.dtype(float) is snp.float64 and snp.dtype(bool) is snp.bool and snp.dtype("bfloat16") is snp.bfloat16
    assert snp.dtype("int8").itemsize == 1


@pytest.mark.parametrize("bad", ["float8_e4m3fn", "object", "U5", np.str_, np.floating, "no such type"])
def test_dtypes_stridex_does_not_have_are_type_errors(bad):
    with pytest.raises(TypeError, match="not a dtype stridex has"):
        snp.dtype(bad)
    with pytest.raises(TypeError, match="not a dtype stridex has"):
        snp.zeros(2, bad)


ABSTRACT = ["generic", "number", "inexact", "floating", "complexfloating", "integer", "signedinteger",
            "unsignedinteger", "character", "flexible"]


@pytest.mark.parametrize("a", NAMES)
def test_issubdtype_is_jaxs(a):
    for b in ABSTRACT + NAMES:
        want = jnp.issubdtype(a, getattr(jnp, b) if b in ABSTRACT else b)
        assert snp.issubdtype(a, getattr(snp, b) if b in ABSTRACT else b) == want, (a, b)
        assert snp.issubdtype(getattr(snp, a), getattr(snp, b)) == want, (a, b)
    x = snp.ones(2, dtype=a)
    assert snp.issubdtype(x.dtype, snp.floating) == jnp.issubdtype(a, jnp.floating)


@pytest.mark.parametrize("a", ["bfloat16", "float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_is_numpys_as_in_jax(a):
    mine, theirs = snp.finfo(a), jnp.finfo(a)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert float(getattr(mine, field)) == float(getattr(theirs, field)), (a, field)
    assert float(snp.finfo(snp.ones(1, dtype=a)).eps) == float(theirs.eps)
    with pytest.raises(ValueError, match="not inexact"):
        snp.finfo("int8")


@pytest.mark.parametrize("a", ["int8", "uint8", "int32", "uint64"])
def test_iinfo(a):
    assert int(snp.iinfo(a).min) == int(jnp.iinfo(a).min) and int(snp.iinfo(a).max) == int(jnp.iinfo(a).max)
    with pytest.raises(ValueError, match="invalid integer"):
        snp.iinfo("float32")


def test_can_cast_and_isdtype_take_dtype_likes():
    assert snp.can_cast(snp.ones(1, dtype="int8"), "int16")
    assert not snp.can_cast("float64", "float32")
    assert snp.isdtype(np.int8, "signed integer") and snp.isdtype("bfloat16", "real floating")
    assert snp.isdtype(snp.float32, (snp.float64, "real floating"))
    with pytest.raises(ValueError, match="unknown kind"):
        snp.isdtype("int8", "integer")


def test_array_likes_are_taken_as_jax_numpy_takes_them():
    # Python scalars and NumPy arrays (and scalars) are taken; lists are not (jax.numpy's rule), except by the
    # constructors, and the message says what to do.
    assert snp.sin(0.5).dtype == snp.float64 and snp.sum(np.arange(4)).dtype == snp.int64
    assert snp.add(np.float32(1), np.ones(2, np.float32)).dtype == snp.float32
    with pytest.raises(TypeError, match="sum requires ndarray or scalar arguments, got list at position 0"):
        snp.sum([1, 2])
    with pytest.raises(TypeError, match="asarray"):
        snp.sin([0.5])
    assert snp.asarray([1, 2]).dtype == snp.int64 and snp.array([[1.0], [2]]).shape == (2, 1)


def test_array_of_arrays_stacks_with_jaxs_dtype():
    x = snp.ones(2, dtype=snp.float32)
    with pytest.raises(ValueError, match="different shapes"):
        snp.array([x, 1.0])
    assert snp.array([x, x * 2]).dtype == snp.float32
    assert snp.array([snp.float32(1), 2.0]).dtype == snp.float32
    assert snp.array([snp.float32(1), np.float64(2)]).dtype == snp.float64
    assert snp.array([[x], [x]]).shape == (2, 1, 2)
