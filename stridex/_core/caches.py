"""The caches of compiled programs: each bounded, least recently used out, counted, and emptied by `clear_caches`.

Every place stridex keeps compiled programs keeps them in a `ProgramCache` of one *kind* (a row of the table
below). A kind has one limit, applied to each of its caches: `sx.jit`'s is per jitted function, as JAX's is,
the executors' are one cache each for the process. The kind also counts what its caches did (programs
compiled, entries evicted), over the life of the process, so that tests and users can see whether a loop
compiles once or on every call.

| kind         | what it holds                                                   | limit (default) |
|--------------|-----------------------------------------------------------------|----------------:|
| `jit`        | the traced and compiled signatures of one `sx.jit` function     | 256 per function |
| `jit_mode`   | the static signatures of one `stridex.jit_mode` function        | 128 per function |
| `device`     | eager executables of single primitives on JAX devices           | 1024            |
| `device_pass`| eager fusion's passes on JAX devices (one program per structure)| 1024            |
| `host`       | eager programs on the host: `stridex.random`'s samplers, special    | 512             |
|              | functions NumPy has no kernel for (one program per signature)   |                 |

>>> import stridex as sx
>>> previous = sx.set_cache_limit("device", 2048)
>>> sx.cache_stats()["device"].limit
2048
>>> sx.set_cache_limit("device", previous)
2048
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

from stridex._core import processes

_DEFAULT_LIMITS = {"jit": 256, "jit_mode": 128, "device": 1024, "device_pass": 1024, "host": 512}


class _Kind:
    """One kind of cache: its limit, its live caches (weakly) and its counters."""

    __slots__ = ("caches", "compiles", "evictions", "limit", "name")

    def __init__(self, name: str, limit: int):
        self.name = name
        self.limit = limit
        self.caches: weakref.WeakSet[ProgramCache] = weakref.WeakSet()
        self.compiles = 0
        self.evictions = 0


_KINDS = {name: _Kind(name, limit) for name, limit in _DEFAULT_LIMITS.items()}
_CLEARERS: list[Callable[[], None]] = []  # other per-process state that clear_caches empties (see `on_clear`)


class ProgramCache:
    """A map from a signature to a compiled program, bounded by its kind's limit: `get` moves an entry to the
    most recently used end, `put` adds one (a compile, counted) and evicts from the least recently used end.

    Thread-safe: `put`, `replace` and `clear` hold the cache's lock; `get` holds none (a lookup that races an
    eviction finds nothing and compiles again)."""

    __slots__ = ("__weakref__", "_entries", "_kind", "_lock", "_on_evict")

    def __init__(self, kind: str, on_evict: Callable[[list], None] | None = None):
        self._kind = _KINDS[kind]
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._on_evict = on_evict  # called with the entries evicted (outside the lock)
        self._kind.caches.add(self)

    def get(self, key: Hashable) -> Any:
        """The entry of `key` (now the most recently used), or None."""
        entries = self._entries
        entry = entries.get(key)
        if entry is not None:
            try:
                entries.move_to_end(key)
            except KeyError:  # (evicted by another thread meanwhile: still a valid program for this call)
                pass
        return entry

    def put(self, key: Hashable, entry: Any) -> None:
        """Add `entry`, just compiled, under `key`, evicting the least recently used beyond the limit."""
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            self._kind.compiles += 1
        self._shrink(self._kind.limit)

    def _shrink(self, size: int) -> None:
        evicted = []
        with self._lock:
            while len(self._entries) > size:
                evicted.append(self._entries.popitem(last=False)[1])
            self._kind.evictions += len(evicted)
        if evicted and self._on_evict is not None:
            self._on_evict(evicted)

    def replace(self, key: Hashable, entry: Any) -> None:
        """Replace the entry of `key` by an equivalent one (a faster call of the same program: no compile)."""
        with self._lock:
            if key in self._entries:
                self._entries[key] = entry

    def pop(self, key: Hashable) -> Any:
        with self._lock:
            return self._entries.pop(key, None)

    def values(self) -> list:
        return list(self._entries.values())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries


@processes.in_child
def _new_locks() -> None:
    """A forked child gets new locks (a lock another thread of the parent held at the fork stays held; a cache's
    entries are whole, as each update is one dict operation under the GIL)."""
    for kind in _KINDS.values():
        for cache in list(kind.caches):
            cache._lock = threading.Lock()


def note_compile(kind: str) -> None:
    """Count a program compiled for a cache of `kind` outside `put` (another path of a graph-broken signature)."""
    _KINDS[kind].compiles += 1


def limit(kind: str) -> int:
    """The limit of caches of `kind`."""
    return _KINDS[kind].limit


def on_clear(clear: Callable[[], None]) -> None:
    """Have `clear_caches` call `clear` too (per-process state tied to compiled programs, such as the device
    scalars the executables take as arguments)."""
    _CLEARERS.append(clear)


class CacheStats(NamedTuple):
    """What one kind of cache holds and did: `entries` now (over all its caches), its `limit` (per cache),
    and since the process started the programs it `compiles`d and the entries it `evictions` dropped."""

    entries: int
    limit: int
    compiles: int
    evictions: int


def cache_stats() -> dict[str, CacheStats]:
    """Per kind of cache of compiled programs (see `set_cache_limit`): entries held now, the limit, and the
    programs compiled and entries evicted since the process started.

    A loop whose compiles grow by one per iteration recompiles on every call (docs/jit.md, "What is static").

    >>> import stridex as sx
    >>> before = sx.cache_stats()["jit"].compiles
    >>> f = sx.jit(lambda x, v: x * v)
    >>> for v in range(1, 50):
    ...     y = f(sx.ones(3), v)
    >>> sx.cache_stats()["jit"].compiles - before
    1
    """
    return {name: CacheStats(sum(len(c) for c in list(kind.caches)), kind.limit, kind.compiles, kind.evictions)
            for name, kind in _KINDS.items()}


def set_cache_limit(kind: str, size: int) -> int:
    """Set how many compiled programs each cache of `kind` keeps (least recently used out); returns the previous
    limit. Kinds: "jit" (per `sx.jit` function, 256), "jit_mode" (per `stridex.jit_mode` function, 128),
    "device" (eager device executables, 1024), "device_pass" (eager fusion on devices, 1024), "host" (eager
    programs on the host: samplers and special functions, 512). Caches holding more than the new limit drop
    their oldest entries now.

    >>> import stridex as sx
    >>> previous = sx.set_cache_limit("jit", 8)
    >>> sx.set_cache_limit("jit", previous)
    8
    """
    if kind not in _KINDS:
        raise ValueError(f"set_cache_limit: unknown kind of cache {kind!r}; the kinds are {', '.join(_KINDS)}")
    if type(size) is not int or size < 1:
        raise ValueError(f"set_cache_limit: the limit must be a positive int, got {size!r}")
    entry = _KINDS[kind]
    previous, entry.limit = entry.limit, size
    for cache in list(entry.caches):
        cache._shrink(size)
    return previous


def clear_caches() -> None:
    """Empty every cache of compiled programs stridex keeps (as `jax.clear_caches()` does JAX's): `sx.jit`'s
    per-function caches, `stridex.jit_mode`'s, the device executor's, eager fusion's device passes and the
    host's compiled eager programs (samplers, special functions). The next call of each compiles again.
    JAX's own caches are left alone.

    >>> import stridex as sx
    >>> f = sx.jit(lambda x: x + 1)
    >>> y = f(sx.ones(2))
    >>> sx.clear_caches()
    >>> f.cache_size()
    0
    """
    for kind in _KINDS.values():
        for cache in list(kind.caches):
            cache.clear()
    for clear in list(_CLEARERS):
        clear()
