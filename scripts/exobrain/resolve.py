"""Resolution: the connected chain's registries + who I am + the agent → one row per skill.

Pure functions over data: no file access here. Rules (design section 3 "Resolution"):

* entries filtered out by ``agent``/``skipAgents`` contribute nothing, and a skill whose
  declaration excludes the agent is invisible to it whatever overrides say;
* a declaration contributes its tier iff it is forced or owned by one of my ids;
* an override always contributes (``off`` included);
* the deepest contribution wins, the later entry within one file; none means ``off``;
* lifecycle: ``archived`` resolves off, ``draft`` reaches only its owner (even when forced),
  ``deprecated`` resolves as declared but is flagged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Mapping

from exobrain.registry import EXTERNAL, Entry
from exobrain.scopes import GLOBAL

Identity = tuple[str, ...]


@dataclass(frozen=True)
class Resolved:
    """One skill as resolved for a connection and an agent."""

    name: str
    home: str                     # the declaring scope, or "external"
    tier: str                     # always | optional | unlisted | off
    owner: str | None
    declaration: Entry | None     # None when only overrides mention the skill
    decided_by: Entry | None      # the winning contribution, None when nothing contributed
    note: str = ""                # why a skill is off or flagged ("archived", "draft", …)
    superseded_by: tuple[str, ...] | None = None  # the successor this skill redirects to

    @property
    def identity(self) -> Identity:
        if self.home == EXTERNAL:
            return (EXTERNAL, self.name, self.owner or "")
        return (self.home, self.name)

    @property
    def is_external(self) -> bool:
        return self.home == EXTERNAL

    @property
    def lifecycle(self) -> str:
        return self.declaration.lifecycle if self.declaration else "active"

    @property
    def declared_by(self) -> str:
        """Which scope's entry decided the tier ("-" when none did)."""
        return self.decided_by.scope if self.decided_by else "-"

    @property
    def link_name(self) -> str:
        """The folder name an agent sees: ``name``, ``name.<home with / as __>``, ``name.<owner>``."""
        if self.is_external:
            return f"{self.name}.{self.owner}"
        if self.home == GLOBAL:
            return self.name
        return f"{self.name}.{self.home.replace('/', '__')}"


def contributes(entry: Entry, my_ids: frozenset[str]) -> bool:
    """Overrides always contribute; declarations when forced or owned by me."""
    return entry.is_override or entry.force or (entry.owner in my_ids)


def resolve(
    chain_entries: Iterable[Entry],
    my_ids: frozenset[str],
    agent: str | None = None,
    outside_declarations: Mapping[Identity, Entry] | None = None,
) -> list[Resolved]:
    """Resolve every skill mentioned by ``chain_entries`` (given shallow → deep, file order).

    ``outside_declarations`` supplies declarations of overridden skills whose home registry is
    not in the chain, so their owner and lifecycle are known.
    """
    declarations: dict[Identity, Entry] = dict(outside_declarations or {})
    winners: dict[Identity, Entry] = {}
    order: dict[Identity, None] = {}  # first mention order (a dict: O(1) membership)
    for entry in chain_entries:
        key = entry.identity
        if key not in order:
            order[key] = None
        if not entry.is_override:
            declarations[key] = entry
        if entry.applies_to(agent) and contributes(entry, my_ids):
            winners[key] = entry
    return [_row(key, declarations.get(key), winners.get(key), my_ids, agent) for key in order]


def _row(key: Identity, declaration: Entry | None, winner: Entry | None,
         my_ids: frozenset[str], agent: str | None) -> Resolved:
    home, name = key[0], key[1]
    owner = key[2] if home == EXTERNAL else (declaration.owner if declaration else None)
    tier, note = (winner.tier if winner else "off"), ""
    if declaration is not None:
        if not declaration.applies_to(agent):
            tier, note = "off", f"not for {agent}"
        elif declaration.lifecycle == "archived":
            tier, note = "off", "archived"
        elif declaration.lifecycle == "draft" and declaration.owner not in my_ids:
            tier, note = "off", "draft: owner only"
        elif declaration.lifecycle in ("draft", "deprecated"):
            note = declaration.lifecycle
    elif winner is not None:
        note = "declaration not found"
    return Resolved(name, home, tier, owner, declaration, winner, note)


TIER_RANK = {"off": 0, "unlisted": 1, "optional": 2, "always": 3}
_UNAVAILABLE = ("archived", "draft: owner only", "not for ")


def apply_supersession(rows: list[Resolved], successor: Mapping[Identity, Identity],
                       cyclic: Iterable[Identity] = ()) -> list[Resolved]:
    """Redirect each skill that resolves on to its final successor, when that successor is
    visible here (a row of this resolution) and available (not archived, not someone else's
    draft, not filtered out for this agent). The successor takes the higher of the two tiers;
    the old skill resolves off with a note ``superseded: old → new``. Skills on a cycle are
    left alone (the cycle is reported by skills-validate)."""
    by_id = {r.identity: r for r in rows}
    blocked = set(cyclic)
    promoted: dict[Identity, str] = {}
    result: dict[Identity, Resolved] = {}
    for row in rows:
        if row.tier == "off":
            continue
        final = _final_successor(row.identity, successor, by_id, blocked)
        if final is None:
            continue
        new = by_id[final]
        result[row.identity] = replace(row, tier="off", superseded_by=final,
                                       note=f"superseded: {row.name} → {new.name}")
        best = max(promoted.get(final, new.tier), row.tier, key=TIER_RANK.__getitem__)
        promoted[final] = best
    for key, tier in promoted.items():
        result[key] = replace(result.get(key, by_id[key]), tier=tier)
    return [result.get(r.identity, r) for r in rows]


def _final_successor(key: Identity, successor: Mapping[Identity, Identity],
                     by_id: Mapping[Identity, Resolved], blocked: set[Identity]) -> Identity | None:
    final, seen, current = None, {key}, key
    while current in successor and current not in blocked:
        current = successor[current]
        if current in seen or current in blocked:
            return None
        seen.add(current)
        row = by_id.get(current)
        if row is not None and not row.note.startswith(_UNAVAILABLE):
            final = current
    return final


def override_targets(entries: Iterable[Entry]) -> set[Identity]:
    """Identities that overrides point at, for finding declarations outside the chain."""
    return {e.identity for e in entries if e.is_override}
