"""The control-flow primitives `cond`, `while` and `scan`: their records (abstract evaluation, eager rule, lowering,
JVP, VJP, batching), and the flat forms that trace (or, eagerly, run) Python functions of flat lists into them.
The public functions over pytrees are `stridex._transforms.control_flow`'s."""

from __future__ import annotations

import numpy as np

from stridex._core import dtypes as _dtypes
from stridex._core import tree as _tree
from stridex._core.array import Array
from stridex._core.avals import ShapedArray, promote_avals, value_aval
from stridex._core.state import current_trace
from stridex._lax import ops
from stridex._exec.jax_bridge import as_dtype, lax
from stridex._lax.primitive import Primitive
from stridex._lax.rule_shapes import move_to_front
from stridex._transforms import autodiff
from stridex._transforms.batching import rule_vmap
from stridex._transforms.ir import Literal, Program, Var, evaluate
from stridex._transforms.lowering import lower_program
from stridex._transforms.passes import dead_code_elimination
from stridex._transforms.subprogram import SubProgram, output_dependencies, trace_function, write_outer
from stridex._transforms.tracing import Tracer, user_frame


def _carry_aval(x) -> ShapedArray:
    a = value_aval(x)
    return ShapedArray(tuple(a.shape), a.dtype, a.weak_type)


def _fit_weak(out: list, avals: list) -> list:
    """A body's carry outputs where a weakly typed one (a Python scalar, or a value computed only from them)
    stands for a carry of a dtype it promotes to: cast to that dtype (as the same loop in Python would keep
    the carry's dtype through `c * 2`; JAX's scan refuses a Python float for a float32 carry)."""
    fitted = []
    for x, aval in zip(out, avals):
        a = value_aval(x)
        if a.weak_type and a.dtype is not aval.dtype and tuple(a.shape) == tuple(aval.shape):
            strong = ShapedArray(tuple(aval.shape), aval.dtype)
            if promote_avals(strong, a)[0] is aval.dtype:
                x = ops.astype(_as(x, a), aval.dtype)
        fitted.append(x)
    return fitted + list(out[len(avals):])


def _describe(aval) -> str:
    return f"{aval.dtype}{list(aval.shape)}"


def _check_types(what: str, names, expected, got, expected_label: str, got_label: str) -> None:
    for name, e, g in zip(names, expected, got):
        if tuple(e.shape) != tuple(g.shape) or e.dtype is not g.dtype:
            raise TypeError(f"{what}: {got_label} leaf {name} has type {_describe(g)}, but {expected_label} has "
                            f"{_describe(e)}; they must match in shape and dtype")


def leaf_paths(tree) -> list:
    """A readable path for each leaf of `tree` (`[0]`, `['w']`, `.x`, or `` for a single leaf)."""
    out: list = []

    def walk(node, path):
        t = type(node)
        if t in (tuple, list) or (isinstance(node, tuple) and hasattr(t, "_fields")):
            fields = getattr(t, "_fields", None)
            for i, c in enumerate(node):
                walk(c, path + (f".{fields[i]}" if fields else f"[{i}]"))
        elif t is dict:
            for k in sorted(node, key=repr):
                walk(node[k], path + f"[{k!r}]")
        elif node is None:
            return
        else:
            out.append(path or "(the whole value)")

    walk(tree, "")
    return out


def _fn_name(fn) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


# --- the primitives ------------------------------------------------------------------------------------


def _adopt(w):
    """An eager kernel's NumPy window as a stridex array (Python scalars pass through)."""
    if isinstance(w, np.ndarray):
        return Array._from_numpy(np.array(w))
    return w


def _as(x, aval: ShapedArray):
    """`x` (a value a sub-program computed) with exactly `aval`'s dtype, as an array."""
    if not isinstance(x, Array):
        return ops.full((), x, aval.dtype)
    return x if x.dtype is aval.dtype else ops.astype(x, aval.dtype)


def _numpy_out(x, aval):
    return np.asarray(_as(x, aval))


def _split(seq, *sizes):
    out, i = [], 0
    for n in sizes:
        out.append(list(seq[i:i + n]))
        i += n
    out.append(list(seq[i:]))
    return out


def _is_float(aval) -> bool:
    return aval.dtype.kind in _dtypes.FLOATING_KINDS


# scan: operands [consts, carry, xs]; body: consts + carry + x -> carry + y


def _scan_abstract(*avals, body, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    ins = [v.aval for v in body.inputs]
    if len(avals) != len(ins):
        raise TypeError(f"scan takes {len(ins)} operands for its body, got {len(avals)}")
    for a, b in zip(avals[:nc + nk], ins[:nc + nk]):
        if tuple(a.shape) != tuple(b.shape) or a.dtype is not b.dtype:
            raise TypeError(f"scan: operand {_describe(a)} does not match the body's input {_describe(b)}")
    for a, b in zip(avals[nc + nk:], ins[nc + nk:]):
        if tuple(a.shape) != (length, *b.shape) or a.dtype is not b.dtype:
            raise TypeError(f"scan: scanned operand {_describe(a)} does not match the body's input {_describe(b)} "
                            f"over {length} steps")
    outs = [v.aval for v in body.outputs]
    for a, b in zip(ins[nc:nc + nk], outs[:nk]):
        if tuple(a.shape) != tuple(b.shape) or a.dtype is not b.dtype:
            raise TypeError(f"scan: the body returns carry {_describe(b)} for carry {_describe(a)}")
    return tuple(ins[nc:nc + nk]) + tuple(ShapedArray((length, *a.shape), a.dtype) for a in outs[nk:])


def _scan_impl(*args, body, num_consts, num_carry, length, reverse, unroll):
    consts, carry, xs = _split([_adopt(a) for a in args], num_consts, num_carry)
    in_avals = [v.aval for v in body.inputs]
    out_avals = [v.aval for v in body.outputs]
    ys = [None] * length
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = evaluate(body, *consts, *carry, *[x[i] for x in xs])
        carry = [_as(o, a) for o, a in zip(outs[:num_carry], in_avals[num_consts:])]
        ys[i] = outs[num_carry:]
    carry_out = [_numpy_out(c, a) for c, a in zip(carry, in_avals[num_consts:])]
    stacked = []
    for k, aval in enumerate(out_avals[num_carry:]):
        if length:
            stacked.append(np.stack([_numpy_out(y[k], aval) for y in ys]))
        else:
            stacked.append(np.empty((0, *aval.shape), aval.dtype.np))
    return (*carry_out, *stacked)


def _scan_lower(ctx, *args, body, num_consts, num_carry, length, reverse, unroll):
    run = lower_program(body)
    in_avals = [v.aval for v in body.inputs]
    out_avals = [v.aval for v in body.outputs]
    args = [as_dtype(a, aval.dtype) for a, aval in zip(args, ctx.avals_in)]
    consts, init, xs = _split(args, num_consts, num_carry)
    carry_avals = in_avals[num_consts:num_consts + num_carry]

    def step(carry, x):
        outs = run(*consts, *carry, *x)
        return ([as_dtype(o, a.dtype) for o, a in zip(outs[:num_carry], carry_avals)],
                [as_dtype(o, a.dtype) for o, a in zip(outs[num_carry:], out_avals[num_carry:])])

    carry, ys = lax().scan(step, init, xs, length=length, reverse=reverse, unroll=unroll)
    return (*carry, *ys)


def _reach(program: Program, start: set, carries: list, accept=lambda aval: True) -> set:
    """The input positions reached from `start`: those, and each carry (input position, output position) whose
    output depends on a reached input (to a fixed point: a value reaches a carry in one step and everything
    the carry feeds in the next). `accept(aval)` filters the carries that can be reached."""
    deps = output_dependencies(program)
    reached = set(start)
    while True:
        more = {i for i, k in carries if i not in reached and accept(program.inputs[i].aval) and deps[k] & reached}
        if not more:
            return reached
        reached |= more


def _with_tangents(program: Program, given: set, carries: list) -> set:
    """The input positions that carry a tangent: those `given` one, and the floating carries one reaches."""
    return _reach(program, given, carries, _is_float)


def _jvp_of(program: Program, primals: list, tangents: list):
    """(outputs, tangents of the outputs) of `program` at `primals`; a None tangent is a zero that costs nothing
    (inputs without one are constants for the derivative)."""
    leaves, treedef = _tree.flatten(tuple(primals))
    outs, touts = autodiff._jvp(lambda *a: evaluate(program, *a), leaves, treedef, tangents, False)
    return list(outs), list(touts)


def _scan_jvp(primals, tangents, *, body, num_consts, num_carry, length, reverse, unroll):
    nc, nk = num_consts, num_carry
    in_avals = [v.aval for v in body.inputs]
    out_avals = [v.aval for v in body.outputs]
    nx = len(in_avals) - nc - nk
    ny = len(out_avals) - nk
    given = {i for i, t in enumerate(tangents) if t is not None and _is_float(in_avals[i])}
    tangent = _with_tangents(body, given, [(nc + j, j) for j in range(nk)])
    consts, carry, xs = _split(list(primals), nc, nk)
    tconsts, tcarry, _ = _split(list(tangents), nc, nk)
    tconsts = [t if i in given else None for i, t in enumerate(tconsts)]
    fk = [j for j in range(nk) if nc + j in tangent]
    fx = [j for j in range(nx) if nc + nk + j in given]
    deps = output_dependencies(body)
    fy = [k for k in range(ny) if _is_float(out_avals[nk + k]) and deps[nk + k] & tangent]

    def step(c, x):
        pc, tc = c[:nk], dict(zip(fk, c[nk:]))
        px, tx = x[:nx], dict(zip(fx, x[nx:]))
        ts = tconsts + [tc.get(j) for j in range(nk)] + [tx.get(j) for j in range(nx)]
        outs, touts = _jvp_of(body, consts + pc + px, ts)
        return outs[:nk] + [touts[j] for j in fk], outs[nk:] + [touts[nk + k] for k in fy]

    init_t = [tcarry[j] if nc + j in given else ops.zeros_like(_as(carry[j], in_avals[nc + j])) for j in fk]
    c_out, ys = _scan_flat(step, carry + init_t, xs + [tangents[nc + nk + j] for j in fx], length, reverse,
                           unroll, "the JVP of a scan body")
    outs = c_out[:nk] + ys[:ny]
    tk = dict(zip(fk, c_out[nk:]))
    ty = dict(zip(fy, ys[ny:]))
    return tuple(outs), tuple([tk.get(j) for j in range(nk)] + [ty.get(k) for k in range(ny)])


def _zeros_for(x):
    return ops.zeros_like(x) if isinstance(x, Array) else x


def _scan_vjp(ct, *primals, out, body, num_consts, num_carry, length, reverse, unroll):
    """Reverse mode: a forward scan that also returns, stacked, the values of the body's equations the
    backward pass needs (its residuals), then a backward scan, in the opposite direction, that propagates
    cotangents through each step's equations with those values (`_replay_vjp`: nothing is recomputed)."""
    nc, nk = num_consts, num_carry
    in_avals = [v.aval for v in body.inputs]
    out_avals = [v.aval for v in body.outputs]
    nx = len(in_avals) - nc - nk
    ny = len(out_avals) - nk
    consts, init, xs = _split(list(primals), nc, nk)
    ct = list(ct)
    fin = [_is_float(a) for a in in_avals]
    fout = [_is_float(a) for a in out_avals]
    fconst = [i for i in range(nc) if fin[i]]
    fk = [j for j in range(nk) if fin[nc + j]]
    fx = [j for j in range(nx) if fin[nc + nk + j]]
    fy = [j for j in range(ny) if fout[nk + j]]
    diff = [i for i, f in enumerate(fin) if f]
    # Candidate residuals: each step's carry and every equation's outputs (those the backward step reads stay).
    candidates = list(body.inputs[nc:nc + nk]) + [v for e in body.eqns for v in e.outputs]
    n_given = nx + len(fy)

    def step(c, x):
        acc, ctc = c[:len(fconst)], c[len(fconst):]
        px, cty, res = x[:nx], x[nx:n_given], x[n_given:]
        values = dict(zip(map(id, candidates), res))
        ps = consts + [values[id(v)] for v in candidates[:nk]] + px
        cts = [None] * len(out_avals)
        for j, v in zip(fk, ctc):
            cts[j] = v
        for j, v in zip(fy, cty):
            cts[nk + j] = v
        g = _replay_vjp(body, ps, values, diff, cts)
        return ([a + g[i] for a, i in zip(acc, fconst)] + [g[nc + j] for j in fk],
                [g[nc + nk + j] for j in fx])

    def residuals(used: list) -> list:
        """The stacked residuals `candidates[used]`: the forward scan, also returning them."""
        saving = Program(body.inputs, [], body.eqns, body.outputs + [candidates[k] for k in used])
        stacked = scan_p.bind(*primals, body=saving, num_consts=nc, num_carry=nk, length=length,
                              reverse=reverse, unroll=unroll)
        return list(stacked[len(body.outputs):])

    c0 = [ops.zeros_like(_as(consts[i], in_avals[i])) for i in fconst] + [ct[j] for j in fk]
    given = xs + [ct[nk + j] for j in fy]
    x_avals = ([ShapedArray(tuple(a.shape), a.dtype) for a in in_avals[nc + nk:]]
               + [ShapedArray(tuple(out_avals[nk + j].shape), out_avals[nk + j].dtype) for j in fy]
               + [ShapedArray(tuple(v.aval.shape), v.aval.dtype) for v in candidates])

    def make_xs(used: list) -> list:
        res = residuals([k - n_given for k in used if k >= n_given])
        it = iter(res)
        return [given[k] if k < n_given else next(it) for k in used]

    c_out, ct_xs = _scan_flat(step, c0, None, length, not reverse, unroll, "the VJP of a scan body",
                              x_avals=x_avals, make_xs=make_xs)
    result = [None] * len(primals)
    for i, v in zip(fconst, c_out[:len(fconst)]):
        result[i] = v
    for j, v in zip(fk, c_out[len(fconst):]):
        result[nc + j] = v
    for j, v in zip(fx, ct_xs):
        result[nc + nk + j] = v
    return result


def _replay_vjp(program: Program, primals: list, values: dict, diff: list, cts: list) -> dict:
    """{input index: cotangent} for the inputs `diff` of `program`, given its outputs' cotangents (None: none),
    with every equation's outputs taken from `values` (id(Var) -> value) instead of being computed again."""
    trace = autodiff.VJPTrace(current_trace())
    env, nodes = {}, {}
    for i, (v, p) in enumerate(zip(program.inputs, primals)):
        node = None
        if i in diff and autodiff.is_differentiable(p):
            node = nodes[i] = autodiff.Node(None, None, [], [], [p])
        env[id(v)] = autodiff.VJPPayload(p, node)

    def read(v):
        return autodiff.VJPPayload(v.value, None) if isinstance(v, Literal) else env[id(v)]

    for eqn in program.eqns:
        payloads = [read(v) for v in eqn.inputs]
        outs = [values[id(v)] for v in eqn.outputs]
        node = None
        if eqn.prim.differentiable and any(p.node is not None for p in payloads):
            if eqn.prim.vjp is None:
                raise NotImplementedError(f"primitive {eqn.prim.name} has no VJP rule (at {user_frame()})")
            node = autodiff.Node(eqn.prim, eqn.params, payloads, [p.primal for p in payloads], outs)
            trace.tape.append(node)
        for k, (v, o) in enumerate(zip(eqn.outputs, outs)):
            env[id(v)] = autodiff.VJPPayload(o, node if node is not None and autodiff.is_differentiable(o) else None,
                                             k)
    seeds = [(read(v), c) for v, c in zip(program.outputs, cts) if c is not None]
    found = trace.backward(seeds)
    grads = {}
    for i in diff:
        g = found.get((id(nodes[i]), 0)) if i in nodes else None
        grads[i] = g if g is not None else ops.zeros_like(_as(primals[i], program.inputs[i].aval))
    return grads


def _scan_batch(values, dims, *, axis_size, body, num_consts, num_carry, length, reverse, unroll):
    """A batched scan: the batched operands' axis goes to the front (second for xs, after the scanned axis);
    a carry is batched where a batched value reaches it (the others stay unbatched), and so are the ys."""
    nc, nk = num_consts, num_carry
    consts, carry, xs = _split(values, nc, nk)
    cd, kd, xd = _split(dims, nc, nk)
    batched = _reach(body, {i for i, d in enumerate(dims) if d is not None}, [(nc + j, j) for j in range(nk)])
    bk = [nc + j in batched for j in range(nk)]
    deps = output_dependencies(body)
    by = [bool(deps[k] & batched) for k in range(nk, len(body.outputs))]
    carry = [_batched_front(v, d, axis_size) if b else _as(v, value_aval(v)) for v, d, b in zip(carry, kd, bk)]
    xs = [v if d is None or d == 1 else ops.moveaxis(v, d, 1) for v, d in zip(xs, xd)]
    in_axes = tuple(cd) + tuple(0 if b else None for b in bk) + tuple(None if d is None else 0 for d in xd)
    out_axes = [0 if b else None for b in bk + by]
    batched_body = rule_vmap(lambda *a: evaluate(body, *a), in_axes, out_axes, axis_size=axis_size)

    def step(c, x):
        outs = batched_body(*consts, *c, *x)
        return outs[:nk], outs[nk:]

    c_out, ys = _scan_flat(step, carry, xs, length, reverse, unroll, "a batched scan body")
    return (*c_out, *ys), [0 if b else None for b in bk] + [1 if b else None for b in by]


def _batched_front(v, d, axis_size):
    if d is None and not isinstance(v, Array):
        return ops.full((axis_size,), v, value_aval(v).dtype)
    return move_to_front(v, d, axis_size)


scan_p = Primitive("scan", impl=_scan_impl, abstract_eval=_scan_abstract, lower=_scan_lower, jvp=_scan_jvp,
                   vjp=_scan_vjp, batch=_scan_batch, multiple_results=True)


# while: operands [cond consts, body consts, carry];
# cond: cond consts + carry -> pred; body: body consts + carry -> carry


def _while_abstract(*avals, cond, body, cond_nconsts, body_nconsts):
    carry = [v.aval for v in body.inputs[body_nconsts:]]
    (pred,) = [v.aval for v in cond.outputs]
    if pred.shape != () or pred.dtype is not _dtypes.bool:
        raise TypeError(f"while_loop: cond_fun must return a boolean scalar, got {_describe(pred)}")
    if len(avals) != cond_nconsts + len(body.inputs):
        raise TypeError(f"while takes {cond_nconsts + len(body.inputs)} operands, got {len(avals)}")
    for a, b in zip(avals[cond_nconsts:], [v.aval for v in body.inputs]):
        if tuple(a.shape) != tuple(b.shape) or a.dtype is not b.dtype:
            raise TypeError(f"while: operand {_describe(a)} does not match the body's input {_describe(b)}")
    return tuple(carry)


def _while_impl(*args, cond, body, cond_nconsts, body_nconsts):
    cc, bc, carry = _split([_adopt(a) for a in args], cond_nconsts, body_nconsts)
    avals = [v.aval for v in body.inputs[body_nconsts:]]
    while bool(evaluate(cond, *cc, *carry)[0]):
        carry = [_as(o, a) for o, a in zip(evaluate(body, *bc, *carry), avals)]
    return tuple(_numpy_out(c, a) for c, a in zip(carry, avals))


def _while_lower(ctx, *args, cond, body, cond_nconsts, body_nconsts):
    run_cond, run_body = lower_program(cond), lower_program(body)
    args = [as_dtype(a, aval.dtype) for a, aval in zip(args, ctx.avals_in)]
    cc, bc, init = _split(args, cond_nconsts, body_nconsts)
    avals = [v.aval for v in body.inputs[body_nconsts:]]

    def body_fn(carry):
        return [as_dtype(o, a.dtype) for o, a in zip(run_body(*bc, *carry), avals)]

    return tuple(lax().while_loop(lambda c: run_cond(*cc, *c)[0], body_fn, init))


def _while_jvp(primals, tangents, *, cond, body, cond_nconsts, body_nconsts):
    cc, bc, carry = _split(list(primals), cond_nconsts, body_nconsts)
    nbc, nk = body_nconsts, len(carry)
    avals = [v.aval for v in body.inputs]
    body_tangents = list(tangents[cond_nconsts:])
    given = {i for i, t in enumerate(body_tangents) if t is not None and _is_float(avals[i])}
    tangent = _with_tangents(body, given, [(nbc + j, j) for j in range(nk)])
    tbc = [t if i in given else None for i, t in enumerate(body_tangents[:nbc])]
    fk = [j for j in range(nk) if nbc + j in tangent]

    def cond_fn(c):
        return evaluate(cond, *cc, *c[:nk])[0]

    def body_fn(c):
        pc, tc = c[:nk], dict(zip(fk, c[nk:]))
        outs, touts = _jvp_of(body, bc + pc, tbc + [tc.get(j) for j in range(nk)])
        return outs + [touts[j] for j in fk]

    init = carry + [body_tangents[nbc + j] if nbc + j in given else ops.zeros_like(_as(carry[j], avals[nbc + j]))
                    for j in fk]
    outs = _while_flat(cond_fn, body_fn, init, "the JVP of a while_loop")
    tk = dict(zip(fk, outs[nk:]))
    return tuple(outs[:nk]), tuple(tk.get(j) for j in range(nk))


def _while_vjp(ct, *primals, out, cond, body, cond_nconsts, body_nconsts):
    raise ValueError("Reverse-mode differentiation does not work for while_loop, nor for fori_loop with traced "
                     "bounds: the number of iterations is not known ahead, so their values cannot be stored. "
                     "Use scan, or fori_loop with static (Python int) bounds, which goes through scan; forward "
                     "mode (jvp, jacfwd) works through while_loop.")


def _while_batch(values, dims, *, axis_size, cond, body, cond_nconsts, body_nconsts):
    """A batched while_loop. Where the predicate is the same for every member (no batched value reaches it),
    one loop runs the batched body; otherwise the loop runs while any member's predicate holds, and each
    member's carry takes the body's result only while its own predicate holds."""
    cc, bc, carry = _split(list(values), cond_nconsts, body_nconsts)
    ccd, bcd, kd = _split(list(dims), cond_nconsts, body_nconsts)
    nbc, nk = body_nconsts, len(carry)
    batched = _reach(body, {i for i, d in enumerate(bcd + kd) if d is not None}, [(nbc + j, j) for j in range(nk)])
    bk = [nbc + j in batched for j in range(nk)]
    cond_batched = {i for i, d in enumerate(ccd) if d is not None} | {cond_nconsts + j for j in range(nk) if bk[j]}
    if not (output_dependencies(cond)[0] & cond_batched):
        carry = [_batched_front(v, d, axis_size) if b else _as(v, value_aval(v)) for v, d, b in zip(carry, kd, bk)]
        cond_axes = tuple(ccd) + tuple(0 if b else None for b in bk)
        body_axes = tuple(bcd) + tuple(0 if b else None for b in bk)
        batched_cond = rule_vmap(lambda *a: evaluate(cond, *a)[0], cond_axes, None, axis_size=axis_size)
        batched_body = rule_vmap(lambda *a: evaluate(body, *a), body_axes, [0 if b else None for b in bk],
                                 axis_size=axis_size)

        def uniform_cond(c):
            if all(d is None for d in cond_axes):
                return evaluate(cond, *cc, *c)[0]
            return batched_cond(*cc, *c)

        def uniform_body(c):
            return batched_body(*bc, *c)

        return _while_flat(uniform_cond, uniform_body, carry, "a batched while_loop"), \
            [0 if b else None for b in bk]
    carry = [_batched_front(v, d, axis_size) for v, d in zip(carry, kd)]
    cond_axes = tuple(ccd) + (0,) * nk
    body_axes = tuple(bcd) + (0,) * nk
    batched_cond = rule_vmap(lambda *a: evaluate(cond, *a)[0], cond_axes, 0, axis_size=axis_size)
    batched_body = rule_vmap(lambda *a: evaluate(body, *a), body_axes, 0, axis_size=axis_size)

    def preds(c):
        return batched_cond(*cc, *c)

    def cond_fn(c):
        return ops.reduce_any(preds(c))

    def body_fn(c):
        active = preds(c)
        new = batched_body(*bc, *c)
        return [ops.where(ops.reshape(active, (axis_size,) + (1,) * (o.ndim - 1)), n, o) for n, o in zip(new, c)]

    return _while_flat(cond_fn, body_fn, carry, "a batched while_loop"), [0] * nk


while_p = Primitive("while", impl=_while_impl, abstract_eval=_while_abstract, lower=_while_lower, jvp=_while_jvp,
                    vjp=_while_vjp, batch=_while_batch, multiple_results=True)


# cond: operands [index, *operands]; each branch: operands -> outputs


def _cond_abstract(index, *avals, branches):
    if index.shape != () or index.dtype.kind not in ("signed", "unsigned"):
        raise TypeError(f"cond: the branch index must be an integer scalar, got {_describe(index)}")
    outs = [v.aval for v in branches[0].outputs]
    for k, b in enumerate(branches):
        if len(b.inputs) != len(avals):
            raise TypeError(f"cond: branch {k} takes {len(b.inputs)} operands, got {len(avals)}")
        for a, o in zip(outs, [v.aval for v in b.outputs]):
            if tuple(a.shape) != tuple(o.shape) or a.dtype is not o.dtype:
                raise TypeError(f"cond: branch {k} returns {_describe(o)} where branch 0 returns {_describe(a)}")
    return tuple(ShapedArray(tuple(a.shape), a.dtype) for a in outs)


def _cond_impl(index, *args, branches):
    k = min(max(int(index), 0), len(branches) - 1)
    program = branches[k]
    return tuple(_numpy_out(o, v.aval) for o, v in zip(evaluate(program, *[_adopt(a) for a in args]),
                                                      branches[0].outputs))


def _cond_lower(ctx, index, *args, branches):
    args = [as_dtype(a, aval.dtype) for a, aval in zip(args, ctx.avals_in[1:])]
    out_avals = ctx.avals_out

    def make(program):
        run = lower_program(program)
        return lambda *a: [as_dtype(o, v.dtype) for o, v in zip(run(*a), out_avals)]

    index = as_dtype(index, _dtypes.int32)
    return tuple(lax().switch(index, [make(b) for b in branches], *args))


def _cond_jvp(primals, tangents, *, branches):
    index, *operands = primals
    _, *tops = tangents
    in_avals = [v.aval for v in branches[0].inputs]
    out_avals = [v.aval for v in branches[0].outputs]
    n = len(operands)
    fin = [j for j in range(n) if tops[j] is not None and _is_float(in_avals[j])]
    fout = [k for k, a in enumerate(out_avals)
            if _is_float(a) and any(output_dependencies(b)[k] & set(fin) for b in branches)]

    def make(program):
        def fn(*args):
            tf = dict(zip(fin, args[n:]))
            outs, touts = _jvp_of(program, list(args[:n]), [tf.get(j) for j in range(n)])
            return outs + [touts[k] for k in fout]
        return fn

    outs = _switch_flat(index, [make(b) for b in branches], operands + [tops[j] for j in fin],
                        "the JVP of a cond branch")
    m = len(out_avals)
    tk = dict(zip(fout, outs[m:]))
    return tuple(outs[:m]), tuple(tk.get(k) for k in range(m))


def _cond_vjp(ct, index, *operands, out, branches):
    in_avals = [v.aval for v in branches[0].inputs]
    out_avals = [v.aval for v in branches[0].outputs]
    n = len(operands)
    fin = [j for j in range(n) if _is_float(in_avals[j])]
    fout = [j for j, a in enumerate(out_avals) if _is_float(a)]

    def make(program):
        def fn(*args):
            ps, cts_f = list(args[:n]), args[n:]

            def f(*fp):
                full = list(ps)
                for j, v in zip(fin, fp):
                    full[j] = v
                return evaluate(program, *full)

            outs, pull = autodiff.vjp(f, *[ps[j] for j in fin])
            cts = [_zeros_for(o) for o in outs]
            for j, v in zip(fout, cts_f):
                cts[j] = v
            return list(pull(cts))
        return fn

    grads = _switch_flat(index, [make(b) for b in branches], list(operands) + [ct[j] for j in fout],
                         "the VJP of a cond branch")
    result = [None] * (n + 1)
    for j, g in zip(fin, grads):
        result[1 + j] = g
    return result


def _cond_batch(values, dims, *, axis_size, branches):
    index, *operands = values
    idim, *odims = dims
    mapped = any(d is not None for d in odims)

    def batched(program):
        return rule_vmap(lambda *a: evaluate(program, *a), tuple(odims), 0, axis_size=axis_size)

    def run(program):
        if not mapped:
            return evaluate(program, *operands)
        return batched(program)(*operands)

    m = len(branches[0].outputs)
    if idim is None:
        fns = [batched(b) for b in branches]
        return _switch_flat(index, fns, operands, "a batched cond branch"), [0] * m
    # A batched index: every branch runs, and each member takes its own branch's results.
    index = ops.minimum(ops.maximum(move_to_front(index, idim, axis_size), 0), len(branches) - 1)
    results = [[_batched_front(o, None if not mapped else 0, axis_size) for o in run(b)] for b in branches]
    out = results[-1]
    for k in range(len(branches) - 2, -1, -1):
        chosen = ops.equal(index, k)
        out = [ops.where(ops.reshape(chosen, (axis_size,) + (1,) * (len(ops.shape_of(a)) - 1)), a, o)
               for a, o in zip(results[k], out)]
    return out, [0] * m


cond_p = Primitive("cond", impl=_cond_impl, abstract_eval=_cond_abstract, lower=_cond_lower, jvp=_cond_jvp,
                   vjp=_cond_vjp, batch=_cond_batch, multiple_results=True)


# --- flat forms: trace (or, eagerly, run) Python functions of flat lists --------------------------------


def _scan_flat(f, init: list, xs: list, length: int, reverse: bool, unroll, what: str, names=None, *,
               x_avals=None, make_xs=None):
    """`f(carry_list, x_list) -> (carry_list, y_list)` scanned; returns (carry_list, stacked y_list).

    With `make_xs`, the scanned values are made once the body is traced: `make_xs(used)` gives those of
    the indices `used` (the ones the traced body reads; of `x_avals`); the body sees None for the others."""
    parent = current_trace()
    if make_xs is not None and parent is None:
        xs = make_xs(list(range(len(x_avals))))
        make_xs = None
    if parent is None:
        carry = list(init)
        ys: list = [None] * length
        for i in (reversed(range(length)) if reverse else range(length)):
            carry, y = f(carry, [x[i] for x in xs])
            carry, ys[i] = list(carry), list(y)
        if not length:
            return carry, _empty_ys(f, init, xs, what)
        return carry, [ops.stack([y[k] if isinstance(y[k], Array) else ops.constant(y[k]) for y in ys])
                       for k in range(len(ys[0]))]
    carry_avals = [_carry_aval(c) for c in init]
    if x_avals is None:
        x_avals = [ShapedArray(tuple(value_aval(x).shape[1:]), value_aval(x).dtype) for x in xs]
    nk = len(init)

    def body(*inputs):
        c, y = f(list(inputs[:nk]), list(inputs[nk:]))
        return _fit_weak(list(c), carry_avals), list(y)

    trace, inputs, leaves, _, out_vars = trace_function(parent, what, body, carry_avals + x_avals,
                                                        operands=[*init, *(xs or ())])
    _check_types(what, names or [f"[{j}]" for j in range(nk)], carry_avals,
                 [value_aval(v) for v in leaves[:nk]], "the input carry", "the output carry")
    written, kept = trace.written(), trace.read_only()
    if make_xs is not None:  # only the scanned inputs the body reads are made and passed
        probe = dead_code_elimination(Program(inputs, [], trace.eqns, out_vars + [e.final for e in written]))
        read = {id(v) for e in probe.eqns for v in e.inputs} | {id(v) for v in probe.outputs}
        used = [k for k, t in enumerate(inputs[nk:]) if id(t._buffer.initial_var) in read]
        xs = make_xs(used)
        inputs = inputs[:nk] + [inputs[nk + k] for k in used]
        trace.eqns = probe.eqns
    # the bases the body writes are carry, after the user's
    ins = [t._buffer.initial_var for t in inputs]
    program = SubProgram([e.initial for e in kept] + ins[:nk] + [e.initial for e in written] + ins[nk:], [], trace.eqns,
                         out_vars[:nk] + [e.final for e in written] + out_vars[nk:])
    outs = scan_p.bind(*[e.outer for e in kept], *init, *[e.outer for e in written], *xs, body=program,
                       num_consts=len(kept), num_carry=nk + len(written), length=length, reverse=reverse,
                       unroll=unroll)
    for e, value in zip(written, outs[nk:nk + len(written)]):
        write_outer(e.outer, value, [e.inner._buffer])
    return list(outs[:nk]), list(outs[nk + len(written):])


def _empty_ys(f, init, xs, what):
    """The (empty) stacked outputs of a zero-length eager scan: their shapes, from tracing `f` once."""
    nk = len(init)
    avals = [_carry_aval(c) for c in init] + [ShapedArray(tuple(x.shape[1:]), x.dtype) for x in xs]
    leaves = trace_function(None, what, lambda *a: f(list(a[:nk]), list(a[nk:]))[1], avals).leaves
    return [ops.zeros((0, *value_aval(y).shape), value_aval(y).dtype) for y in leaves]


def _while_flat(cond_fn, body_fn, init: list, what: str, names=None, cond_what=None):
    parent = current_trace()
    if parent is None:
        carry = list(init)
        while bool(cond_fn(carry)):
            carry = list(body_fn(carry))
        return carry
    avals = [_carry_aval(c) for c in init]
    nk = len(init)
    trace, inputs, leaves, _, out_vars = trace_function(parent, what, lambda *c: _fit_weak(list(body_fn(list(c))),
                                                                                           avals), avals,
                                                        operands=init)
    _check_types(what, names or [f"[{j}]" for j in range(nk)], avals, [value_aval(v) for v in leaves],
                 "the input carry", "the output carry")
    written, kept = trace.written(), trace.read_only()
    # the bases the body writes are carry, after the user's; the cond_fun reads them there too
    presets = [(e.key, e.outer, e.inner._buffer.aval, e.inner._buffer.view) for e in written]
    ctrace, cinputs, cleaves, _, cvars = trace_function(parent, cond_what or what, lambda *c: cond_fn(list(c)),
                                                        avals, presets=presets, operands=init)
    if len(cleaves) != 1 or not isinstance(cleaves[0], (Array, bool)) or value_aval(cleaves[0]).shape != () \
            or value_aval(cleaves[0]).dtype is not _dtypes.bool:
        got = _describe(value_aval(cleaves[0])) if len(cleaves) == 1 else f"{len(cleaves)} values"
        raise TypeError(f"while_loop: {cond_what or what} must return a boolean scalar, got {got}")
    if ctrace.written():
        raise TypeError(f"while_loop: {cond_what or what} writes into an array; only the body may write")
    centries = list(ctrace.closure.values())
    cpre, ckept = centries[:len(presets)], centries[len(presets):]
    cond_program = SubProgram([e.initial for e in ckept] + [t._buffer.initial_var for t in cinputs]
                              + [e.initial for e in cpre], [], ctrace.eqns, cvars)
    body_program = SubProgram([e.initial for e in kept] + [t._buffer.initial_var for t in inputs]
                              + [e.initial for e in written], [], trace.eqns, out_vars + [e.final for e in written])
    outs = while_p.bind(*[e.outer for e in ckept], *[e.outer for e in kept], *init, *[e.outer for e in written],
                        cond=cond_program, body=body_program, cond_nconsts=len(ckept), body_nconsts=len(kept))
    for e, value in zip(written, outs[nk:]):
        write_outer(e.outer, value, [e.inner._buffer])
    return list(outs[:nk])


def _switch_flat(index, fns, operands: list, what: str, *, names=None, labels=None, out_tree=False):
    """Run `fns[index](*operands)`; traced, every branch becomes a program. Returns the output leaves (and,
    with `out_tree`, their tree structure)."""
    parent = current_trace()
    if parent is None or not isinstance(index, Tracer):
        k = min(max(int(index), 0), len(fns) - 1)
        out = fns[k](*operands)
        if out_tree:
            return out
        return list(out)
    labels = labels or [f"branch {k}" for k in range(len(fns))]
    traced = []
    for k, fn in enumerate(fns):
        traced.append(trace_function(parent, f"{labels[k]} of {what}", lambda *a, fn=fn: fn(*operands), [],
                                     operands=operands))
    _, _, leaves0, def0, _ = traced[0]
    for k, (_, _, leaves, treedef, _) in enumerate(traced[1:], 1):
        if treedef != def0:
            got = _tree.unflatten(treedef, ["*"] * len(leaves))
            first = _tree.unflatten(def0, ["*"] * len(leaves0))
            raise TypeError(f"{what}: {labels[k]} returns a value of structure {got!r}, but {labels[0]} returns "
                            f"{first!r}")
        paths = names(_tree.unflatten(def0, leaves0)) if names else [f"[{j}]" for j in range(len(leaves0))]
        _check_types(what, paths, [value_aval(v) for v in leaves0], [value_aval(v) for v in leaves],
                     labels[0], labels[k])
    # One operand per base any branch reads; the bases any branch writes are outputs of every branch.
    bases: dict = {}  # key -> the entry of the first branch that reads that base (its outer value, its aval)
    for t in traced:
        for key, entry in t.trace.closure.items():
            bases.setdefault(key, entry)
    writers = {k: [t.trace.closure[k].inner._buffer for t in traced
                   if k in t.trace.closure and t.trace.closure[k].written] for k in bases}
    written = [k for k in bases if writers[k]]
    programs = []
    for t in traced:
        own = t.trace.closure
        inputs = [own[k].initial if k in own else Var(bases[k].inner._buffer.aval) for k in bases]
        by_key = dict(zip(bases, inputs))
        finals = [own[k].final if k in own else by_key[k] for k in written]
        programs.append(SubProgram(inputs, [], t.trace.eqns, t.out_vars + finals))
    if value_aval(index).dtype is _dtypes.bool:
        index = ops.astype(index, _dtypes.int64)
    outs = cond_p.bind(index, *[e.outer for e in bases.values()], branches=tuple(programs))
    m = len(leaves0)
    for k, value in zip(written, outs[m:]):
        write_outer(bases[k].outer, value, writers[k])
    if out_tree:
        return _tree.unflatten(def0, outs[:m])
    return list(outs[:m])
