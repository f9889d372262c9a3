"""The search side of connect-agent's preloads (see :mod:`exobrain.connect.preload`).

``--persona P`` links, besides what resolution gives, every skill the connection can see whose
``personas`` or ``tags`` include P; ``--discover TEXT`` writes the top skills for a task. Both
need the search index, so they live here and reach connect-agent through its ``Preloads``
protocol: this module, passed in by the command line, is that object.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from exobrain.model import Reason, Tier
from exobrain.reach import may_preload
from exobrain.resolve import Resolved
from exobrain.search.discover import discover
from exobrain.search.engine import Searcher
from exobrain.skillmd import as_list
from exobrain.workspace import Workspace

#: How many skills ``--discover`` lists.
DISCOVER_K = 5


def persona_rows(
    ws: Workspace, rows: list[Resolved], persona: str
) -> tuple[list[Resolved], list[str]]:
    """``rows`` with the visible in-tree skills for ``persona`` raised to ``always``, and the
    names raised."""
    searcher = Searcher(ws, semantic=False)
    view = searcher.view()  # rows are the agent's already: the view only finds the skills
    visible = {a.declaration.identity: a for a in view.skills() if a.declaration is not None}
    searcher.refresh(list(visible.values()))
    metas = {
        ref: row.meta for ref, row in searcher.index.rows(a.ref for a in visible.values()).items()
    }
    wanted = persona.lower()
    raised, result = [], []
    for row in rows:
        artifact = visible.get(row.identity)
        if (
            artifact is not None
            and not row.is_external
            and row.tier != "always"
            and _for_persona(metas.get(artifact.ref, {}), wanted)
            and _may_raise(row)
        ):
            row = replace(row, tier=Tier.ALWAYS, reason=Reason.PERSONA, detail=persona)
            raised.append(row.name)
        result.append(row)
    return result, raised


def _for_persona(meta: dict[str, Any], persona: str) -> bool:
    labels = [*as_list(meta.get("personas")), *as_list(meta.get("tags"))]
    return persona in {str(label).lower() for label in labels}


def _may_raise(row: Resolved) -> bool:
    """A preload links what it raises: only a skill an auto-loaded surface may list (never an
    unlisted one, nor one barred for the agent, set off by an override or superseded)."""
    return may_preload(row)


def discovered(
    ws: Workspace, task: str, agent: str
) -> tuple[list[tuple[str, Path, str]], list[str]]:
    """The top skills for ``task`` that may be preloaded for ``agent``, as (name, SKILL.md
    folder, description), best first, and the notes discovery printed."""
    result = discover(ws, task, k=DISCOVER_K, agent=agent, preload=True)
    picks = [
        (p.hit.artifact.name, p.hit.artifact.path, p.hit.description)
        for p in result.picks
        if p.hit.artifact.path is not None
    ]
    return picks, result.notes
