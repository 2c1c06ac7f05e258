"""Program passes: dead-code elimination, common-subexpression elimination, folding of view chains.

Each pass takes a Program and returns a new, equivalent one (the input is not modified).
"""

from __future__ import annotations

from stridex._core.tree import freeze
from stridex._lax.primitive import PRIMITIVES
from stridex._transforms.ir import Eqn, Literal, Program, Var


def dead_code_elimination(program: Program) -> Program:
    """Drop equations none of whose outputs reach the program's outputs."""
    live = {id(v) for v in program.outputs if isinstance(v, Var)}
    kept = []
    for eqn in reversed(program.eqns):
        if any(id(v) in live for v in eqn.outputs):
            kept.append(eqn)
            live.update(id(v) for v in eqn.inputs if isinstance(v, Var))
    kept.reverse()
    return Program(program.inputs, program.constants, kept, program.outputs)


def _operand_key(v):
    if isinstance(v, Literal):
        return ("lit", freeze(v.value), v.aval)
    return id(v)


def common_subexpression_elimination(program: Program) -> Program:
    """Reuse the outputs of an earlier equation with the same primitive, operands and params."""
    rename: dict[int, object] = {}
    seen: dict[tuple, Eqn] = {}
    eqns = []

    def sub(v):
        return rename.get(id(v), v) if isinstance(v, Var) else v

    for eqn in program.eqns:
        inputs = [sub(v) for v in eqn.inputs]
        key = (eqn.prim.name, tuple(_operand_key(v) for v in inputs),
               tuple((k, freeze(v)) for k, v in sorted(eqn.params.items())))
        try:
            earlier = seen.get(key)
        except TypeError:  # an unhashable param: leave the equation alone
            earlier, key = None, None
        if earlier is not None:
            for new, old in zip(eqn.outputs, earlier.outputs):
                rename[id(new)] = old
            continue
        new_eqn = Eqn(eqn.prim, inputs, eqn.params, eqn.outputs)
        if key is not None:
            seen[key] = new_eqn
        eqns.append(new_eqn)
    return Program(program.inputs, program.constants, eqns, [sub(v) for v in program.outputs])


_RESHAPES = ("reshape_view", "expand_dims", "squeeze")


def fold_views(program: Program) -> Program:
    """Fold chains of view equations: permute∘permute, flip∘flip, and runs of reshapes/expand/squeeze;
    identity views disappear. Only equations whose intermediate result has no other use are folded."""
    uses: dict[int, int] = {}
    for eqn in program.eqns:
        for v in eqn.inputs:
            if isinstance(v, Var):
                uses[id(v)] = uses.get(id(v), 0) + 1
    for v in program.outputs:
        if isinstance(v, Var):
            uses[id(v)] = uses.get(id(v), 0) + 1
    producer: dict[int, Eqn] = {}
    rename: dict[int, object] = {}
    eqns: list[Eqn] = []

    def sub(v):
        while isinstance(v, Var) and id(v) in rename:
            v = rename[id(v)]
        return v

    for eqn in program.eqns:
        inputs = [sub(v) for v in eqn.inputs]
        eqn = Eqn(eqn.prim, inputs, eqn.params, eqn.outputs)
        name = eqn.prim.name
        if name in ("permute", "flip", *_RESHAPES):
            (x,) = inputs
            parent = producer.get(id(x)) if isinstance(x, Var) else None
            if parent is not None and uses.get(id(x), 0) == 1 and parent in eqns:
                merged = _merge(parent, eqn)
                if merged is not None:
                    eqns.remove(parent)
                    eqn = merged
            if _is_identity(eqn):
                source, (out,) = eqn.inputs[0], eqn.outputs
                rename[id(out)] = source
                if isinstance(source, Var):  # the output's uses are now uses of its source
                    uses[id(source)] = uses.get(id(source), 0) - 1 + uses.get(id(out), 0)
                continue
        for v in eqn.outputs:
            producer[id(v)] = eqn
        eqns.append(eqn)
    return Program(program.inputs, program.constants, eqns, [sub(v) for v in program.outputs])


def _merge(first: Eqn, second: Eqn):
    a, b = first.prim.name, second.prim.name
    (out,) = second.outputs
    if a == b == "permute":
        axes = tuple(first.params["axes"][i] for i in second.params["axes"])
        return Eqn(first.prim, first.inputs, {"axes": axes}, [out])
    if a == b == "flip":
        axes = tuple(sorted(set(first.params["axes"]) ^ set(second.params["axes"])))
        return Eqn(first.prim, first.inputs, {"axes": axes}, [out])
    if a in _RESHAPES and b in _RESHAPES:
        return Eqn(PRIMITIVES["reshape_view"], first.inputs, {"shape": out.aval.shape}, [out])
    return None


def _is_identity(eqn: Eqn) -> bool:
    name, params = eqn.prim.name, eqn.params
    (x,) = eqn.inputs
    if name == "permute":
        return params["axes"] == tuple(range(len(params["axes"])))
    if name == "flip":
        return all(x.aval.shape[a] <= 1 for a in params["axes"])
    if name == "reshape_view":
        return params["shape"] == x.aval.shape
    return False


def optimize(program: Program) -> Program:
    return dead_code_elimination(common_subexpression_elimination(fold_views(program)))
