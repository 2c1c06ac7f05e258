"""Writes one JSON line per test (and per collection error) to ``$STRIDEX_INTEROP_RECORD``.

Each line: ``nodeid``, ``outcome`` (passed, failed, error, skipped, xfailed, xpassed), ``message``
(the exception's ``Type: first line`` and up to four more lines, or the skip/xfail reason) and ``when`` (setup, call, teardown,
collect). Lines are written as tests finish, so a run that crashes or times out keeps what it did.
"""

import json
import os

_out = None
_final = {}


def _file():
    global _out
    if _out is None:
        # kept open for the whole session (closed by the interpreter): one line per finished test
        _out = open(os.environ["STRIDEX_INTEROP_RECORD"], "a", buffering=1)  # noqa: SIM115
    return _out


def _message(report):
    """The exception's first line (a skip's reason), then up to four more lines of its message."""
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, lineno, reason) of a skip
        return str(longrepr[2]).removeprefix("Skipped: ")
    text = str(longrepr).strip().splitlines()
    crash = getattr(longrepr, "reprcrash", None)
    first = crash.message.strip().splitlines()[0] if crash is not None and crash.message.strip() else None
    # pytest renders the exception as "E   Type: message", its further lines prefixed "E" or indented
    start = next((i for i, line in enumerate(text) if line.startswith("E ")
                  and (first is None or line[1:].strip() == first)), None)
    if first is None:
        first = text[start][1:].strip() if start is not None else (text[-1] if text else "")
    more = []
    for line in text[start + 1:] if start is not None else ():
        if not (line.startswith(("E ", " ")) and line.strip()) or len(more) == 4:
            break
        more.append(line.removeprefix("E").strip())
    return "\n".join([first, *more])[:1000]


def _emit(nodeid, outcome, message, when):
    _file().write(json.dumps({"nodeid": nodeid, "outcome": outcome, "message": message, "when": when}) + "\n")


def pytest_runtest_logreport(report):
    wasxfail = getattr(report, "wasxfail", None)
    if report.when == "setup":
        if report.skipped:
            _final[report.nodeid] = ("xfailed" if wasxfail is not None else "skipped",
                                     wasxfail or _message(report), "setup")
        elif report.failed:
            _final[report.nodeid] = ("error", _message(report), "setup")
        return
    if report.when == "call":
        if wasxfail is not None:
            outcome = "xfailed" if report.skipped else ("xpassed" if report.passed else "failed")
            message = wasxfail if outcome != "failed" else _message(report)
        else:
            outcome = report.outcome
            message = _message(report) if outcome != "passed" else ""
        _final[report.nodeid] = (outcome, message, "call")
        return
    # teardown: the test is over
    outcome, message, when = _final.pop(report.nodeid, ("passed", "", "call"))
    if report.failed and outcome in ("passed", "skipped", "xfailed", "xpassed"):
        outcome, message, when = "error", _message(report), "teardown"
    _emit(report.nodeid, outcome, message, when)


def pytest_collectreport(report):
    if report.failed:
        _emit(report.nodeid or "<collection>", "error", _message(report), "collect")


def pytest_sessionfinish(session, exitstatus):
    for nodeid, (outcome, message, when) in _final.items():  # tests interrupted before teardown
        _emit(nodeid, outcome, message, when)
    _final.clear()
    if _out is not None:
        _out.flush()
