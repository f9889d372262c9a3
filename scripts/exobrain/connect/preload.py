"""connect-agent's preloads: a persona's skills at tier ``always``, and a discovered-skills index.

This module keeps what connect owns — the stored choice per agent and the :class:`Preloads`
it asks for — while the work itself needs search and lives in :mod:`exobrain.search.preload`;
the command line hands that in, so ``connect`` never imports ``search``.

``connect-agent AGENT --persona P`` links, besides what resolution gives, every skill this
connection can see whose ``personas`` or ``tags`` include P (SPEC-013 section 8: "agents with
persona=skeptic get skill.tags includes 'skeptic' skills loaded by default"). It never overrides
a decision against the skill: archived skills, other people's drafts, skills whose declaration
excludes the agent, superseded skills and skills an override turned ``off`` stay as they are.

``--discover TEXT`` writes ``discovered-skills.md``: the top skills for that task
(:mod:`exobrain.search.discover`), where the agent reads its other generated files.

Both are remembered per agent in ``.exobrain.json`` (``{"preload": {"claude": {"persona":
"chemist", "discover": "dock ligands"}}}``), so ``--relink`` and the git hooks keep them; an
empty value (``--persona ""``) forgets one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from exobrain.connect import indexes
from exobrain.errors import InputFileError
from exobrain.paths import link_text
from exobrain.resolve import Resolved
from exobrain.scopes import CONNECTION_FILE, Connection
from exobrain.workspace import Workspace

PRELOAD_KEY = "preload"
DISCOVERED_FILE = "discovered-skills.md"


class Preloads(Protocol):
    """What connect-agent needs from search for ``--persona`` and ``--discover``."""

    def persona_rows(
        self, ws: Workspace, rows: list[Resolved], persona: str
    ) -> tuple[list[Resolved], list[str]]:
        """``rows`` with the visible skills for ``persona`` raised to ``always``; the names."""
        ...

    def discovered(
        self, ws: Workspace, task: str, agent: str
    ) -> tuple[list[tuple[str, Path, str]], list[str]]:
        """The top skills for ``task`` that may be preloaded for ``agent``, as (name, folder,
        description), best first; notes."""
        ...


def discovered_index(
    preloads: Preloads, ws: Workspace, task: str, context: Path, agent: str
) -> tuple[str | None, list[str]]:
    """The content of ``discovered-skills.md`` for ``task`` and ``agent`` (None when nothing
    fits) and the notes discovery printed."""
    picks, notes = preloads.discovered(ws, task, agent)
    inside = context == ws.root or ws.root in context.parents
    rows = [
        indexes.index_row(name, link_text(path, ws.root, inside), description)
        for name, path, description in picks
    ]
    if not rows:
        return None, notes
    intro = (
        f'Skills that fit the task "{" ".join(task.split())}", best first. Read a '
        f"skill's SKILL.md at the path shown when the task comes up."
    )
    lines = [
        indexes.GENERATED_MARK,
        "# Discovered skills",
        "",
        intro,
        "",
        "| Name | Path | Summary |",
        "|---|---|---|",
    ]
    lines += [line for row in rows for line in indexes.index_table([row])[2:]]
    return "\n".join(lines) + "\n", notes


@dataclass(frozen=True)
class Preload:
    persona: str | None = None
    discover: str | None = None

    def as_json(self) -> dict[str, str]:
        return {k: v for k, v in (("persona", self.persona), ("discover", self.discover)) if v}


def stored_preload(connection: Connection, agent: str) -> Preload:
    """What ``.exobrain.json`` remembers for ``agent``."""
    block = connection.raw.get(PRELOAD_KEY, {})
    entry = block.get(agent, {}) if isinstance(block, dict) else None
    if not isinstance(entry, dict) or not all(
        isinstance(entry.get(k, ""), str) for k in ("persona", "discover")
    ):
        raise InputFileError(
            f"{CONNECTION_FILE}: {PRELOAD_KEY}.{agent} must be an object "
            f'with string "persona" and "discover"',
            hint=f'e.g. "{PRELOAD_KEY}": {{"{agent}": {{"persona": "chemist"}}}}',
        )
    return Preload(entry.get("persona") or None, entry.get("discover") or None)


def merged(stored: Preload, persona: str | None, discover: str | None) -> Preload:
    """The command line over the stored values: None keeps, an empty string forgets."""
    return Preload(
        stored.persona if persona is None else (persona.strip() or None),
        stored.discover if discover is None else (discover.strip() or None),
    )


def with_preload(raw: dict[str, Any], agent: str, preload: Preload) -> dict[str, Any]:
    """The connection file's data with ``agent``'s preload recorded (the key is dropped when
    nothing is left in it)."""
    data = dict(raw)
    block = dict(data.get(PRELOAD_KEY) or {})
    if preload.as_json():
        block[agent] = preload.as_json()
    else:
        block.pop(agent, None)
    if block:
        data[PRELOAD_KEY] = block
    else:
        data.pop(PRELOAD_KEY, None)
    return data


def without_mark(text: str) -> str:
    """A generated file's text without its first line, for surfaces that inline it."""
    return text.split("\n", 1)[1].lstrip("\n") if text.startswith(indexes.GENERATED_MARK) else text
