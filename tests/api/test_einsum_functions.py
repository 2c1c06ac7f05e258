"""sx.einsum and stridex.numpy.einsum / einsum_path against NumPy (float64 values, paths) and jax.numpy (float32 and
derivatives): subscripts with `...`, implicit output, repeated labels (diagonals), broadcasting of size-1 axes, the
sublist form; every `optimize` choice giving the same values; NaN and infinities; jit, grad, jvp and vmap; cpu:1; and
the errors, which name the offending subscript or operand."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
import stridex.numpy as snp
from tests.jax_reference import DEVICE, jax, jnp

pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

CASES = [
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iji->j", [(3, 4, 3)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
    ("...i,...i->...", [(1, 3), (4, 3)]),
    ("b...ij,b...jk->b...ik", [(2, 1, 3, 4), (2, 5, 4, 2)]),
    ("i,i->i", [(1,), (3,)]),
    ("ij,jk", [(2, 1), (3, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("abc,cd,bd->a", [(2, 3, 4), (4, 5), (3, 5)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("i...->...", [(3, 2)]),
    ("...", [(2,)]),
    ("ea,fb,abcd,gc,hd->efgh", [(3, 4), (3, 5), (4, 5, 6, 7), (3, 6), (3, 7)]),
    ("i,i", [(5,), (5,)]),
    (",ij->ij", [(), (2, 3)]),
    ("ba,ab->", [(3, 4), (4, 3)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 6)]),
    ("ij,ij,ij->i", [(4, 3), (4, 3), (4, 3)]),
    ("Ab,bC->CA", [(2, 3), (3, 4)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
]


def _arrays(shapes, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("subscripts,shapes", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("optimize", ["auto", False, True, "greedy", "optimal"])
def test_values_against_numpy(subscripts, shapes, optimize):
    arrays = _arrays(shapes)
    want = np.einsum(subscripts, *arrays)
    got = sx.einsum(subscripts, *map(sx.asarray, arrays), optimize=optimize)
    assert got.shape == want.shape and got.dtype == sx.float64
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("subscripts,shapes", CASES, ids=[c[0] for c in CASES])
def test_paths_against_numpy(subscripts, shapes):
    arrays = _arrays(shapes)
    path, report = snp.einsum_path(subscripts, *arrays, optimize="greedy")
    assert path == np.einsum_path(subscripts, *arrays, optimize="greedy")[0]
    assert "Complete contraction" in report
    optimal, _ = snp.einsum_path(subscripts, *arrays, optimize="optimal")
    # the explicit path is taken as given, and gives the same values
    for explicit in (path, optimal, path[1:]):
        np.testing.assert_allclose(np.asarray(sx.einsum(subscripts, *map(sx.asarray, arrays), optimize=explicit)),
                                   np.einsum(subscripts, *arrays), rtol=1e-12, atol=1e-12)


def test_optimal_is_never_worse_than_greedy():
    # (a chain where the greedy choice of the smallest result first costs more than the best order)
    subscripts, shapes = "ab,bc,cd,de->ae", [(10, 2), (2, 30), (30, 2), (2, 40)]
    arrays = _arrays(shapes)
    flops = {}
    for optimize in ("greedy", "optimal"):
        report = snp.einsum_path(subscripts, *arrays, optimize=optimize)[1]
        flops[optimize] = float(report.split("Optimized multiply-adds:")[1].split()[0])
    assert flops["optimal"] <= flops["greedy"]
    assert np.einsum_path(subscripts, *arrays, optimize="optimal")[0] == \
        snp.einsum_path(subscripts, *arrays, optimize="optimal")[0]


def test_special_values_and_large_operands():
    a, b = _arrays([(64, 80), (80, 70)], seed=3)  # (an output over 2048 elements)
    a[0, 0], a[3, 5], b[7, 2] = np.nan, np.inf, -np.inf
    b[5, 4] = -0.0
    want = np.einsum("ij,jk->ik", a, b)
    got = np.asarray(sx.einsum("ij,jk->ik", sx.asarray(a), sx.asarray(b)))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(np.nan_to_num(got), np.nan_to_num(want), rtol=1e-12, atol=1e-11)


def test_sublist_form():
    a, b = _arrays([(2, 3), (3, 4)])
    np.testing.assert_allclose(np.asarray(sx.einsum(sx.asarray(a), [0, 1], sx.asarray(b), [1, 2], [0, 2])), a @ b)
    np.testing.assert_allclose(np.asarray(sx.einsum(sx.asarray(a), [Ellipsis, 1], sx.asarray(b), [1, 2])), a @ b)


def test_dtypes():
    a, b = _arrays([(2, 3), (3, 4)])
    assert sx.einsum("ij,jk", sx.asarray(a, dtype=sx.float32), sx.asarray(b)).dtype == sx.float64
    assert sx.einsum("ij,jk", sx.asarray(a, dtype=sx.float32), sx.asarray(b, dtype=sx.float32)).dtype == sx.float32
    i8 = np.arange(6, dtype=np.int8).reshape(2, 3)
    out = sx.einsum("ij,kj->ik", sx.asarray(i8), sx.asarray(i8), preferred_element_type=sx.int32)
    assert out.dtype == sx.int32
    np.testing.assert_array_equal(np.asarray(out), i8.astype(np.int32) @ i8.T.astype(np.int32))
    assert sx.einsum("ii", sx.asarray(i8[:, :2])).dtype == sx.int8
    assert sx.einsum("ij,j", sx.asarray(a), sx.asarray(b[:, 0]), dtype=np.float32).dtype == sx.float32


@pytest.mark.parametrize("subscripts,shapes", [CASES[0], CASES[5], CASES[7], CASES[13], CASES[22]],
                         ids=lambda c: c if isinstance(c, str) else "")
def test_float32_jit_grad_and_jvp_against_jax(subscripts, shapes):
    arrays = _arrays(shapes, np.float32, seed=1)
    ours = sx.jit(lambda *xs: sx.einsum(subscripts, *xs))(*map(sx.asarray, arrays))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(sx.einsum(subscripts, *map(sx.asarray, arrays))),
                               rtol=2e-6, atol=2e-6)
    argnums = tuple(range(len(arrays)))
    grads = sx.grad(lambda *xs: sx.sum(sx.sin(sx.einsum(subscripts, *xs))), argnums=argnums)(*map(sx.asarray, arrays))
    tangents = _arrays(shapes, np.float32, seed=2)
    _, tangent = sx.jvp(lambda *xs: sx.einsum(subscripts, *xs), tuple(map(sx.asarray, arrays)),
                        tuple(map(sx.asarray, tangents)))
    with jax.enable_x64(True):
        want = jnp.einsum(subscripts, *map(jnp.asarray, arrays))
        want_grads = jax.grad(lambda *xs: jnp.sum(jnp.sin(jnp.einsum(subscripts, *xs))), argnums=argnums)(
            *map(jnp.asarray, arrays))
        _, want_tangent = jax.jvp(lambda *xs: jnp.einsum(subscripts, *xs), tuple(map(jnp.asarray, arrays)),
                                  tuple(map(jnp.asarray, tangents)))
    assert ours.dtype == sx.float32
    np.testing.assert_allclose(np.asarray(ours), np.asarray(want), rtol=2e-5, atol=2e-5)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(np.asarray(tangent), np.asarray(want_tangent), rtol=2e-5, atol=2e-5)
    jitted = sx.jit(sx.grad(lambda *xs: sx.sum(sx.sin(sx.einsum(subscripts, *xs))), argnums=argnums))(
        *map(sx.asarray, arrays))
    for g, w in zip(jitted, want_grads):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("subscripts,shapes", [CASES[0], CASES[4], CASES[6], CASES[13], CASES[18]],
                         ids=lambda c: c if isinstance(c, str) else "")
def test_vmap_against_a_loop(subscripts, shapes):
    arrays = _arrays(shapes, seed=3)
    stacked = np.stack([arrays[0], 2 * arrays[0] + 1, -arrays[0]], axis=-1)
    got = sx.vmap(lambda x: sx.einsum(subscripts, x, *map(sx.asarray, arrays[1:])), in_axes=-1)(sx.asarray(stacked))
    want = np.stack([np.einsum(subscripts, stacked[..., i], *arrays[1:]) for i in range(3)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_on_a_device():
    arrays = _arrays([(2, 3), (3, 4), (4, 5)], np.float32)
    got = sx.einsum("ij,jk,kl->il", *[sx.asarray(a, device=DEVICE) for a in arrays])
    assert got.device == DEVICE
    np.testing.assert_allclose(np.asarray(got.to_device("cpu")), np.einsum("ij,jk,kl->il", *arrays), rtol=2e-5,
                               atol=2e-6)
    g = sx.grad(lambda a: sx.sum(snp.einsum("ij,jk,kl->il", a, *[sx.asarray(x, device=DEVICE) for x in arrays[1:]])))(
        sx.asarray(arrays[0], device=DEVICE))
    assert g.device == DEVICE


@pytest.mark.parametrize("call,error,match", [
    (lambda a: sx.einsum("ij,jk", a), ValueError, r"name 2 operands, got 1"),
    (lambda a: sx.einsum("ijk", a), ValueError, r"operand 0 has 2 dimensions but its subscripts 'ijk' name 3"),
    (lambda a: sx.einsum("ij,ij", a, sx.ones((3, 2))), ValueError, r"subscript 'i' has size 3 in operand 1"),
    (lambda a: sx.einsum("ij->k", a), ValueError, r"output subscript 'k' names no axis"),
    (lambda a: sx.einsum("ij->ii", a), ValueError, r"output subscript 'i' appears more than once"),
    (lambda a: sx.einsum("i1", a), ValueError, r"invalid subscript '1'"),
    (lambda a: sx.einsum("...i->i", sx.ones((2, 3, 3))), ValueError, r"no '...'"),
    (lambda a: sx.einsum("ij", a > 0), TypeError, r"numeric operands, got bool for operand 0"),
    (lambda a: sx.einsum("ij", [[1.0]]), TypeError, r"operand 0 must be a stridex array, got list"),
    (lambda a: sx.einsum("ij,jk", a, sx.ones((3, 2)), optimize="fastest"), ValueError, r"'fastest'"),
    (lambda a: sx.einsum("ij,jk", a, sx.ones((3, 2)), optimize=[(0, 2)]), ValueError, r"invalid contraction path"),
    (lambda a: sx.einsum("ij,jk", a, sx.ones((3, 2)), out=a), ValueError, r"out= is not supported"),
    (lambda a: sx.einsum("ij,jk", a, sx.ones((3, 2)), precision="best"), ValueError, r"precision .* got 'best'"),
])
def test_errors_name_the_offending_value(call, error, match):
    with pytest.raises(error, match=match):
        call(sx.ones((2, 3)))


def test_the_same_function_in_both_namespaces():
    a = sx.ones((2, 2))
    np.testing.assert_array_equal(np.asarray(snp.einsum("ij->j", a)), np.asarray(sx.einsum("ij->j", a)))
    assert "einsum" in sx.__all__ and "einsum" in snp.__all__ and "einsum_path" in snp.__all__


def _random_case(rng):
    """Random subscripts over 1-4 operands: shared, repeated and lone labels, sizes 1-3, sometimes `...`, an explicit
    or implicit output."""
    letters = "abcdef"
    sizes = {c: int(rng.integers(1, 4)) for c in letters}
    terms, shapes = [], []
    ellipsis = rng.random() < 0.3
    broadcast = tuple(int(rng.integers(1, 3)) for _ in range(int(rng.integers(0, 3))))
    for _ in range(int(rng.integers(1, 5))):
        term = "".join(rng.choice(list(letters), int(rng.integers(0, 4))))
        shape = [sizes[c] if rng.random() < 0.9 else 1 for c in term]  # (a size-1 axis broadcasts)
        if ellipsis:
            own = broadcast[len(broadcast) - int(rng.integers(0, len(broadcast) + 1)):]
            own = tuple(1 if rng.random() < 0.3 else n for n in own)
            terms.append("..." + term)
            shapes.append(own + tuple(shape))
        else:
            terms.append(term)
            shapes.append(tuple(shape))
    subscripts = ",".join(terms)
    if rng.random() < 0.5:
        used = sorted(set("".join(terms)) - {"."})
        out = "".join(rng.permutation(used)[:int(rng.integers(0, len(used) + 1))]) if used else ""
        subscripts += "->" + ("..." if ellipsis else "") + out
    return subscripts, shapes


def test_random_subscripts_against_numpy():
    rng = np.random.default_rng(43)
    checked = 0
    while checked < 120:
        subscripts, shapes = _random_case(rng)
        arrays = [rng.standard_normal(s) for s in shapes]
        try:
            want = np.einsum(subscripts, *arrays)
        except ValueError:
            continue  # (NumPy refuses it: not a case)
        for optimize in ("auto", "optimal", False):
            got = sx.einsum(subscripts, *map(sx.asarray, arrays), optimize=optimize)
            assert got.shape == np.shape(want), (subscripts, shapes, optimize)
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{subscripts} {shapes} {optimize}")
        checked += 1
