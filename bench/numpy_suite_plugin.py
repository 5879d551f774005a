"""pytest plugin of ``bench/numpy_suite.py``: streams every test's outcome to a JSON-lines file.

A line is written when a test starts and when it has finished (setup, call and teardown), and
flushed at once, so that after a crash or a hang the runner knows which tests finished and which
one was running; it then runs the file again without them. Environment:
``NUMPY_SUITE_RECORD`` (the file to append to) and ``NUMPY_SUITE_SKIP`` (optional: a file of node
ids, one a line, to deselect: those that already ran). Loaded with ``-p numpy_suite_plugin``.
"""

import json
import os
import re

import pytest

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_outcomes = {}
_record = None


def _write(**fields):
    _record.write(json.dumps(fields) + "\n")
    _record.flush()


def cause_of(excinfo):
    """``Type: first non-empty line of the message``, as it was raised."""
    lines = [line.strip() for line in str(excinfo.value).splitlines() if line.strip()]
    first = _ADDRESS.sub("0x?", lines[0])[:300] if lines else ""
    return f"{excinfo.type.__name__}: {first}" if first else excinfo.type.__name__


def _where(excinfo):
    """The innermost frame (file name and function), where the exception was raised."""
    try:
        entry = excinfo.traceback[-1]
        return f"{os.path.basename(str(entry.path))}:{entry.name}"
    except (IndexError, AttributeError, TypeError, ValueError):
        return ""


def pytest_configure(config):
    global _record
    _record = open(os.environ["NUMPY_SUITE_RECORD"], "a", encoding="utf-8")


def pytest_unconfigure(config):
    if _record is not None:
        _write(event="end")
        _record.close()


def pytest_collection_modifyitems(session, config, items):
    path = os.environ.get("NUMPY_SUITE_SKIP")
    if path:
        with open(path, encoding="utf-8") as f:
            skip = {line.rstrip("\n") for line in f}
        kept = [item for item in items if item.nodeid not in skip]
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in skip])
        items[:] = kept
    _write(event="collected", count=len(items))


def pytest_collectreport(report):
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        text = str(report.longrepr).strip().splitlines()
        # Else the last "E   Type: message" line of the report names the error.
        errors = [line[1:].strip() for line in text if line.startswith("E ")]
        cause = (crash.message.splitlines()[0] if crash is not None and crash.message else
                 errors[-1] if errors else text[-1] if text else "collection error")
        _write(event="collect_error", nodeid=report.nodeid, cause=_ADDRESS.sub("0x?", cause)[:300])


def pytest_runtest_logstart(nodeid, location):
    _outcomes[nodeid] = {"outcome": "passed", "cause": "", "where": ""}
    _write(event="start", nodeid=nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    state = _outcomes.setdefault(item.nodeid, {"outcome": "passed", "cause": "", "where": ""})
    if report.passed and hasattr(report, "wasxfail") and report.when == "call":
        state["outcome"] = "xpassed"
    elif report.skipped:
        if state["outcome"] in ("passed", "xpassed"):
            state["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
    elif report.failed:
        if state["outcome"] in ("passed", "xpassed"):
            state["outcome"] = "failed" if report.when == "call" else "error"
            if call.excinfo is not None:
                state["cause"] = cause_of(call.excinfo)
                state["where"] = _where(call.excinfo)
            else:  # a strict xfail that passed
                state["cause"] = "XPASS(strict)"


def pytest_runtest_logfinish(nodeid, location):
    state = _outcomes.pop(nodeid, {"outcome": "passed", "cause": "", "where": ""})
    _write(event="done", nodeid=nodeid, **state)
