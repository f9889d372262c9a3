"""Skills that need other skills: ``dependencies.skills`` applied to resolution.

A skill's SKILL.md may say ``dependencies.skills: [skill:PART…]`` (a composed skill names its
parts that way, SPEC-013 open question 4). Wherever a skill is linked into an agent — it
resolves to ``always`` — each skill it depends on is linked too, at ``always``, with the reason
``DEPENDENCY`` naming the skill that needs it, and so on transitively. Status and connect-agent
read the same rows (:meth:`exobrain.workspace.Workspace.resolve`), so status shows why.

A dependency that is unavailable here (archived, someone else's draft, its declaration excludes
the agent) is not brought in; one that was superseded brings its successor. References are
resolved like supersedes links: an explicit home, else the deepest declaration of that name in
the chain; a reference naming no declaration of the chain brings nothing (``skills-validate``
reports it). Skills that depend on each other in a circle are all linked, and the circle is
reported (:func:`dependency_cycles`).
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
from exobrain.skillmd import SKILL_FILE, as_list, frontmatter_mentioning
from exobrain.util.graphs import find_cycles

if TYPE_CHECKING:
    from exobrain.resolve import Resolved

#: Reads the ``dependencies.skills`` refs of an in-tree declaration's SKILL.md (None: none).
DependsReader = Callable[[Entry], "list[str] | None"]
Edges = dict[Identity, list[Identity]]


def dependency_edges(
    root: Path, entries: Iterable[Entry], read: DependsReader | None = None
) -> Edges:
    """Skill → the identities it depends on, over the in-tree declarations among ``entries``."""
    read = read or file_reader(root)
    declarations = [e for e in entries if not e.is_override]
    edges: Edges = {}
    for entry in declarations:
        if entry.source is not None or entry.identity in edges:
            continue
        targets = []
        for text_ref in read(entry) or ():
            try:
                target = ref_identity(parse_ref(text_ref), declarations)
            except ExobrainError:
                continue
            if target is not None and target != entry.identity and target not in targets:
                targets.append(target)
        if targets:
            edges[entry.identity] = targets
    return edges


def file_reader(root: Path) -> DependsReader:
    """Read ``dependencies.skills`` from each skill's SKILL.md on disk (a byte scan first:
    most skills depend on nothing)."""
    base = os.fspath(root)

    def read(entry: Entry) -> list[str] | None:
        home = "" if entry.scope == GLOBAL else entry.scope
        path = Path(os.path.join(base, home, "skills", entry.name, SKILL_FILE))
        meta = frontmatter_mentioning(path, b"dependencies")
        deps = meta.get("dependencies") if meta is not None else None
        if not isinstance(deps, dict):
            return None
        return [r for r in as_list(deps.get("skills")) if isinstance(r, str)]

    return read


def dependency_cycles(edges: Mapping[Identity, Iterable[Identity]]) -> list[tuple[str, str]]:
    """Each circle of dependencies: the SKILL.md of its first skill (relative to the root) and
    the circle in words (``a@global → b@global → a@global``)."""
    found = []
    for cycle in find_cycles(edges):
        first = cycle[0]
        home = "" if first.home == GLOBAL else f"{first.home}/"
        words = " → ".join(f"{n.name}@{n.home}" for n in cycle + cycle[:1])
        found.append((f"{home}skills/{first.name}/{SKILL_FILE}", words))
    return found


def pull_dependencies(
    rows: list[Resolved], edges: Mapping[Identity, Iterable[Identity]]
) -> list[Resolved]:
    """Raise what every ``always`` row depends on to ``always`` (see the module docstring)."""
    if not edges:
        return rows
    result = {r.identity: r for r in rows}
    queue = [r.identity for r in rows if r.tier == Tier.ALWAYS]
    seen = set(queue)
    while queue:
        needer = result[queue.pop(0)]
        for target in edges.get(needer.identity, ()):
            row = result.get(target)
            if row is not None and row.superseded_by is not None:
                row = result.get(row.superseded_by)
            if row is None or (row.reason is not None and row.reason.unavailable):
                continue
            if row.tier != Tier.ALWAYS:
                result[row.identity] = replace(
                    row, tier=Tier.ALWAYS, reason=Reason.DEPENDENCY, detail=needer.link_name
                )
            if row.identity not in seen:
                seen.add(row.identity)
                queue.append(row.identity)
    return [result[r.identity] for r in rows]
