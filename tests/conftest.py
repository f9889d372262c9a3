"""Every test runs in the isolated environment of exobrain.testkit: HOME, XDG folders, git
configuration and agent folders inside a temporary folder, GitHub sent to a closed local port,
and fixed commit dates."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from exobrain.testkit import isolated_env

#: Every commit the suite makes carries this date (commit ids repeat from run to run).
COMMIT_DATE = "2026-01-01T00:00:00Z"


@pytest.fixture(scope="session", autouse=True)
def isolated_session(tmp_path_factory) -> Iterator[None]:
    """The same isolation for the whole session, so that module-scoped fixtures (which are set
    up before any test's own environment) never see the real home, caches or state either."""
    env = isolated_env(tmp_path_factory.mktemp("session"), commit_date=COMMIT_DATE)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        # the hundreds of commands the tests start share one bytecode folder in the run's
        # temporary folder (every worker's): with PYTHONDONTWRITEBYTECODE set, or a fresh
        # clone's scripts/ without __pycache__, each would otherwise compile the package again
        patch.setenv("PYTHONPYCACHEPREFIX", str(_run_folder(tmp_path_factory) / "pycache"))
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        yield


def _run_folder(tmp_path_factory) -> Path:
    """The temporary folder of this run, which every xdist worker's folder is inside."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if base.name.startswith("popen-gw") else base


@pytest.fixture(scope="session")
def base_bin(tmp_path_factory) -> Path:
    """The README's install (pip, base requirements, no extra) in a new virtual environment,
    made once per worker (:mod:`tests.support.base_install`); its ``bin`` folder."""
    from tests.support.base_install import base_install

    return base_install(tmp_path_factory.mktemp("base-install"))


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch) -> Path:
    """Apply :func:`exobrain.testkit.isolated_env` for the test; the isolated HOME."""
    env = isolated_env(tmp_path_factory.mktemp("isolated"), commit_date=COMMIT_DATE)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Path(env["HOME"])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first (each keeps its place among them): xdist deals the collection out
    to the workers in order, and a long test dealt last keeps one worker busy at the end of the
    run while the others wait."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
