"""The records of stridex/_lax/random.py: their lowering equals their eager rule and their abstract rule, the
params are exact cache keys, the eager rule compiles once per signature, and the IR shows the calls."""

import numpy as np
import pytest

import stridex as sx
from stridex._exec import compiled
from stridex._lax import random as R
from tests.lowering_check import check_primitive_lowering

pytest.importorskip("jax")


def _args(*items):
    return R.Arguments(tuple(items))


F64 = np.dtype("float64")
KEY_ONLY = ("key",)


@pytest.mark.parametrize("name,params,extra", [
    ("normal", _args(("shape", (3, 2)), ("dtype", F64)), ()),
    ("uniform", _args(("shape", (3,)), ("dtype", np.dtype("float32")), ("maxval", R.Scalar(2.0))), ("minval",)),
    ("split", _args(("num", 3)), ()),
    ("randint", _args(("shape", (4,)), ("dtype", np.dtype("int8")), ("minval", R.Scalar(-3)),
                      ("maxval", R.Scalar(90))), ()),
    ("gamma", _args(("shape", (2,)), ("dtype", F64)), ("a",)),
])
def test_lowering_equals_eager_and_abstract(name, params, extra):
    key = sx.random.key(4)
    arrays = [sx.asarray([0.5, 1.5])[:1] if n == "minval" else sx.asarray([0.5, 3.0]) for n in extra]
    check_primitive_lowering(R.RANDOM[name], key, *arrays, rtol=0, static=params, names=("key", *extra), vmapped=())


def test_seed_record():
    check_primitive_lowering(R.RANDOM["seed"], sx.asarray(2**40 + 3), rtol=0, static=_args(), names=("seed",),
                             vmapped=())


def test_scalars_are_exact_cache_keys():
    assert R.Scalar(0.0) != R.Scalar(-0.0)
    assert R.Scalar(1) != R.Scalar(1.0) and R.Scalar(1) != R.Scalar(True)
    assert R.Scalar(float("nan")) == R.Scalar(float("nan"))
    assert _args(("minval", R.Scalar(0.0))) != _args(("minval", R.Scalar(-0.0)))
    assert hash(_args(("shape", (2,)))) == hash(_args(("shape", (2,))))
    # and so two calls that differ only in the sign of a zero bound get their own constants
    k = sx.random.key(0)
    lo = sx.random.uniform(k, (8,), minval=-0.0, maxval=0.0)
    hi = sx.random.uniform(k, (8,), minval=0.0, maxval=0.0)
    import jax

    with jax.enable_x64(True):
        jk = jax.random.key(0)
        assert np.asarray(lo).tobytes() == np.asarray(jax.random.uniform(jk, (8,), minval=-0.0, maxval=0.0)).tobytes()
        assert np.asarray(hi).tobytes() == np.asarray(jax.random.uniform(jk, (8,), minval=0.0, maxval=0.0)).tobytes()


def test_eager_compiles_once_per_signature():
    k = sx.random.key(1)
    sx.random.normal(k, (7, 5))
    before = compiled.compilations()
    for seed in range(5):
        sx.random.normal(sx.random.key(seed), (7, 5))
    assert compiled.compilations() == before  # other keys, the same signature: no new program
    sx.random.normal(k, (5, 7))
    assert compiled.compilations() == before + 1


def test_the_ir_shows_the_calls_and_vmap_levels():
    keys = sx.random.split(sx.random.key(0), 4)
    text = str(sx.make_ir(sx.vmap(lambda k: sx.random.uniform(k, (3,), maxval=2.0)))(keys))
    assert ("random_uniform[names=('key',), static=(shape=(3,), dtype=float64, minval=0.0, maxval=2.0), "
            "vmapped=((0,),)]") in text


def test_vmap_of_key_over_seeds():
    import jax

    seeds = sx.arange(5)
    with jax.enable_x64(True):
        expected = np.asarray(jax.vmap(lambda s: jax.random.key_data(jax.random.key(s)))(jax.numpy.arange(5)))
    assert np.asarray(sx.vmap(sx.random.key)(seeds)).tobytes() == expected.tobytes()
    assert np.asarray(sx.jit(sx.vmap(sx.random.key))(seeds)).tobytes() == expected.tobytes()


def test_derivative_records_have_no_derivatives():
    assert not R.random_jvp.differentiable and not R.random_vjp.differentiable
    assert R.RANDOM["gamma"].differentiable and not R.RANDOM["normal"].differentiable
