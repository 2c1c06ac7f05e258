"""Program passes: dead-code elimination, common-subexpression elimination, folding of view chains.

Each pass takes a Program and returns a new, equivalent one (the input is not modified).
"""

from __future__ import annotations

from stridex._core.tree import freeze
from stridex._transforms.ir import Eqn, Literal, Program, Var, has_effect, replace_sub_programs


def _inside(eqn: Eqn, pass_fn) -> Eqn:
    """`eqn` with the pass applied inside its sub-programs (a higher-order primitive's params), if any."""
    params = replace_sub_programs(eqn.params, pass_fn)
    return eqn if params is eqn.params else Eqn(eqn.prim, eqn.inputs, params, eqn.outputs)


def dead_code_elimination(program: Program) -> Program:
    """Drop equations none of whose outputs reach the program's outputs (inside sub-programs too); equations
    with an effect (`ir.has_effect`) stay."""
    live = {id(v) for v in program.outputs if isinstance(v, Var)}
    kept = []
    for eqn in reversed(program.eqns):
        if any(id(v) in live for v in eqn.outputs) or has_effect(eqn):
            if eqn.prim.name == "scan" and not all(id(v) in live for v in eqn.outputs):
                eqn = _prune_scan(eqn, live)
            eqn = _inside(eqn, dead_code_elimination)
            kept.append(eqn)
            live.update(id(v) for v in eqn.inputs if isinstance(v, Var))
    kept.reverse()
    return Program(program.inputs, program.constants, kept, program.outputs)


def _needed_inputs(program: Program, outputs: list) -> set:
    """ids of the inputs of `program` that the outputs at positions `outputs`, or its effects, depend on."""
    need = {id(program.outputs[k]) for k in outputs if isinstance(program.outputs[k], Var)}
    for eqn in reversed(program.eqns):
        if any(id(v) in need for v in eqn.outputs) or has_effect(eqn):
            need.update(id(v) for v in eqn.inputs if isinstance(v, Var))
    return need


def _prune_scan(eqn: Eqn, live: set) -> Eqn:
    """A scan without the carries and stacked outputs no live value needs (a carry stays while a needed value
    depends on it through the body), nor the operands its pruned body no longer reads."""
    body, nc, nk = eqn.params["body"], eqn.params["num_consts"], eqn.params["num_carry"]
    ny = len(body.outputs) - nk
    keep_carry = {j for j in range(nk) if id(eqn.outputs[j]) in live}
    keep_y = [k for k in range(ny) if id(eqn.outputs[nk + k]) in live]
    while True:
        need = _needed_inputs(body, sorted(keep_carry) + [nk + k for k in keep_y])
        more = {j for j in range(nk) if id(body.inputs[nc + j]) in need} - keep_carry
        if not more:
            break
        keep_carry |= more
    carries = sorted(keep_carry)
    if len(carries) == nk and len(keep_y) == ny:
        return eqn
    consts = [i for i in range(nc) if id(body.inputs[i]) in need]
    xs = [i for i in range(nc + nk, len(body.inputs)) if id(body.inputs[i]) in need]
    ins = consts + [nc + j for j in carries] + xs
    outs = carries + [nk + k for k in keep_y]
    new_body = Program([body.inputs[i] for i in ins], body.constants, body.eqns, [body.outputs[k] for k in outs])
    params = {**eqn.params, "body": new_body, "num_consts": len(consts), "num_carry": len(carries)}
    return Eqn(eqn.prim, [eqn.inputs[i] for i in ins], params, [eqn.outputs[k] for k in outs])


def _operand_key(v):
    if isinstance(v, Literal):
        return ("lit", freeze(v.value), v.aval)
    return id(v)


def common_subexpression_elimination(program: Program) -> Program:
    """Reuse the outputs of an earlier equation with the same primitive, operands and params (inside
    sub-programs too, each on its own)."""
    rename: dict[int, object] = {}
    seen: dict[tuple, Eqn] = {}
    eqns = []

    def sub(v):
        return rename.get(id(v), v) if isinstance(v, Var) else v

    for eqn in program.eqns:
        eqn = _inside(eqn, common_subexpression_elimination)
        inputs = [sub(v) for v in eqn.inputs]
        key = (eqn.prim, tuple(_operand_key(v) for v in inputs),
               tuple((k, freeze(v)) for k, v in sorted(eqn.params.items())))
        try:
            earlier = None if has_effect(eqn) else seen.get(key)  # (an effect happens as often as it is written)
        except TypeError:  # an unhashable param: leave the equation alone
            earlier, key = None, None  # type: ignore[assignment]  # (no key: the equation is kept as it is)
        if earlier is not None:
            for new, old in zip(eqn.outputs, earlier.outputs):
                rename[id(new)] = old
            continue
        new_eqn = Eqn(eqn.prim, inputs, eqn.params, eqn.outputs)
        if key is not None:
            seen[key] = new_eqn
        eqns.append(new_eqn)
    return Program(program.inputs, program.constants, eqns, [sub(v) for v in program.outputs])


def fold_views(program: Program) -> Program:
    """Fold chains of view equations into one view where the second view's record says how (its `compose`
    rule: permute∘permute, flip∘flip, runs of reshapes/expand/squeeze), and drop views its `is_identity` rule
    says change nothing. Only equations whose intermediate result has no other use are folded."""
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
        eqn = Eqn(eqn.prim, inputs, replace_sub_programs(eqn.params, fold_views), eqn.outputs)
        prim = eqn.prim
        if prim.compose is not None or prim.is_identity is not None:
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
    """`second` applied after `first` as one equation, where `second`'s record can compose them."""
    if second.prim.compose is None:
        return None
    (out,) = second.outputs
    merged = second.prim.compose(first.prim, first.params, second.params, out.aval)
    if merged is None:
        return None
    prim, params = merged
    return Eqn(prim, first.inputs, params, [out])


def _is_identity(eqn: Eqn) -> bool:
    (x,) = eqn.inputs
    return eqn.prim.is_identity is not None and eqn.prim.is_identity(x.aval, **eqn.params)


def merge_extended_scans(program: Program) -> Program:
    """Where a later `scan` runs on the same operands, with the same params, a body that is an earlier scan's
    body with more per-step outputs (reverse mode's forward scan, which also returns the residuals, beside
    the primal scan), the later one replaces the earlier: one loop computes both. Runs first, while the
    bodies still share their equations."""
    scans = [e for e in program.eqns if e.prim.name == "scan"]
    replace: dict[int, Eqn] = {}
    taken: set[int] = set()
    for i, a in enumerate(scans):
        if id(a) in taken:  # (already the extension of an earlier scan: it moves there, whole)
            continue
        for b in scans[i + 1:]:
            if id(b) not in taken and id(b) not in replace and _extends(b, a):
                replace[id(a)] = b
                taken.add(id(b))
                break
    if not replace:
        return program
    rename: dict[int, object] = {}
    eqns = []

    def sub(v):
        return rename.get(id(v), v) if isinstance(v, Var) else v

    for eqn in program.eqns:
        if id(eqn) in taken:
            continue
        if id(eqn) in replace:
            later = replace[id(eqn)]
            for old, new in zip(eqn.outputs, later.outputs):
                rename[id(old)] = new
            eqns.append(Eqn(later.prim, [sub(v) for v in eqn.inputs], later.params, later.outputs))
            continue
        eqns.append(Eqn(eqn.prim, [sub(v) for v in eqn.inputs], eqn.params, eqn.outputs))
    return Program(program.inputs, program.constants, eqns, [sub(v) for v in program.outputs])


def _extends(b: Eqn, a: Eqn) -> bool:
    if b.prim is not a.prim or len(b.inputs) != len(a.inputs) or set(b.params) != set(a.params):
        return False
    if any(_operand_key(x) != _operand_key(y) for x, y in zip(b.inputs, a.inputs)):
        return False
    for k, v in a.params.items():
        w = b.params[k]
        if isinstance(v, Program):
            if not (isinstance(w, Program) and len(w.inputs) == len(v.inputs) and len(w.eqns) == len(v.eqns)
                    and len(w.outputs) >= len(v.outputs)
                    and all(x is y for x, y in zip(w.inputs, v.inputs))
                    and all(x is y for x, y in zip(w.eqns, v.eqns))
                    and all(x is y for x, y in zip(w.outputs, v.outputs))):
                return False
        elif freeze(v) != freeze(w):
            return False
    return True


def optimize(program: Program) -> Program:
    return dead_code_elimination(common_subexpression_elimination(fold_views(merge_extended_scans(program))))
