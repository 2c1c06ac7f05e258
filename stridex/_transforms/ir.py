"""stridex's IR: variables with avals, literals, equations and programs; printer, verifier and evaluator.

A `Program` is what tracing records: inputs, constants (concrete arrays a function closed over),
equations in order, and outputs. `str(program)` prints one equation a line with each variable's dtype
and shape; `verify` checks it is well formed; `evaluate` runs it with the eager interpreter.
"""

from __future__ import annotations

from stridex._core.array import Array
from stridex._core.avals import ShapedArray
from stridex._lax.primitive import PRIMITIVES, Primitive


class Var:
    """A value defined once in a program; `count` orders variables for printing."""

    __slots__ = ("aval", "count")
    _counter = 0

    def __init__(self, aval: ShapedArray):
        self.aval = aval
        Var._counter += 1
        self.count = Var._counter

    def __repr__(self):
        return f"Var({self.aval})"


class Literal:
    """A Python scalar or small constant appearing directly as an equation input."""

    __slots__ = ("aval", "value")

    def __init__(self, value, aval: ShapedArray):
        self.value = value
        self.aval = aval

    def __repr__(self):
        return repr(self.value)


class Eqn:
    __slots__ = ("inputs", "outputs", "params", "prim")
    prim: Primitive

    def __init__(self, prim, inputs: list, params: dict, outputs: list):
        self.prim = prim
        self.inputs = inputs
        self.params = params
        self.outputs = outputs

    def __repr__(self):
        return f"Eqn({self.prim.name}, {len(self.inputs)} in, {len(self.outputs)} out)"


class Program:
    """inputs: Vars; constants: list of (Var, concrete Array); eqns: Eqns; outputs: Vars or Literals."""

    __slots__ = ("constants", "eqns", "inputs", "outputs")
    eqns: list[Eqn]

    def __init__(self, inputs, constants, eqns, outputs):
        self.inputs = list(inputs)
        self.constants = list(constants)
        self.eqns = list(eqns)
        self.outputs = list(outputs)

    def __str__(self):
        return print_program(self)

    __repr__ = __str__


# --- printing ------------------------------------------------------------------------------------


def _short_dtype(dtype) -> str:
    return {"bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
            "uint16": "u16", "uint32": "u32", "uint64": "u64", "float32": "f32", "float64": "f64",
            "float16": "f16", "bfloat16": "bf16",
            "complex64": "c64", "complex128": "c128"}[dtype.name]


def format_aval(aval: ShapedArray) -> str:
    return f"{_short_dtype(aval.dtype)}[{','.join(map(str, aval.shape))}]" + ("~" if aval.weak_type else "")


def _format_param(value) -> str:
    if hasattr(value, "name") and hasattr(value, "kind") and hasattr(value, "np"):
        return value.name
    if isinstance(value, tuple):
        inner = ",".join(_format_param(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value) if isinstance(value, str) else str(value)


def _format_index(entries) -> str:
    """Index entries/templates printed as a NumPy-style key: [1:3, ::-1, 0, None, ..., #0]."""
    parts = []
    for e in entries:
        tag = e[0]
        if tag == "int":
            parts.append(str(e[1]))
        elif tag == "newaxis":
            parts.append("None")
        elif tag == "ellipsis":
            parts.append("...")
        elif tag == "array":
            parts.append(f"#{e[1]}")
        else:
            start, stop, step = e[1:]
            parts.append(f"{start}:{stop if stop >= 0 else ''}" + (f":{step}" if step != 1 else ""))
    return "[" + ", ".join(parts) + "]"


def sub_programs(params: dict) -> list:
    """(name, Program) for each sub-program a higher-order primitive holds in its params (a tuple of programs
    gives `name[k]`), in the params' order."""
    out = []
    for k, v in sorted(params.items()):
        if isinstance(v, Program):
            out.append((k, v))
        elif isinstance(v, tuple) and v and all(isinstance(p, Program) for p in v):
            out.extend((f"{k}[{i}]", p) for i, p in enumerate(v))
    return out


def has_effect(eqn: Eqn) -> bool:
    """Whether running `eqn` does something beyond computing its outputs: an `effectful` primitive (a debug
    callback), or a higher-order one with such an equation in a sub-program (a print inside a loop body)."""
    if eqn.prim.effectful:
        return True
    return any(has_effect(e) for _, program in sub_programs(eqn.params) for e in program.eqns)


def replace_sub_programs(params: dict, fn) -> dict:
    """`params` with each sub-program `p` replaced by `fn(p)` (the same dict where there is none)."""
    if not any(isinstance(v, Program) or (isinstance(v, tuple) and v and isinstance(v[0], Program))
               for v in params.values()):
        return params
    new = {}
    for k, v in params.items():
        if isinstance(v, Program):
            v = fn(v)
        elif isinstance(v, tuple) and v and all(isinstance(p, Program) for p in v):
            v = tuple(fn(p) for p in v)
        new[k] = v
    return new


def _format_params(params: dict) -> str:
    items = []
    for k, v in sorted(params.items()):
        if isinstance(v, Program) or (isinstance(v, tuple) and v and all(isinstance(p, Program) for p in v)):
            continue  # (printed below the equation, nested)
        items.append(f"{k}={_format_index(v) if k in ('entries', 'template') else _format_param(v)}")
    return f"[{', '.join(items)}]" if items else ""


def print_program(program: Program, names: dict | None = None, indent: str = "") -> str:
    """One equation a line; a higher-order primitive's sub-programs are printed nested below it, once each
    (with the variable names of the whole printout, so each name means one variable)."""
    names = {} if names is None else names

    def name(v) -> str:
        if isinstance(v, Literal):
            return repr(v.value)
        key = id(v)
        if key not in names:
            names[key] = _var_name(len(names))
        return names[key]

    def binder(v) -> str:
        return f"{name(v)}:{format_aval(v.aval)}"

    consts = " ".join(binder(v) for v, _ in program.constants)
    ins = " ".join(binder(v) for v in program.inputs)
    head = f"{{ lambda {consts} ; {ins} ." if consts else f"{{ lambda {ins} ."
    lines = [head]
    for eqn in program.eqns:
        outs = " ".join(binder(v) for v in eqn.outputs)
        params = _format_params(eqn.params)
        args = " ".join(name(v) for v in eqn.inputs)
        lines.append(f"{indent}    {outs} = {eqn.prim.name}{params} {args}".rstrip())
        for label, sub in sub_programs(eqn.params):
            lines.append(f"{indent}      {label} = " + print_program(sub, names, indent + "      "))
    outs = ", ".join(name(v) for v in program.outputs)
    lines.append(f"{indent}  in ({outs}) }}")
    return "\n".join(lines)


def _var_name(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = letters[r] + out
    return out


# --- verification --------------------------------------------------------------------------------


class IRError(Exception):
    """A malformed program: a variable used before definition, defined twice, or an aval mismatch."""


class InternalError(RuntimeError):
    """A bug in stridex itself, never in the caller's code: a program that stridex built is malformed, or its
    lowering met a value that nothing defines. The message says so and shows where."""


def checked(program: Program, made_by: str) -> Program:
    """`program` after `verify`; a malformed one raises InternalError naming what made it (`made_by`)."""
    try:
        verify(program)
    except IRError as e:
        raise InternalError(f"stridex internal error: {made_by} built a malformed program ({e}). This is a bug in "
                            f"stridex, not in the code being traced; please report it with this program:\n"
                            f"{program}") from e
    return program


def verify(program: Program) -> None:
    """Raise IRError unless every variable is defined once before use and avals match the abstract rules."""
    defined = set()

    def define(v):
        if not isinstance(v, Var):
            raise IRError(f"binder {v!r} is not a Var")
        if id(v) in defined:
            raise IRError(f"variable {v!r} is defined twice")
        defined.add(id(v))

    def use(v, where):
        if isinstance(v, Literal):
            return
        if id(v) not in defined:
            raise IRError(f"variable {v!r} is used in {where} before it is defined")

    for v, _ in program.constants:
        define(v)
    for v in program.inputs:
        define(v)
    for eqn in program.eqns:
        if PRIMITIVES.get(eqn.prim.name) is not eqn.prim:
            raise IRError(f"equation uses an unregistered primitive {eqn.prim.name!r}")
        for v in eqn.inputs:
            use(v, eqn.prim.name)
        try:
            hash(tuple(eqn.params.items()))
        except TypeError:
            raise IRError(f"{eqn.prim.name} has an unhashable param in {eqn.params!r}") from None
        if eqn.prim.data_dependent:
            # Recorded at a graph break with the output length seen (guarded when the program runs).
            for v in eqn.outputs:
                define(v)
            continue
        if eqn.prim.abstract_eval is None:
            raise IRError(f"{eqn.prim.name} has no abstract rule and cannot appear in a program")
        for label, sub in sub_programs(eqn.params):
            if sub.constants:
                raise IRError(f"{eqn.prim.name}: its sub-program {label} has constants (they must be inputs)")
            try:
                verify(sub)
            except IRError as e:
                raise IRError(f"in {eqn.prim.name}'s sub-program {label}: {e}") from None
        try:
            expected = eqn.prim.abstract_eval(*[v.aval for v in eqn.inputs], **eqn.params)
        except TypeError as e:
            if not sub_programs(eqn.params):
                raise
            raise IRError(f"{eqn.prim.name}: {e}") from None  # (a sub-program that does not fit its operands)
        expected = expected if eqn.prim.multiple_results else (expected,)
        if len(expected) != len(eqn.outputs):
            raise IRError(f"{eqn.prim.name} defines {len(eqn.outputs)} outputs, its rule gives {len(expected)}")
        for v, aval in zip(eqn.outputs, expected):
            if v.aval != aval:
                raise IRError(f"{eqn.prim.name}: output aval {v.aval} differs from the rule's {aval}")
            define(v)
    for v in program.outputs:
        use(v, "the outputs")


# --- evaluation ----------------------------------------------------------------------------------


def evaluate(program: Program, *args):
    """Run `program` on concrete inputs with the eager interpreter; returns the list of outputs."""
    if len(args) != len(program.inputs):
        raise TypeError(f"program takes {len(program.inputs)} inputs, got {len(args)}")
    env = {}
    # (the program runs where its inputs live, as under `jit`: constants made on the host while tracing, such as
    # a diagonal's index arrays, go there too)
    device = next((a.device for a in args if isinstance(a, Array) and not a.device.is_host), None)
    for v, value in program.constants:
        env[id(v)] = value.to_device(device) if device is not None and value.device.is_host else value
    for v, value in zip(program.inputs, args):
        env[id(v)] = value

    def read(v):
        return v.value if isinstance(v, Literal) else env[id(v)]

    for eqn in program.eqns:
        out = eqn.prim.bind(*[read(v) for v in eqn.inputs], **eqn.params)
        outs = out if eqn.prim.multiple_results else (out,)
        for v, value in zip(eqn.outputs, outs):
            env[id(v)] = value
    return [read(v) for v in program.outputs]
