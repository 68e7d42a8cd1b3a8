"""Fixtures the browser tests share: one Chromium per module, and each test's page checked for
console errors."""

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
