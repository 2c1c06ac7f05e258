"""Eager fusion: elementwise work recorded instead of run, and run later as one pass, block by block.

An eager elementwise primitive (`Primitive(elementwise=True)`) on large enough arrays returns an Array whose
storage is a `PendingStorage`: the record of the primitive, its params and its inputs (NumPy windows of the
input arrays' memory, Python scalars, or other pending records). Shape and dtype come from the primitive's
abstract evaluation at the call. Records that feed each other form a `Group`; forcing any member (asking its
storage for memory: a window, a buffer, a write) runs every live member of the group in one pass: the
blocks of the result (`BLOCK_ELEMENTS` each) go through every record in turn, each running the NumPy ufunc
its eager impl is (`same_as_ufunc`) into scratch memory, or the impl itself, and the records whose arrays are
still alive write their block into their result. The values are those of the op-by-op eager path, bit for
bit: every such impl is elementwise (a block's result is the whole result's block) and sees the same values
in the same layout (strided windows are not deferred: NumPy picks its kernels by layout).

Writes are never reordered: a storage that pending records read becomes a `ReadStorage` (writes ask it
first, and it runs its readers before the write), and a write into a pending array runs it first. Memory
foreign code may write behind stridex's back (borrowed NumPy memory, a window handed out by `__array__` or
DLPack) is never read later: an operation reading it runs now.

On a JAX device the records' leaves are device buffers and a pass is one executable made of their lowerings
(`PendingDeviceStorage`, `device_pass.DeviceGroup`, `device_pass._run_device_group`).

The switch: `fusion(False)` (a context manager) or `STRIDEX_FUSION=0` in the environment.

The parts, one concern each: `limits` (the thresholds), `pending` (the pending storage kinds, the switch, the lock,
forcing, and the storage transitions), `records` (a host record), `record` (recording: deferring an operation or
declining), `program` and `host_pass` (a host group and its pass), `device_pass` (recording and a pass on a JAX
device), `inspection` (`sx.fusion`, `sx.eval`, `pending`). `stridex._exec.route` decides when an operation is
offered to `record`.
"""

from stridex._exec.fusion import limits  # noqa: F401
from stridex._exec.fusion.inspection import Fusion, eval, fusion, pending  # noqa: F401, A004
from stridex._exec.fusion.pending import LOCK, enable, enabled, evaluate, force, run_readers  # noqa: F401
from stridex._exec.fusion.record import record  # noqa: F401
