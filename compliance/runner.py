"""Run the official Array API conformance suite against stridex, one pytest process per version, and report.

Each run is ``python -m pytest`` inside the suite checkout with ARRAY_API_TESTS_MODULE naming the mode's
namespace (`stridex`, or `stridex.jit_mode` for jit mode), ARRAY_API_TESTS_VERSION=<version>, this
checkout first on PYTHONPATH, the
project's skips/xfails files, and a pytest-json-report file that `summarize` turns into counts per
test file and the list of failing test ids. `write_report` renders those into compliance/REPORT.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SKIPS_FILE = HERE / "skips.txt"
XFAILS_FILE = HERE / "xfails.txt"
# Added to XFAILS_FILE when the default device is an accelerator (see the file's header).
ACCELERATOR_XFAILS_FILE = HERE / "xfails-accelerator.txt"
DEFAULT_REPORT = HERE / "REPORT.md"

VERSIONS = ("2023.12", "2024.12", "2025.12")
DEFAULT_VERSION = "2025.12"

# How each mode runs the suite: the namespace module it tests.
MODES: dict[str, str] = {
    "eager": "stridex",
    # Every namespace function and operator runs through trace -> IR -> jax.jit; functions whose output
    # shape depends on the data run eagerly and are counted in the file named by STRIDEX_FALLBACK_LOG.
    "jit": "stridex.jit_mode",
}

OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
# Outcomes that make the run fail (pytest-json-report calls a failing setup/teardown "error").
BAD_OUTCOMES = ("failed", "error")


@dataclass
class FileCounts:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class RunResult:
    """What one suite process (one version) produced."""

    version: str
    exitcode: int
    duration: float
    files: dict[str, FileCounts]
    failures: list[tuple[str, str]]  # (test id, one-line reason), in collection order
    problem: str | None = None  # why the run produced no usable report, or "no tests collected"
    mode: str = "eager"
    max_examples: int = 0
    fallbacks: dict[str, int] = field(default_factory=dict)  # jit mode: functions run eagerly, with counts
    breaks: dict[str, int] = field(default_factory=dict)  # jit mode: calls that took graph breaks, per function
    device: str | None = None  # stridex's default device for the run (--device), None for the host

    def totals(self) -> dict[str, int]:
        out = dict.fromkeys(OUTCOMES, 0)
        for counts in self.files.values():
            for k, v in counts.counts.items():
                out[k] += v
        return out

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.failures


# --- running -------------------------------------------------------------------------------------


def suite_dir(arg: str | None) -> Path:
    raw = arg or os.environ.get("ARRAY_API_TESTS_DIR")
    if not raw:
        raise SystemExit("compliance: give the suite checkout with --suite DIR or ARRAY_API_TESTS_DIR "
                         "(see README.md, 'Getting the conformance suite')")
    path = Path(raw).expanduser().resolve()
    if not (path / "array_api_tests").is_dir() or not (path / "conftest.py").is_file():
        raise SystemExit(f"compliance: {path} is not an array-api-tests checkout (no array_api_tests/ "
                         "and conftest.py); lay one out with shared/tools/setup-array-api-tests")
    if not (path / "array-api" / "src").is_dir():
        raise SystemExit(f"compliance: {path}/array-api (the pinned spec) is missing; "
                         "setup-array-api-tests checks it out")
    return path


def selected_paths(suite: Path, names: list[str]) -> list[str]:
    """Suite-relative test paths; a bare `test_constants.py` (or node id) means array_api_tests/test_constants.py."""
    if not names:
        return ["array_api_tests"]
    out = []
    for name in names:
        file_part = name.split("::", 1)[0]
        if (suite / file_part).exists():
            out.append(name)
        elif (suite / "array_api_tests" / file_part).exists():
            out.append(f"array_api_tests/{name}")
        else:
            raise SystemExit(f"compliance: no test file {file_part!r} in {suite} or {suite}/array_api_tests")
    return out


def suite_env(version: str, mode: str, device: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if device:  # arrays made without device= go there: the whole suite runs on that device
        env["STRIDEX_DEFAULT_DEVICE"] = device
        flag = "--xla_force_host_platform_device_count"
        if device.startswith("cpu:") and flag not in env.get("XLA_FLAGS", ""):
            env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {flag}=4".strip()
    # The suite tests the namespace a client gets for `version`: the mode's module itself for 2025.12, else
    # the namespace `__array_namespace__(api_version=version)` returns (lists where older versions want them).
    module = MODES[mode]
    env["ARRAY_API_TESTS_MODULE"] = module if version == "2025.12" else (
        f"exec('import {module} as m; xp = m.asarray(0).__array_namespace__(api_version=\"{version}\")')")
    env["ARRAY_API_TESTS_VERSION"] = version
    # Test this checkout's stridex, whatever else is installed.
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def on_accelerator(device: str | None) -> bool:
    """Whether `device` (a --device name) is an accelerator's memory: not the host, nor JAX's CPU devices."""
    return bool(device) and not device.startswith("cpu")


def xfails_file(device: str | None, tmp: Path) -> Path:
    """XFAILS_FILE, or for an accelerator device XFAILS_FILE and ACCELERATOR_XFAILS_FILE together (in `tmp`)."""
    if not on_accelerator(device):
        return XFAILS_FILE
    both = tmp / "xfails.txt"
    both.write_text(XFAILS_FILE.read_text() + "\n" + ACCELERATOR_XFAILS_FILE.read_text())
    return both


def run_version(suite: Path, version: str, mode: str, paths: list[str], max_examples: int,
                keyword: str | None, extra: list[str], device: str | None = None) -> RunResult:
    with tempfile.TemporaryDirectory(prefix="stridex-compliance-") as tmp:
        json_path = Path(tmp) / "report.json"
        fallback_log = Path(tmp) / "fallbacks.json"
        cmd = [sys.executable, "-m", "pytest", *paths, "-p", "no:cacheprovider", "-q", "-rN", "--tb=short",
               f"--max-examples={max_examples}", "--disable-deadline",
               f"--skips-file={SKIPS_FILE}", f"--xfails-file={xfails_file(device, Path(tmp))}",
               "--json-report", f"--json-report-file={json_path}",
               "--json-report-omit", "keywords", "streams", "log", "warnings", "traceback"]
        if keyword:
            cmd += ["-k", keyword]
        cmd += extra
        print(f"compliance: version {version}, mode {mode}, max-examples {max_examples}: {' '.join(paths)}",
              flush=True)
        start = time.perf_counter()
        env = suite_env(version, mode, device)
        env["STRIDEX_FALLBACK_LOG"] = str(fallback_log)
        proc = subprocess.run(cmd, cwd=suite, env=env, check=False)
        duration = time.perf_counter() - start
        logged = read_jit_mode_counts(fallback_log)
        if not json_path.exists():
            return RunResult(version, proc.returncode, duration, {}, [],
                             problem=f"pytest exited with code {proc.returncode} and wrote no JSON report "
                                     "(see its output above)", mode=mode)
        data = json.loads(json_path.read_text())
    result = summarize(data, version, proc.returncode, duration)
    result.mode = mode if not device else f"{mode} on {device}"
    result.device = device
    result.max_examples = max_examples
    result.fallbacks = logged.get("eager", {})
    result.breaks = logged.get("breaks", {})
    if result.problem is None and proc.returncode == 5:
        result.problem = "no tests were collected"
    elif result.problem is None and proc.returncode not in (0, 1):
        result.problem = f"pytest exited with code {proc.returncode} (interrupted or internal error)"
    return result


# --- summarizing ---------------------------------------------------------------------------------


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def reason_of(test: dict) -> str:
    """A one-line reason for a failing test: the crash message of the phase that failed."""
    for phase in ("setup", "call", "teardown"):
        info = test.get(phase) or {}
        if info.get("outcome") == "failed":
            crash = info.get("crash") or {}
            message = crash.get("message") or str(info.get("longrepr") or "")
            break
    else:
        message = ""
    lines = [ln.strip() for ln in message.strip().splitlines() if ln.strip()]
    line = " / ".join(lines[:3]) or "(no message)"
    return line if len(line) <= 240 else line[:237] + "..."


def summarize(data: dict, version: str, exitcode: int, duration: float) -> RunResult:
    """Counts per test file and the failing ids, from a pytest-json-report document."""
    files: dict[str, FileCounts] = {}
    failures: list[tuple[str, str]] = []
    for collector in data.get("collectors", []):
        if collector.get("outcome") == "failed":
            nodeid = collector.get("nodeid") or "<collection>"
            files.setdefault(file_of(nodeid), FileCounts()).counts["error"] += 1
            message = str(collector.get("longrepr") or "").strip().splitlines()
            failures.append((nodeid, "collection error: " + (message[-1] if message else "")))
    for test in data.get("tests", []):
        nodeid = test["nodeid"]
        outcome = test["outcome"]
        counts = files.setdefault(file_of(nodeid), FileCounts()).counts
        counts[outcome if outcome in counts else "error"] += 1
        if outcome in BAD_OUTCOMES:
            failures.append((nodeid, reason_of(test)))
    return RunResult(version, exitcode, duration, dict(sorted(files.items())), failures)


# --- reporting -----------------------------------------------------------------------------------


def git_commit(path: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    try:
        status = subprocess.run(["git", "-C", str(path), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        status = []
    # The report itself is rewritten by every run: it does not make the tested code uncommitted.
    dirty = [line for line in status if not line.endswith("compliance/REPORT.md")]
    return out + (" (with uncommitted changes)" if dirty else "")


def render_report(results: list[RunResult], *, suite: Path, paths: list[str],
                  keyword: str | None, command: str) -> str:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Array API conformance report",
        "",
        "Written by `python -m compliance`; rerun it to refresh this file. Every number below is from that run.",
        "",
        f"- Date: {now}",
        f"- Command: `{command}`",
        f"- stridex commit: {git_commit(REPO)}",
        f"- Suite (data-apis/array-api-tests) commit: {git_commit(suite)}",
        f"- Spec (data-apis/array-api) commit pinned by the suite: {git_commit(suite / 'array-api')}",
        f"- Versions: {', '.join(dict.fromkeys(r.version for r in results))}",
        (f"- Modes: {', '.join(dict.fromkeys(r.mode for r in results))} (jit: every namespace function and "
         "operator is traced to stridex IR and run through jax.jit)"),
        ("- Hypothesis max-examples: " + ", ".join(f"{m} {n}" for m, n in {
            r.mode: r.max_examples for r in results}.items()) + " (deadline disabled)"),
        f"- Selection: {' '.join(paths)}" + (f" with -k `{keyword}`" if keyword else ""),
        f"- Skips file entries: {count_entries(SKIPS_FILE)}; xfails file entries: {count_entries(XFAILS_FILE)}"
        + (f" (and {count_entries(ACCELERATOR_XFAILS_FILE)} in xfails-accelerator.txt, for this accelerator run)"
           if any(on_accelerator(r.device) for r in results) else ""),
        f"- Python {platform.python_version()} on {platform.machine()} {platform.system()}",
        "",
        "## Totals",
        "",
        "| mode | version | examples | passed | failed | errors | skipped | xfailed | xpassed | total | seconds | status |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        t = r.totals()
        status = "ok" if r.ok else (r.problem or f"{len(r.failures)} failing")
        lines.append(f"| {r.mode} | {r.version} | {r.max_examples} | {t['passed']} | {t['failed']} | {t['error']} | {t['skipped']} | "
                     f"{t['xfailed']} | {t['xpassed']} | {sum(t.values())} | {r.duration:.0f} | {status} |")
    for r in results:
        lines += ["", f"## Mode {r.mode}, version {r.version}", ""]
        if r.problem:
            lines += [f"**Problem:** {r.problem}.", ""]
        if r.files:
            lines += ["| test file | passed | failed | errors | skipped | xfailed | xpassed |",
                      "|---|---:|---:|---:|---:|---:|---:|"]
            for name, fc in r.files.items():
                c = fc.counts
                lines.append(f"| {name} | {c['passed']} | {c['failed']} | {c['error']} | {c['skipped']} | "
                             f"{c['xfailed']} | {c['xpassed']} |")
        lines += ["", f"### Failing tests ({len(r.failures)})", ""]
        if r.failures:
            lines += [f"- `{nodeid}`: {reason.replace('|', '/')}" for nodeid, reason in r.failures]
        else:
            lines.append("None.")
        if r.mode.startswith("jit"):
            lines += ["", f"### Graph breaks ({sum(r.breaks.values())} calls)", "",
                      ("Calls whose traced code needed a value (data-dependent output shapes, Python decisions on "
                       "values): compiled with graph breaks, their decisions guarded (number of calls in this run)."),
                      ""]
            lines += [f"- `{name}`: {count}" for name, count in sorted(r.breaks.items())] or ["None."]
            lines += ["", f"### Run eagerly ({sum(r.fallbacks.values())} calls)", "",
                      "Calls that `jit` could not compile, even with graph breaks, and ran eagerly.", ""]
            lines += [f"- `{name}`: {count}" for name, count in sorted(r.fallbacks.items())] or ["None."]
    return "\n".join(lines) + "\n"


def read_jit_mode_counts(log: Path) -> dict[str, dict[str, int]]:
    """The counts `stridex.jit_mode` wrote at exit, one file per suite worker (`<log>.<pid>`), added up:
    {"breaks": calls that took graph breaks, "eager": calls run eagerly}, each per function."""
    total: dict[str, dict[str, int]] = {"breaks": {}, "eager": {}}
    for part in sorted(log.parent.glob(log.name + ".*")):
        for kind, counts in json.loads(part.read_text()).items():
            for name, count in counts.items():
                total[kind][name] = total[kind].get(name, 0) + count
    return total


def count_entries(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for ln in path.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#"))


# --- command line --------------------------------------------------------------------------------


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    parser = argparse.ArgumentParser(
        prog="python -m compliance",
        description="Run data-apis/array-api-tests against stridex and write compliance/REPORT.md. "
                    "Arguments after `--` go to pytest unchanged.")
    parser.add_argument("files", nargs="*",
                        help="suite test files or node ids (test_constants.py, array_api_tests/test_x.py::test_y); "
                             "default: the whole suite")
    parser.add_argument("--suite", help="the suite checkout (default: $ARRAY_API_TESTS_DIR)")
    parser.add_argument("--version", action="append", choices=VERSIONS, dest="versions",
                        help=f"ARRAY_API_TESTS_VERSION to test; repeat for several (default {DEFAULT_VERSION})")
    parser.add_argument("--max-examples", type=int, default=100, help="hypothesis examples per test (default 100)")
    parser.add_argument("--jit-max-examples", type=int,
                        help="hypothesis examples per test in jit mode (default: --max-examples)")
    parser.add_argument("--mode", action="append", choices=sorted(MODES), dest="modes",
                        help="how stridex runs: eager or jit; repeat for both (default eager)")
    parser.add_argument("--report", default=str(DEFAULT_REPORT),
                        help="where to write the Markdown report (default compliance/REPORT.md); 'none' for no file")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression selecting tests")
    parser.add_argument("--device", help="stridex's default device for the run (STRIDEX_DEFAULT_DEVICE), e.g. "
                                         "cuda:0, or cpu:1 (JAX's second CPU device: 4 are made for the run)")
    args = parser.parse_args(argv)
    if args.max_examples < 1:
        parser.error("--max-examples must be at least 1")
    args.versions = list(dict.fromkeys(args.versions or [DEFAULT_VERSION]))
    args.modes = list(dict.fromkeys(args.modes or ["eager"]))
    return args, extra


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args, extra = parse_args(argv)
    suite = suite_dir(args.suite)
    paths = selected_paths(suite, args.files)
    def examples(mode: str) -> int:
        return args.jit_max_examples if mode == "jit" and args.jit_max_examples else args.max_examples

    results = [run_version(suite, v, mode, paths, examples(mode), args.keyword, extra, args.device)
               for mode in args.modes for v in args.versions]
    command = "python -m compliance " + " ".join(argv)
    text = render_report(results, suite=suite, paths=paths,
                         keyword=args.keyword, command=command.strip())
    if args.report != "none":
        Path(args.report).write_text(text)
        print(f"compliance: report written to {args.report}")
    for r in results:
        t = r.totals()
        print(f"compliance {r.version} ({r.mode}): {t['passed']} passed, {t['failed']} failed, "
              f"{t['error']} errors, {t['skipped']} skipped, {t['xfailed']} xfailed, {t['xpassed']} xpassed"
              + (f" - {r.problem}" if r.problem else ""))
    return 0 if all(r.ok for r in results) else 1
