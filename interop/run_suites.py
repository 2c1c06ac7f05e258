"""Run the client libraries' OWN test suites against stridex and against array-api-strict, and write
docs/interop.md.

    python -m interop.run_suites                                   # all three libraries, SciPy's default modules
    python -m interop.run_suites --libs scikit-learn array-api-extra
    python -m interop.run_suites --libs scipy --scipy-modules special stats fft signal
    python -m interop.run_suites --libs scipy --scipy-modules all  # every SciPy submodule with tests (slow)
    python -m interop.run_suites --libs xpx --backends stridex stridex_jit   # eager and stridex.jit_mode
    python -m interop.run_suites --report-only                     # rewrite the report from the last results

Each (library, suite, backend) runs in its own pytest process with the plugins in
``interop/_plugins`` (which put the backend into the library's own parametrisation and record every
outcome as JSON lines under the work directory, default ``$TMPDIR/stridex-interop``). Results of
earlier invocations stay there and are merged into the report (``--fresh`` clears them), so the
libraries can be run one at a time. Not part of CI: a full run takes tens of minutes on two cores.
Needs the ``interop`` extra (``pip install -e ".[interop]"``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BACKENDS = ("stridex", "array_api_strict")
JIT = "stridex_jit"  # the namespace stridex.jit_mode, compared with eager stridex
CHOICES = (*BACKENDS, JIT)
IGNORED = "stridex+ignore-marks"  # the run label of stridex under `--strict-marks ignore` (SciPy)
ROWS = (*BACKENDS, JIT, IGNORED)
LIBRARIES = ("scikit-learn", "scipy", "array-api-extra")
ALIASES = {"sklearn": "scikit-learn", "scikit-learn": "scikit-learn", "scipy": "scipy",
           "array-api-extra": "array-api-extra", "array_api_extra": "array-api-extra", "xpx": "array-api-extra"}
SCIPY_DEFAULT_MODULES = ("special", "stats", "fft")
# SciPy submodules with array-API tests (`--scipy-modules all`); datasets needs the network, odr and io
# have no array-API tests.
SCIPY_ALL_MODULES = ("cluster", "constants", "differentiate", "fft", "fftpack", "integrate", "interpolate",
                     "linalg", "ndimage", "optimize", "signal", "sparse", "spatial", "special", "stats", "_lib")
FAILING = ("failed", "error")
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")

# Causes whose reason is known, matched against "ExceptionType: first line" of a stridex-only failure.
KNOWN_CAUSES = [
    (r"output array is read-only",
     ("In `stridex.jit_mode` a function's result is held by JAX, and `np.asarray` of it is a zero-copy, read-only "
      "window of JAX's buffer (as `np.asarray` of a JAX array is; tests/test_devices.py checks the zero copy). "
      "SciPy's ndimage writes its `output=` arrays through `np.asarray`, so its tests that pass an `output=` "
      "array made by the namespace fail in jit mode only (662 in scipy.ndimage, 2026-11-28). Eager stridex hands "
      "out writable memory. A known difference between the modes, not yet resolved.")),
    (r"can only concatenate tuple \(not \"list\"\) to tuple",
     ("SciPy's `devices` fixture does `info.devices() + [None]`; the 2025.12 standard makes `devices()` a tuple "
     "(stridex's choice, docs/library-authors.md). array-api-strict runs under SciPy with api_version 2024.12, "
     "where it is a list. A test-fixture incompatibility, not a stridex bug.")),
    (r"array-agnostic fallback should not be used",
     ("array-api-extra's test assumes every backend it does not name delegates `nunique` to a native "
     "implementation; stridex (unknown to it) takes the array-agnostic path, which is correct.")),
    (r"Namespaces of actual and desired arrays do not match\.\s*$|Actual: array_api_compat\.numpy",
     ("The test expects an unnamed backend to dispatch a NumPy/Cython ufunc through `__array_ufunc__` "
     "(CuPy, Dask); stridex, like array-api-strict and JAX, converts to NumPy.")),
    (r"cannot assign (Python float 1\.1|an array of dtype float64) into an array of dtype int64",
     ("array-api-extra's `test_incompatible_dtype` requires backends other than array-api-strict to accept "
     "`int_array[idx] = 1.1` and `int_array[idx] = float_array` (`at().set/min/max`; NumPy truncates). stridex "
     "refuses a cast to another kind, as array-api-strict does (docs/semantics.md); the standard leaves "
     "mixed-kind assignment unspecified.")),
    (r"Actual message: .asarray: cannot make an array from str data",
     ("SciPy's test accepts each known backend's own error for `xp.asarray('a duck')` (NumPy's path, CuPy's "
      "'Unsupported', torch's 'new', JAX's 'Value ...', 'The array_api_strict ...'); stridex's message is not in "
      "the list. Not a bug; a wording SciPy's regex does not know.")),
    (r"Actual message: .result_type needs at least one array or dtype, got only Python scalars",
     ("SciPy's `test_xp_result_type_force_floating` expects `xp_result_type(x, y)` to raise the very message of "
      "`xp.result_type(x, y, 1.0)`, used as a regex: stridex's message names the arguments (so the two differ) and "
      "contains parentheses (regex groups). array-api-strict's message is one fixed sentence. The ValueError itself "
      "is documented (docs/library-authors.md); its wording is what fails.")),
    (r"Actual message: .source axis 10 is out of bounds for an array of dimension",
     ("`moveaxis` with an out-of-range axis: NumPy, array-api-strict and JAX say 'source: axis 10 is out of bounds "
      "for array of dimension 1' (NumPy's AxisError, a ValueError and IndexError), which SciPy's regex "
      "'axis 10 is out of bounds for array' matches; stridex says 'source axis 10 is out of bounds for an array of "
      "dimension 1' (IndexError). xfail in tests/interop/test_scipy.py.")),
]

# Tests whose reason is known where their cause alone does not say it (a bare "AssertionError:"), matched
# against the test id.
KNOWN_TESTS = [
    (r"scipy/stats/tests/test_resampling\.py::TestBootstrap::test_bootstrap_batch\[stridex_jit-\d+-BCa\]",
     ("The test compares a batched bootstrap with a loop over the batch by `assert_equal`, exact equality; in "
      "`stridex.jit_mode` 20 of 110 BCa interval ends differ by 1-2 ulp (6.7e-16 relative at most, 2026-11-28): "
      "XLA compiles the batched and the looped programs differently and rounds differently in the last bits, the "
      "documented difference between jit and eager values (docs/jit.md, Lowering to JAX). Not a bug.")),
]


# ---------------------------------------------------------------------------------------------- suites


def site_packages_of(module_name: str) -> Path:
    mod = __import__(module_name)
    return Path(mod.__file__).resolve().parents[1]


def _write_ini(workdir: Path, name: str, body: str) -> Path:
    path = workdir / f"{name}.ini"
    path.write_text("[pytest]\n" + body)
    return path


def sklearn_suite(workdir: Path, backend: str, args) -> dict:
    import sklearn

    root = Path(sklearn.__file__).resolve().parent
    pattern = re.compile(r"yield_namespace_device_dtype_combinations|yield_namespaces\(|"
                         r"yield_mixed_namespace_input_permutations")
    files = sorted(str(p) for p in root.rglob("test_*.py") if "/tests/" in str(p) and pattern.search(p.read_text()))
    files.append(str(root / "tests" / "test_common.py"))  # the estimator checks (check_array_api_*)
    ini = _write_ini(workdir, "sklearn", "")
    keyword = "stridex" if backend == JIT else backend  # its ids name the module, stridex.jit_mode
    return {
        "suite": "sklearn", "library": "scikit-learn",
        "argv": ["-c", str(ini), "--rootdir", str(root.parent), "-p", "interop._plugins.sklearn_backend",
                 *sorted(set(files)), "-k", _and_k(keyword, args.k)],
    }


def scipy_suite(workdir: Path, backend: str, module: str, args) -> dict:
    sp = site_packages_of("scipy")
    ini = _write_ini(workdir, "scipy", "")
    return {
        "suite": f"scipy.{module}", "library": "scipy",
        "argv": ["-c", str(ini), "--rootdir", str(sp), "-p", "interop._plugins.scipy_backend",
                 "--pyargs", f"scipy.{module}", "-m", "array_api_backends"]
        + (["-k", args.k] if args.k else []),
    }


def xpx_tests_dir(workdir: Path) -> tuple[Path, Path]:
    """(tests/main folder, rootdir): the installed wheel's tests if it ships them, else the sdist's."""
    import array_api_extra

    pkg = Path(array_api_extra.__file__).resolve().parent
    if (pkg / "tests" / "main" / "conftest.py").exists():
        return pkg / "tests" / "main", pkg.parent
    version = array_api_extra.__version__
    src = workdir / f"array_api_extra-{version}"
    if not (src / "tests" / "main" / "conftest.py").exists():
        print(f"== downloading the array-api-extra {version} sdist (its tests) into {workdir}", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "download", f"array-api-extra=={version}",
                        "--no-binary", "array-api-extra", "--no-deps", "-d", str(workdir)], check=True)
        shutil.unpack_archive(str(workdir / f"array_api_extra-{version}.tar.gz"), str(workdir))
    return src / "tests" / "main", src


def xpx_suite(workdir: Path, backend: str, args) -> dict:
    tests, root = xpx_tests_dir(workdir)
    # array-api-extra's own pytest options (its pyproject.toml): warnings are errors, xfails are strict
    ini = _write_ini(workdir, "array-api-extra", "filterwarnings =\n    error\nxfail_strict = true\nmarkers =\n"
                     "    skip_xp_backend(library, /, *, reason=None): Skip test for a specific backend\n"
                     "    xfail_xp_backend(library, /, *, reason=None, strict=None): Xfail test for a specific backend\n"
                     "    thread_unsafe: pytest-run-parallel's marker\n")
    keyword = "stridex" if backend in ("stridex", JIT) else "array_api_strict and not strictest"
    return {
        "suite": "array-api-extra", "library": "array-api-extra",
        "argv": ["-c", str(ini), "--rootdir", str(root), "-p", "interop._plugins.xpx_backend", str(tests),
                 "-k", _and_k(keyword, args.k)],
    }


def _and_k(keyword: str, extra: str | None) -> str:
    return f"({keyword}) and ({extra})" if extra else keyword


def run_suite(spec: dict, backend: str, workdir: Path, args) -> dict:
    out = workdir / "results"
    out.mkdir(parents=True, exist_ok=True)
    label = IGNORED if spec["library"] == "scipy" and backend == "stridex" and args.strict_marks == "ignore" else backend
    stem = f"{spec['suite']}--{label}"
    record, log = out / f"{stem}.jsonl", out / f"{stem}.log"
    record.unlink(missing_ok=True)
    env = dict(os.environ)
    env.update({
        "SCIPY_ARRAY_API": "1",
        "STRIDEX_INTEROP_BACKEND": backend,
        "STRIDEX_INTEROP_RECORD": str(record),
        "STRIDEX_INTEROP_STRICT_MARKS": args.strict_marks,
        "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
    })
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    cmd = [sys.executable, "-m", "pytest", "-q", "--tb=line", "-p", "no:cacheprovider", "-p", "interop._plugins.record",
           *spec["argv"], *args.pytest_args]
    print(f"== {spec['suite']} on {label}: {' '.join(cmd[1:])}", flush=True)
    start = time.monotonic()
    timed_out = False
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                rc = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
    meta = {"suite": spec["suite"], "library": spec["library"], "backend": label, "rc": rc,
            "timed_out": timed_out, "seconds": round(time.monotonic() - start, 1),
            "command": shlex.join(["python", *cmd[1:]]), "strict_marks": args.strict_marks,
            "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), "versions": versions()}
    (out / f"{stem}.meta.json").write_text(json.dumps(meta, indent=1))
    counts = Counter(r["outcome"] for r in load_records(record))
    print(f"   {dict(counts)} in {meta['seconds']} s (rc {rc}{', TIMED OUT' if timed_out else ''}); log: {log}",
          flush=True)
    return meta


# ---------------------------------------------------------------------------------------------- report


def load_records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    records = {}
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            records[rec["nodeid"]] = rec  # a nodeid reported twice (rerun) keeps its last outcome
    return list(records.values())


_DEVICE = re.compile(r"\b(stridex\.jit_mode|stridex_jit|stridex|array_api_strict)(-|,device_name=)"
                     r"(None|CPU_DEVICE|device1)\b")
_BACKEND = re.compile(r"\b(stridex\.jit_mode|stridex_jit|stridex|array_api_strict)\b")


def normalise(nodeid: str) -> str:
    """The test id with the backend (and scikit-learn's backend-specific device) replaced by XP."""
    return _BACKEND.sub("XP", _DEVICE.sub(r"XP\2DEV", nodeid))


def cause_of(message: str) -> str:
    """The group key: the first line; for pytest.raises(match=...) also the message that did not match."""
    text = (message or "").strip().splitlines()
    first = text[0] if text else "(no message)"
    actual = [line for line in text[1:] if line.startswith("Actual message:")]
    if first.endswith("Regex pattern did not match.") and actual:
        # the message that did not match, with its parenthesised parts (often the arguments) elided
        elided = actual[0]
        while re.search(r"[(][^()]*[)]", elided):
            elided = re.sub(r"[(][^()]*[)]", "…", elided)
        first = f"{first} {elided}"
    first = re.sub(r"0x[0-9a-fA-F]+", "0x…", first)
    first = re.sub(r"at /[^ ]+:\d+", "at …", first)
    return first[:240]


def note_for(cause: str) -> str | None:
    for pattern, note in KNOWN_CAUSES:
        if re.search(pattern, cause):
            return note
    return None


def versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for dist in ("stridex", "numpy", "scikit-learn", "scipy", "array-api-extra", "array-api-compat",
                 "array-api-strict", "pytest", "jax"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "stridex"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        return out
    out["stridex"] += f" (commit {commit}{', with uncommitted changes to stridex/' if dirty else ''})"
    return out


PREAMBLE = """\
# Client libraries on stridex

What users touch: scikit-learn (with `array_api_dispatch=True`), SciPy (with `SCIPY_ARRAY_API=1`) and
array-api-extra, called on stridex arrays. Two kinds of checks:

- **`tests/interop/`** (part of `python -m pytest`, a few seconds; every module skips cleanly when its
  library is missing): public functions of the three libraries on stridex arrays against the same call on
  NumPy arrays: values, shapes, dtypes, and that results are stridex arrays where the library returns the
  input's namespace. `python -m pytest tests/interop` runs them alone. SciPy must see `SCIPY_ARRAY_API=1`
  before its first import: `tests/interop/conftest.py` sets it at import; if SciPy was imported earlier in the
  process without it, those tests skip and `tests/interop/test_fresh_process.py` reruns the folder in a new
  interpreter.
- **The libraries' own test suites**, run by `python -m interop.run_suites` against stridex and, as a
  baseline, against array-api-strict. This page is written by that command; everything below the line
  "Results" comes from its last run. It is not part of CI (tens of minutes on two cores).

## Running the suites

```bash
pip install -e ".[interop]"
python -m interop.run_suites                                   # scikit-learn, SciPy (special, stats, fft), array-api-extra
python -m interop.run_suites --libs scikit-learn array-api-extra
python -m interop.run_suites --libs scipy --scipy-modules special stats fft signal ndimage
python -m interop.run_suites --libs scipy --scipy-modules all   # every SciPy submodule with array-API tests
python -m interop.run_suites --backends stridex -k "logsumexp"  # one backend, a pytest -k filter
python -m interop.run_suites --libs xpx --backends stridex stridex_jit   # eager and stridex.jit_mode, compared
python -m interop.run_suites --report-only                     # rewrite this page from the stored results
```

Other options: `--workdir DIR` (results and logs; default `$TMPDIR/stridex-interop`; earlier results there
are merged into the report, `--fresh` clears them), `--timeout S` (per suite and backend, default 3600),
`--report PATH`, `--strict-marks inherit|ignore` (SciPy, below), and pytest arguments after `--`.
`--backends stridex_jit` runs a suite on `stridex.jit_mode` (every function and operator through `sx.jit`,
docs/semantics.md) and compares it test by test with the eager `stridex` run (the section "stridex.jit_mode
against eager stridex"), for each library (scikit-learn's test ids name the module, `stridex.jit_mode`). Each suite
and backend runs in its own pytest process; `<workdir>/results/*.log` holds pytest's output.

## How each library's suite gets the backend

| library | how its tests choose a backend | what the runner does (`interop/_plugins/`) | tests run |
|---|---|---|---|
| scikit-learn | parametrised by `yield_namespace_device_dtype_combinations`, `yield_namespaces` and `yield_mixed_namespace_input_permutations` (`sklearn.utils._array_api`), called when the test modules are imported; the estimator checks (`check_array_api_*` in `sklearn/tests/test_common.py`) use the same | `sklearn_backend.py` replaces the three generators before collection so that they yield the selected backend only: stridex as `(stridex, None, float64)` and `(stridex, None, float32)`, array-api-strict as scikit-learn's own `(CPU_DEVICE, float64)`, `(device1, float32)`; mixed inputs `backend→numpy` and `numpy→backend`; `check_array_api_same_namespace` (array-api-strict only upstream) with the selected backend | the installed test modules that use those generators, plus `sklearn/tests/test_common.py`, `-k <backend>` |
| SciPy | the `xp` fixture of `scipy/conftest.py`, parametrised (with `SCIPY_ARRAY_API=1`) over the installed backends it knows (numpy, array_api_strict, torch, cupy, jax.numpy, dask.array); `-b`/`SCIPY_ARRAY_API='["name"]'` select among those | `scipy_backend.py` replaces the fixture's parameters with the selected backend, marked `array_api_backends` as SciPy marks its own, and adds `stridex` to SciPy's known backends (so `np_only` marks skip it) | `--pyargs scipy.<module> -m array_api_backends` per submodule |
| array-api-extra | the `library` fixture of `array_api_extra/tests/main/conftest.py`, parametrised over the `Backend` enum (`array_api_extra._lib._backends`); `xp` imports `library.modname` | `xpx_backend.py` adds a member `STRIDEX = "stridex"` to the enum before the conftest is imported (`--backends stridex_jit`: `STRIDEX_JIT = "stridex.jit_mode"`, ids `[stridex_jit]`) | the installed wheel's `array_api_extra/tests/main` (the sdist's `tests/main` when the wheel lacks them, fetched with `pip download --no-binary`), with array-api-extra's pytest options (`filterwarnings = error`, `xfail_strict = true`), `-k stridex` / `-k "array_api_strict and not strictest"` |

SciPy also marks tests and functions for array_api_strict by name (`skip_xp_backends("array_api_strict")`,
`xp_capabilities(skip_backends=...)`, `np_only` with `exceptions=["array_api_strict"]`). With
`--strict-marks inherit` (the default) stridex gets exactly array_api_strict's skips and xfails: SciPy's word
on what a standard-only, eager CPU backend can run (their reasons start with "as array_api_strict:"). With
`--strict-marks ignore` stridex gets only the marks that name no backend, and runs what SciPy skips on
array-api-strict; such a run is stored beside the default one (as "stridex, SciPy's array_api_strict marks
ignored") and its failures among those tests are listed in their own section, not as stridex-only failures:

```bash
python -m interop.run_suites --libs scipy --backends stridex --strict-marks ignore --scipy-modules all
```

A **stridex-only failure** is a test that fails or errors on stridex whose counterpart (the same test id with
the backend's name, and scikit-learn's device, replaced) did not fail on array-api-strict: it passed, was
skipped or xfailed, or was not collected there. Failures on both backends are the libraries' own
limits (or shared fixture assumptions) and are counted, not listed.
"""


def render_report(workdir: Path, report: Path) -> str:
    out_dir = workdir / "results"
    metas = [json.loads(p.read_text()) for p in sorted(out_dir.glob("*.meta.json"))] if out_dir.exists() else []
    by_suite: dict[str, dict[str, dict]] = defaultdict(dict)
    for meta in metas:
        by_suite[meta["suite"]][meta["backend"]] = meta
    lines = [PREAMBLE, "## Results", ""]
    if not metas:
        lines.append("No results yet: run `python -m interop.run_suites`.")
        return "\n".join(lines) + "\n"
    dates = sorted(m["date"] for m in metas)
    latest = max(metas, key=lambda m: m["date"]).get("versions") or versions()
    lines.append(f"Runs from {dates[0]} to {dates[-1]}, on {os.cpu_count()} cores. Versions (of the latest run; "
                 "each run's stridex commit is listed under \"Commands of the runs\"):")
    lines.append("")
    lines.append(" | ".join(f"{k} {v}" for k, v in latest.items()))
    lines.append("")
    lines += [("| library | suite | backend | passed | failed | errors | skipped | xfailed | xpassed | time (s) | "
              "stridex-only failures |"), "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    only_by_library: dict[str, list] = defaultdict(list)
    both_by_library: Counter = Counter()
    strict_only_by_library: Counter = Counter()
    totals: dict[tuple, Counter] = defaultdict(Counter)
    inherited = Counter()
    one_side: dict[str, Counter] = defaultdict(Counter)
    both: dict[str, Counter] = defaultdict(Counter)  # (stridex's cause, array-api-strict's cause) -> tests
    unmarked: dict[str, list] = defaultdict(list)  # failures of tests run only because strict marks were ignored
    unmarked_counts: dict[str, Counter] = defaultdict(Counter)
    jit_only: dict[str, list] = defaultdict(list)  # failing in jit mode, not eagerly
    eager_only: dict[str, list] = defaultdict(list)  # failing eagerly, not in jit mode
    order = {lib: i for i, lib in enumerate(LIBRARIES)}
    for suite in sorted(by_suite, key=lambda s: (order.get(next(iter(by_suite[s].values()))["library"], 9), s)):
        runs = by_suite[suite]
        recs = {b: load_records(out_dir / f"{suite}--{b}.jsonl") for b in runs}
        library = next(iter(runs.values()))["library"]
        stridex_only = []
        if "stridex" in recs:
            strict = {normalise(r["nodeid"]): r for r in recs.get("array_api_strict", [])}
            for r in recs["stridex"]:
                if r["outcome"] in FAILING:
                    other = strict.get(normalise(r["nodeid"]))
                    if "array_api_strict" not in recs:
                        stridex_only.append((r, None))
                    elif other is None or other["outcome"] not in FAILING:
                        stridex_only.append((r, other))
                    else:
                        both_by_library[library] += 1
                        both[library][(cause_of(r["message"]), cause_of(other["message"]))] += 1
                if r["outcome"] in ("skipped", "xfailed") and r["message"].startswith("as array_api_strict:"):
                    inherited[library] += 1
            if "array_api_strict" in recs:
                stridex_keys = {normalise(r["nodeid"]): r for r in recs["stridex"]}
                one_side[library] += Counter(stridex=len(stridex_keys.keys() - strict.keys()),
                                             array_api_strict=len(strict.keys() - stridex_keys.keys()))
                strict_only_by_library[library] += sum(
                    1 for key, r in strict.items() if r["outcome"] in FAILING
                    and (key not in stridex_keys or stridex_keys[key]["outcome"] not in FAILING))
        only_by_library[library] += stridex_only
        if JIT in recs and "stridex" in recs:
            eager = {normalise(r["nodeid"]): r for r in recs["stridex"]}
            jitted = {normalise(r["nodeid"]): r for r in recs[JIT]}
            for key, r in jitted.items():
                other = eager.get(key)
                if r["outcome"] in FAILING and (other is None or other["outcome"] not in FAILING):
                    jit_only[library].append((r, other))
            for key, r in eager.items():
                other = jitted.get(key)
                if r["outcome"] in FAILING and (other is None or other["outcome"] not in FAILING):
                    eager_only[library].append((r, other))
        if IGNORED in recs and "stridex" in recs:
            marked = {normalise(r["nodeid"]): r for r in recs["stridex"]
                      if r["outcome"] in ("skipped", "xfailed") and r["message"].startswith("as array_api_strict:")}
            for r in recs[IGNORED]:
                other = marked.get(normalise(r["nodeid"]))
                if other is not None:
                    unmarked_counts[library][r["outcome"]] += 1
                    if r["outcome"] in FAILING:
                        unmarked[library].append((r, other))
        for backend in ROWS:
            if backend not in runs:
                continue
            meta = runs[backend]
            c = Counter(r["outcome"] for r in recs[backend])
            totals[(library, backend)] += c
            flag = (" (timed out)" if meta["timed_out"] else "" if meta["rc"] in (0, 1)
                    else " (no tests)" if meta["rc"] == 5 else f" (pytest exit {meta['rc']})")
            only = str(len(stridex_only)) if backend == "stridex" else ""
            if backend == JIT and "stridex" in recs:
                only = f"{len(jit_only[library])} failing in jit mode only"
            backend = ("stridex, SciPy's array_api_strict marks ignored" if backend == IGNORED
                       else "stridex.jit_mode" if backend == JIT else backend)
            lines.append(f"| {library} | {suite} | {backend} | {c['passed']} | {c['failed']} | {c['error']} | "
                         f"{c['skipped']} | {c['xfailed']} | {c['xpassed']} | {meta['seconds']:.0f}{flag} | {only} |")
    lines += ["", "Per library (all suites run):", "",
              ("| library | backend | passed | failed | errors | skipped | xfailed | xpassed | stridex-only failures | "
              "failing on both | failing on array-api-strict only |"), "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for library in LIBRARIES:
        for backend in ROWS:
            c = totals.get((library, backend))
            if c is None:
                continue
            extra = (f"{len(only_by_library[library])} | {both_by_library[library]} | {strict_only_by_library[library]}"
                     if backend == "stridex" else " | | ")
            name = ("stridex, SciPy's array_api_strict marks ignored" if backend == IGNORED
                    else "stridex.jit_mode" if backend == JIT else backend)
            lines.append(f"| {library} | {name} | {c['passed']} | {c['failed']} | {c['error']} | {c['skipped']} | "
                         f"{c['xfailed']} | {c['xpassed']} | {extra} |")
    if any(sum(c.values()) for c in one_side.values()):
        lines += ["", "Tests in one backend's run only (a test parametrised by backend name for one of them, e.g. "
                  "scikit-learn's `[\"numpy\", \"array_api_strict\"]`), not compared: "
                  + "; ".join(f"{lib}: {c['array_api_strict']} array-api-strict only, {c['stridex']} stridex only"
                              for lib, c in one_side.items()) + "."]
    if any(inherited.values()):
        lines += ["", ("Skipped or xfailed on stridex because SciPy skips or xfails them on array-api-strict "
                  f"(`--strict-marks inherit`): {', '.join(f'{k} {v}' for k, v in inherited.items())}.")]
    lines += ["", "## stridex-only failures, grouped by cause", "",
              ("Cause: the exception type and the first line of its message (for a failed assertion, pytest's "
              "first line). Each test id is followed by its outcome on array-api-strict."), ""]
    for library in LIBRARIES:
        failures = only_by_library.get(library)
        if failures is None:
            continue
        lines += [f"### {library}: {len(failures)}", ""]
        lines += render_groups(failures, "array-api-strict")
    if jit_only or eager_only:
        lines += ["## stridex.jit_mode against eager stridex", "",
                  ("The same suite run with `stridex.jit_mode` as the namespace (`--backends stridex_jit`: every "
                   "function and operator through `sx.jit`, docs/semantics.md), compared test by test with the eager "
                   "run (`stridex`). Failing in jit mode only: "
                   + "; ".join(f"{lib}: {len(jit_only[lib])}" for lib in LIBRARIES if lib in jit_only or lib in eager_only)
                   + ". Failing eagerly only: "
                   + "; ".join(f"{lib}: {len(eager_only[lib])}" for lib in LIBRARIES if lib in jit_only or lib in eager_only)
                   + "."), ""]
        for library in LIBRARIES:
            if library in jit_only:
                lines += [f"### {library}: failing in jit mode only: {len(jit_only[library])}", ""]
                lines += render_groups(jit_only[library], "eager stridex")
    if any(both.values()):
        lines += ["## Failing on both backends", "",
                  "Not stridex-only, so not listed one by one; the causes on each side:", "",
                  "| library | tests | cause on stridex | cause on array-api-strict |", "|---|---:|---|---|"]
        for library, causes in both.items():
            for (mine, theirs), n in causes.most_common():
                lines.append(f"| {library} | {n} | `{_md(mine)}` | `{_md(theirs)}` |")
        lines.append("")
    if unmarked:
        lines += ["## Tests SciPy skips on array-api-strict, run on stridex", "",
                  ("With `--strict-marks ignore` stridex also runs the tests that SciPy skips or xfails for "
                   "array_api_strict by name (these do not count as stridex-only failures: the baseline cannot run "
                   "them). Their outcomes: "
                   + "; ".join(f"{lib}: " + ", ".join(f"{n} {o}" for o, n in sorted(c.items()))
                               for lib, c in unmarked_counts.items()) + "."), ""]
        for library, failures in unmarked.items():
            lines += [f"### {library}: {len(failures)} failing", ""]
            lines += render_groups(failures, "array-api-strict")
    lines += ["## Commands of the runs", ""]
    for meta in metas:
        stridex = (meta.get("versions") or {}).get("stridex", "?")
        lines.append(f"- {meta['suite']} / {meta['backend']} ({meta['date']}, {meta['seconds']:.0f} s, stridex {stridex}, "
                     f"strict marks: {meta.get('strict_marks', 'inherit')}): `{_md(_shorten(meta['command']))}`")
    return "\n".join(lines) + "\n"


def render_groups(failures: list, other_name: str) -> list[str]:
    """Failures grouped by cause: a table of the groups, then each group's message and test ids."""
    lines: list[str] = []
    if not failures:
        return ["None.", ""]
    groups: dict[str, list] = defaultdict(list)
    for r, other in failures:
        groups[cause_of(r["message"])].append((r, other))
    lines += ["| tests | cause | example |", "|---:|---|---|"]
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for cause, items in ranked:
        first = min(items, key=lambda t: t[0]["nodeid"])[0]
        lines.append(f"| {len(items)} | `{_md(cause)}` | `{_md(first['nodeid'])}` |")
    lines.append("")
    for cause, items in ranked:
        lines += [f"#### {len(items)} × `{_md(cause)}`", ""]
        note = note_for(cause)
        if note:
            lines += [f"Known: {note}", ""]
        for pattern, test_note in KNOWN_TESTS:
            named = [r["nodeid"] for r, _ in items if re.search(pattern, r["nodeid"])]
            if named and test_note != note:
                lines += [f"Known, for {len(named)} of these ({_md(named[0])}"
                          + (" and the like" if len(named) > 1 else "") + f"): {test_note}", ""]
        example = min(items, key=lambda t: t[0]["nodeid"])[0]["message"].strip()
        if "\n" in example:
            lines += ["The first one's message:", "", "```text", example.replace("```", "'''"), "```", ""]
        for r, other in sorted(items, key=lambda t: t[0]["nodeid"]):
            where = "" if r["when"] == "call" else f", {r['when']}"
            outcome = "not run" if other is None else other["outcome"]
            lines.append(f"- `{_md(r['nodeid'])}` ({r['outcome']}{where}; {other_name}: {outcome})")
        lines.append("")
    return lines


def _md(text: str) -> str:
    return text.replace("`", "'").replace("|", "\\|")


def _shorten(command: str) -> str:
    """The command with site-packages paths shortened and scikit-learn's long file list summarised."""
    command = re.sub(r"\S*/site-packages\b", "<site-packages>", command)
    command = re.sub(r"-c \S+\.ini ", "", command)
    command = command.replace("-p no:cacheprovider -p interop._plugins.record ", "")
    files = re.findall(r"<site-packages>/sklearn/\S+\.py", command)
    if len(files) > 3:
        for f in files[1:]:
            command = command.replace(" " + f, "", 1)
        command = command.replace(files[0], f"<{len(files)} sklearn test modules>")
    return command


# ---------------------------------------------------------------------------------------------- main


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m interop.run_suites", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--libs", nargs="+", default=list(LIBRARIES), metavar="LIB",
                        help="scikit-learn (sklearn), scipy, array-api-extra (xpx); default: all three")
    parser.add_argument("--scipy-modules", nargs="+", default=list(SCIPY_DEFAULT_MODULES), metavar="MOD",
                        help=f"SciPy submodules (default: {' '.join(SCIPY_DEFAULT_MODULES)}; 'all': "
                             f"{' '.join(SCIPY_ALL_MODULES)})")
    parser.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=CHOICES,
                        help=f"default: {' '.join(BACKENDS)}; {JIT}: stridex.jit_mode, compared with eager")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "stridex-interop")
    parser.add_argument("--report", type=Path, default=REPO / "docs" / "interop.md")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per suite and backend")
    parser.add_argument("--strict-marks", choices=("inherit", "ignore"), default="inherit",
                        help="SciPy: stridex gets array_api_strict's skip/xfail marks (inherit) or not")
    parser.add_argument("-k", help="a pytest -k expression, ANDed with the backend selection")
    parser.add_argument("--fresh", action="store_true", help="clear earlier results in the work directory")
    parser.add_argument("--report-only", action="store_true", help="rewrite the report from stored results")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    args = parser.parse_args(argv)

    try:
        libs = [ALIASES[name] for name in args.libs]
    except KeyError as exc:
        parser.error(f"unknown library {exc.args[0]!r}: choose from {', '.join(sorted(ALIASES))}")
    modules = list(SCIPY_ALL_MODULES) if args.scipy_modules == ["all"] else args.scipy_modules
    workdir = args.workdir.resolve()
    if REPO in workdir.parents or workdir == REPO:
        parser.error("the work directory must be outside the repository")
    if args.fresh and workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True, exist_ok=True)

    if not args.report_only:
        for library in libs:
            module = {"scikit-learn": "sklearn", "scipy": "scipy", "array-api-extra": "array_api_extra"}[library]
            try:
                __import__(module)
            except ImportError:
                print(f"== {library} is not installed (pip install -e '.[interop]'): skipped", flush=True)
                continue
            for backend in args.backends:
                if library == "scikit-learn":
                    run_suite(sklearn_suite(workdir, backend, args), backend, workdir, args)
                elif library == "array-api-extra":
                    run_suite(xpx_suite(workdir, backend, args), backend, workdir, args)
                else:
                    for mod in modules:
                        run_suite(scipy_suite(workdir, backend, mod, args), backend, workdir, args)

    if not list((workdir / "results").glob("*.meta.json")):
        print(f"== no results in {workdir}: {args.report} left as it is", flush=True)
        return 1
    text = render_report(workdir, args.report)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(text)
    print(f"== wrote {args.report}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
