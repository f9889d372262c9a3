"""The words every part of the toolkit shares: a skill's identity, tiers, lifecycles, and why a
resolved skill is off.

They are defined once here so that resolution, validation, status, search and the authoring
gate cannot drift apart: an identity is the same tuple everywhere, a tier or lifecycle is an
enum member (equal to its JSON string, so registries and ``--json`` output keep plain
strings), and the reason a skill is off is a value, never a sentence parsed back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import Enum, StrEnum
from typing import NamedTuple

GLOBAL = "global"
EXTERNAL = "external"
#: The powers a skill can give an agent beyond its text, as the repository's policy names them
#: (``policy`` in the global skills.json): Claude Code runs a skill's ``hooks:`` as commands on
#: the agent's events, and ``allowed-tools`` lets the agent use tools without asking.
AGENT_HOOKS, TOOL_WILDCARDS = "agent_hooks", "tool_wildcards"
POLICY_RULES: tuple[str, ...] = (AGENT_HOOKS, TOOL_WILDCARDS)


class Tier(StrEnum):
    """How far a skill reaches into an agent: linked, indexed, by name only, or not at all."""

    ALWAYS = "always"
    OPTIONAL = "optional"
    UNLISTED = "unlisted"
    OFF = "off"

    @property
    def rank(self) -> int:
        """Reach as a number (off 0 … always 3), for "the higher of two tiers"."""
        return _TIER_RANK[self]


_TIER_RANK = {Tier.OFF: 0, Tier.UNLISTED: 1, Tier.OPTIONAL: 2, Tier.ALWAYS: 3}
#: Every tier an entry may carry, and the ones a declaration may (``off`` is for overrides).
TIERS: tuple[str, ...] = tuple(t.value for t in Tier)
DECLARED_TIERS: tuple[str, ...] = TIERS[:3]


class Lifecycle(StrEnum):
    """Where a skill stands: it moves forward only, and any state may jump to archived.

    Going back (archived → active, deprecated → active, …) is refused so that retiring a skill
    is a one-way, reviewable act; to bring an archived skill back, declare a successor.
    """

    DRAFT = "draft"
    ACTIVE = "active"
    DEPRECATED = "deprecated"
    ARCHIVED = "archived"

    @property
    def next_states(self) -> tuple[Lifecycle, ...]:
        return _TRANSITIONS[self]


_TRANSITIONS = {
    Lifecycle.DRAFT: (Lifecycle.ACTIVE, Lifecycle.ARCHIVED),
    Lifecycle.ACTIVE: (Lifecycle.DEPRECATED, Lifecycle.ARCHIVED),
    Lifecycle.DEPRECATED: (Lifecycle.ARCHIVED,),
    Lifecycle.ARCHIVED: (),
}
LIFECYCLES: tuple[str, ...] = tuple(c.value for c in Lifecycle)


def transition_problem(old: str, new: str) -> str | None:
    """Why ``old`` → ``new`` is refused, in words a person can act on; None when allowed
    (staying put is always allowed; an unknown old state is not ours to judge)."""
    if new not in LIFECYCLES:
        return f"{new!r} is not a lifecycle (use one of {', '.join(LIFECYCLES)})"
    if old not in LIFECYCLES or old == new:
        return None
    following = Lifecycle(old).next_states
    if new in following:
        return None
    if not following:
        return (
            f"{old} → {new} is not allowed: archived is final; declare a new skill that "
            f"supersedes it instead"
        )
    return (
        f"{old} → {new} is not allowed: from {old} a skill may only go to "
        f"{' or '.join(state.value for state in following)}"
    )


class Identity(NamedTuple):
    """Which skill: where it is declared and its name (and, for an external skill, its owner).

    The same name at two homes is two skills. A tuple, so it hashes and sorts cheaply in the
    resolver's tables; ``owner`` is empty for in-tree skills.
    """

    home: str  # the declaring scope path, "global", or "external"
    name: str
    owner: str = ""  # external skills only

    @classmethod
    def external(cls, name: str, owner: str) -> Identity:
        return cls(EXTERNAL, name, owner)

    @property
    def is_external(self) -> bool:
        return self.home == EXTERNAL

    @property
    def ref_home(self) -> str:
        """The home as a reference names it: the scope path, or ``external/OWNER``."""
        return f"{EXTERNAL}/{self.owner}" if self.is_external else self.home

    @property
    def ref(self) -> str:
        """The home-qualified reference: ``skill:NAME@HOME`` (``@external/OWNER``)."""
        return f"skill:{self.name}@{self.ref_home}"

    @property
    def told_apart(self) -> str:
        """The folder name an agent sees when another skill it sees has the same name:
        ``name.<home with / as __>`` (``tidy.groups__acme``, ``tidy.global``), ``name.<owner>``
        (external). Otherwise it sees the plain name (:func:`link_names`)."""
        if self.is_external:
            return f"{self.name}.{self.owner}"
        return f"{self.name}.{self.home.replace('/', '__')}"


def link_names(linked: Iterable[Identity]) -> dict[Identity, str]:
    """The folder name of each skill an agent's folders hold: the plain name, as the Agent
    Skills specification wants (folder name = ``name``), unless two of ``linked`` share it;
    then each of them is told apart by its home (:attr:`Identity.told_apart`), so two scopes
    can still supply one name (the seed's rule)."""
    linked = set(linked)
    count = Counter(identity.name for identity in linked)
    return {i: (i.told_apart if count[i.name] > 1 else i.name) for i in linked}


class Reason(Enum):
    """Why a resolved skill is off, or flagged while on (see :class:`exobrain.resolve.Resolved`)."""

    NOT_FOR_AGENT = "not for"  # its declaration excludes the agent at hand
    ARCHIVED = "archived"
    DRAFT_OWNER_ONLY = "draft: owner only"
    DRAFT = "draft"  # on: a draft reaching its owner
    DEPRECATED = "deprecated"  # on, flagged
    SUPERSEDED = "superseded"  # off: its successor takes its place
    NO_DECLARATION = "declaration not found"
    PERSONA = "persona"  # on: linked for a persona (connect-agent --persona)
    DEPENDENCY = "dependency of"  # on: a linked skill depends on it (dependencies.skills)

    @property
    def unavailable(self) -> bool:
        """Off for good here: neither a successor nor a preload may bring it back."""
        return self in (Reason.NOT_FOR_AGENT, Reason.ARCHIVED, Reason.DRAFT_OWNER_ONLY)
