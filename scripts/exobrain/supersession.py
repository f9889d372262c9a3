"""Supersession in one place: which skill replaces which, and what that does to resolution.

A skill's SKILL.md says ``links.supersedes: [skill:OLD…]``. Resolution, validation, status,
search and the ``supersede`` verb all read those edges through :func:`supersedes_edges` and
apply them through :func:`redirect`, so they agree on every case:

* when a skill that resolves on is superseded by one that is visible here (a row of the same
  resolution) and available (not archived, not someone else's draft, not filtered out for the
  agent), the successor is what gets linked, at the higher of the two tiers, and the old skill
  resolves off with the reason ``SUPERSEDED``;
* chains are followed to their last available successor;
* skills on a cycle are left alone (``skills-validate`` reports the cycle).

Only files that mention ``supersedes`` are parsed as YAML (a byte scan first), so resolving a
large repository stays cheap. A caller that already holds every frontmatter (search, through
its index) passes a reader instead, and no file is opened.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from exobrain.errors import ExobrainError
from exobrain.model import GLOBAL, Identity, Reason, Tier
from exobrain.refs import parse_ref, ref_identity
from exobrain.registry.entries import Entry
from exobrain.skillmd import SKILL_FILE, frontmatter_mentioning, links_of
from exobrain.util.graphs import find_cycles

if TYPE_CHECKING:
    from exobrain.resolve import Resolved

#: Reads the ``links.supersedes`` refs of an in-tree declaration's SKILL.md (None: none).
LinksReader = Callable[[Entry], "list[str] | None"]
Edges = dict[Identity, list[Identity]]


def supersedes_edges(
    root: Path, entries: Iterable[Entry], read: LinksReader | None = None
) -> Edges:
    """NEW → the identities its SKILL.md says it supersedes, over the declarations among
    ``entries`` (a reference without a home means the last declaration of that name)."""
    read = read or file_reader(root)
    declarations = [e for e in entries if not e.is_override]
    edges: Edges = {}
    seen: set[Identity] = set()
    for entry in declarations:
        if entry.source is not None or entry.identity in seen:
            continue
        seen.add(entry.identity)
        refs = read(entry)
        if not refs:
            continue
        targets = []
        for text_ref in refs:
            try:
                target = ref_identity(parse_ref(text_ref), declarations)
            except ExobrainError:
                continue
            if target is not None and target != entry.identity:
                targets.append(target)
        if targets:
            edges[entry.identity] = targets
    return edges


def file_reader(root: Path) -> LinksReader:
    """Read the links from each skill's SKILL.md on disk."""
    base = os.fspath(root)

    def read(entry: Entry) -> list[str] | None:
        home = "" if entry.scope == GLOBAL else entry.scope
        path = Path(os.path.join(base, home, "skills", entry.name, SKILL_FILE))
        meta = frontmatter_mentioning(path, b"supersedes")
        return links_of(meta, "supersedes") if meta is not None else None

    return read


def successors(edges: Mapping[Identity, Iterable[Identity]]) -> dict[Identity, Identity]:
    """Invert NEW → [OLD…] into OLD → NEW (the smallest NEW when several claim one OLD)."""
    result: dict[Identity, Identity] = {}
    for new in sorted(edges):
        for old in edges[new]:
            if old != new and old not in result:
                result[old] = new
    return result


def redirect(rows: list[Resolved], edges: Mapping[Identity, Iterable[Identity]]) -> list[Resolved]:
    """Apply supersession to resolved rows (see the module docstring for the rules)."""
    if not edges:
        return rows
    blocked = {node for cycle in find_cycles(edges) for node in cycle}
    successor = successors(edges)
    by_id = {r.identity: r for r in rows}
    promoted: dict[Identity, Tier] = {}
    result: dict[Identity, Resolved] = {}
    for row in rows:
        if row.tier == Tier.OFF:
            continue
        final = _final_successor(row.identity, successor, by_id, blocked)
        if final is None:
            continue
        new = by_id[final]
        result[row.identity] = replace(
            row, tier=Tier.OFF, superseded_by=final, reason=Reason.SUPERSEDED, detail=""
        )
        promoted[final] = max(promoted.get(final, new.tier), row.tier, key=lambda t: t.rank)
    for key, tier in promoted.items():
        result[key] = replace(result.get(key, by_id[key]), tier=tier)
    return [result.get(r.identity, r) for r in rows]


def _final_successor(
    key: Identity,
    successor: Mapping[Identity, Identity],
    by_id: Mapping[Identity, Resolved],
    blocked: set[Identity],
) -> Identity | None:
    final, seen, current = None, {key}, key
    while current in successor and current not in blocked:
        current = successor[current]
        if current in seen or current in blocked:
            return None
        seen.add(current)
        row = by_id.get(current)
        if row is not None and not (row.reason is not None and row.reason.unavailable):
            final = current
    return final
