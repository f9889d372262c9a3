"""``exobrain import --update --all``: re-import every imported skill of the repository at once.

Each skill whose lock entry carries an ``upstream`` record gets exactly what ``import --update
NAME`` would give it (:func:`exobrain.interop.reimport.update_skill`): nothing when upstream is
unchanged, the new release when only upstream changed, a refusal with its reason when the local
copy was edited too (or, with ``fork_local``, a fork keeping the edits, then the update). One
skill that cannot be updated never stops the others; it is reported with its reason and fix.
This is what the weekly ``reimport`` job of ``crons.json`` runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from exobrain.artifacts.lockfile import read_lock
from exobrain.artifacts.promote import real_scope
from exobrain.errors import ExobrainError
from exobrain.interop.plan import Item
from exobrain.interop.reimport import update_skill
from exobrain.refs import canonical
from exobrain.registry.entries import Entry
from exobrain.workspace import Workspace

FAILED = "skipped"  # the status of a skill that could not be updated, as in an import


@dataclass
class Batch:
    """What happened to each imported skill, in registry order (scopes in chain order)."""

    dry_run: bool
    scope: str | None  # --into: only this scope's skills; None: the whole repository
    items: list[Item] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)  # ref → how to fix its failure

    @property
    def failed(self) -> list[Item]:
        return [i for i in self.items if i.status == FAILED]

    def totals(self) -> dict[str, int]:
        return dict(sorted(Counter(i.status for i in self.items).items()))

    def as_json(self) -> dict[str, Any]:
        return {
            "all": True,
            "scope": self.scope,
            "dry_run": self.dry_run,
            "skills": [{**i.as_json(), "hint": self.hints.get(i.ref or "")} for i in self.items],
            "totals": self.totals(),
        }


def imported_skills(
    ws: Workspace, scope: str | None = None
) -> Iterator[tuple[Entry, dict[str, Any]]]:
    """Every in-tree declaration whose lock entry has an upstream record, with that record."""
    for registry in ws.all_registries():
        if scope is not None and registry.scope != scope:
            continue
        locked = read_lock(ws.root, registry.scope)["skills"]
        for entry in registry.entries:
            if entry.is_override or entry.source:
                continue
            record = (locked.get(entry.name) or {}).get("upstream")
            if isinstance(record, dict):
                yield entry, record


def update_all(
    ws: Workspace,
    *,
    into: str | None = None,
    allow_local: bool | None = None,
    dry_run: bool = False,
    fork_local: bool = False,
) -> Batch:
    """Update every imported skill (of ``into`` alone when given); see the module docstring."""
    scope = real_scope(ws, into, "--into") if into is not None else None
    batch = Batch(dry_run, scope)
    for entry, record in list(imported_skills(ws, scope)):
        ref = canonical(entry)
        try:
            report = update_skill(
                ws, ref, allow_local=allow_local, dry_run=dry_run, fork_local=fork_local
            )
        except ExobrainError as exc:
            why = exc.message.removeprefix(f"{ref}: ")
            batch.items.append(
                Item(entry.name, str(record.get("path", "")), FAILED, ref, problem=why)
            )
            if exc.hint:
                batch.hints[ref] = exc.hint
            continue
        batch.items.extend(report.items)
    return batch
