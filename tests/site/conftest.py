"""Fixtures of the site tests: the demo catalog and a real exobrain, each built once per module.

Module-scoped fixtures are made before the suite's per-test isolation applies, so the ones
that run git or the toolkit apply :func:`exobrain.testkit.isolated_env` themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from exobrain.site.build import build_site
from exobrain.testkit import isolated_env
from tests.conftest import COMMIT_DATE
from tests.support.site_demo import demo_data
from tests.support.site_repo import site_repo


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-written demo catalog (hostile skill included), built once per module."""
    out = tmp_path_factory.mktemp("demo") / "site"
    build_site(demo_data(), out)
    return out


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """:func:`tests.support.site_repo.site_repo`, made in an isolated environment."""
    env = isolated_env(tmp_path_factory.mktemp("isolated"), commit_date=COMMIT_DATE)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        yield site_repo(tmp_path_factory.mktemp("site-repo") / "exo")
