"""connect-agent's preloads: a persona's skills at tier ``always``, and a discovered-skills index.

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

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from exobrain.connect import indexes
from exobrain.errors import InputFileError
from exobrain.resolve import Resolved
from exobrain.scopes import CONNECTION_FILE, Connection
from exobrain.skillmd import as_list
from exobrain.workspace import Workspace

PRELOAD_KEY = "preload"
DISCOVERED_FILE = "discovered-skills.md"
DISCOVER_K = 5
_KEPT_OFF = ("archived", "draft: owner only", "not for ", "superseded")


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
            isinstance(entry.get(k, ""), str) for k in ("persona", "discover")):
        raise InputFileError(f"{CONNECTION_FILE}: {PRELOAD_KEY}.{agent} must be an object "
                             f'with string "persona" and "discover"',
                             hint=f'e.g. "{PRELOAD_KEY}": {{"{agent}": {{"persona": "chemist"}}}}')
    return Preload(entry.get("persona") or None, entry.get("discover") or None)


def merged(stored: Preload, persona: str | None, discover: str | None) -> Preload:
    """The command line over the stored values: None keeps, an empty string forgets."""
    return Preload(stored.persona if persona is None else (persona.strip() or None),
                   stored.discover if discover is None else (discover.strip() or None))


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


def persona_rows(ws: Workspace, rows: list[Resolved], persona: str) -> tuple[list[Resolved],
                                                                            list[str]]:
    """``rows`` with the visible in-tree skills for ``persona`` raised to ``always``, and the
    names raised."""
    from exobrain.search.engine import Searcher

    searcher = Searcher(ws, semantic=False)
    view = searcher.view()
    visible = {a.declaration.identity: a for a in view.skills() if a.declaration is not None}
    searcher.refresh(list(visible.values()))
    metas = {ref: row.meta for ref, row in searcher.index.rows(
        a.ref for a in visible.values()).items()}
    wanted = persona.lower()
    raised, result = [], []
    for row in rows:
        artifact = visible.get(row.identity)
        if (artifact is not None and not row.is_external and row.tier != "always"
                and _for_persona(metas.get(artifact.ref, {}), wanted) and _may_raise(row)):
            row = replace(row, tier="always", note=f"persona {persona}")
            raised.append(row.name)
        result.append(row)
    return result, raised


def _for_persona(meta: dict[str, Any], persona: str) -> bool:
    labels = [*as_list(meta.get("personas")), *as_list(meta.get("tags"))]
    return persona in {str(label).lower() for label in labels}


def _may_raise(row: Resolved) -> bool:
    if row.note.startswith(_KEPT_OFF):
        return False
    decided = row.decided_by
    return not (decided is not None and decided.is_override and decided.tier == "off")


def discovered_index(ws: Workspace, task: str, context: Path) -> tuple[str | None, list[str]]:
    """The content of ``discovered-skills.md`` for ``task`` (None when nothing fits) and the
    notes discovery printed (e.g. that it is lexical only)."""
    from exobrain.search.discover import discover

    result = discover(ws, task, k=DISCOVER_K)
    inside = context == ws.root or ws.root in context.parents
    rows = [indexes.index_row(p.hit.artifact.name, _shown(p.hit.artifact.path, ws.root, inside),
                              p.hit.description)
            for p in result.picks if p.hit.artifact.path is not None]
    if not rows:
        return None, result.notes
    intro = (f"Skills that fit the task \"{' '.join(task.split())}\", best first. Read a "
             f"skill's SKILL.md at the path shown when the task comes up.")
    lines = [indexes.GENERATED_MARK, "# Discovered skills", "", intro, "",
             "| Name | Path | Summary |", "|---|---|---|"]
    lines += [line for row in rows for line in indexes.index_table([row])[2:]]
    return "\n".join(lines) + "\n", result.notes


def _shown(path: Path | None, root: Path, inside: bool) -> str:
    assert path is not None
    return os.path.relpath(path, root) if inside else str(path)


def without_mark(text: str) -> str:
    """A generated file's text without its first line, for surfaces that inline it."""
    return text.split("\n", 1)[1].lstrip("\n") if text.startswith(indexes.GENERATED_MARK) \
        else text
