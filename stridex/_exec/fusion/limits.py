"""Eager fusion's thresholds and bounds (measured: see docs/fusion.md and benchmarks/fusion.py): read as
`limits.NAME` wherever they are used, so that a test or benchmark may set them for a while."""

from __future__ import annotations

import os


# An elementwise operation whose operands have fewer elements than this runs at once. Measured with
# `python -m benchmarks.fusion --crossover` (every operation deferred against op by op, side by side, on an
# idle 2-core machine, 2026-11-28 08:50 UTC): the 10-op chain 1.38x at 8192 elements, 1.28x at 16384, 0.33x at
# 32768; Black-Scholes (whose `where`s a pass blends) 0.87x, 0.67x, 0.44x. The chain decides: recording costs
# some 3 us an operation, which its cheap operations on small arrays do not repay.
# (STRIDEX_FUSION_MIN_ELEMENTS overrides it: a test suite run with 1 defers everything it can.)
DEFER_MIN_ELEMENTS = int(os.environ.get("STRIDEX_FUSION_MIN_ELEMENTS", "32768"))
# Elements per block of a pass: each block goes through the whole expression in scratch memory that stays in
# the cache.
BLOCK_ELEMENTS = 16384
# A pass with at least this many elements runs its blocks on a thread pool as well as the calling thread, each
# thread's share in one block of up to 4 * BLOCK_ELEMENTS, blocks of 4 * BLOCK_ELEMENTS above, one block whatever
# its size for a pass of one step (`_pass_block`: fewer NumPy calls, so fewer hand-overs of the GIL between the
# threads). Measured on an idle 2-core machine (pass alone,
# two threads against one, minimums of interleaved runs): at 49152 elements Black-Scholes 1.10x faster, the 10-op
# chain 1.33x, the 50-step loop 1.86x; at 10^5 1.43x, 1.58x, 1.68x; at 32768 Black-Scholes was 1.07x slower. Blocks
# are claimed one at a time, so a thread the machine's load delays leaves its share to the others.
THREADED_MIN_ELEMENTS = 49152
# A group holds at most this many records and reads at most this many distinct input windows; a record that
# would exceed either runs the group first (and starts a new one), so memory held by pending work is bounded.
MAX_RECORDS = 512
MAX_LEAVES = 32
