"""Support for tests: the ones that travel inside skill folders (their proof for the authoring
gate) and the toolkit's own suite.

A skill's tests run wherever the skill goes — the seed, every instance, a fork — outside the
toolkit's own ``tests/`` folder and its fixtures. These helpers give them the same footing: an
environment whose home, git configuration and agent folders live in a temporary folder, and a
small but real exobrain to run commands against. The toolkit's suite uses the same definitions
(tests/conftest.py applies :func:`isolated_env` to every test; tests/support runs git through
:func:`git`), so there is one isolated test environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from exobrain.registry.schema import packaged_schema_text
from exobrain.util.git import Git

SKILL_TEMPLATE = (
    "---\nname: {name}\ndescription: Use {name} when the user asks for {name}.\n---\n"
    "Do the {name} thing.\n"
)


#: Sends GitHub URLs to a closed local port: an external skill declared on GitHub (the seed's
#: skill-creator) must never make a test reach the network.
NO_NETWORK = '[url "https://127.0.0.1:9/"]\n\tinsteadOf = https://github.com/\n'


def isolated_env(base: Path, *, commit_date: str | None = None) -> dict[str, str]:
    """Variables that keep a test away from the real home and the network: HOME, every XDG folder,
    a git configuration with a fixed identity that sends GitHub URLs to a closed local port
    (system configuration off), the agents' folders, the toolkit's scripts first on PATH, and
    no background search build (no process outlives the test that started it).
    ``commit_date`` (ISO 8601) fixes the author and committer dates of every commit, so
    commit ids repeat from run to run. Apply the result to a subprocess's ``env`` or, in a
    fixture, with ``monkeypatch.setenv`` for each item."""
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n" + NO_NETWORK
    )
    scripts = str(Path(sys.executable).parent)
    env = {
        "HOME": str(home),
        # every per-user location the toolkit writes: caches, state (ownership records, the
        # usage hook's log), data, settings (trust) — and the toolkit's own cache override
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "EXOBRAIN_CACHE_DIR": str(home / ".cache" / "exobrain"),
        "GEMINI_CLI_HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(gitconfig),
        "GIT_CONFIG_NOSYSTEM": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "OPENCLAW_WORKSPACE": str(home / ".openclaw" / "workspace"),
        "PATH": os.pathsep.join([scripts, os.environ.get("PATH", "")]),
        "EXOBRAIN_SEARCH_BACKGROUND": "0",
    }
    if commit_date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = commit_date
    return env


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` as a person would, through the toolkit's git layer, and return its
    output (:class:`~exobrain.util.git.GitFailed` on failure). Unlike the toolkit's own calls,
    hooks run and local or file:// remotes work: a test plays the person whose hooks and
    clones it checks."""
    person = Git(allow_file=True, timeout=None, own_env=True)
    done = person.run(list(args), cwd=root, config=(), remote=True)
    return done.stdout.decode("utf-8", "surrogateescape")


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


def run(argv: list[str], cwd: Path, *, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a command (a console script of the toolkit, a skill's script) and capture text."""
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
