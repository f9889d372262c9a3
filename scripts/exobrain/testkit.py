"""Support for the tests that travel inside skill folders (their proof for the authoring gate).

A skill's tests run wherever the skill goes — the seed, every instance, a fork — outside the
toolkit's own ``tests/`` folder and its fixtures. These helpers give them the same footing: an
environment whose home, git configuration and agent folders live in a temporary folder, and a
small but real exobrain to run commands against.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from exobrain.registry import packaged_schema_text
from exobrain.util.git import Git

SKILL_TEMPLATE = (
    "---\nname: {name}\ndescription: Use {name} when the user asks for {name}.\n---\n"
    "Do the {name} thing.\n"
)


def isolated_env(base: Path) -> dict[str, str]:
    """Variables that keep a test away from the real home and the network: HOME, XDG folders,
    a git configuration with a fixed identity that sends GitHub URLs to a closed local port,
    the agents' folders, and the toolkit's scripts first on PATH."""
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
        # external skills on GitHub: a closed local port, never the network
        '[url "https://127.0.0.1:9/"]\n\tinsteadOf = https://github.com/\n'
    )
    scripts = str(Path(sys.executable).parent)
    return {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_GLOBAL": str(gitconfig),
        "GIT_CONFIG_NOSYSTEM": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "OPENCLAW_WORKSPACE": str(home / ".openclaw" / "workspace"),
        "PATH": os.pathsep.join([scripts, os.environ.get("PATH", "")]),
    }


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (through the toolkit's git layer) and return its output."""
    return Git(timeout=None, own_env=True).text(list(args), cwd=root)


def small_exobrain(
    root: Path,
    skills: tuple[str, ...] = ("hello",),
    *,
    tier: str = "optional",
    scopes: tuple[str, ...] = (),
) -> Path:
    """A committed exobrain: the packaged schema, a global registry forcing ``skills`` at
    ``tier``, each skill's folder, and scope folders flagged with an AGENTS.md."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "skills.schema.json").write_text(packaged_schema_text(), encoding="utf-8")
    entries = [{"name": n, "owner": "team", "tier": tier, "force": True} for n in skills]
    (root / "skills.json").write_text(
        json.dumps({"$schema": "skills.schema.json", "skills": entries}, indent=2) + "\n",
        encoding="utf-8",
    )
    for name in skills:
        folder = root / "skills" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(SKILL_TEMPLATE.format(name=name), encoding="utf-8")
    for scope in scopes:
        (root / scope).mkdir(parents=True, exist_ok=True)
        (root / scope / "AGENTS.md").write_text(f"# {scope}\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a small exobrain")
    return root


def run(argv: list[str], cwd: Path, *, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a command (a console script of the toolkit, a skill's script) and capture text."""
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
