#!/usr/bin/env bash
# The one prepared run for a GPU machine (the session's `device` tool; CI has no GPU), in this order:
#   1. versions, the GPU, and the README demo on the GPU as stridex's default device (a smoke run); the PTX
#      of float32 /, reciprocal and sqrt compiled for a compile-only H100 (benchmarks/gpu_ptx_check.py, some
#      10 s; it needs JAX's CUDA plugin, which JAX for CUDA has, and its failure stops nothing);
#   2. the GPU benchmark (benchmarks/gpu.py), first, while the machine is quiet, and the accuracy of each
#      matmul precision setting there (benchmarks/matmul_accuracy.py);
#   3. the test suite with the GPU as the device under test (STRIDEX_TEST_DEVICE), parallel workers (its
#      overlapping-writes family included), then the whole large-size sweep (STRIDEX_LARGE_SWEEP=1);
#   4. the conformance suite with the GPU as stridex's default device, eager then jit, a few examples.
# Every phase has its own time limit, taken from what is left of CHECK_BUDGET seconds (default 480), so a
# slow phase cuts itself short instead of the phases after it; every log lands in $OUT as it is written.
# What it needs beyond that machine's image travels in the repository's ignored folders:
#   .whl/   wheels for Python 3.12: ndindex, pytest-json-report, pytest-metadata (the conformance suite),
#           hypothesis and array-api-strict/-compat/-extra at the versions the tests were written with
#   .suite/ a checkout of data-apis/array-api-tests laid out by ../shared/tools/setup-array-api-tests
# Usage there:  bash benchmarks/gpu_check.sh      (results under $OUT, else ./gpu-check; CHECK_CASES=reductions,views
#               picks benchmark cases, CHECK_TESTS test paths, CHECK_BUDGET the seconds for all phases)
# A dry run here: CHECK_DEVICE=cpu:1 CHECK_QUICK=1 bash benchmarks/gpu_check.sh
set -uo pipefail
out=${OUT:-gpu-check}
mkdir -p "$out"
end=$(( $(date +%s) + ${CHECK_BUDGET:-480} ))
left() { echo $(( end - $(date +%s) - ${1:-0} )); }   # seconds left, keeping $1 for the phases after
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
quick=${CHECK_QUICK:+--quick}

echo "== 1. environment and smoke run"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1
  python3 -c "import sys, numpy, jax, hypothesis; print(sys.version.split()[0], 'numpy', numpy.__version__, \
'jax', jax.__version__, 'hypothesis', hypothesis.__version__, jax.devices())"
} 2>&1 | tee "$out/env.log"
gpu=${CHECK_DEVICE:-$(python3 -c "import stridex as sx
print(next(d.name for d in sx.__array_namespace_info__().devices() if d.platform in ('cuda', 'gpu')))")}
echo "device under test: $gpu" | tee -a "$out/env.log"
STRIDEX_DEFAULT_DEVICE=$gpu timeout 60 python3 -m stridex.demo >> "$out/env.log" 2>&1; echo "demo rc=$?" | tee -a "$out/env.log"
tail -5 "$out/env.log"
timeout 120 python3 -m benchmarks.gpu_ptx_check > "$out/ptx.log" 2>&1; echo "ptx check rc=$?"
grep -E "^(PASS|FAIL|OVERALL)" "$out/ptx.log" | sed "s/  \[.*//"

echo "== 2. benchmarks.gpu on $gpu"
timeout "$(left 330)" python3 -m benchmarks.gpu --device "$gpu" $quick ${CHECK_CASES:+--cases $CHECK_CASES} --output "$out/GPU_RESULTS.md" \
  > "$out/bench.log" 2>&1; echo "bench rc=$?"
grep "^|" "$out/bench.log" | head -20
timeout 60 python3 -m benchmarks.matmul_accuracy --device "$gpu" >> "$out/bench.log" 2>&1; echo "accuracy rc=$?"
grep -A14 "^matmul accuracy" "$out/bench.log"

echo "== 3. tests (device under test: $gpu)"
tests=${CHECK_TESTS:-tests}
STRIDEX_TEST_DEVICE=$gpu timeout "$(left 150)" python3 -m pytest -vv -n "${CHECK_WORKERS:-12}" -p no:cacheprovider \
  -p no:warnings -rfEs --durations=10 $tests > "$out/tests.log" 2>&1; echo "tests rc=$?"
# (-v: each test's outcome is logged as it ends, so a phase cut by its time limit still says what failed)
echo "passed $(grep -c ' PASSED ' "$out/tests.log"), failed $(grep -c ' FAILED ' "$out/tests.log")"
grep ' FAILED \| ERROR ' "$out/tests.log" | head -30
tail -4 "$out/tests.log"

echo "== 3b. the whole large-size sweep (issue 25): every family at 4096, 65536 and 100003 elements, $gpu against the host"
STRIDEX_TEST_DEVICE=$gpu STRIDEX_LARGE_SWEEP=1 timeout "$(left 80)" python3 -m pytest -vv -n "${CHECK_WORKERS:-12}" \
  -p no:cacheprovider -p no:warnings -rfE -v ${CHECK_QUICK:+-k int32} tests/lax/test_large_sizes.py > "$out/sweep.log" 2>&1
echo "sweep rc=$?"
echo "passed $(grep -c ' PASSED ' "$out/sweep.log"), failed $(grep -c ' FAILED ' "$out/sweep.log")"
grep ' FAILED \| ERROR ' "$out/sweep.log" | head -30
tail -3 "$out/sweep.log"

if [ -d .suite/array_api_tests ]; then
  keyword=${CHECK_QUICK:+-k test_abs}
  for mode in eager jit; do
    keep=$([ "$mode" = eager ] && echo 35 || echo 5)
    echo "== 4. conformance suite, $mode, default device $gpu ($(left "$keep") s)"
    timeout "$(left "$keep")" python3 -m compliance --suite .suite --version 2025.12 --device "$gpu" --mode "$mode" \
      --max-examples 3 $keyword --report "$out/REPORT-gpu-$mode.md" -- -n "${CHECK_WORKERS:-12}" \
      > "$out/compliance-$mode.log" 2>&1; echo "compliance $mode rc=$?"
    tail -6 "$out/compliance-$mode.log"
  done
fi
