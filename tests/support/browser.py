"""Headless Chromium for the site's browser tests: find it, start it, or say why not.

Debian's packages: ``apt-get install -y --no-install-recommends chromium chromium-driver``
(``/usr/lib/chromium/chromium`` is the browser itself, ``/usr/bin/chromium`` a shell
wrapper that adds Debian's default flags from ``/etc/chromium.d``; ``/usr/bin/chromedriver``
the driver). Override with ``EXOBRAIN_CHROMIUM`` and ``EXOBRAIN_CHROMEDRIVER``.

Nothing here downloads anything: the driver path is always given, so Selenium Manager is
never consulted (and ``SE_OFFLINE=true`` is set in case it were).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CHROMIUM_FLAGS",
    "Browser",
    "browser_required",
    "browser_session",
    "find_browser",
    "full_page_screenshot",
    "start_driver",
]

#: Every flag, and why. Headless as root needs --no-sandbox (without it Chromium exits:
#: "Running as root without --no-sandbox is not supported"). The rest keep a closed
#: network quiet and the run reproducible.
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless",  # new headless mode (the only one since Chrome 132)
    "--no-sandbox",  # required when running as root (CI, containers)
    "--disable-gpu",  # no GPU here; avoids GPU-process probing
    "--disable-dev-shm-usage",  # small /dev/shm in containers would crash tabs
    "--disable-background-networking",  # no safe-browsing/variations/etc. fetches
    "--disable-component-update",  # no component downloads (Widevine, CRLSets…)
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-pings",
    "--metrics-recording-only",
    "--password-store=basic",  # no keyring / D-Bus secret service
    "--use-mock-keychain",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
    "--window-size=1280,900",
    "--force-device-scale-factor=1",
    "--lang=en-US",
)

_BROWSERS = (
    "/usr/lib/chromium/chromium",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
)
_DRIVERS = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def browser_required() -> bool:
    """True where the browser tests must run rather than skip: CI (``CI=true``, which GitHub
    Actions and .ci/run set) or ``EXOBRAIN_REQUIRE_BROWSER=1``."""
    return (
        os.environ.get("CI", "").lower() in ("1", "true", "yes")
        or os.environ.get("EXOBRAIN_REQUIRE_BROWSER") == "1"
    )


@dataclass
class Browser:
    chromium: str
    chromedriver: str


def find_browser() -> Browser | str:
    """The browser and driver to use, or a one-line reason why the tests cannot run."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    for var in ("EXOBRAIN_CHROMIUM", "EXOBRAIN_CHROMEDRIVER"):
        value = os.environ.get(var)
        if value and not os.access(value, os.X_OK):
            return f"{var}={value} is not an executable file"
    chromium = (
        os.environ.get("EXOBRAIN_CHROMIUM")
        or next((p for p in _BROWSERS if os.access(p, os.X_OK)), None)
        or shutil.which("chromium")
    )
    driver = (
        os.environ.get("EXOBRAIN_CHROMEDRIVER")
        or next((p for p in _DRIVERS if os.access(p, os.X_OK)), None)
        or shutil.which("chromedriver")
    )
    if not chromium:
        return (
            "no Chromium found (apt-get install -y --no-install-recommends chromium "
            "chromium-driver, or set EXOBRAIN_CHROMIUM)"
        )
    if not driver:
        return (
            "no chromedriver found (apt-get install -y --no-install-recommends "
            "chromium-driver, or set EXOBRAIN_CHROMEDRIVER)"
        )
    return Browser(chromium, driver)


def start_driver(browser: Browser, profile_dir: Path | None = None) -> Any:
    """A Selenium Chrome driver with ``CHROMIUM_FLAGS`` and a fresh profile folder.

    The caller quits it (``driver.quit()``); the profile folder is the caller's to
    remove when given, else a temporary one is left for the OS to clean.
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")
    profile = profile_dir or Path(tempfile.mkdtemp(prefix="exobrain-chromium-"))
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser.chromium
    for flag in CHROMIUM_FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=browser.chromedriver)
    driver = webdriver.Chrome(service=service, options=opts)
    driver.set_page_load_timeout(30)
    return driver


def full_page_screenshot(driver: Any, path: Path, max_height: int = 6000) -> None:
    """Save a PNG of the whole page (not only the viewport) through the DevTools protocol."""
    import base64

    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    clip = {
        "x": 0,
        "y": 0,
        "width": size["width"],
        "height": min(size["height"], max_height),
        "scale": 1,
    }
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    path.write_bytes(base64.b64decode(shot["data"]))


@contextmanager
def browser_session(profile: Path) -> Iterator[Any]:
    """A started driver for one test module (profile in ``profile``), quit afterwards. Where no
    browser can run, the tests skip with the reason — or fail, where :func:`browser_required`."""
    import pytest

    found = find_browser()
    if isinstance(found, str):
        if browser_required():
            pytest.fail(f"the browser tests must run here but cannot: {found}")
        pytest.skip(f"browser tests skipped: {found}")
    driver = start_driver(found, profile)
    try:
        yield driver
    finally:
        driver.quit()
