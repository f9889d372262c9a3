"""Recording one signal for a person: the one path ``exobrain signal``, the MCP ``signal``
tool and the agents' usage hooks share.

A use or an outcome (``usage``, ``calibration``) of a superseded skill is filed against the
skill that replaces it — the one the chain would link instead — with the reference that was
used kept as ``"via"``, so a successor's quality counts the work its predecessor still does.
Votes and ranks judge the very skill named and are never moved.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.model import Identity, Lifecycle
from exobrain.refs import canonical, parse_ref
from exobrain.registry.entries import Entry
from exobrain.signals.ledger import author, host_id, make_signal, record_signal
from exobrain.signals.voters import people_among
from exobrain.supersession import successors, supersedes_edges
from exobrain.util.graphs import find_cycles
from exobrain.workspace import Workspace, find_declaration

#: The kinds that follow supersession: they say what the skill's work achieved.
REDIRECTED = ("usage", "calibration")


@dataclass(frozen=True)
class Recorded:
    line: dict[str, Any]
    path: Path  # the ledger written
    warning: str | None  # .gitattributes could not be updated (the line still counts)


def successor_of(ws: Workspace, ref: str) -> str | None:
    """The last available skill of the chain that supersedes ``ref`` (a canonical reference),
    following chains; None when nothing in the chain supersedes it, or on a cycle (which
    ``skills-validate`` reports)."""
    entries = ws.chain_entries()
    edges = supersedes_edges(ws.root, entries)
    if not edges:
        return None
    declared = {e.identity: e for e in entries if not e.is_override}
    blocked = {node for cycle in find_cycles(edges) for node in cycle}
    after = successors(edges)
    current = next((i for i in declared if i.ref == ref), None)
    final: Identity | None = None
    seen = {current}
    while current in after and current not in blocked:
        current = after[current]
        if current in seen or current in blocked:
            return None
        seen.add(current)
        entry = declared.get(current)
        if entry is not None and entry.lifecycle is not Lifecycle.ARCHIVED:
            final = current
    return final.ref if final else None


def filed_under(ws: Workspace, kind: str, ref: str) -> tuple[str, str | None]:
    """(the reference a ``kind`` line about ``ref`` is filed under, the ``via`` to keep)."""
    if kind not in REDIRECTED:
        return ref, None
    successor = successor_of(ws, ref)
    return (successor, ref) if successor else (ref, None)


def record(
    ws: Workspace,
    kind: str,
    ref_text: str,
    value: Any,
    *,
    agent: str | None = None,
    host: str | None = None,
    **extra: Any,
) -> Recorded:
    """Validate and append one line by this connection's person about a declared skill."""
    entry: Entry = find_declaration(ws, parse_ref(ref_text))
    ref, via = filed_under(ws, kind, canonical(entry))
    line = make_signal(
        kind, ref, value, by=author(ws), host=host_id(ws, host), agent=agent, via=via, **extra
    )
    path, warning = record_signal(ws.root, line)
    if not people_among(ws, {line["by"]}):  # written, but it will not count: say so and how
        who = line["by"]
        stranger = (
            f"{who} is no person of the repository, so signals/{who}/ is not counted; "
            f"it counts once people/{who} exists (exobrain scope new people/{who})"
        )
        warning = f"{warning}; {stranger}" if warning else stranger
    return Recorded(line, path, warning)
