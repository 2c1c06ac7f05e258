"""Reruns tests/interop in a fresh interpreter when this process cannot run SciPy's array-API paths.

SciPy reads SCIPY_ARRAY_API once, at its first import. conftest.py sets it before this folder's
test modules import SciPy; this test is for the case where something imported SciPy earlier in the
process without it (the in-process SciPy and scikit-learn tests then skip, and this one runs them).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import scipy_array_api_active

HERE = Path(__file__).resolve().parent


def test_interop_tests_in_a_fresh_process():
    pytest.importorskip("scipy")
    if scipy_array_api_active():
        pytest.skip("SciPy's array-API support is active in this process: the tests ran here")
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE),
         "--deselect", f"{HERE / 'test_fresh_process.py'}::test_interop_tests_in_a_fresh_process"],
        cwd=HERE.parents[1], env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
