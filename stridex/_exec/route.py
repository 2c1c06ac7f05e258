"""Where an eager primitive application runs: the one routing decision, `apply`.

Every eager entry point comes here: `Primitive.bind` with no trace active, Array's operators, and the device
executor when it hands work back (`OnHost`).
"""

from __future__ import annotations

import numpy as np

from stridex._core.array import Array
from stridex._core.device import OnDevice
from stridex._core.dtypes import FROM_NUMPY
from stridex._core.storage import NO_STORAGE
from stridex._exec import device as _device
from stridex._exec.fusion import limits as _limits
from stridex._exec.fusion.record import record as _record
from stridex._exec import host as _host
from stridex._exec.placement import placement


def apply(prim, args, params):
    """Run `prim` on `args` eagerly, where it belongs.

    The decision, in one place: an elementwise primitive with an operand that is pending, large (at least
    `fusion.limits.DEFER_MIN_ELEMENTS` elements), a view without a cached window or on a JAX device is offered to
    eager fusion, which records it into a pending chain on the host or on that device, or declines (a small view, a
    NumPy error state that raises or prints, an error to raise at this line, memory foreign code shares, a mesh).
    A single-result computation from no array runs on the default device when that is a JAX device. Everything
    else runs on the host now (`prim.eager`, the host executor's rule for its kind) unless the host executor
    finds an operand on a JAX device (`OnDevice`): then the device executor runs it there, and hands back to the
    host (`OnHost`) what must run there: a primitive whose result's shape depends on the data, its operands
    brought over and its results sent back.

    The two-operand elementwise case is `binary`, which Array's operators call directly.
    """
    if prim.elementwise:
        if len(args) == 2:
            return binary(prim, args[0], args[1], params)
        defer = _limits.DEFER_MIN_ELEMENTS
        for a in args:
            if type(a) is Array:
                w = a._np
                if w is None or w.size >= defer:
                    return _elsewhere(prim, args, params)
    elif not args and prim.eager is _host.compute and placement() is not None:
        return _on_device(prim, args, params)
    try:
        return prim.eager(prim, args, params)
    except OnDevice:
        return _on_device(prim, args, params)


_NO_PARAMS: dict = {}  # (an operator's params: none; shared, never changed)


def binary(prim, a, b, params=_NO_PARAMS):
    """`apply(prim, (a, b), params)` for an elementwise `prim`: the one-element `x + y` is all dispatch, so its
    case is written out here, once, and Array's operators call it with their two operands (no argument tuple to
    build and unpack): two small host windows go straight to the impl, its fresh ndarray wrapped field by field
    (`Array._from_numpy` inline: a call costs 50 ns, a fifth of NumPy's whole one-element `x + y`); an operand
    that is pending, large, a view without a cached window or on a device goes where `apply` sends it."""
    defer = _limits.DEFER_MIN_ELEMENTS
    if type(a) is Array:
        wa = a._np
        if wa is None or wa.size >= defer:
            return _elsewhere(prim, (a, b), params)
    else:
        wa = _host.operand(prim, a)
    if type(b) is Array:
        wb = b._np
        if wb is None or wb.size >= defer:
            return _elsewhere(prim, (a, b), params)
    else:
        wb = _host.operand(prim, b)
    out = prim.impl(wa, wb, **params) if params else prim.impl(wa, wb)
    if type(out) is np.ndarray and out.base is None:
        result = Array()
        result._np = out
        result._storage = NO_STORAGE
        result._view = None
        result._dtype = FROM_NUMPY[out.dtype]
        return result
    return _host.wrap(out, (wa, wb))


def _elsewhere(prim, args, params):
    """An elementwise application with an operand that is pending, large, a view without a cached window or on a
    device: deferred if eager fusion records it, else run now (on the host, or on the device its operands are)."""
    out = _record(prim, args, params)
    if out is not None:
        return out
    try:
        return prim.eager(prim, args, params)
    except OnDevice:
        return _on_device(prim, args, params)


def _on_device(prim, args, params):
    try:
        return _device.run(prim, args, params)
    except _device.OnHost as back:
        return _through_host(prim, args, params, back.device)


def _through_host(prim, args, params, dev):
    """A primitive the device executor hands back (`device.OnHost`), in practice one whose output shape depends on
    the data: its inputs go to the host, it runs there, and its results come back to `dev` (the sizes must be
    known on the host, as in jax.numpy and PyTorch)."""
    host_args = [_device.transfer(a, _device.HOST) if isinstance(a, Array) else a for a in args]
    if prim.kind == "write":
        target = args[0]
        written = host_args[0]
        apply(prim, (written, *host_args[1:]), params)
        return _device.write_whole(prim, target, _device.transfer(written, dev))
    out = apply(prim, host_args, params)
    if prim.multiple_results:
        return tuple(_device.transfer(o, dev) for o in out)
    return _device.transfer(out, dev)
