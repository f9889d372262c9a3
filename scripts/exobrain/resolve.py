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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from exobrain.model import EXTERNAL, Identity, Lifecycle, Reason, Tier
from exobrain.registry.entries import Entry


@dataclass(frozen=True)
class Resolved:
    """One skill as resolved for a connection and an agent."""

    name: str
    home: str  # the declaring scope, or "external"
    tier: Tier
    owner: str | None
    declaration: Entry | None  # None when only overrides mention the skill
    decided_by: Entry | None  # the winning contribution, None when nothing contributed
    reason: Reason | None = None  # why the skill is off, or flagged while on
    detail: str = ""  # the agent (NOT_FOR_AGENT), persona (PERSONA) or needing skill (DEPENDENCY)
    superseded_by: Identity | None = None  # the successor this skill redirects to
    #: its folder name in the agent's skills folders, given by the workspace over everything
    #: linked (:func:`exobrain.model.link_names`); "" outside a workspace: the plain name
    link: str = ""

    @cached_property
    def identity(self) -> Identity:
        if self.home == EXTERNAL:
            return Identity.external(self.name, self.owner or "")
        return Identity(self.home, self.name)

    @property
    def is_external(self) -> bool:
        return self.home == EXTERNAL

    @property
    def lifecycle(self) -> Lifecycle:
        return self.declaration.lifecycle if self.declaration else Lifecycle.ACTIVE

    @property
    def declared_by(self) -> str:
        """Which scope's entry decided the tier ("-" when none did)."""
        return self.decided_by.scope if self.decided_by else "-"

    @property
    def link_name(self) -> str:
        return self.link or self.name

    @property
    def note(self) -> str:
        """The reason in words, as status and search print it ("" when there is none)."""
        if self.reason is None:
            return ""
        words = self.reason.value  # read before narrowing, which loses its type (mypy#14092)
        if self.reason in (Reason.NOT_FOR_AGENT, Reason.PERSONA, Reason.DEPENDENCY):
            return f"{words} {self.detail}"
        if self.reason is Reason.SUPERSEDED and self.superseded_by is not None:
            return f"superseded: {self.name} → {self.superseded_by.name}"
        return words


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


def _row(
    key: Identity,
    declaration: Entry | None,
    winner: Entry | None,
    my_ids: frozenset[str],
    agent: str | None,
) -> Resolved:
    owner = key.owner if key.is_external else (declaration.owner if declaration else None)
    tier = winner.tier if winner else Tier.OFF
    reason, detail = None, ""
    if declaration is not None:
        lifecycle = declaration.lifecycle
        if not declaration.applies_to(agent):
            tier, reason, detail = Tier.OFF, Reason.NOT_FOR_AGENT, agent or ""
        elif lifecycle is Lifecycle.ARCHIVED:
            tier, reason = Tier.OFF, Reason.ARCHIVED
        elif lifecycle is Lifecycle.DRAFT and declaration.owner not in my_ids:
            tier, reason = Tier.OFF, Reason.DRAFT_OWNER_ONLY
        elif lifecycle is Lifecycle.DRAFT:
            reason = Reason.DRAFT
        elif lifecycle is Lifecycle.DEPRECATED:
            reason = Reason.DEPRECATED
    elif winner is not None:
        reason = Reason.NO_DECLARATION
    return Resolved(key.name, key.home, tier, owner, declaration, winner, reason, detail)


def override_targets(entries: Iterable[Entry]) -> set[Identity]:
    """Identities that overrides point at, for finding declarations outside the chain."""
    return {e.identity for e in entries if e.is_override}
