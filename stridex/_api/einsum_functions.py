"""`einsum` and `einsum_path` (NumPy's subscripts, `...` and implicit output): a contraction order chosen for speed,
then one `dot_general` per pair of operands.

A call is planned once per (subscripts, shapes, optimize) and the plan is cached: per operand, the axes a broadcast
of size 1 drops, the diagonals of repeated labels and the labels summed where only that operand has them; then the
pairwise contractions in the chosen order, each one `dot_general` (its batch axes the labels both operands and a
later step share, its contracted axes those nothing later needs); then a sum and a permutation into the output
order. Everything binds primitives, so `jit`, `grad` and `vmap` go through einsum like any other function.

Orders (`optimize=`): False contracts left to right; True, "greedy" and "auto" (the default, as `jax.numpy`'s)
take at each step the pair whose result shrinks the operands most (fewest operations on a tie), pairs that share a
label first; "optimal" searches every order (over subsets of the operands, 3^n) for the fewest operations; an
explicit path (`einsum_path`'s first result, or its list of pairs) is taken as given.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, NamedTuple

from stridex._core import dtypes as _dtypes
from stridex._core.array import Array
from stridex._lax import linalg as _linalg
from stridex._lax import ops
from stridex._exec import precision as _precision

__all__ = ["einsum", "einsum_path"]

_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_FIRST_ELLIPSIS_LABEL = 0x100  # (labels standing for the axes `...` covers: characters no subscript can use)


# --- parsing ---------------------------------------------------------------------------------------------------


def _interleaved(operands) -> tuple:
    """NumPy's other form, einsum(op0, sublist0, op1, sublist1, ..., [sublistout]), as (subscripts, operands)."""
    def letters(sublist):
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                out.append("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[s])
            else:
                raise ValueError(f"einsum: a subscript in the sublist form must be an integer in [0, 52) or "
                                 f"Ellipsis, got {s!r}")
        return "".join(out)

    arrays, subs = list(operands[0::2]), list(operands[1::2])
    output = None
    if len(arrays) > len(subs):  # (an odd count: the last is the output sublist)
        output = arrays.pop()
        if isinstance(output, Array):
            raise ValueError("einsum: the sublist form takes an operand and a sublist of subscripts for each operand")
    subscripts = ",".join(letters(s) for s in subs)
    if output is not None:
        subscripts += "->" + letters(output)
    return subscripts, arrays


def _labels(term: str, ndim: int, ellipsis: list, position: int) -> str:
    """A term's labels, its `...` replaced by the labels of the last axes `ellipsis` lists."""
    if "." in term:
        if term.count(".") != 3 or "..." not in term:
            raise ValueError(f"einsum: invalid ellipsis in subscripts {term!r} (operand {position}): use '...'")
        before, after = term.split("...")
        count = ndim - len(before) - len(after)
        if count < 0:
            raise ValueError(f"einsum: operand {position} has {ndim} dimensions, fewer than its subscripts "
                             f"{term!r} name")
        while len(ellipsis) < count:
            ellipsis.insert(0, chr(_FIRST_ELLIPSIS_LABEL + len(ellipsis)))
        return before + "".join(ellipsis[len(ellipsis) - count:]) + after
    if len(term) != ndim:
        raise ValueError(f"einsum: operand {position} has {ndim} dimensions but its subscripts {term!r} name "
                         f"{len(term)}")
    return term


def _parse(subscripts: str, shapes: tuple) -> tuple:
    """(the labels of each operand, the output's labels, {label: size})."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string, got {type(subscripts).__name__}")
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        inputs, output = spec.split("->", 1)
        if "->" in output or "-" in inputs or ">" in inputs:
            raise ValueError(f"einsum: subscripts {subscripts!r} have more than one '->'")
    else:
        if "-" in spec or ">" in spec:
            raise ValueError(f"einsum: invalid subscripts {subscripts!r}: '->' is the output's arrow")
        inputs, output = spec, None
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(terms)} operands, got {len(shapes)}")
    for term in terms + ([output] if output is not None else []):
        bad = set(term) - _LETTERS - {"."}
        if bad:
            raise ValueError(f"einsum: invalid subscript {sorted(bad)[0]!r} in {subscripts!r}: subscripts are "
                             "letters a-z and A-Z")
    ellipsis: list = []
    # (first pass: how many axes `...` covers at most, so that every operand's ellipsis labels align on the right)
    for term, shape in zip(terms, shapes):
        if "..." in term:
            count = len(shape) - len(term.replace("...", ""))
            while len(ellipsis) < count:
                ellipsis.insert(0, chr(_FIRST_ELLIPSIS_LABEL + len(ellipsis)))
    labels = [_labels(term, len(shape), ellipsis, i) for i, (term, shape) in enumerate(zip(terms, shapes))]
    sizes: dict = {}
    for i, (term, shape) in enumerate(zip(labels, shapes)):
        for label, size in zip(term, shape):
            known = sizes.get(label)
            if known is None or known == 1:
                sizes[label] = size
            elif size != known and size != 1:
                name = "..." if ord(label) >= _FIRST_ELLIPSIS_LABEL else repr(label)
                raise ValueError(f"einsum: subscript {name} has size {size} in operand {i} (shape {shape}) but "
                                 f"{known} elsewhere, in subscripts {subscripts!r}")
    if output is None:  # implicit: the broadcast axes, then the labels named once, in alphabetical order
        counts: dict = {}
        for term in terms:
            for label in term.replace(".", ""):
                counts[label] = counts.get(label, 0) + 1
        out = "".join(ellipsis) + "".join(sorted(label for label, c in counts.items() if c == 1))
    else:
        if "." in output and (output.count(".") != 3 or "..." not in output):
            raise ValueError(f"einsum: invalid ellipsis in the output subscripts {output!r}")
        if "..." not in output and ellipsis:
            raise ValueError(f"einsum: subscripts {subscripts!r}: the output has no '...' for the axes the inputs' "
                             "'...' cover")
        out = output.replace("...", "".join(ellipsis))
        for label in out:
            if out.count(label) > 1:
                raise ValueError(f"einsum: output subscript {label!r} appears more than once in {subscripts!r}")
            if label not in sizes:
                raise ValueError(f"einsum: output subscript {label!r} names no axis of the inputs in "
                                 f"{subscripts!r}")
    return labels, out, sizes


# --- contraction orders ----------------------------------------------------------------------------------------


def _size(labels, sizes) -> int:
    return math.prod(sizes[label] for label in labels)


def _kept(a, b, others, output) -> frozenset:
    """The labels of the contraction of `a` and `b` that a later step or the output needs."""
    needed = set(output)
    for o in others:
        needed |= o
    return frozenset((a | b) & needed)


def _greedy(operands: list, output: frozenset, sizes: dict) -> list:
    """Pairs (in NumPy's linear form: indices into the current list; the result goes to its end)."""
    current = list(operands)
    path = []
    while len(current) > 1:
        best: tuple | None = None
        for i in range(len(current)):
            for j in range(i + 1, len(current)):
                a, b = current[i], current[j]
                shares = bool(a & b)
                others = [c for k, c in enumerate(current) if k not in (i, j)]
                result = _kept(a, b, others, output)
                removed = _size(result, sizes) - _size(a, sizes) - _size(b, sizes)
                key = (not shares, removed, _size(a | b, sizes), i, j)
                if best is None or key < best[0]:
                    best = (key, i, j, result)
        assert best is not None  # (two operands at least)
        _, i, j, result = best
        path.append((i, j))
        current = [c for k, c in enumerate(current) if k not in (i, j)] + [result]
    return path


def _optimal(operands: list, output: frozenset, sizes: dict) -> list:
    """The order with the fewest multiply-adds, over every way to split every subset in two (3^n)."""
    n = len(operands)
    full = (1 << n) - 1
    labels_of = {}
    for subset in range(1, full + 1):
        inside = frozenset().union(*(operands[k] for k in range(n) if subset >> k & 1))
        outside = set(output).union(*(operands[k] for k in range(n) if not subset >> k & 1))
        labels_of[subset] = inside & frozenset(outside)
    best: dict = {1 << k: (0, None) for k in range(n)}
    for subset in sorted(range(1, full + 1), key=lambda s: bin(s).count("1")):
        if subset in best:
            continue
        lowest = subset & -subset
        found = None
        part = (subset - 1) & subset
        while part:
            if part & lowest:  # (each split once: the part holding the lowest operand)
                rest = subset ^ part
                cost = best[part][0] + best[rest][0] + _size(labels_of[part] | labels_of[rest], sizes)
                if found is None or cost < found[0]:
                    found = (cost, (part, rest))
            part = (part - 1) & subset
        best[subset] = found
    # the tree in post-order, as pairs of positions in the current list
    order: list = []

    def walk(subset):
        split = best[subset][1]
        if split is not None:
            walk(split[0])
            walk(split[1])
            order.append(split)

    walk(full)
    current = [1 << k for k in range(n)]
    path = []
    for part, rest in order:
        i, j = sorted((current.index(part), current.index(rest)))
        path.append((i, j))
        current = [c for k, c in enumerate(current) if k not in (i, j)] + [part | rest]
    return path


def _explicit(path, n: int) -> list:
    steps = list(path)
    if steps and steps[0] == "einsum_path":
        steps = steps[1:]
    pairs, count = [], n
    for step in steps:
        step = tuple(step)
        if any(not isinstance(k, int) or not 0 <= k < count for k in step) or len(set(step)) != len(step) or not step:
            raise ValueError(f"einsum: invalid contraction path {path!r}: step {step} names operands outside the "
                             f"{count} remaining")
        if len(step) == 1:
            continue  # (one operand: nothing to contract, as NumPy's paths allow)
        if len(step) > 2:
            raise ValueError(f"einsum: contraction path steps must contract two operands, got {step}")
        pairs.append((min(step), max(step)))
        count -= 1
    if count != 1:
        raise ValueError(f"einsum: contraction path {path!r} leaves {count} operands, not one")
    return pairs


def _path(operands: list, output: frozenset, sizes: dict, optimize) -> list:
    if len(operands) < 2:
        return []
    if optimize is False or optimize is None:
        return [(0, 1)] * (len(operands) - 1)
    if optimize is True or optimize in ("greedy", "auto"):
        return _greedy(operands, output, sizes)
    if optimize == "optimal":
        return _optimal(operands, output, sizes)
    if isinstance(optimize, (list, tuple)):
        return _explicit(optimize, len(operands))
    raise ValueError(f"einsum: optimize must be True, False, 'greedy', 'optimal', 'auto' or a contraction path, got "
                     f"{optimize!r}")


# --- the plan ----------------------------------------------------------------------------------------------------


class _Prepare(NamedTuple):
    """What is done to one operand before the contractions: axes squeezed (a broadcast of size 1), diagonals
    taken (pairs of axes with one label), axes summed (labels nothing else has); its labels then."""

    squeeze: tuple
    diagonals: tuple
    sums: tuple
    labels: str


class _Step(NamedTuple):
    """One contraction: operands i and j of the current list (removed; the result appended)."""

    i: int
    j: int
    dimension_numbers: tuple
    swapped: bool  # operand j goes first


class _Plan(NamedTuple):
    prepare: tuple
    steps: tuple
    sums: tuple       # the last operand's axes summed at the end (one operand alone)
    permutation: tuple
    path: list        # NumPy's linear form, for einsum_path
    labels: tuple     # each operand's labels, for einsum_path's report
    output: str
    sizes: dict


def _inversions(labels: str, rank: dict) -> int:
    """How many pairs of `labels` are out of the output's order (labels not in the output rank after it)."""
    ranks = [rank.get(label, len(rank)) for label in labels]
    return sum(ranks[p] > ranks[q] for p in range(len(ranks)) for q in range(p + 1, len(ranks)))


def _prepare(labels: str, shape: tuple, sizes: dict, elsewhere: set) -> _Prepare:
    squeeze = tuple(k for k, label in enumerate(labels) if shape[k] == 1 and sizes[label] != 1)
    labels = "".join(label for k, label in enumerate(labels) if k not in squeeze)
    diagonals = []
    while len(set(labels)) != len(labels):
        first = next(k for k, label in enumerate(labels) if labels.count(label) > 1)
        second = labels.index(labels[first], first + 1)
        diagonals.append((first, second))
        labels = "".join(label for k, label in enumerate(labels) if k not in (first, second)) + labels[first]
    sums = tuple(k for k, label in enumerate(labels) if label not in elsewhere)
    labels = "".join(label for k, label in enumerate(labels) if k not in sums)
    return _Prepare(squeeze, tuple(diagonals), sums, labels)


def _plan(subscripts: str, shapes: tuple, optimize) -> _Plan:
    labels, output, sizes = _parse(subscripts, shapes)
    prepared = []
    for k, (term, shape) in enumerate(zip(labels, shapes)):
        elsewhere = set(output).union(*(labels[m] for m in range(len(labels)) if m != k))
        prepared.append(_prepare(term, shape, sizes, elsewhere))
    operands = [frozenset(p.labels) for p in prepared]
    path = _path(operands, frozenset(output), sizes, optimize)
    current = [p.labels for p in prepared]
    steps = []
    rank = {label: k for k, label in enumerate(output)}
    for i, j in path:
        others = [frozenset(c) for k, c in enumerate(current) if k not in (i, j)]
        kept = _kept(frozenset(current[i]), frozenset(current[j]), others, frozenset(output))
        # Either operand may go first: the one whose result is nearer the output's order (the final permutation is
        # then a copy fewer under jit: XLA writes a dot's result in its own order). Batch labels in output order.
        best: tuple | None = None
        for first, second in ((i, j), (j, i)):
            a, b = current[first], current[second]
            batch = sorted((label for label in a if label in b and label in kept), key=lambda x: rank.get(x, len(rank)))
            result = "".join(batch) + "".join(x for x in a if x not in b) + "".join(x for x in b if x not in a)
            disorder = _inversions(result, rank)
            if best is None or disorder < best[0]:
                best = (disorder, a, b, batch, result, first != i)
        assert best is not None
        _, a, b, batch, result, swapped = best
        contract = [label for label in a if label in b and label not in kept]
        numbers = ((tuple(a.index(x) for x in contract), tuple(b.index(x) for x in contract)),
                   (tuple(a.index(x) for x in batch), tuple(b.index(x) for x in batch)))
        steps.append(_Step(i, j, numbers, swapped))
        current = [c for k, c in enumerate(current) if k not in (i, j)] + [result]
    (last,) = current
    sums = tuple(k for k, label in enumerate(last) if label not in output)
    last = "".join(label for k, label in enumerate(last) if k not in sums)
    return _Plan(tuple(prepared), tuple(steps), sums, tuple(last.index(label) for label in output), path,
                 tuple(labels), output, sizes)


_PLANS: OrderedDict = OrderedDict()
_PLANS_LIMIT = 256  # (plans are small and cheap to make again; least recently used out)


def _planned(subscripts: str, shapes: tuple, optimize) -> _Plan:
    if isinstance(optimize, (list, tuple)):
        optimize = tuple(step if isinstance(step, str) else tuple(step) for step in optimize)
    key = (subscripts, shapes, optimize)
    try:
        hash(key)
    except TypeError:
        return _plan(subscripts, shapes, optimize)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan(subscripts, shapes, optimize)
        _PLANS[key] = plan
        if len(_PLANS) > _PLANS_LIMIT:
            _PLANS.popitem(last=False)
    else:
        _PLANS.move_to_end(key)
    return plan


def check_precision(precision: Any, what: str) -> None:
    """Refuse (ValueError) a `precision` that JAX would refuse. Accepted: None, a name or preset that
    `sx.matmul_precision` takes, a `jax.lax.Precision` or `DotAlgorithmPreset` (by its name), or a pair of them.
    It is checked, not applied (float32 products follow stridex's setting: see `sx.lax.dot_general`)."""
    for p in precision if isinstance(precision, (tuple, list)) and len(precision) == 2 else (precision,):
        if p is None:
            continue
        name = p if isinstance(p, str) else getattr(p, "name", None)
        try:
            if not isinstance(name, str):
                raise ValueError
            _precision.canonical(name)
        except ValueError:
            raise ValueError(f"{what}: precision must be None, a name such as 'highest' or 'default', a "
                             f"jax.lax.Precision, or a pair of them; got {precision!r}") from None


# --- the functions -------------------------------------------------------------------------------------------------


def _operands(fname: str, subscripts, operands) -> tuple:
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved((subscripts, *operands))
    arrays = []
    for k, x in enumerate(operands):
        if not isinstance(x, Array):
            if isinstance(x, (bool, int, float, complex)):
                x = ops.constant(x)
            else:
                raise TypeError(f"{fname}: operand {k} must be a stridex array, got {type(x).__name__}")
        arrays.append(x)
    return subscripts, arrays


def einsum(subscripts: Any, *operands: Any, out: None = None, optimize: Any = "auto", precision: Any = None,
           preferred_element_type: Any = None, dtype: Any = None) -> Array:
    """The Einstein summation of NumPy's `einsum`: subscripts such as "ij,jk->ik", `...` for broadcast axes, an
    implicit output (the labels named once, in alphabetical order) without `->`, or NumPy's sublist form. The
    contraction order is chosen for speed (`optimize`: "auto"/"greedy"/True, "optimal", False, or an explicit
    path), and each pair is contracted with one `dot_general`.

    The operands are promoted by stridex's rules, or computed in `preferred_element_type` (`dtype`, NumPy's name,
    is the same). `precision` as for `sx.lax.dot_general`. `out` must be None (arrays are not written into).

    >>> import stridex as sx
    >>> a, b, c = sx.ones((2, 3)), sx.ones((3, 4)), sx.ones((4, 5))
    >>> sx.einsum("ij,jk,kl->il", a, b, c)[0]
    Array([12., 12., 12., 12., 12.])
    >>> sx.einsum("ii", sx.eye(3))
    Array(3.)
    """
    if out is not None:
        raise ValueError("einsum: out= is not supported (stridex's einsum returns a new array)")
    check_precision(precision, "einsum")
    subscripts, arrays = _operands("einsum", subscripts, operands)
    if not arrays:
        raise ValueError("einsum needs at least one operand")
    for k, x in enumerate(arrays):
        if x.dtype.kind == "bool":
            raise TypeError(f"einsum requires numeric operands, got {x.dtype.name} for operand {k}")
    if preferred_element_type is not None and dtype is not None and preferred_element_type != dtype:
        raise ValueError("einsum: give dtype or preferred_element_type, not both")
    wanted = preferred_element_type if preferred_element_type is not None else dtype
    if wanted is not None:
        result = _dtypes.as_dtype(wanted) or _dtypes.from_numpy(wanted)
        if result is None:
            raise TypeError(f"einsum: dtype must be a dtype, got {wanted!r}")
    else:
        result = _dtypes.result_type_of(*(x.dtype for x in arrays))
    plan = _planned(subscripts, tuple(x.shape for x in arrays), optimize)
    current = []
    for x, prepare in zip(arrays, plan.prepare):
        if prepare.squeeze:
            x = ops.squeeze(x, prepare.squeeze)
        for first, second in prepare.diagonals:
            x = ops.diagonal(x, 0, first, second)
        if prepare.sums:
            x = ops.sum(x, prepare.sums, dtype=result)
        current.append(x)
    for step in plan.steps:
        a, b = (current[step.j], current[step.i]) if step.swapped else (current[step.i], current[step.j])
        c = _linalg.dot_general.bind(a, b, dimension_numbers=step.dimension_numbers, out_dtype=result)
        current = [x for k, x in enumerate(current) if k not in (step.i, step.j)] + [c]
    (x,) = current
    if plan.sums:
        x = ops.sum(x, plan.sums, dtype=result)
    x = ops.permute(x, plan.permutation)
    if x.dtype is not result:
        x = ops.astype(x, result)
    return x


def einsum_path(subscripts: Any, *operands: Any, optimize: Any = "greedy") -> tuple[list, str]:
    """The contraction order `einsum` takes, as NumPy's `einsum_path`: `(["einsum_path", (i, j), ...], report)`,
    each pair the positions of two operands in the current list (the result goes to its end); operands may be
    arrays or anything with a `shape`.

    >>> import stridex as sx
    >>> a, b, c = sx.ones((2, 3)), sx.ones((3, 4)), sx.ones((4, 5))
    >>> sx.numpy.einsum_path("ij,jk,kl->il", a, b, c)[0]
    ['einsum_path', (1, 2), (0, 1)]
    """
    if not isinstance(subscripts, str):
        subscripts, operands = _interleaved((subscripts, *operands))
    shapes = []
    for k, x in enumerate(operands):
        shape = getattr(x, "shape", None)
        if shape is None:
            raise TypeError(f"einsum_path: operand {k} has no shape ({type(x).__name__})")
        shapes.append(tuple(shape))
    plan = _planned(subscripts, tuple(shapes), optimize)

    def shown(labels):
        return "".join(label if ord(label) < _FIRST_ELLIPSIS_LABEL else "." for label in labels)

    naive = _size(set().union(*plan.labels), plan.sizes) if plan.labels else 0
    current = [p.labels for p in plan.prepare]
    lines, total, largest = [], 0, 0
    for step in plan.steps:
        a, b = (current[step.j], current[step.i]) if step.swapped else (current[step.i], current[step.j])
        flops = _size(set(a) | set(b), plan.sizes)
        rest = [c for k, c in enumerate(current) if k not in (step.i, step.j)]
        (lc, _), (lb, _) = step.dimension_numbers
        batch = [a[k] for k in lb]
        result = "".join(batch) + "".join(x for x in a if x not in b) + "".join(x for x in b if x not in a)
        total += flops
        largest = max(largest, _size(result, plan.sizes))
        lines.append(f"  {shown(a)},{shown(b)}->{shown(result)}  ({flops:.3e} multiply-adds); remaining: "
                     f"{','.join(shown(c) for c in rest + [result])}->{shown(plan.output)}")
        current = rest + [result]
    report = "\n".join([f"  Complete contraction:  {subscripts}",
                        f"  Naive multiply-adds:  {naive:.3e}",
                        f"  Optimized multiply-adds:  {total:.3e}",
                        f"  Largest intermediate:  {largest:.3e} elements", *lines])
    return ["einsum_path", *(plan.path or [(0,)] * (len(shapes) == 1))], report
