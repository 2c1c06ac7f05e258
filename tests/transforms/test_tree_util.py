"""`stridex.tree_util`: registered classes are pytrees for tree functions and for jit, grad and vmap alike;
structures and leaf orders match `jax.tree_util` on the same trees."""

from __future__ import annotations

import collections
import dataclasses

import jax
import numpy as np
import pytest

import stridex as sx
from stridex import tree_util as tu


class Point:
    def __init__(self, x, y, tag="p"):
        self.x, self.y, self.tag = x, y, tag


def _flat(p):
    return (p.x, p.y), p.tag


def _unflat(tag, children):
    return Point(*children, tag=tag)


tu.register_pytree_node(Point, _flat, _unflat)
jax.tree_util.register_pytree_node(Point, _flat, _unflat)


@tu.register_dataclass
@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Params:
    w: object
    b: object
    scale: float = dataclasses.field(default=2.0, metadata=dict(static=True))


NT = collections.namedtuple("NT", "a b")

TREES = [
    {"b": (1, 2), "a": [3, None, 4]},
    (Point(1, 2), [Point(3, 4, tag="q")]),
    NT(a=Params(1, 2), b={"k": 5}),
    [None, (), {}],
    7,
]


@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_leaves_and_structure_match_jax(tree):
    leaves, treedef = tu.tree_flatten(tree)
    jleaves, jdef = jax.tree_util.tree_flatten(tree)
    assert leaves == jleaves
    assert treedef.num_leaves == jdef.num_leaves == len(leaves)
    assert tu.tree_leaves(tree) == leaves
    assert tu.tree_structure(tree) == treedef
    rebuilt = tu.tree_unflatten(treedef, [x * 10 for x in leaves])
    assert tu.tree_leaves(rebuilt) == [x * 10 for x in leaves]
    assert treedef.unflatten(leaves).__class__ is tree.__class__


def test_structure_equality_sees_aux_data_and_node_types():
    assert tu.tree_structure(Point(1, 2, "a")) != tu.tree_structure(Point(1, 2, "b"))
    assert tu.tree_structure(Point(1, 2)) == tu.tree_structure(Point(5, 6))
    assert tu.tree_structure((1, 2)) != tu.tree_structure([1, 2])
    assert hash(tu.tree_structure(Point(1, 2))) == hash(tu.tree_structure(Point(3, 4)))
    assert "CustomNode(Point" in repr(tu.tree_structure(Point(1, 2)))
    with pytest.raises(ValueError, match="already registered"):
        tu.register_pytree_node(Point, _flat, _unflat)


def test_tree_map_with_several_trees_and_is_leaf():
    a = {"p": Point(1, 2), "q": [3]}
    b = {"p": Point(10, 20), "q": [30]}
    out = tu.tree_map(lambda x, y: x + y, a, b)
    assert (out["p"].x, out["p"].y, out["q"]) == (11, 22, [33])
    assert jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda x, y: x + y, a, b)) == tu.tree_leaves(out)
    # is_leaf stops at the Points: f sees them whole
    tags = tu.tree_map(lambda p: p.tag, [Point(1, 2, "u"), Point(3, 4, "v")], is_leaf=lambda n: isinstance(n, Point))
    assert tags == ["u", "v"]
    assert tu.tree_leaves([Point(1, 2)], is_leaf=lambda n: isinstance(n, Point))[0].__class__ is Point
    with pytest.raises(ValueError, match="structures differ"):
        tu.tree_map(lambda x, y: x, [1, 2], [1])
    with pytest.raises(ValueError, match="structures differ"):
        tu.tree_map(lambda x, y: x, Point(1, 2), (1, 2))


def test_register_dataclass_with_explicit_fields_and_errors():
    @dataclasses.dataclass
    class Lin:
        w: object
        n: int

    tu.register_dataclass(Lin, data_fields=["w"], meta_fields=["n"])
    leaves, treedef = tu.tree_flatten(Lin(3, 4))
    assert leaves == [3]
    assert treedef.unflatten([5]) == Lin(5, 4)

    @dataclasses.dataclass
    class Partial:
        a: object
        b: object

    with pytest.raises(ValueError, match="neither data_fields nor meta_fields"):
        tu.register_dataclass(Partial, data_fields=["a"], meta_fields=[])
    with pytest.raises(TypeError, match="not a dataclass"):
        tu.register_dataclass(Point)


def _loss(p):
    return sx.sum(p.x * p.x * p.y) * (2.0 if p.tag == "p" else 3.0)


def test_registered_class_through_grad_jit_and_vmap():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    p = Point(sx.asarray(x), sx.asarray(y))
    g = sx.grad(_loss)(p)
    assert isinstance(g, Point) and g.tag == "p"
    np.testing.assert_allclose(g.x.__array__(), 2 * 2 * x * y)
    np.testing.assert_allclose(g.y.__array__(), 2 * x * x)
    jg = sx.jit(sx.grad(_loss))(p)
    np.testing.assert_allclose(jg.x.__array__(), g.x.__array__())
    # jit: the aux data is static: another tag is another program, with its own constant
    f = sx.jit(_loss)
    assert float(f(p)) == pytest.approx(2 * np.sum(x * x * y))
    assert float(f(Point(p.x, p.y, "q"))) == pytest.approx(3 * np.sum(x * x * y))
    assert f.cache_size() == 2
    f(Point(p.x + 1.0, p.y, "q"))
    assert f.cache_size() == 2
    # a registered class as jit's output
    out = sx.jit(lambda p: Point(p.y, p.x, p.tag + "!"))(p)
    assert isinstance(out, Point) and out.tag == "p!"
    np.testing.assert_array_equal(out.x.__array__(), y)
    # vmap over the leaves of a registered class, and returning one
    batch = Point(sx.asarray(np.arange(6.0).reshape(3, 2)), sx.asarray(np.ones((3, 2))))
    v = sx.vmap(lambda q: Point(sx.sum(q.x), q.y * 2.0, q.tag))(batch)
    np.testing.assert_array_equal(v.x.__array__(), np.arange(6.0).reshape(3, 2).sum(1))
    assert v.y.shape == (3, 2)


def test_dataclass_through_jit_and_grad_matches_jax():
    import jax.numpy as jnp

    w, b = np.array([0.5, -1.0]), np.array(0.25)

    def loss(xp, m, x):
        return xp.sum((m.w * x + m.b) ** 2) * m.scale

    x = np.array([1.0, 3.0])
    ours = sx.jit(sx.grad(lambda m, x: loss(sx, m, x)))(Params(sx.asarray(w), sx.asarray(b)), sx.asarray(x))
    with jax.enable_x64(True):
        theirs = jax.grad(lambda m, x: loss(jnp, m, x))(Params(jnp.asarray(w), jnp.asarray(b)), jnp.asarray(x))
    assert isinstance(ours, Params) and ours.scale == 2.0
    np.testing.assert_allclose(ours.w.__array__(), np.asarray(theirs.w))
    np.testing.assert_allclose(ours.b.__array__(), np.asarray(theirs.b))


def test_tree_util_imports_no_jax():
    import subprocess
    import sys

    code = "import sys, stridex.tree_util; assert 'jax' not in sys.modules, 'jax imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- classes registered with jax.tree_util only -------------------------------------------------------------------


@jax.tree_util.register_pytree_node_class
class Model:
    """Registered with JAX alone (as flax and equinox modules are): a pytree for stridex too."""

    def __init__(self, w, b, name="m"):
        self.w, self.b, self.name = w, b, name

    def tree_flatten(self):
        return (self.w, self.b), self.name

    @classmethod
    def tree_unflatten(cls, name, children):
        return cls(*children, name=name)


def _model_loss(xp):
    return lambda m, x: xp.sum(xp.tanh(x @ m.w + m.b) ** 2) * (2.0 if m.name == "m" else 1.0)


def test_a_class_registered_with_jax_is_a_pytree_in_grad_jit_and_vmap():
    import jax.numpy as jnp

    w, b, x = np.array([[0.5, -1.0], [2.0, 0.25]]), np.array([0.1, -0.2]), np.array([[1.0, 2.0], [-3.0, 0.5]])
    m = Model(sx.asarray(w), sx.asarray(b))
    leaves, treedef = tu.tree_flatten(m)
    assert [np.asarray(v).tolist() for v in leaves] == [w.tolist(), b.tolist()]
    assert repr(treedef) == "PyTreeDef(CustomNode(Model['m'], [*, *]))"
    assert tu.tree_structure(Model(1, 2)) == tu.tree_structure(Model(3, 4)) != tu.tree_structure(Model(1, 2, "n"))
    with jax.enable_x64(True):
        want = jax.grad(_model_loss(jnp))(Model(jnp.asarray(w), jnp.asarray(b)), jnp.asarray(x))
    for grad in (sx.grad(_model_loss(sx)), sx.jit(sx.grad(_model_loss(sx)))):
        got = grad(m, sx.asarray(x))
        assert isinstance(got, Model) and got.name == "m"
        np.testing.assert_allclose(np.asarray(got.w), np.asarray(want.w), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(got.b), np.asarray(want.b), rtol=1e-12)
    f = sx.jit(lambda m: Model(m.b, m.w, m.name + "!"))
    out = f(m)
    assert isinstance(out, Model) and out.name == "m!" and f.cache_size() == 1
    f(Model(m.w, m.b, "other"))  # the aux data is static: another program
    assert f.cache_size() == 2
    batched = sx.vmap(lambda m: sx.sum(m.w) + m.b[0])(Model(sx.ones((3, 2)), sx.zeros((3, 2))))
    np.testing.assert_array_equal(np.asarray(batched), [2.0, 2.0, 2.0])


def test_flax_structs_optax_states_and_jax_built_in_nodes():
    flax_struct = pytest.importorskip("flax.struct")
    optax = pytest.importorskip("optax")

    @flax_struct.dataclass
    class Layer:
        w: object
        act: str = flax_struct.field(pytree_node=False, default="tanh")

    layer = Layer(sx.asarray([1.0, 2.0]))
    g = sx.grad(lambda l: sx.sum(sx.tanh(l.w) if l.act == "tanh" else l.w))(layer)
    assert isinstance(g, Layer) and g.act == "tanh"
    np.testing.assert_allclose(np.asarray(g.w), 1 - np.tanh([1.0, 2.0]) ** 2)
    state = optax.adam(0.1).init({"w": np.zeros(2)})
    assert tu.tree_leaves(state)[1].shape == (2,)
    for tree in (collections.OrderedDict(b=1, a=2), collections.defaultdict(int, {"z": 3, "y": 4}), state, layer):
        jleaves, jdef = jax.tree_util.tree_flatten(tree)
        leaves, treedef = tu.tree_flatten(tree)
        assert len(leaves) == len(jleaves) and all(a is b for a, b in zip(leaves, jleaves))
        assert jax.tree_util.tree_structure(treedef.unflatten(leaves)) == jdef


def test_registrations_made_after_a_first_flatten_are_seen():
    class Late:
        def __init__(self, v):
            self.v = v

    assert tu.tree_leaves(Late(1))[0].__class__ is Late  # a leaf while no one registered it
    jax.tree_util.register_pytree_node(Late, lambda n: ((n.v,), None), lambda aux, ch: Late(*ch))
    assert tu.tree_leaves(Late(1)) == [1]
    # a registration with stridex replaces the rule JAX's registry gave
    tu.register_pytree_node(Late, lambda n: ((n.v, n.v), None), lambda aux, ch: Late(ch[0]))
    assert tu.tree_leaves(Late(1)) == [1, 1]
    with pytest.raises(ValueError, match="already registered"):
        tu.register_pytree_node(Late, lambda n: ((), None), lambda aux, ch: Late(0))


def test_unhashable_aux_data_flattens():
    class Bag:
        def __init__(self, items, meta):
            self.items, self.meta = items, meta

    jax.tree_util.register_pytree_node(Bag, lambda b: (b.items, b.meta), lambda meta, ch: Bag(list(ch), meta))
    leaves, treedef = tu.tree_flatten(Bag([1, 2], meta=["unhashable"]))
    assert leaves == [1, 2]
    assert treedef.unflatten([3, 4]).items == [3, 4]
