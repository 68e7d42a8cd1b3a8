"""Fixtures every module shares: one Chromium per module, each test's page checked for console
errors, and no process a module started left running after it."""

import os
import signal
import time
import warnings
from pathlib import Path

import pytest

from browser import console_errors, start_chromium


@pytest.fixture(scope="module")
def browser():
    driver = start_chromium()
    yield driver
    driver.quit()


@pytest.fixture
def page(browser):
    """The module's browser, with the console emptied before and checked after each test."""
    browser.get("about:blank")
    console_errors(browser)
    yield browser
    assert console_errors(browser) == []


def children():
    """The processes this test run started that are still running (not yet reaped), with their commands."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            # The command in the second field may hold spaces and parentheses: the fields after its last ")".
            state, parent = stat[stat.rindex(")") + 2:].split()[:2]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            # A zombie, or a process exiting now (its command is gone with its memory), has ended.
            if int(parent) == os.getpid() and state != "Z" and command:
                found[int(entry.name)] = command
        except (OSError, ValueError):
            continue
    return found


# The processes running when each module's first test was set up (the processes of the module
# before it are gone by then): what is running beyond them once the module is torn down, it left.
_running_before = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    if item.module not in _running_before:
        _running_before[item.module] = set(children())
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """A fixture whose set-up failed before it yielded never reaches its own clean-up, and a
    publisher it started would go on loading the machine for every test after it (and after the
    run). Once a module's last test and all its fixtures are torn down, what it left running is
    stopped and named in a warning."""
    yield
    if nextitem is not None and nextitem.module is item.module:
        return
    before = _running_before.pop(item.module, set())
    left = {pid: command for pid, command in children().items() if pid not in before}
    # Asked first, so that a server stops its own workers (nginx, Varnish); killed if it lingers.
    for pid, command in left.items():
        warnings.warn(f"{item.module.__name__} left running, now stopped: {command[:200]}")
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 5
    while left and time.monotonic() < deadline:
        for pid in list(left):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    del left[pid]
            except ChildProcessError:
                del left[pid]
        time.sleep(0.05)  # polling the processes' exit, at most 5 s
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
