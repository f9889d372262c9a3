"""``connect-agent AGENT --track-usage``: the usage hook in the agent's own settings file
(Claude's ``settings.local.json`` in the project, its ``settings.json`` with ``--user``;
Gemini's ``settings.json``), owning one hook entry and nothing else in the file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.agents import AGENTS, Folders
from exobrain.errors import UsageError
from exobrain.signals.usage_hook import install_usage_hook, usage_hook_command


@dataclass(frozen=True)
class UsageHook:
    """Where the hook is and whether this run changed the file."""

    settings: Path
    changed: bool

    def as_json(self) -> dict[str, Any]:
        return {"settings": str(self.settings), "changed": self.changed}


def check_tracking(agent: str) -> None:
    """Refuse ``--track-usage`` for an agent whose table row names no settings file."""
    if not any(a.name == agent and a.settings for a in AGENTS):
        trackers = " and ".join(a.name for a in AGENTS if a.settings)
        raise UsageError(
            f"--track-usage is for {trackers} (the agents whose hooks see a skill used)",
            hint=f"{agent} records usage through the MCP signal tool: connect-agent {agent} --mcp",
        )


def install(folders: Folders) -> UsageHook:
    """Merge the usage hook into the settings file of ``folders``' agent and level."""
    settings = folders.settings
    if settings is None:  # (check_tracking refused it before anything was done)
        raise UsageError(f"{folders.agent.name} has no settings file for a usage hook")
    place = folders.root if folders.in_repository else folders.agent.home()
    command = usage_hook_command(folders.root, folders.agent.name)
    changed = install_usage_hook(settings, command, root=place, agent=folders.agent.name)
    return UsageHook(settings, changed)
