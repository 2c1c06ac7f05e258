"""stridex.random against jax.random, bit for bit: eagerly on the host and on a JAX device (cpu:1), under jit,
vmap over split keys, fori_loop and scan bodies that split keys, and grad (reparameterised samples and the
samplers' own parameters). JAX runs with 64-bit types on, as stridex's lowering does; explicit 32- and
16-bit dtypes are also compared with JAX's default mode."""

import threading

import numpy as np
import pytest

import stridex as sx

jax = pytest.importorskip("jax")
jnp = jax.numpy
jr = jax.random

DEV = "cpu:1"


def jkey(seed=0):
    """JAX's key (typed) for `seed`, made with 64-bit types on."""
    with jax.enable_x64(True):
        return jr.key(seed)


def jdata(k):
    return np.asarray(jr.key_data(k))


def as_jax_key(k):
    """The JAX typed key of a stridex key."""
    return jr.wrap_key_data(jnp.asarray(np.asarray(k)))


def same(x, expected):
    """Bit for bit: dtype, shape and every value (NaNs in place)."""
    got = np.asarray(x.to_device("cpu") if isinstance(x, sx.Array) else x)
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.tobytes() == expected.tobytes(), (got, expected)


def jax_x64(fn, *args, **kwargs):
    with jax.enable_x64(True):
        return np.asarray(fn(*args, **kwargs))


# Each case: (stridex call, JAX call), both given (random module, key, array namespace converter).
P = np.array([0.1, 0.5, 0.9])
LOGITS = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
COV = np.array([[2.0, 0.3], [0.3, 1.0]])
CASES = {
    "uniform": lambda r, k, a: r.uniform(k, (5,)),
    "uniform_bounds": lambda r, k, a: r.uniform(k, (2, 3), minval=-2.0, maxval=a(np.array([1.0, 2.0, 3.0]))),
    "normal": lambda r, k, a: r.normal(k, (4, 3)),
    "normal_scalar": lambda r, k, a: r.normal(k),
    "bernoulli": lambda r, k, a: r.bernoulli(k, 0.3, (7,)),
    "bernoulli_array": lambda r, k, a: r.bernoulli(k, a(P)),
    "randint": lambda r, k, a: r.randint(k, (6,), 0, 10),
    "randint_int8": lambda r, k, a: r.randint(k, (6,), -5, 100, dtype=np.int8 if a is jnp.asarray else sx.int8),
    "randint_array": lambda r, k, a: r.randint(k, (2, 3), a(np.array([0, 10, 20])), 40),
    "choice_int": lambda r, k, a: r.choice(k, 10, (4,)),
    "choice_no_replace": lambda r, k, a: r.choice(k, 10, (4,), replace=False),
    "choice_p": lambda r, k, a: r.choice(k, 3, (5,), p=a(P / P.sum())),
    "choice_p_no_replace": lambda r, k, a: r.choice(k, 3, (2,), replace=False, p=a(P / P.sum())),
    "choice_array_axis1": lambda r, k, a: r.choice(k, a(np.arange(12.0).reshape(3, 4)), (2, 2), axis=1),
    "choice_array_no_replace": lambda r, k, a: r.choice(k, a(np.arange(12.0).reshape(4, 3)), (3,), replace=False),
    "permutation_int": lambda r, k, a: r.permutation(k, 8),
    "permutation_array": lambda r, k, a: r.permutation(k, a(np.arange(10.0) * 1.5)),
    "permutation_axis1": lambda r, k, a: r.permutation(k, a(np.arange(12.0).reshape(3, 4)), axis=1),
    "permutation_independent": lambda r, k, a: r.permutation(k, a(np.arange(12.0).reshape(3, 4)), axis=1,
                                                              independent=True),
    "categorical": lambda r, k, a: r.categorical(k, a(LOGITS)),
    "categorical_shape": lambda r, k, a: r.categorical(k, a(LOGITS), axis=-1, shape=(4, 2)),
    "categorical_no_replace": lambda r, k, a: r.categorical(k, a(LOGITS[0]), shape=(2,), replace=False),
    "truncated_normal": lambda r, k, a: r.truncated_normal(k, -1.0, 2.0, (6,)),
    "truncated_normal_arrays": lambda r, k, a: r.truncated_normal(k, a(np.array([-1.0, 0.0])), 1.5),
    "exponential": lambda r, k, a: r.exponential(k, (5,)),
    "gumbel": lambda r, k, a: r.gumbel(k, (5,)),
    "gamma": lambda r, k, a: r.gamma(k, a(np.array([0.5, 1.0, 3.0])), (2, 3)),
    "beta": lambda r, k, a: r.beta(k, 2.0, a(np.array([0.5, 3.0])), (4, 2)),
    "dirichlet": lambda r, k, a: r.dirichlet(k, a(np.array([1.0, 2.0, 0.5])), (3,)),
    "multivariate_normal": lambda r, k, a: r.multivariate_normal(k, a(np.array([1.0, -1.0])), a(COV), (4,)),
    "multivariate_normal_eigh": lambda r, k, a: r.multivariate_normal(k, a(np.zeros(2)), a(COV), method="eigh"),
    "laplace": lambda r, k, a: r.laplace(k, (5,)),
    "logistic": lambda r, k, a: r.logistic(k, (5,)),
    "poisson": lambda r, k, a: r.poisson(k, 3.5, (6,)),
    "poisson_array": lambda r, k, a: r.poisson(k, a(np.array([0.5, 20.0, 200.0]))),
}


def reference(case, seed=3):
    """JAX's result for `case` (64-bit types on)."""
    with jax.enable_x64(True):
        return np.asarray(CASES[case](jr, jr.key(seed), jnp.asarray))


def ours(case, key, device=None):
    return CASES[case](sx.random, key, lambda x: sx.asarray(x, device=device))


# --- keys -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 42, 2**31 - 1, 2**31, 2**40 + 5, -1, -(2**63), 2**63 - 1])
def test_key_and_prngkey_are_jax_key_data(seed):
    for make in (sx.random.key, sx.random.PRNGKey):
        k = make(seed)
        assert k.dtype == sx.uint32 and k.shape == (2,)
        same(k, jax_x64(lambda: jr.key_data(jr.key(seed))))
        same(k, jax_x64(lambda: jr.PRNGKey(seed)))


def test_key_from_integer_arrays_keeps_their_dtype():
    same(sx.random.key(sx.asarray(7, dtype=sx.int32)), jdata(jr.key(jnp.int32(7))))
    same(sx.random.key(sx.asarray(-3, dtype=sx.int64)), jax_x64(lambda: jr.key_data(jr.key(jnp.int64(-3)))))


@pytest.mark.parametrize("num", [2, 3, (2, 3), 1])
def test_split(num):
    same(sx.random.split(sx.random.key(5), num), jdata(jr.split(jkey(5), num)))


def test_split_default_and_unpacking():
    k1, k2 = sx.random.split(sx.random.key(0))
    j1, j2 = jr.split(jkey(0))
    same(k1, jdata(j1))
    same(k2, jdata(j2))


@pytest.mark.parametrize("data", [0, 7, 2**32 - 1])
def test_fold_in(data):
    same(sx.random.fold_in(sx.random.key(1), data), jdata(jr.fold_in(jkey(1), data)))


def test_fold_in_array_data():
    d = np.array(12345, dtype=np.uint32)
    same(sx.random.fold_in(sx.random.key(1), sx.asarray(d)), jdata(jr.fold_in(jkey(1), jnp.asarray(d))))


def test_key_data_and_wrap_key_data_are_the_key():
    k = sx.random.split(sx.random.key(0), 4)
    assert sx.random.key_data(k) is k
    data = sx.asarray([11, 22], dtype=sx.uint32)
    assert sx.random.wrap_key_data(data) is data
    same(sx.random.normal(sx.random.wrap_key_data(data), (3,)),
         jax_x64(lambda: jr.normal(jr.wrap_key_data(jnp.asarray([11, 22], dtype=jnp.uint32)), (3,))))


# --- every sampler, each mode ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_eager_on_the_host(case):
    same(ours(case, sx.random.key(3)), reference(case))


@pytest.mark.parametrize("case", sorted(CASES))
def test_eager_on_a_device(case):
    k = sx.random.key(3).to_device(DEV)
    out = ours(case, k, DEV)
    assert out.device.name == DEV
    same(out, reference(case))


@pytest.mark.parametrize("case", sorted(CASES))
def test_under_jit(case):
    f = sx.jit(lambda k: ours(case, k))
    same(f(sx.random.key(3)), reference(case))
    same(f(sx.random.key(4)), reference(case, seed=4))  # the compiled program, another key


def test_keys_under_jit():
    f = sx.jit(lambda seed: sx.random.split(sx.random.fold_in(sx.random.key(seed), 3), 3))
    with jax.enable_x64(True):
        expected = np.asarray(jr.key_data(jr.split(jr.fold_in(jr.key(jnp.int64(9)), 3), 3)))
    same(f(sx.asarray(9)), expected)


@pytest.mark.parametrize("name", ["uniform", "normal", "exponential", "gumbel", "laplace", "logistic"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_explicit_dtypes(name, dtype):
    k = sx.random.key(11)
    out = getattr(sx.random, name)(k, (64,), dtype=getattr(sx, dtype))
    assert out.dtype == getattr(sx, dtype)
    with jax.enable_x64(True):
        expected = getattr(jr, name)(jr.key(11), (64,), dtype=getattr(jnp, dtype))
    same(out, expected)
    if dtype != "float64":  # JAX's default 32-bit mode gives the same bits for a dtype it has
        same(out, getattr(jr, name)(jr.key(11), (64,), dtype=getattr(jnp, dtype)))
    same(sx.jit(lambda k: getattr(sx.random, name)(k, (64,), dtype=getattr(sx, dtype)))(k), expected)


def test_default_dtypes_are_stridex_defaults():
    k = sx.random.key(0)
    assert sx.random.normal(k).dtype == sx.float64
    assert sx.random.uniform(k).dtype == sx.float64
    assert sx.random.randint(k, (), 0, 3).dtype == sx.int64
    assert sx.random.poisson(k, 2.0).dtype == sx.int64
    assert sx.random.permutation(k, 3).dtype == sx.int64
    assert sx.random.bernoulli(k).dtype == sx.bool


def test_float32_parameters_sample_in_float32_as_in_jax():
    p = np.array([0.25, 0.75], dtype=np.float32)
    same(sx.random.bernoulli(sx.random.key(2), sx.asarray(p), (3, 2)),
         jax_x64(lambda: jr.bernoulli(jr.key(2), jnp.asarray(p), (3, 2))))


# --- vmap, loops, grad ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["normal", "uniform_bounds", "randint", "choice_p", "gamma", "permutation_array",
                                  "multivariate_normal", "categorical", "poisson_array", "beta"])
def test_vmap_over_split_keys_equals_a_loop_and_jax_vmap(case):
    keys = sx.random.split(sx.random.key(8), 5)
    batched = sx.vmap(lambda k: ours(case, k))(keys)
    loop = sx.stack([ours(case, keys[i]) for i in range(5)])
    same(batched, np.asarray(loop))
    with jax.enable_x64(True):
        expected = np.asarray(jax.vmap(lambda k: CASES[case](jr, k, jnp.asarray))(jr.split(jr.key(8), 5)))
    same(batched, expected)
    same(sx.jit(sx.vmap(lambda k: ours(case, k)))(keys), expected)


def test_vmap_of_split_and_nested_vmap():
    keys = sx.random.split(sx.random.key(1), 3)
    grid = sx.vmap(lambda k: sx.random.split(k, 4))(keys)
    same(grid, jdata(jax.vmap(lambda k: jr.split(k, 4))(jr.split(jkey(1), 3))))
    nested = sx.vmap(sx.vmap(lambda k: sx.random.normal(k, (2,))))(grid)
    with jax.enable_x64(True):
        expected = jax.vmap(jax.vmap(lambda k: jr.normal(k, (2,))))(jax.vmap(lambda k: jr.split(k, 4))(
            jr.split(jr.key(1), 3)))
    same(nested, expected)


def test_vmap_over_parameters_with_one_key():
    k = sx.random.key(4)
    mins = sx.asarray([0.0, 1.0, 2.0])
    out = sx.vmap(lambda m: sx.random.uniform(k, (2,), minval=m, maxval=m + 1.0))(mins)
    with jax.enable_x64(True):
        expected = jax.vmap(lambda m: jr.uniform(jr.key(4), (2,), minval=m, maxval=m + 1.0))(
            jnp.asarray([0.0, 1.0, 2.0]))
    same(out, expected)


def _jax_walk(key, n):
    def body(i, carry):
        key, total = carry
        key, sub = jr.split(key)
        return key, total + jr.normal(sub, (3,))

    return jax.lax.fori_loop(0, n, body, (key, jnp.zeros(3)))


def test_fori_loop_splitting_keys():
    def body(i, carry):
        key, total = carry
        key, sub = sx.random.split(key)
        return key, total + sx.random.normal(sub, (3,))

    start = (sx.random.key(6), sx.zeros(3))
    with jax.enable_x64(True):
        jk, jtotal = _jax_walk(jr.key(6), 5)
        jk, jtotal = jdata(jk), np.asarray(jtotal)
    for run in (lambda: sx.fori_loop(0, 5, body, start), sx.jit(lambda: sx.fori_loop(0, 5, body, start))):
        k, total = run()
        same(k, jk)
        np.testing.assert_allclose(np.asarray(total), jtotal, rtol=1e-15)  # (sums: XLA may reassociate)


def test_scan_splitting_keys():
    def step(key, _):
        key, sub = sx.random.split(key)
        return key, sx.random.uniform(sub, (2,))

    def jstep(key, _):
        key, sub = jr.split(key)
        return key, jr.uniform(sub, (2,))

    with jax.enable_x64(True):
        jk, jys = jax.lax.scan(jstep, jr.key(2), None, length=4)
    for run in (lambda k: sx.scan(step, k, None, length=4), sx.jit(lambda k: sx.scan(step, k, None, length=4))):
        k, ys = run(sx.random.key(2))
        same(k, jdata(jk))
        same(ys, jys)


def test_python_loop_splitting_keys_matches_jax():
    k, jk = sx.random.key(0), jkey(0)
    for _ in range(3):
        k, sub = sx.random.split(k)
        jk, jsub = jr.split(jk)
        same(sx.random.normal(sub, (2,)), jax_x64(lambda: jr.normal(jsub, (2,))))


def test_grad_of_a_reparameterised_sample():
    k = sx.random.key(0)

    def f(mu, sigma):
        return sx.sum((mu + sigma * sx.random.normal(k, (5,))) ** 2)

    def jf(mu, sigma):
        return jnp.sum((mu + sigma * jr.normal(jr.key(0), (5,))) ** 2)

    with jax.enable_x64(True):
        expected = jax.grad(jf, argnums=(0, 1))(1.5, 0.7)
    for g in (sx.grad(f, argnums=(0, 1)), sx.jit(sx.grad(f, argnums=(0, 1)))):
        gmu, gsigma = g(sx.asarray(1.5), sx.asarray(0.7))
        np.testing.assert_allclose(float(gmu), float(expected[0]), rtol=1e-12)
        np.testing.assert_allclose(float(gsigma), float(expected[1]), rtol=1e-12)
    # a sample is a constant: its key carries no derivative
    assert float(sx.grad(lambda s: s * sx.sum(sx.random.normal(k, (3,))))(sx.asarray(1.0))) == pytest.approx(
        float(np.sum(np.asarray(sx.random.normal(k, (3,))))))


@pytest.mark.parametrize("name,sample,jsample,args", [
    ("uniform", lambda k, lo, hi: sx.random.uniform(k, (4,), minval=lo, maxval=hi),
     lambda k, lo, hi: jr.uniform(k, (4,), minval=lo, maxval=hi), (-1.0, 2.0)),
    ("truncated_normal", lambda k, lo, hi: sx.random.truncated_normal(k, lo, hi, (4,)),
     lambda k, lo, hi: jr.truncated_normal(k, lo, hi, (4,)), (-0.5, 1.5)),
    ("gamma", lambda k, a: sx.random.gamma(k, a, (4,)), lambda k, a: jr.gamma(k, a, (4,)), (2.5,)),
    ("beta", lambda k, a, b: sx.random.beta(k, a, b, (4,)), lambda k, a, b: jr.beta(k, a, b, (4,)), (2.0, 3.0)),
    ("dirichlet", lambda k, a: sx.random.dirichlet(k, a), lambda k, a: jr.dirichlet(k, a),
     (np.array([1.0, 2.0, 3.0]),)),
    ("multivariate_normal", lambda k, m, c: sx.random.multivariate_normal(k, m, c, (3,)),
     lambda k, m, c: jr.multivariate_normal(k, m, c, (3,)), (np.array([0.5, -0.5]), COV)),
])
def test_grad_in_a_samplers_parameters(name, sample, jsample, args):
    weights = np.linspace(0.5, 2.0, 16)

    def loss(*params):
        out = sample(sx.random.key(1), *params)
        return sx.sum(sx.reshape(out, (-1,)) * sx.asarray(weights[: out.size]))

    def jloss(*params):
        out = jsample(jr.key(1), *params)
        return jnp.sum(out.reshape(-1) * weights[: out.size])

    argnums = tuple(range(len(args)))
    with jax.enable_x64(True):
        expected = jax.grad(jloss, argnums=argnums)(*[jnp.asarray(a) for a in args])
    sargs = [sx.asarray(a) for a in args]
    for g in (sx.grad(loss, argnums=argnums), sx.jit(sx.grad(loss, argnums=argnums))):
        for got, want in zip(g(*sargs), expected):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12)
    # and against finite differences of the samples themselves (gamma's, and so beta's, derivative is JAX's
    # implicit-reparameterisation formula, an approximation within about 1%: compared with JAX above)
    if name in ("gamma", "beta"):
        return
    eps = 1e-6
    for i, a in enumerate(args):
        a = np.asarray(a, dtype=np.float64)
        if a.ndim:
            continue
        up = [sx.asarray(b) for b in args]
        down = [sx.asarray(b) for b in args]
        up[i], down[i] = sx.asarray(a + eps), sx.asarray(a - eps)
        fd = (float(loss(*up)) - float(loss(*down))) / (2 * eps)
        np.testing.assert_allclose(float(sx.grad(loss, argnums=i)(*sargs)), fd, rtol=1e-5)


def test_jvp_in_a_samplers_parameters():
    f = lambda lo: sx.random.uniform(sx.random.key(2), (3,), minval=lo, maxval=4.0)  # noqa: E731
    out, tangent = sx.jvp(f, (sx.asarray(1.0),), (sx.asarray(1.0),))
    with jax.enable_x64(True):
        jout, jtangent = jax.jvp(lambda lo: jr.uniform(jr.key(2), (3,), minval=lo, maxval=4.0),
                                 (jnp.asarray(1.0),), (jnp.asarray(1.0),))
    same(out, jout)
    np.testing.assert_allclose(np.asarray(tangent), np.asarray(jtangent), rtol=1e-12)


def test_dropout_inside_jit_of_grad():
    x = sx.reshape(sx.arange(8.0), (2, 4))

    def loss(w, key):
        keep = sx.random.bernoulli(key, 0.75, (2, 4))
        h = sx.where(keep, x * w / 0.75, 0.0)
        return sx.sum(h ** 2)

    def jloss(w, key):
        keep = jr.bernoulli(key, 0.75, (2, 4))
        h = jnp.where(keep, jnp.arange(8.0).reshape(2, 4) * w / 0.75, 0.0)
        return jnp.sum(h ** 2)

    with jax.enable_x64(True):
        expected = jax.grad(jloss)(jnp.asarray(0.5), jr.key(5))
    got = sx.jit(sx.grad(loss))(sx.asarray(0.5), sx.random.key(5))
    np.testing.assert_allclose(float(got), float(expected), rtol=1e-13)


# --- keys are values -------------------------------------------------------------------------------------------


def test_a_key_used_twice_gives_the_same_numbers():
    k = sx.random.key(9)
    same(sx.random.normal(k, (100,)), np.asarray(sx.random.normal(k, (100,))))
    assert not np.array_equal(np.asarray(sx.random.normal(k, (100,))),
                              np.asarray(sx.random.normal(sx.random.split(k)[0], (100,))))


def test_threads_with_one_key_get_the_same_numbers():
    k = sx.random.key(21)
    expected = reference("gamma", seed=21)
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(np.asarray(ours("gamma", k)))
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 80
    for r in results:
        same(r, expected)


def test_a_sample_is_an_ordinary_array():
    x = sx.random.normal(sx.random.key(0), (4,))
    y = x[1:]
    x[0] = 5.0  # a JAX buffer underneath: the write copies it first
    assert float(x[0]) == 5.0
    assert float(y[0]) == float(x[1])
    x[1:][0] = 7.0
    assert float(x[1]) == 7.0 and float(y[0]) == 7.0


# --- bad input ----------------------------------------------------------------------------------------------


def test_bad_keys():
    with pytest.raises(TypeError, match="uint32.*float64"):
        sx.random.normal(sx.asarray([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        sx.random.normal(sx.asarray([0, 1, 2], dtype=sx.uint32))
    with pytest.raises(ValueError, match=r"shape \(4, 2\).*vmap"):
        sx.random.uniform(sx.random.split(sx.random.key(0), 4))
    with pytest.raises(TypeError, match="list"):
        sx.random.normal([0, 1])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        sx.random.wrap_key_data(sx.asarray([0, 1, 2], dtype=sx.uint32))
    with pytest.raises(TypeError, match="int32"):
        sx.random.key_data(sx.asarray([0, 1], dtype=sx.int32))
    with pytest.raises(TypeError, match="seed must be an integer"):
        sx.random.key(1.5)
    with pytest.raises(ValueError, match="int64"):
        sx.random.key(2**64)
    with pytest.raises(ValueError, match="threefry2x32"):
        sx.random.key(0, impl="rbg")


def test_shapes_that_do_not_broadcast():
    k = sx.random.key(0)
    with pytest.raises(ValueError, match=r"shape \(2,\).*minval \(3,\)"):
        sx.random.uniform(k, (2,), minval=sx.zeros(3))
    with pytest.raises(ValueError, match=r"shape \(4,\).*p \(3,\)"):
        sx.random.bernoulli(k, sx.asarray([0.1, 0.2, 0.3]), (4,))
    with pytest.raises(ValueError, match=r"shape \(5,\).*a \(2,\)"):
        sx.random.gamma(k, sx.asarray([1.0, 2.0]), (5,))
    with pytest.raises(ValueError, match=r"do not broadcast together.*lower \(2,\).*upper \(3,\)"):
        sx.random.truncated_normal(k, sx.zeros(2), sx.ones(3))
    with pytest.raises(ValueError, match=r"shape \(3,\).*logits' batch shape \(2,\)"):
        sx.random.categorical(k, sx.asarray(LOGITS), shape=(3,))
    with pytest.raises(ValueError, match=r"cov must have shape \(\.\.\., 2, 2\)"):
        sx.random.multivariate_normal(k, sx.zeros(2), sx.eye(3))
    with pytest.raises(ValueError, match=r"shape \(2,\).*mean"):
        sx.random.multivariate_normal(k, sx.zeros((3, 2)), sx.eye(2), (2,))


def test_choice_errors():
    k = sx.random.key(0)
    with pytest.raises(ValueError, match="cannot take 6 samples .* without replacement from a population of 5"):
        sx.random.choice(k, 5, (6,), replace=False)
    with pytest.raises(ValueError, match="cannot take 4 samples"):
        sx.random.choice(k, sx.arange(3.0), (2, 2), replace=False)
    with pytest.raises(ValueError, match=r"p must have shape \(4,\)"):
        sx.random.choice(k, 4, (2,), p=sx.asarray([0.5, 0.5]))
    with pytest.raises(ValueError, match="nothing to choose from"):
        sx.random.choice(k, 0, (2,))


@pytest.mark.parametrize("shape, axis", [((0,), 0), ((2, 0), 1), ((0, 3), 0)])
def test_choice_of_no_draws_from_an_array_has_jax_s_shape(shape, axis):
    """jax.random.choice returns an array of `shape` when it draws nothing (not the gathered shape it gives
    otherwise): eagerly and under jit, the same shape and dtype."""
    a = np.arange(12.0).reshape(4, 3)
    with jax.enable_x64(True):
        want = jr.choice(jkey(0), jax.numpy.asarray(a), shape, axis=axis)
    for run in (sx.random.choice, sx.jit(sx.random.choice, static_argnums=(2,), static_argnames="axis")):
        got = run(sx.random.key(0), sx.asarray(a), shape, axis=axis)
        assert got.shape == want.shape and str(got.dtype) == str(want.dtype)


def test_bad_dtypes_and_parameters():
    k = sx.random.key(0)
    with pytest.raises(TypeError, match="floating-point dtype.*int32"):
        sx.random.normal(k, (2,), dtype=sx.int32)
    with pytest.raises(TypeError, match="integer dtype.*float32"):
        sx.random.randint(k, (2,), 0, 5, dtype=sx.float32)
    with pytest.raises(TypeError, match="minval must be an integer"):
        sx.random.randint(k, (2,), 0.5, 5)
    with pytest.raises(TypeError, match="p must be real"):
        sx.random.bernoulli(k, sx.asarray([0.5j]))
    with pytest.raises(TypeError, match="shape must be a tuple of ints"):
        sx.random.normal(k, (2.0,))
    with pytest.raises(ValueError, match="negative"):
        sx.random.normal(k, (-1,))


@pytest.mark.parametrize("call,arrays", [
    (lambda r, k, d: r.gamma(k, 2.5, (6,), dtype=d["float32"]), ()),
    (lambda r, k, d: r.beta(k, 2.0, 0.5, (6,), dtype=d["float32"]), ()),
    (lambda r, k, d: r.truncated_normal(k, -1.0, 0.5, (6,), dtype=d["float16"]), ()),
    (lambda r, k, d, alpha: r.dirichlet(k, alpha, dtype=d["float32"]), (np.array([1.0, 2.0], np.float32),)),
    (lambda r, k, d, a: r.gamma(k, a, (3, 2), dtype=d["float32"]), (np.array([0.7, 5.0]),)),
    (lambda r, k, d: r.poisson(k, 4.0, (6,), dtype=d["int32"]), ()),
    (lambda r, k, d: r.poisson(k, 40.0, (6,)), ()),
    (lambda r, k, d: r.randint(k, (6,), 0, 200, dtype=d["uint8"]), ()),
    (lambda r, k, d: r.uniform(k, (6,), dtype=d["bfloat16"], minval=-1.0, maxval=3.0), ()),
])
def test_explicit_dtypes_of_samplers_with_parameters(call, arrays):
    """Eagerly (host and device) JAX's eager bits; under jit jax.jit's with the same constants (Python numbers)
    and the same arguments (arrays): XLA folds constants with its own evaluator, so for a parameter that goes
    through log or erf jax.jit's bits can differ from JAX's eager ones (float32 gamma(k, 2.5) does)."""
    sx_dtypes = {n: getattr(sx, n) for n in ("float16", "bfloat16", "float32", "int32", "uint8")}
    jax_dtypes = {n: getattr(jnp, n) for n in sx_dtypes}
    with jax.enable_x64(True):
        jarrays = [jnp.asarray(a) for a in arrays]
        expected = call(jr, jr.key(13), jax_dtypes, *jarrays)
        expected_jit = jax.jit(lambda k, *a: call(jr, k, jax_dtypes, *a))(jr.key(13), *jarrays)
    if np.asarray(expected).dtype.itemsize < 8:  # JAX's 32-bit mode gives the same bits for a narrow dtype
        same(call(jr, jr.key(13), jax_dtypes, *[jnp.asarray(a) for a in arrays]), expected)
    key = sx.random.key(13)
    same(call(sx.random, key, sx_dtypes, *[sx.asarray(a) for a in arrays]), expected)
    same(call(sx.random, key.to_device(DEV), sx_dtypes, *[sx.asarray(a, device=DEV) for a in arrays]), expected)
    same(sx.jit(lambda k, *a: call(sx.random, k, sx_dtypes, *a))(key, *[sx.asarray(a) for a in arrays]),
         expected_jit)


def test_scan_over_split_keys_as_inputs():
    keys = sx.random.split(sx.random.key(3), 6)

    def step(total, k):
        x = sx.random.normal(k, (2,))
        return total + x, x

    with jax.enable_x64(True):
        _, jys = jax.lax.scan(lambda t, k: (t + jr.normal(k, (2,)), jr.normal(k, (2,))), jnp.zeros(2),
                              jr.split(jr.key(3), 6))
    for run in (lambda: sx.scan(step, sx.zeros(2), keys), sx.jit(lambda: sx.scan(step, sx.zeros(2), keys))):
        _, ys = run()
        same(ys, jys)


def test_grad_through_choice_of_an_array():
    def loss(a):
        return sx.sum(sx.random.choice(sx.random.key(2), a, (5,)) ** 2)

    def jloss(a):
        return jnp.sum(jr.choice(jr.key(2), a, (5,)) ** 2)

    a = np.array([1.0, -2.0, 3.0, 0.5])
    with jax.enable_x64(True):
        expected = jax.grad(jloss)(jnp.asarray(a))
    same(sx.grad(loss)(sx.asarray(a)), expected)
    same(sx.jit(sx.grad(loss))(sx.asarray(a)), expected)


def test_eager_vmap_and_grad_give_jax_eager_bits_for_python_parameters():
    keys = sx.random.split(sx.random.key(13), 3)
    with jax.enable_x64(True):
        jkeys = jr.split(jr.key(13), 3)
        expected = jax.vmap(lambda k: jr.gamma(k, 2.5, (6,), dtype=jnp.float32))(jkeys)
        expected_jit = jax.jit(jax.vmap(lambda k: jr.gamma(k, 2.5, (6,), dtype=jnp.float32)))(jkeys)
    same(sx.vmap(lambda k: sx.random.gamma(k, 2.5, (6,), dtype=sx.float32))(keys), expected)
    same(sx.jit(sx.vmap(lambda k: sx.random.gamma(k, 2.5, (6,), dtype=sx.float32)))(keys), expected_jit)


def test_eager_python_scalar_parameters_are_arguments_of_one_compiled_sampler():
    """A loop over parameter values (a bound, a probability, `fold_in`'s step) compiles one sampler, not one per
    value, and gives JAX's eager bits for each (JAX hands such a scalar to its compiled sampler at run time)."""
    k = sx.random.key(3)
    calls = {
        "uniform": (lambda v: sx.random.uniform(k, (3,), dtype=sx.float32, minval=v, maxval=v + 1.5),
                    lambda v: jr.uniform(jkey(3), (3,), dtype=jnp.float32, minval=v, maxval=v + 1.5)),
        "bernoulli": (lambda v: sx.random.bernoulli(k, v / 40.0, (5,)),
                      lambda v: jr.bernoulli(jkey(3), v / 40.0, (5,))),
        "randint": (lambda v: sx.random.randint(k, (4,), -int(v), int(v) + 3, dtype=sx.int8),
                    lambda v: jr.randint(jkey(3), (4,), -int(v), int(v) + 3, dtype=jnp.int8)),
        "fold_in": (lambda v: sx.random.fold_in(k, int(v)), lambda v: jr.key_data(jr.fold_in(jkey(3), int(v)))),
    }
    for name, (ours, theirs) in calls.items():
        ours(1.0)
        before = sx.cache_stats()["host"].compiles
        for v in range(2, 40):
            same(ours(float(v)), jax_x64(theirs, float(v)))
        assert sx.cache_stats()["host"].compiles == before, name
    with pytest.raises(TypeError):  # (an int p stays a constant: JAX refuses it, as before)
        sx.random.bernoulli(k, 1, (2,))
