"""An exobrain made with the original bash implementation, from tests/fixtures/bash-era: the
committed files as they were (its .gitignore keeps local/, .claude/ and .exobrain.json out of
git), then one machine's state copied in from machine-state/."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support import FIXTURES
from tests.support.helpers import init_repo

BASH_ERA = FIXTURES / "bash-era"
MACHINE = BASH_ERA / "machine-state"


def bash_era_repo(tmp_path: Path, connection: str = "exobrain.json.current") -> Path:
    """The fixture as a real repository, connected with ``machine-state/<connection>`` and
    the ``.claude/`` folder the bash connect-agent.sh left."""
    root = tmp_path / "exo"
    shutil.copytree(BASH_ERA, root, symlinks=True, ignore=shutil.ignore_patterns("machine-state"))
    init_repo(root)
    shutil.copy(MACHINE / connection, root / ".exobrain.json")
    shutil.copytree(MACHINE / "claude-dir", root / ".claude", symlinks=True)
    return root
