"""Lifecycle of a skill: draft → active → deprecated → archived (and anything → archived).

Stored as the declaration's ``lifecycle`` key (absent means ``active``). The resolver gives the
states their effect; this module says which moves are allowed and makes them.
"""

from __future__ import annotations

from .errors import UsageError

STATES = ("draft", "active", "deprecated", "archived")
ALLOWED = frozenset({("draft", "active"), ("active", "deprecated"), ("deprecated", "archived")})


def transition_allowed(old: str, new: str) -> bool:
    """SPEC-013's transitions: draft→active, active→deprecated, deprecated→archived,
    any→archived; staying put is not a transition and always allowed."""
    return old == new or new == "archived" or (old, new) in ALLOWED


def check_transition(name: str, old: str, new: str) -> None:
    if new not in STATES:
        raise UsageError(f"unknown lifecycle state {new!r}", hint=f"use one of {', '.join(STATES)}")
    if not transition_allowed(old, new):
        allowed = sorted({n for o, n in ALLOWED if o == old} | {"archived"} - {old})
        raise UsageError(f"{name}: {old} → {new} is not an allowed lifecycle transition",
                         hint=f"from {old} you can go to: {', '.join(allowed) or 'nothing'}")
