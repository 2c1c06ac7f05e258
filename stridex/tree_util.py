"""Pytrees: the nested containers `jit`, `grad`, `vmap` and the custom rules take and return.

The same pytrees as `jax.tree_util`: tuples, lists, dicts (flattened in sorted-key order), namedtuples and
None (a node with no children), plus any class registered here. A registered class's instances pass through
`sx.jit`, `sx.grad` and `sx.vmap` like tuples do: their children are traced, their auxiliary data is static
(hashed into `jit`'s cache key, so it must be hashable).

>>> import stridex as sx
>>> from stridex import tree_util
>>> leaves, treedef = tree_util.tree_flatten({"b": (1, 2), "a": [3]})
>>> leaves
[3, 1, 2]
>>> tree_util.tree_unflatten(treedef, [30, 10, 20])
{'a': [30], 'b': (10, 20)}
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from stridex._core import tree as _tree

__all__ = ["PyTreeDef", "register_dataclass", "register_pytree_node", "tree_flatten", "tree_leaves", "tree_map",
           "tree_structure", "tree_unflatten"]


class PyTreeDef:
    """The structure of a pytree: equal for trees of the same shape (and equal auxiliary data), hashable."""

    __slots__ = ("_def",)

    def __init__(self, treedef: tuple):
        self._def = treedef

    @property
    def num_leaves(self) -> int:
        return _tree.num_leaves(self._def)

    @property
    def num_nodes(self) -> int:
        def count(d):
            return 1 + (0 if d[0] == "leaf" else sum(count(c) for c in d[_tree.head_size(d):]))
        return count(self._def)

    def unflatten(self, leaves):
        """The tree of this structure with `leaves` at its leaves."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"this structure has {self.num_leaves} leaves, got {len(leaves)}")
        return _tree.unflatten(self._def, leaves)

    def flatten_up_to(self, tree) -> list:
        """The subtrees of `tree` at this structure's leaves (this structure must be a prefix of tree's)."""
        return _tree.flatten_up_to(self._def, tree)

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._def == other._def

    def __hash__(self):
        return hash(self._def)

    def __repr__(self):
        return f"PyTreeDef({_show(self._def)})"


def _show(d) -> str:
    tag = d[0]
    if tag == "leaf":
        return "*"
    if tag == "none":
        return "None"
    kids = [_show(c) for c in d[_tree.head_size(d):]]
    if tag == "tuple":
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if tag == "list":
        return "[" + ", ".join(kids) + "]"
    if tag == "dict":
        return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(d[1], kids)) + "}"
    if tag == "namedtuple":
        return f"{d[1].__name__}(" + ", ".join(kids) + ")"
    aux = d[2].node_data()[1] if d[1] in _tree._FROM_JAX else d[2]  # (a JAX node's aux: its one-level treedef's)
    return f"CustomNode({d[1].__name__}[{aux!r}], [" + ", ".join(kids) + "])"


def register_pytree_node(nodetype: type, flatten_func: Callable[[Any], tuple[Iterable[Any], Any]],
                         unflatten_func: Callable[[Any, Iterable[Any]], Any]) -> None:
    """Register `nodetype` as a pytree node, as `jax.tree_util.register_pytree_node`.

    `flatten_func(node) -> (children, aux_data)`: the children are subtrees (traced by `jit`, differentiated
    by `grad`, batched by `vmap`); `aux_data` is static and must be hashable. `unflatten_func(aux_data,
    children) -> node` rebuilds it (the children come as a tuple).

    >>> import stridex as sx
    >>> class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda aux, ch: Pair(*ch))
    >>> sx.grad(lambda p: sx.sum(p.a * p.b))(Pair(sx.asarray(2.0), sx.asarray(3.0))).a
    Array(3.)
    """
    _tree.register_node(nodetype, flatten_func, unflatten_func)


def register_dataclass(nodetype: Any = None, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None, drop_fields: Sequence[str] = ()) -> Any:
    """Register a dataclass as a pytree node, as `jax.tree_util.register_dataclass`: `data_fields` are its
    children, `meta_fields` its static auxiliary data (hashable). Without the field lists, a field whose
    metadata has `static=True` is a meta field and every other `init` field a data field. Usable as a class
    decorator, bare or called with the field lists; returns the class.

    >>> import dataclasses
    >>> import stridex as sx
    >>> @register_dataclass
    ... @dataclasses.dataclass
    ... class Linear:
    ...     w: sx.Array
    ...     b: sx.Array
    ...     name: str = dataclasses.field(default="layer", metadata=dict(static=True))
    >>> sx.jit(lambda m, x: m.w * x + m.b)(Linear(sx.asarray(2.0), sx.asarray(1.0)), 3.0)
    Array(7.)
    """
    if nodetype is None:  # called with the field lists: the decorator
        return lambda cls: register_dataclass(cls, data_fields, meta_fields, drop_fields)
    if data_fields is None and meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: {nodetype.__qualname__} is not a dataclass; pass data_fields "
                            "and meta_fields")
        data_fields, meta_fields = [], []
        for f in dataclasses.fields(nodetype):
            if not f.init or f.name in drop_fields:
                continue
            (meta_fields if f.metadata.get("static", False) else data_fields).append(f.name)
    elif data_fields is None or meta_fields is None:
        raise TypeError("register_dataclass: give both data_fields and meta_fields, or neither")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init}
        missing = init - set(data_fields) - set(meta_fields) - set(drop_fields)
        if missing:
            raise ValueError(f"register_dataclass: {getattr(nodetype, '__qualname__', nodetype)}'s init fields {sorted(missing)} are in "
                             "neither data_fields nor meta_fields")

    def flatten(node):
        return tuple(getattr(node, f) for f in data_fields), tuple(getattr(node, f) for f in meta_fields)

    def unflatten(aux, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, aux)))

    _tree.register_node(nodetype, flatten, unflatten)
    return nodetype


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """(leaves, treedef). `is_leaf(subtree) -> bool` stops the flattening at the subtrees it accepts."""
    leaves, treedef = _tree.flatten_with(tree, is_leaf)
    return leaves, PyTreeDef(treedef)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """The tree of structure `treedef` with `leaves` at its leaves."""
    if not isinstance(treedef, PyTreeDef):
        raise TypeError(f"tree_unflatten: expected a PyTreeDef, got {type(treedef).__name__}")
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    return _tree.flatten_with(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    return PyTreeDef(_tree.flatten_with(tree, is_leaf)[1])


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`f` applied leafwise: to each leaf of `tree` and the subtrees at the same place in each of `rest`
    (whose structure `tree`'s must be a prefix of); the result has `tree`'s structure.

    >>> tree_map(lambda a, b: a + b, {"x": 1, "y": (2, 3)}, {"x": 10, "y": (20, 30)})
    {'x': 11, 'y': (22, 33)}
    """
    leaves, treedef = _tree.flatten_with(tree, is_leaf)
    others = [_tree.flatten_up_to(treedef, r) for r in rest]
    return _tree.unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])
