"""What a connection shows an agent: the one answer every surface asks.

The resolver decides, for a connection and an agent, each skill's tier and why it is off
(:mod:`exobrain.resolve`, supersession and dependencies applied by the workspace). Every
surface then shows exactly that decision, in one of two ways:

* **auto-loaded** surfaces — what the agent reads by itself: the linked skills folder, the
  optional index, ``--discover``'s and ``--persona``'s preloads, an MCP server's resources —
  list a skill only when the decision lets it reach the agent that way (:func:`may_preload`);
* **on-request** surfaces — ``exobrain search``, ``discover``, ``get``, ``list``, ``show``, the
  MCP tools — may list any skill of what the person can read, and say how it stands
  (:func:`reach_of`): on, by name only, off until someone opts in, or barred, with why.

An MCP server started for an agent answers as that agent (its ``agent`` and ``skipAgents``
filters apply); without an agent every surface answers for the connection, agent-neutral.
"""

from __future__ import annotations

from enum import StrEnum

from exobrain.model import Reason, Tier
from exobrain.resolve import Resolved


class Reach(StrEnum):
    """How one skill stands for a connection and an agent."""

    LISTED = "listed"  # always or optional: linked, or in the index the agent reads
    BY_NAME = "by name"  # unlisted: invocable by its name, on no auto-loaded surface
    OPT_IN = "opt in"  # off only because nobody opted this connection in (skills-promote can)
    OUTSIDE = "outside"  # declared in a scope the connection does not reach (skills-promote)
    BARRED = "barred"  # off for a reason no opt-in undoes here: see barred_because


def reach_of(row: Resolved | None, *, in_chain: bool = True) -> Reach:
    """The reach of a skill resolved as ``row`` (None: the chain does not mention it);
    ``in_chain`` False: declared outside the connection's chain."""
    if row is None:
        return Reach.OPT_IN if in_chain else Reach.OUTSIDE
    if barred_because(row) is not None:
        return Reach.BARRED
    if row.tier in (Tier.ALWAYS, Tier.OPTIONAL):
        return Reach.LISTED
    if row.tier is Tier.UNLISTED:
        return Reach.BY_NAME
    return Reach.OPT_IN if in_chain else Reach.OUTSIDE


def barred_because(row: Resolved) -> str | None:
    """Why a skill may reach no surface of this agent on its own, in words; None when it may.

    Barred: filtered out for the agent (``agent``/``skipAgents``), archived, someone else's
    draft, replaced by its successor, or set ``off`` by an override of the chain (a person's
    own "not for me")."""
    if row.reason is not None and (row.reason.unavailable or row.reason is Reason.SUPERSEDED):
        return row.note
    decided = row.decided_by
    if row.tier is Tier.OFF and decided is not None and decided.is_override:
        return f"set off by {decided.scope}"
    return None


def may_preload(row: Resolved | None, *, in_chain: bool = True) -> bool:
    """Whether an auto-loaded surface may list the skill: it is on (always, optional), or off
    only until an opt-in — never unlisted, barred, or from outside the chain."""
    return reach_of(row, in_chain=in_chain) in (Reach.LISTED, Reach.OPT_IN)
