"""Lifecycle transitions: which changes of a declaration's ``lifecycle`` field are allowed.

A skill moves forward only: draft → active → deprecated → archived, and any state may jump
straight to archived. Going back (archived → active, deprecated → active, …) is refused so
that retiring a skill is a one-way, reviewable act; to bring an archived skill back, declare a
successor. The authoring gate checks every change in a diff against this table, and the
``exobrain lifecycle`` verb uses the same table to refuse a bad move before it is written.
"""

from __future__ import annotations

from exobrain.registry import LIFECYCLES

DEFAULT = "active"

#: state → the states it may move to (staying put is always allowed).
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "draft": ("active", "archived"),
    "active": ("deprecated", "archived"),
    "deprecated": ("archived",),
    "archived": (),
}


def allowed_next(state: str) -> tuple[str, ...]:
    """The states ``state`` may move to (empty for archived and for unknown states)."""
    return TRANSITIONS.get(state, ())


def transition_allowed(old: str, new: str) -> bool:
    """True when a declaration may go from ``old`` to ``new`` (unchanged counts as allowed)."""
    if old == new:
        return True
    return new in allowed_next(old)


def transition_problem(old: str, new: str) -> str | None:
    """Why ``old`` → ``new`` is refused, in words a person can act on; None when allowed."""
    if new not in LIFECYCLES:
        return f"{new!r} is not a lifecycle (use one of {', '.join(LIFECYCLES)})"
    if old not in LIFECYCLES or transition_allowed(old, new):
        return None
    following = allowed_next(old)
    if not following:
        return (f"{old} → {new} is not allowed: archived is final; declare a new skill that "
                f"supersedes it instead")
    return (f"{old} → {new} is not allowed: from {old} a skill may only go to "
            f"{' or '.join(following)}")


def check_transition(name: str, old: str, new: str) -> None:
    """Refuse a lifecycle move of skill ``name`` before anything is written."""
    from exobrain.errors import UsageError

    problem = transition_problem(old, new)
    if problem:
        raise UsageError(f"{name}: {problem}", hint="exobrain show NAME shows its lifecycle")
