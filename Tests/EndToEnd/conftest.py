"""Fixtures every module shares: one Chromium per module, each test's page checked for console
errors, and no process a module started left running after it."""

import os
import signal
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
            if int(parent) == os.getpid() and state != "Z":
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        except (OSError, ValueError):
            continue
    return found


@pytest.fixture(scope="module", autouse=True)
def no_process_outlives_its_module(request):
    """A fixture whose set-up fails before it yields never reaches its own clean-up, and a publisher
    it started would go on loading the machine for every test after it (and after the run). What a
    module leaves running is stopped when it ends, and named in a warning."""
    before = set(children())
    yield
    for pid, command in children().items():
        if pid in before:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        warnings.warn(f"{request.module.__name__} left running, now stopped: {command[:200]}")
