"""The `tree` extension: `jax.tree`'s names over stridex's pytrees (`stridex.tree_util`'s registry).

Tuples, lists, dicts (in sorted-key order), namedtuples, None and the classes registered with
`stridex.tree_util.register_pytree_node` / `register_dataclass` are nodes; everything else is a leaf.

>>> import stridex as sx
>>> sx.tree.map(lambda x: x * 2, {"a": 1, "b": (2, 3)})
{'a': 2, 'b': (4, 6)}
>>> sx.tree.leaves({"b": [1, None], "a": 2})
[2, 1]
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable, Iterable
from typing import Any

from stridex.tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten

__all__ = ["all", "flatten", "leaves", "map", "reduce", "structure", "transpose", "unflatten"]

_NO_INITIALIZER = object()


def map(f: Callable[..., Any], tree: Any, *rest: Any,  # noqa: A001  (jax.tree's name)
        is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`f` applied to each leaf of `tree` and the subtrees at the same places in `rest` (whose structures
    `tree`'s must be a prefix of); the result has `tree`'s structure.

    >>> import stridex as sx
    >>> sx.tree.map(lambda a, b: a + b, [1, (2,)], [10, (20,)])
    [11, (22,)]
    """
    return tree_map(f, tree, *rest, is_leaf=is_leaf)


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list[Any], PyTreeDef]:
    """(leaves, treedef); `unflatten(treedef, leaves)` rebuilds the tree.

    >>> import stridex as sx
    >>> sx.tree.flatten((1, {"x": 2}))[0]
    [1, 2]
    """
    return tree_flatten(tree, is_leaf)


def unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """The tree of structure `treedef` with `leaves` at its leaves.

    >>> import stridex as sx
    >>> sx.tree.unflatten(sx.tree.structure((0, [0])), [1, 2])
    (1, [2])
    """
    return tree_unflatten(treedef, leaves)


def leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of `tree`, in flattening order.

    >>> import stridex as sx
    >>> sx.tree.leaves([1, (2, None), {"z": 3, "a": 4}])
    [1, 2, 4, 3]
    """
    return tree_leaves(tree, is_leaf)


def structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure (treedef) of `tree`.

    >>> import stridex as sx
    >>> sx.tree.structure({"a": (1, 2)})
    PyTreeDef({'a': (*, *)})
    """
    return tree_structure(tree, is_leaf)


def reduce(function: Callable[[Any, Any], Any], tree: Any, initializer: Any = _NO_INITIALIZER,
           is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """`functools.reduce(function, leaves(tree)[, initializer])`.

    >>> import stridex as sx
    >>> sx.tree.reduce(lambda a, b: a + b, {"x": 1, "y": [2, 3]}, 10)
    16
    """
    found = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, found)
    return functools.reduce(function, found, initializer)


def all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:  # noqa: A001  (jax.tree's name)
    """Whether every leaf of `tree` is true (`builtins.all` of the leaves; an array leaf needs one element).

    >>> import stridex as sx
    >>> sx.tree.all({"a": True, "b": [1, 2]}), sx.tree.all([True, 0])
    (True, False)
    """
    return builtins.all(tree_leaves(tree, is_leaf))


def transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree_to_transpose: Any) -> Any:
    """A tree of `outer_treedef` whose leaves are trees of `inner_treedef`, turned into a tree of `inner_treedef`
    whose leaves are trees of `outer_treedef` (`inner_treedef` None: the structure of the first inner tree).

    >>> import stridex as sx
    >>> sx.tree.transpose(sx.tree.structure([0, 0]), sx.tree.structure((0, 0)), [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    if not isinstance(outer_treedef, PyTreeDef):
        raise TypeError(f"tree.transpose: outer_treedef must be a PyTreeDef, got {type(outer_treedef).__name__}")
    inner_trees = outer_treedef.flatten_up_to(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(inner_trees[0]) if inner_trees else PyTreeDef(("leaf",))
    for t in inner_trees:
        if tree_structure(t) != inner_treedef:
            raise TypeError(f"tree.transpose: an inner tree has structure {tree_structure(t)}, expected "
                            f"{inner_treedef}")
    columns = [tree_leaves(t) for t in inner_trees]
    rows = [outer_treedef.unflatten([column[k] for column in columns]) for k in range(inner_treedef.num_leaves)]
    return inner_treedef.unflatten(rows)

