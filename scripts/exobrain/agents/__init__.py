"""The agent table: where each agent reads skills and how its context is wired.

One :class:`Agent` row per agent (:mod:`exobrain.agents.table`, :mod:`exobrain.agents.more`),
what a row means in :mod:`exobrain.agents.model`; the table, its sources and budgets are
written down in knowledge/exobrain/agents.md.
"""

from __future__ import annotations

from exobrain.agents import more, table
from exobrain.agents.model import (
    CONTEXT_CLAUDE,
    CONTEXT_CODEX,
    CONTEXT_GEMINI,
    CONTEXT_INDEX,
    CONTEXT_OPENCLAW,
    CONTEXT_OPENCODE,
    CONTEXT_RULE,
    Agent,
    Budget,
    Folders,
    Listing,
    optional_dir,
)
from exobrain.errors import UsageError

__all__ = [
    "AGENTS",
    "CONTEXT_CLAUDE",
    "CONTEXT_CODEX",
    "CONTEXT_GEMINI",
    "CONTEXT_INDEX",
    "CONTEXT_OPENCLAW",
    "CONTEXT_OPENCODE",
    "CONTEXT_RULE",
    "Agent",
    "Budget",
    "Folders",
    "Listing",
    "agent_names",
    "get_agent",
    "optional_dir",
]

#: Every agent, in the order placement tries their folders (the first rows first).
AGENTS: tuple[Agent, ...] = (*table.ROWS, *more.ROWS)


def agent_names() -> list[str]:
    return [a.name for a in AGENTS]


def get_agent(name: str) -> Agent:
    """The agent called ``name``; an unknown name is a usage error listing the known ones."""
    for agent in AGENTS:
        if agent.name == name:
            return agent
    raise UsageError(f"unknown agent {name!r}", hint=f"use one of: {', '.join(agent_names())}")
