"""Pytrees: tuples, lists, dicts, namedtuples and None around leaves (arrays, scalars, static values)."""

from __future__ import annotations

_LEAF = ("leaf",)
_NONE = ("none",)


def flatten(tree) -> tuple[list, tuple]:
    """(leaves, treedef); treedef is hashable and rebuilds the structure with `unflatten`."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(node, leaves):
    t = type(node)
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
    leaves.append(node)
    return _LEAF


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
