#!/usr/bin/env bash
# The one prepared run for a GPU machine (the session's `device` tool; CI has no GPU): the test suite with the
# GPU as the device under test, the conformance suite with the GPU as stridex's default device (eager and
# jit, a few examples, parallel workers) and the GPU benchmark (benchmarks/gpu.py). Sized for one call of
# under 10 minutes. What it needs beyond that machine's image travels in the repository's ignored folders:
#   .whl/   wheels of ndindex, pytest-json-report and pytest-metadata (for the conformance suite)
#   .suite/ a checkout of data-apis/array-api-tests laid out by ../shared/tools/setup-array-api-tests
# Usage there:  bash benchmarks/gpu_check.sh      (results under $OUT, else ./gpu-check)
set -uo pipefail
out=${OUT:-gpu-check}
mkdir -p "$out"
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
gpu=$(python3 -c "import stridex as sx; print(next(d.name for d in sx.__array_namespace_info__().devices() if d.platform == 'cuda'))")
echo "== tests (device under test: $gpu)"
STRIDEX_TEST_DEVICE=$gpu timeout 200 python3 -m pytest -q -n 12 -p no:cacheprovider -p no:warnings tests \
  > "$out/tests.log" 2>&1
tail -15 "$out/tests.log"
if [ -d .suite/array_api_tests ]; then
  echo "== conformance suite, default device $gpu"
  timeout 200 python3 -m compliance --suite .suite --version 2025.12 --device "$gpu" --mode eager --mode jit \
    --max-examples 3 --report "$out/REPORT-gpu.md" -- -n 12 > "$out/compliance.log" 2>&1
  tail -4 "$out/compliance.log"
fi
echo "== benchmarks.gpu"
timeout 150 python3 -m benchmarks.gpu --device "$gpu" --output "$out/GPU_RESULTS.md" 2>&1 | tail -16
