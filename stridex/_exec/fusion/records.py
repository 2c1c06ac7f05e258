"""A record of eager fusion on the host: one pending primitive application (`Record`), a member of a `Group`
(`stridex._exec.fusion.host_pass`)."""

from __future__ import annotations

from stridex._core.view import View

class Record:
    """One pending primitive application: `prim.impl(*inputs, **params)` where each input is a NumPy window
    already broadcast to `shape` (a leaf), a Python scalar, or an earlier `Record` of the same group and shape."""

    __slots__ = ("__weakref__", "dtype", "group", "inputs", "params", "prim", "result", "shape", "storage", "view")

    def __init__(self, prim, params, inputs, shape, dtype, group):
        self.prim = prim
        self.params = params
        self.inputs = inputs
        self.shape = shape
        self.dtype = dtype
        self.group = group
        self.view = View.contiguous(shape)
        self.result = None
        self.storage = None  # a weak reference to the PendingStorage, set by `record`
