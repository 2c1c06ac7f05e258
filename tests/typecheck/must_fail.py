"""Lines a type checker must reject: each is marked with the error code mypy gives it (`# E: code`), and
tests/test_typing.py checks that `mypy --strict` reports exactly these, so the typing check can fail."""

from __future__ import annotations

import stridex as sx
from stridex import Array

x = sx.asarray([1.0, 2.0])

n: int = x  # E: assignment
f: float = x + 1.0  # E: assignment
b: bool = x > 0  # E: assignment
s: str = sx.sum(x)  # E: assignment
sx.sum(x, axes=0)  # E: call-arg
sx.reshape(x, shape=(2,), order="C")  # E: call-arg
sx.sin(x, x)  # E: call-arg
sx.sin(1.0)  # E: arg-type
sx.zeros("3")  # E: arg-type
sx.add(x, "1")  # E: arg-type
sx.atan2(x, 1j)  # E: arg-type
sx.logical_and(x, 1.5)  # E: arg-type
x + "1"  # E: operator
x @ 2.0  # E: operator
x["a"]  # E: index
x[0] = "a"  # E: assignment
x.shape = (3,)  # E: misc
x.no_such_attribute  # E: attr-defined
sx.linalg.qr(x, mode="economic")  # E: arg-type
sx.fft.fft(x, norm="unitary")  # E: arg-type
sx.no_such_function(x)  # E: attr-defined


def loss(w: Array, b: float) -> Array:
    return sx.sum(w * w) + b


sx.jit(loss)(x)  # E: call-arg
sx.jit(loss)(x, "1")  # E: arg-type
sx.grad(loss)(x, b="1")  # E: arg-type
r: int = sx.jit(loss)(x, 1.0)  # E: assignment
sx.vmap(loss)(x, 1.0, 2.0)  # E: call-arg
