"""Will the agent start the MCP server connect-agent registered? The one step each agent needs,
and keeping machine paths out of git.

What the programs do (Claude Code 2.1.197, Codex 0.171.0, Gemini CLI 0.61.0, checked with
their ``mcp list`` in tests/connect/test_real_agents.py):

* Claude Code asks once before it starts a server of a project's ``.mcp.json`` ("Pending
  approval"), but starts one of its *local* scope (``projects.<folder>.mcpServers`` in its
  ``.claude.json``) as it is: connect-agent registers there, nothing to do.
* Codex reads a project's ``.codex/config.toml`` only once the project is trusted
  (``[projects."<folder>"] trust_level = "trusted"`` in ``$CODEX_HOME/config.toml``, which
  Codex writes when the user accepts its prompt); until then ``codex mcp list`` shows nothing.
* Gemini CLI lists a project's servers in a folder the user has not trusted as "Disabled";
  trust is in ``~/.gemini/trustedFolders.json`` (``TRUST_FOLDER`` for the folder and what is
  under it, ``TRUST_PARENT`` for its parent's, ``DO_NOT_TRUST``).

The trust decision is the user's: connect-agent never writes it, it says whether it is there
and prints the step. A project file it writes with this machine's paths (the Python, the
clone) is kept out of git through the clone's own ``.git/info/exclude`` when no ignore rule
covers it already, so ``git add -A`` never shares it.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from exobrain.util.fileio import read_text


@dataclass(frozen=True)
class Start:
    """Whether the agent will start the server (None: not known for that agent), and the step
    that makes it start when it will not."""

    starts: bool | None
    step: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"starts": self.starts, "step": self.step}


def will_start(agent: str, root: Path, *, user: bool) -> Start:
    """The check for the agents whose rule is known; others: not known."""
    if agent == "claude":
        return Start(True)
    if agent == "codex":
        return Start(True) if user else _codex(root)
    if agent == "gemini":
        return _gemini(root)
    return Start(None)


def _codex(root: Path) -> Start:
    from exobrain.agents import get_agent

    config = get_agent("codex").home() / "config.toml"
    try:
        data = tomllib.loads(read_text(config)) if config.is_file() else {}
    except (tomllib.TOMLDecodeError, OSError, ValueError):
        data = {}
    projects = data.get("projects")
    entry = projects.get(str(root)) if isinstance(projects, dict) else None
    if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
        return Start(True)
    return Start(
        False,
        f"Codex reads .codex/config.toml only in a trusted project: start codex in {root} and "
        f"trust it, or add to {config}:\n"
        f'    [projects.{json.dumps(str(root))}]\n    trust_level = "trusted"',
    )


def _gemini_home() -> Path:
    value = os.environ.get("GEMINI_CLI_HOME")
    return (Path(value).expanduser() if value else Path.home()) / ".gemini"


def _gemini(root: Path) -> Start:
    path = _gemini_home() / "trustedFolders.json"
    try:
        rules = json.loads(read_text(path)) if path.is_file() else {}
    except (OSError, ValueError):
        rules = {}
    if _trusted(root, rules if isinstance(rules, dict) else {}):
        return Start(True)
    return Start(
        False,
        f"Gemini CLI starts a project's servers only in a trusted folder: trust {root} when "
        f'Gemini asks (or /permissions), or add "{root}": "TRUST_FOLDER" to {path}',
    )


def _trusted(root: Path, rules: dict[str, object]) -> bool:
    """Gemini's rule: the closest folder named decides (a DO_NOT_TRUST under a trusted one
    wins for what is under it)."""
    best: tuple[int, bool] | None = None
    for folder, rule in rules.items():
        base = Path(folder)
        if rule == "TRUST_PARENT":
            base, trusted = base.parent, True
        else:
            trusted = rule == "TRUST_FOLDER"
        if root == base or base in root.parents:
            depth = len(base.parts)
            if best is None or depth >= best[0]:
                best = (depth, trusted)
    return best is not None and best[1]


def keep_out_of_git(
    root: Path,
    path: Path,
    why: str = "machine-specific MCP configuration written by connect-agent --mcp",
) -> bool:
    """Make git ignore ``path`` (a file in the repository at ``root``) in this clone only,
    through ``.git/info/exclude`` (with a comment saying ``why``), unless an ignore rule covers
    it already or git tracks it (then it is the user's to decide). True when an exclude line
    was added."""
    from exobrain.util.fileio import atomic_write_text
    from exobrain.util.git import GitFailed
    from exobrain.util.repository import Repository

    rel = path.relative_to(root).as_posix()
    repo = Repository(root)
    try:
        if repo.ignores(rel) or repo.tracked(rel):
            return False
        info = Path(repo.run("rev-parse", "--git-path", "info/exclude").strip())
    except GitFailed:
        return False
    info = info if info.is_absolute() else root / info
    text = read_text(info) if info.is_file() else ""
    line = "/" + rel
    if line in text.splitlines():
        return False
    ending = "" if not text or text.endswith("\n") else "\n"
    note = f"# {why}\n"
    info.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(info, text + ending + note + line + "\n", root=info.parent)
    return True
