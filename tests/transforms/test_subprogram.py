"""The sub-program tracer (`stridex/_transforms/subprogram.py`): one program that writes into arrays it closes over,
run through each of the seven higher-order primitives (`cond`, `switch`, `while_loop`, `scan`, `custom_jvp`,
`custom_vjp`, `checkpoint`), eagerly, under `jit`, `grad` and `vmap`, against the same Python run inline; and
that every sub-program those primitives hold was recorded by the one tracer."""

from __future__ import annotations

import numpy as np
import pytest

import stridex as sx
from stridex._transforms import subprogram, tracing
from stridex._transforms.ir import Program, sub_programs, verify
from stridex._transforms.tracing import ConcretizationError, TracingError


def A(a):
    return np.asarray(a)


def close(got, want):
    np.testing.assert_allclose(A(got), A(want), rtol=1e-12, atol=1e-14)


# Each wrapper runs `body(v)` once through one higher-order primitive (the branch or loop taken is the body's).


def inline(body):
    return body


def through_cond(body):
    return lambda v: sx.cond(v[0] > -100.0, body, sx.sin, v)


def through_switch(body):
    return lambda v: sx.switch(sx.astype(v[0] > -100.0, sx.int32), [sx.sin, body], v)


def through_while_loop(body):
    def run(v):
        i, _, y = sx.while_loop(lambda c: c[0] < 1, lambda c: (c[0] + 1, c[1], body(c[1])),
                                (sx.asarray(0), v, sx.zeros_like(v)))
        return y
    return run


def through_scan(body):
    return lambda v: sx.scan(lambda c, _: (body(c), None), v, length=1)[0]


def through_custom_jvp(body):
    f = sx.custom_jvp(body)
    f.defjvp(lambda p, t: (sx.sin(p[0]), sx.cos(p[0]) * t[0]))
    return f


def through_custom_vjp(body):
    f = sx.custom_vjp(body)
    f.defvjp(lambda v: (sx.sin(v), v), lambda v, g: (sx.cos(v) * g,))
    return f


def through_checkpoint(body):
    return sx.checkpoint(body)


WRAPPERS = {"cond": through_cond, "switch": through_switch, "while_loop": through_while_loop, "scan": through_scan,
            "custom_jvp": through_custom_jvp, "custom_vjp": through_custom_vjp, "checkpoint": through_checkpoint}
CUSTOM_RULES = ("custom_jvp", "custom_vjp")  # their rules differentiate what the function returns, not its writes


def program(wrap, depends=True):
    """A body writing into an array created outside it (through a view too); the loss reads the array after."""

    def loss(x):
        buf = sx.zeros(3)

        def body(v):
            buf[1] = sx.sum(v) * 2.0 if depends else 5.0
            buf[::-1][0] += 1.0  # buf[2], through a reversed view
            return sx.sin(v)

        y = wrap(body)(x)
        return sx.sum(y) + sx.sum(buf * buf)

    return loss


def writer(wrap, outer):
    """A body writing into `outer`, an array of the caller's (under jit: written back into it after the call)."""

    def f(x):
        def body(v):
            outer[0] += sx.sum(v)
            outer[1:][::-1][0] = v[0]  # outer[2], through two views
            return v * 2.0

        return wrap(body)(x)

    return f


X = np.array([0.3, 0.7])


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_a_closed_over_write_gives_the_inline_result(name):
    wrap = WRAPPERS[name]
    x = sx.asarray(X)
    want = program(inline)(x)
    close(program(wrap)(x), want)  # eagerly
    close(sx.jit(program(wrap))(x), want)
    close(sx.vmap(program(wrap))(sx.stack([x, x + 1.0])), sx.vmap(program(inline))(sx.stack([x, x + 1.0])))
    for transform in (lambda f: f, sx.jit):
        outer, reference = sx.asarray([1.0, 2.0, 3.0]), sx.asarray([1.0, 2.0, 3.0])
        close(transform(writer(wrap, outer))(x), writer(inline, reference)(x))
        close(outer, reference)  # the caller's array, written as the inline code writes it
        close(reference, [2.0, 2.0, 0.3])


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_a_closed_over_write_under_grad(name):
    wrap = WRAPPERS[name]
    x = sx.asarray(X)
    for depends in (True, False):
        want = sx.grad(program(inline, depends))(x)
        if depends and name in CUSTOM_RULES:
            for transform in (lambda f: f, sx.jit):
                with pytest.raises(TypeError, match="writes a value that depends on its arguments"):
                    transform(sx.grad(program(wrap, depends)))(x)
            continue
        if name == "while_loop":  # (reverse mode through while_loop is JAX's ValueError: an unknown trip count)
            with pytest.raises(ValueError, match="Use scan"):
                sx.grad(program(wrap, depends))(x)
        else:
            close(sx.grad(program(wrap, depends))(x), want)
            close(sx.jit(sx.grad(program(wrap, depends)))(x), want)
        if name != "custom_vjp":  # (forward mode through a custom_vjp function is JAX's TypeError)
            close(sx.jvp(program(wrap, depends), (x,), (sx.ones(2),))[1], sx.jvp(program(inline, depends), (x,),
                                                                              (sx.ones(2),))[1])


def test_nested_sub_programs_write_through_each_level():
    outer = sx.zeros(4)

    def f(x):
        def step(i, c):
            def inner(v):
                outer[i] = sx.sum(v)  # written inside a custom_jvp function inside a checkpoint inside a loop body
                return v * 2.0
            return sx.checkpoint(through_custom_jvp(inner))(c)

        return sx.fori_loop(0, 4, step, x)

    x = sx.asarray(X)
    reference = sx.zeros(4)
    want = x
    for i in range(4):
        reference[i] = sx.sum(want)
        want = want * 2.0
    close(sx.jit(f)(x), want)
    close(outer, reference)
    outer[...] = 0.0
    close(f(x), want)
    close(outer, reference)


def test_errors_name_the_function():
    x = sx.asarray(X)

    @sx.custom_jvp
    def decides(v):
        return v * 2.0 if float(sx.sum(v)) > 0 else v

    decides.defjvp(lambda p, t: (decides(p[0]), t[0] * 2.0))
    with pytest.raises(ConcretizationError, match=r"the function of custom_jvp_call 'decides'.*test_subprogram.py:\d+"):
        sx.jit(decides)(x)

    @sx.checkpoint
    def writes_a_scalar(v, s):
        s[...] = 1.0
        return v

    with pytest.raises(TracingError, match="writes into its argument 1, a Python float"):
        sx.jit(lambda v: writes_a_scalar(v, 2.0))(x)


@pytest.mark.parametrize("name", ["custom_jvp", "custom_vjp", "checkpoint"])
def test_a_function_with_rules_writes_into_its_arguments_as_eagerly(name):
    """An argument is written as a branch's operand is: the caller's array (here a view of one) after the call."""
    wrap = WRAPPERS[name]

    def body(v):
        v[0] = sx.sum(v)
        v[::-1][0] *= 3.0
        return v * 2.0

    def f(buf):
        return wrap(body)(buf[1:])

    for transform in (lambda f: f, sx.jit):
        buf, reference = sx.asarray([1.0, 2.0, 3.0]), sx.asarray([1.0, 2.0, 3.0])
        close(transform(f)(buf), f(reference) if wrap is inline else inline(body)(reference[1:]))
        close(buf, reference)
        close(buf, [1.0, 5.0, 9.0])
    if name in CUSTOM_RULES:  # the written argument depends on the argument
        with pytest.raises(TypeError, match="writes a value that depends on its arguments"):
            sx.grad(lambda b: sx.sum(f(b)))(sx.asarray([1.0, 2.0, 3.0]))
    else:
        close(sx.grad(lambda b: sx.sum(f(b)))(sx.asarray([1.0, 2.0, 3.0])),
              sx.grad(lambda b: sx.sum(inline(body)(b[1:])))(sx.asarray([1.0, 2.0, 3.0])))


def _all_sub_programs(program: Program):
    for eqn in program.eqns:
        for _, sub in sub_programs(eqn.params):
            yield eqn.prim.name, sub
            yield from _all_sub_programs(sub)


def test_one_tracer_records_every_sub_program(monkeypatch):
    # There is one tracer class for sub-programs: the only subclass of JitTrace in stridex besides `to_jax`'s, which
    # records whole programs (as `jit`'s does) and differs only in the errors it raises.
    def subclasses(cls):
        return [c for sub in cls.__subclasses__() for c in (sub, *subclasses(sub))]

    from stridex._transforms.to_jax import ToJaxTrace

    assert [c for c in subclasses(tracing.JitTrace) if c.__module__.startswith("stridex.") and c is not ToJaxTrace] \
        == [subprogram.SubprogramTrace]
    # ... and every primitive's sub-programs were recorded by one of its instances: spy on the traces made.
    made = []
    original = tracing.JitTrace.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(tracing.JitTrace, "__init__", spy)

    def f(x):
        out = x
        for wrap in WRAPPERS.values():
            out = wrap(lambda v: sx.sin(v) * 2.0)(out)
        return out

    ir = sx.make_ir(f, optimize=False)(sx.asarray(X))
    verify(ir)
    assert {type(t) for t in made} == {tracing.JitTrace, subprogram.SubprogramTrace}
    recorded = {id(v) for t in made if isinstance(t, subprogram.SubprogramTrace) for e in t.eqns for v in e.outputs}
    holders = set()
    for name, sub in _all_sub_programs(ir):
        assert isinstance(sub, subprogram.SubProgram), name
        assert sub.eqns and all(id(v) in recorded for e in sub.eqns for v in e.outputs), name
        holders.add(name)
    assert holders == {"cond", "while", "scan", "custom_jvp_call", "custom_vjp_call", "checkpoint"}
    whats = " ".join(t.what for t in made if isinstance(t, subprogram.SubprogramTrace))
    for word in ("of cond", "of switch", "of while_loop", "of scan", "custom_jvp_call", "custom_vjp_call",
                 "checkpoint"):
        assert word in whats, word


def test_a_body_writing_into_its_own_carry():
    """A body may write into its carry (an input of the sub-program, not an array from outside) and return it."""

    def step(i, c):
        c[0] = c[0] + i
        c[::-1][0] *= 2.0
        return c

    def f(x):
        a = sx.fori_loop(0, 3, step, x * 1.0)  # a scan
        b = sx.fori_loop(0, sx.astype(sx.sum(x) > -1.0, sx.int64) * 3, step, x * 1.0)  # a while_loop
        c, _ = sx.scan(lambda c, i: (step(i, c), None), x * 1.0, sx.arange(3.0))
        return a, b, c

    x = sx.asarray(X)
    want = f(x)
    close(want[0], [3.3, 5.6])
    for got, expected in zip(sx.jit(f)(x), want):
        close(got, expected)
    verify(sx.make_ir(f)(x))
