"""What the fetcher should do, before it touches anything: the per-machine settings, and where
each external skill that resolves on belongs for an agent (and for the other agents sharing its
skills folder).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from exobrain.agents import Agent, get_agent, optional_dir
from exobrain.errors import InputFileError, UsageError
from exobrain.resolve import Resolved
from exobrain.scopes import CONNECTION_FILE, Connection
from exobrain.workspace import Workspace

SETTINGS_KEY = "external_skills"
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
ON_TIERS = ("always", "optional", "unlisted")


@dataclass(frozen=True)
class FetchSettings:
    """The ``external_skills`` object of ``.exobrain.json``: per-machine fetcher settings."""

    allow_local: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES


def fetch_settings(connection: Connection) -> FetchSettings:
    raw = connection.raw.get(SETTINGS_KEY, {})
    where = f"{CONNECTION_FILE}: {SETTINGS_KEY}"
    if not isinstance(raw, dict):
        raise InputFileError(
            f"{where} must be an object",
            hint='e.g. "external_skills": {"allow_local": false, "max_bytes": 52428800}',
        )
    allow, cap = raw.get("allow_local", False), raw.get("max_bytes", DEFAULT_MAX_BYTES)
    if not isinstance(allow, bool):
        raise InputFileError(f"{where}.allow_local must be true or false")
    if isinstance(cap, bool) or not isinstance(cap, int) or cap <= 0:
        raise InputFileError(f"{where}.max_bytes must be a positive number of bytes")
    return FetchSettings(allow, cap)


@dataclass(frozen=True)
class Want:
    """An external skill that resolves on, and the folder it belongs in."""

    skill: Resolved
    folder: Path


def wants_for(rows: list[Resolved], skills_dir: Path) -> list[Want]:
    """Where each external skill that resolves on belongs for an agent using ``skills_dir``."""
    return [
        Want(r, skills_dir if r.tier == "always" else optional_dir(skills_dir))
        for r in rows
        if r.is_external and r.tier in ON_TIERS
    ]


def sharing_agents(ws: Workspace, agent: Agent, skills_dir: Path) -> list[Agent]:
    """Other connected agents whose skills folder is ``skills_dir`` (codex and agents share)."""
    found = []
    for name in ws.connection.agents:
        try:
            other = get_agent(name)
        except UsageError:
            continue
        if other.name != agent.name and skills_dir in (
            other.folders(ws.root).skills,
            other.folders(ws.root, user=True).skills,
        ):
            found.append(other)
    return found
