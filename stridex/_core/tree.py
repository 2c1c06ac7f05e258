"""Pytrees: tuples, lists, dicts, namedtuples, None and registered classes around leaves (arrays, scalars,
static values).

A treedef is a nested tuple, hashable (it is part of `jit`'s cache key) and compared with `==`: `("leaf",)`,
`("none",)`, `("tuple", *children)`, `("list", *children)`, `("dict", keys, *children)`,
`("namedtuple", type, *children)` and, for a class registered with `register_node`,
`("node", type, aux_data, *children)`. The public face is `stridex.tree_util`.

JAX's pytrees are stridex's: once JAX has been imported (by anyone: stridex never imports it for this), a class
registered with `jax.tree_util` (`register_pytree_node`, `register_pytree_node_class`, `register_dataclass`,
flax structs, optax states, `OrderedDict`) is a node here too, found on first sight and then kept in `_NODES`
like a class registered here. Its aux data is JAX's one-level treedef of the node, so unflattening is JAX's own.
"""

from __future__ import annotations

import sys

from stridex._core.array import Array as _Array

_LEAF = ("leaf",)
_NONE = ("none",)

# Registered node types: type -> (flatten(node) -> (children, aux_data), unflatten(aux_data, children) -> node).
# Looked up once per leaf that is not a built-in container (a dict lookup: flatten's hot path stays as it was).
_NODES: dict[type, tuple] = {}
_FROM_JAX: set = set()  # the types in _NODES found in JAX's registry (a registration here replaces their rule)
# Types JAX's registry said are leaves, from modules whose types no user registers later (a negative answer about
# a user's class is not kept: it may be registered with JAX after an instance was first flattened).
_JAX_LEAVES: set = {int, float, complex, bool, str, bytes, type(Ellipsis), _Array}
_STABLE_MODULES = frozenset({"builtins", "numpy", "jax", "jaxlib", "ml_dtypes", "stridex"})
_MODULES = sys.modules


def register_node(nodetype: type, flatten_func, unflatten_func) -> None:
    """Make instances of `nodetype` pytree nodes: `flatten_func(node) -> (children, aux_data)` with the children
    an iterable of subtrees and `aux_data` hashable (it is part of `jit`'s cache key), and
    `unflatten_func(aux_data, children) -> node`."""
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node: expected a type, got {nodetype!r}")
    if (nodetype in _NODES and nodetype not in _FROM_JAX) or nodetype in (tuple, list, dict, type(None)):
        raise ValueError(f"register_pytree_node: {nodetype.__qualname__} is already registered as a pytree node")
    _NODES[nodetype] = (flatten_func, unflatten_func)  # (a rule found in JAX's registry gives way to this one)
    _FROM_JAX.discard(nodetype)
    _JAX_LEAVES.discard(nodetype)


def _jax_rule(t: type, node):
    """The rule of a node type registered with `jax.tree_util` (kept in `_NODES` from now on), or None where JAX
    takes `node` for a leaf. Called only once JAX is imported, for a type `_NODES` does not know."""
    tree_util = _jax_tree_util()
    if tree_util.default_registry.flatten_one_level(node) is None:
        if str(getattr(t, "__module__", "")).partition(".")[0] in _STABLE_MODULES:
            _JAX_LEAVES.add(t)
        return None
    rule = _NODES.setdefault(t, (_jax_flatten, _jax_unflatten))
    if rule[0] is _jax_flatten:
        _FROM_JAX.add(t)
    return rule


# JAX's one-level treedefs, by (type, number of children, aux data): flattening a node asks JAX's registry for its
# children and aux data (C++, about 0.3 µs), and the treedef that unflattens it is made once per distinct aux data
# (JAX's own `tree_flatten` with an `is_leaf` callback costs about 1 µs a node).
_JAX_DEFS: dict = {}


def _jax_tree_util():
    """`jax.tree_util`, of the JAX already imported (the core reaches JAX through no import of its own: it only
    answers for classes registered with a JAX someone else imported)."""
    return _MODULES["jax"].tree_util


def _jax_flatten(node) -> tuple:
    tree_util = _jax_tree_util()
    children, aux = tree_util.default_registry.flatten_one_level(node)
    children = tuple(children)
    key: tuple | None = (type(node), len(children), aux)
    try:
        one_level = _JAX_DEFS.get(key)
    except TypeError:  # (unhashable aux data: JAX's `jit` refuses it too, but flattening works)
        key, one_level = None, None
    if one_level is None:
        one_level = tree_util.tree_structure(node, is_leaf=lambda child: child is not node)
        if key is not None:
            if len(_JAX_DEFS) >= 4096:
                _JAX_DEFS.clear()
            _JAX_DEFS[key] = one_level
    return children, one_level


def _jax_unflatten(one_level, children):
    return one_level.unflatten(children)


def flatten(tree) -> tuple[list, tuple]:
    """(leaves, treedef); treedef is hashable and rebuilds the structure with `unflatten`."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(node, leaves):
    t = type(node)
    if t is _Array:  # (the common leaf: past the containers' checks and the registry at once)
        leaves.append(node)
        return _LEAF
    if t is tuple:
        return ("tuple",) + tuple(_flatten(c, leaves) for c in node)
    if t is list:
        return ("list",) + tuple(_flatten(c, leaves) for c in node)
    if t is dict:
        keys = tuple(sorted(node, key=repr))
        return ("dict", keys) + tuple(_flatten(node[k], leaves) for k in keys)
    if node is None:
        return _NONE
    if isinstance(node, tuple) and hasattr(t, "_fields"):
        return ("namedtuple", t) + tuple(_flatten(c, leaves) for c in node)
    rule = _NODES.get(t)
    if rule is None and t not in _JAX_LEAVES and "jax" in _MODULES:
        rule = _jax_rule(t, node)
    if rule is not None:
        children, aux = rule[0](node)
        return ("node", t, aux) + tuple(_flatten(c, leaves) for c in children)
    leaves.append(node)
    return _LEAF


def flatten_with(tree, is_leaf) -> tuple[list, tuple]:
    """`flatten`, where a subtree for which `is_leaf(subtree)` is true is a leaf (None: `flatten` itself)."""
    if is_leaf is None:
        return flatten(tree)
    leaves: list = []
    return leaves, _flatten_with(tree, leaves, is_leaf)


def _flatten_with(node, leaves, is_leaf):
    if is_leaf(node):
        leaves.append(node)
        return _LEAF
    children, head = node_children(node)
    if head is None:
        leaves.append(node)
        return _LEAF
    if head == _NONE:
        return _NONE
    return head + tuple(_flatten_with(c, leaves, is_leaf) for c in children)


def node_children(node) -> tuple[list, tuple | None]:
    """(children, the treedef's head without its children) for a container; ([], None) for a leaf."""
    t = type(node)
    if t is tuple:
        return list(node), ("tuple",)
    if t is list:
        return list(node), ("list",)
    if t is dict:
        keys = tuple(sorted(node, key=repr))
        return [node[k] for k in keys], ("dict", keys)
    if node is None:
        return [], _NONE
    if isinstance(node, tuple) and hasattr(t, "_fields"):
        return list(node), ("namedtuple", t)
    rule = _NODES.get(t)
    if rule is None and t not in _JAX_LEAVES and "jax" in _MODULES:
        rule = _jax_rule(t, node)
    if rule is not None:
        children, aux = rule[0](node)
        return list(children), ("node", t, aux)
    return [], None


def head_size(d: tuple) -> int:
    """How many entries of treedef `d` precede its children."""
    return {"tuple": 1, "list": 1, "dict": 2, "namedtuple": 2, "node": 3}.get(d[0], len(d))


def num_leaves(d: tuple) -> int:
    if d[0] == "leaf":
        return 1
    return sum(num_leaves(c) for c in d[head_size(d):])


def flatten_up_to(treedef: tuple, tree) -> list:
    """The subtrees of `tree` at the leaves of `treedef` (which must be a prefix of tree's structure);
    ValueError naming the first difference."""
    out: list = []
    _up_to(treedef, tree, out, "tree")
    return out


def _up_to(d, node, out, where):
    if d[0] == "leaf":
        out.append(node)
        return
    children, head = node_children(node)
    if head is None or head != d[:head_size(d)]:
        want = d[0] if d[0] not in ("namedtuple", "node") else d[1].__name__
        raise ValueError(f"pytree structures differ at {where}: expected a {want} node with "
                         f"{len(d) - head_size(d)} children, got {type(node).__name__} "
                         f"{'(a leaf)' if head is None else 'node'}")
    kids = d[head_size(d):]
    if len(children) != len(kids):
        raise ValueError(f"pytree structures differ at {where}: expected {len(kids)} children, got {len(children)}")
    for i, (c, k) in enumerate(zip(children, kids)):
        _up_to(k, c, out, f"{where}[{i}]")


def unflatten(treedef: tuple, leaves) -> object:
    it = iter(leaves)
    return _unflatten(treedef, it)


def _unflatten(d, it):
    tag = d[0]
    if tag == "leaf":
        return next(it)
    if tag == "none":
        return None
    if tag == "tuple":
        return tuple(_unflatten(c, it) for c in d[1:])
    if tag == "list":
        return [_unflatten(c, it) for c in d[1:]]
    if tag == "dict":
        return {k: _unflatten(c, it) for k, c in zip(d[1], d[2:])}
    if tag == "namedtuple":
        return d[1](*[_unflatten(c, it) for c in d[2:]])
    if tag == "node":
        return _NODES[d[1]][1](d[2], tuple(_unflatten(c, it) for c in d[3:]))
    raise ValueError(f"bad treedef {d!r}")


def tree_map(fn, tree):
    leaves, treedef = flatten(tree)
    return unflatten(treedef, [fn(x) for x in leaves])


def freeze(value):
    """A hashable key that tells apart values `==` confuses: -0.0 from 0.0, 1 from 1.0 from True.

    Used for cache keys and for comparing equation params; slices (unhashable before Python 3.12) and
    0-D integer arrays used as slice bounds become tuples.
    """
    t = type(value)
    if t is float:
        return (float, value.hex())
    if t is complex:
        return (complex, value.real.hex(), value.imag.hex())
    if t is tuple:
        return (tuple, *(freeze(v) for v in value))
    if t is slice:
        return (slice, freeze(_bound(value.start)), freeze(_bound(value.stop)), freeze(_bound(value.step)))
    return (t, value)


def freeze_or_id(value):
    """`freeze(value)` when that is hashable, else a key by identity (an unhashable object: only the same
    object meets the same key)."""
    key = freeze(value)
    try:
        hash(key)
    except TypeError:
        return ("id", id(value))
    return key


def _bound(b):
    if b is None or type(b) is int:
        return b
    import operator

    try:
        return operator.index(b)
    except TypeError:
        return b
