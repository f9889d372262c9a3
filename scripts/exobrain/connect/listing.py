"""The agent's own listing of the skills connect-agent links: within the loader's budget, or a
warning that names the skills.

Claude Code and Codex put every skill of their folders in the model's context each session,
by name and description, within a budget of their own (the agent row's ``listing``, measured
on the programs: knowledge/exobrain/agents.md, "Context budgets"). Past it they shorten or
drop descriptions — Claude Code lists the skills it used least by name only, Codex shortens
every description, then drops them, then leaves skills out — and say nothing. So after
planning the links, connect-agent adds up what the loader will list of them and warns when
that is over the budget, or when a description is longer than the loader lists of one skill.

The figures follow the agent's own settings where they are in a file connect-agent can read:
Claude Code's ``SLASH_COMMAND_TOOL_CHAR_BUDGET`` variable and its ``skillListingBudgetFraction``,
``skillListingMaxDescChars`` and ``disableBundledSkills`` settings; Codex's
``[skills] max_context_tokens`` and ``model_context_window`` in ``$CODEX_HOME/config.toml``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

from exobrain.agents import Folders, Listing
from exobrain.errors import InputFileError
from exobrain.skillmd import SKILL_FILE, quick_meta
from exobrain.util.fileio import read_text

#: The values of Claude Code's ``skillOverrides`` that keep a skill out of the model's listing
#: (``name-only`` lists the name alone).
UNLISTED = ("user-invocable-only", "off")
NAME_ONLY = "name-only"
#: Claude Code counts a budget fraction against this window (tokens) and characters a token.
CLAUDE_WINDOW, CLAUDE_CHARS = 200_000, 4
CODEX_SHARE, CODEX_CHARS = 0.02, 4
NAMED = 8  # skills named in a warning, the longest first


@dataclass(frozen=True)
class Entry:
    """One linked skill as the loader lists it: its name and the characters it takes."""

    name: str
    size: int
    description: int  # characters of its description (with Claude's when_to_use)


def listing_for(folders: Folders) -> Listing | None:
    """The agent's listing budget with its own settings applied (None: not measured)."""
    listing = folders.agent.listing
    if listing is None:
        return None
    if folders.agent.name == "claude":
        return _claude(folders, listing)
    if folders.agent.name == "codex":
        return _codex(folders, listing)
    return listing


def entries(
    agent: str, wanted: Mapping[str, Path], overrides: Mapping[str, str] | None = None
) -> list[Entry]:
    """What the loader lists of the links ``wanted`` (name → skill folder): ``- name:
    description`` (Codex adds the file), ``- name`` for a name-only override, nothing for one
    that keeps the skill out of the listing."""
    found = []
    for name, folder in sorted(wanted.items()):
        value = (overrides or {}).get(name, "on")
        if value in UNLISTED:
            continue
        description = _description(folder / SKILL_FILE, agent)
        if value == NAME_ONLY:
            found.append(Entry(name, len(f"- {name}") + 1, 0))
            continue
        size = len(f"- {name}: {description}") + 1
        if agent == "codex":
            size += len(f" (file: r1/{name}/{SKILL_FILE})")
        found.append(Entry(name, size, len(description)))
    return found


def warnings(
    folders: Folders, wanted: Mapping[str, Path], overrides: Mapping[str, str] | None = None
) -> list[str]:
    """The warnings for the links ``wanted`` in ``folders``' skills folder (see the module
    docstring); none for an agent whose listing is not measured."""
    listing = listing_for(folders)
    if listing is None or not wanted:
        return []
    agent = folders.agent.name
    listed = entries(agent, wanted, overrides)
    said = []
    long = [e for e in listed if e.description > listing.entry]
    if long:
        said.append(
            f"{_names(long, lambda e: e.description)}: longer than the {listing.entry:,} "
            f"characters {agent} lists of one skill's description; it cuts the rest "
            f"(shorten the description, or move detail into the body)"
        )
    # (an entry counts at most the cap: the loader cuts before it adds up)
    total = sum(e.size - max(0, e.description - listing.entry) for e in listed)
    room = listing.size - listing.reserved
    if total > room:
        loses = (
            "lists the ones it used least by name only, without their descriptions"
            if agent == "claude"
            else "shortens every description, then drops them, then leaves skills out"
        )
        reserved = (
            f", {listing.reserved:,} of them taken by its own skills" if listing.reserved else ""
        )
        said.append(
            f"the {len(listed)} skills linked for {agent} take {total:,} characters of its "
            f"skill listing ({listing.why}{reserved}): over it, {agent} {loses}. The longest: "
            f"{_names(listed, lambda e: e.size)}; make some optional, or shorten their "
            f"descriptions"
        )
    return said


def _names(found: list[Entry], size: Any) -> str:
    ordered = sorted(found, key=lambda e: (-size(e), e.name))
    shown = ", ".join(f"{e.name} ({size(e):,})" for e in ordered[:NAMED])
    more = len(ordered) - NAMED
    return shown + (f" and {more} more" if more > 0 else "")


def _description(path: Path, agent: str) -> str:
    """The description as the loader lists it: on one line; Claude Code appends
    ``when_to_use`` after `` - ``."""
    try:
        meta = quick_meta(path, ("description", "when_to_use"))
    except InputFileError:
        return ""
    description = meta.get("description")
    text = " ".join(description.split()) if isinstance(description, str) else ""
    when = meta.get("when_to_use")
    if agent == "claude" and isinstance(when, str) and when.strip():
        text = f"{text} - {' '.join(when.split())}"
    return text


# --- the agents' own settings ------------------------------------------------------------


def _claude(folders: Folders, listing: Listing) -> Listing:
    """Claude Code's figures: the variable, then its settings (local over project over user,
    as Claude Code merges them)."""
    settings: dict[str, Any] = {}
    for path in _claude_settings(folders):
        settings.update(_json(path))
    size, why = listing.size, listing.why
    fraction = settings.get("skillListingBudgetFraction")
    if _number(fraction) and 0 < fraction <= 1:
        size = int(CLAUDE_WINDOW * CLAUDE_CHARS * fraction)
        why = f"skillListingBudgetFraction {fraction} of a 200K context"
    variable = os.environ.get("SLASH_COMMAND_TOOL_CHAR_BUDGET", "")
    if variable.isdigit() and int(variable) > 0:
        size, why = int(variable), "SLASH_COMMAND_TOOL_CHAR_BUDGET"
    cap = settings.get("skillListingMaxDescChars")
    entry = cap if _number(cap) and isinstance(cap, int) and cap > 0 else listing.entry
    bundled_off = settings.get("disableBundledSkills") is True or os.environ.get(
        "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS", ""
    ) not in ("", "0", "false")
    reserved = 0 if bundled_off else listing.reserved
    return replace(listing, size=size, entry=entry, why=why, reserved=reserved)


def _claude_settings(folders: Folders) -> list[Path]:
    home = folders.agent.home()
    user = [home / "settings.json"]
    if not folders.in_repository:
        return user
    claude = folders.root / ".claude"
    return [*user, claude / "settings.json", claude / "settings.local.json"]


def _codex(folders: Folders, listing: Listing) -> Listing:
    import tomllib

    path = folders.agent.home() / "config.toml"
    try:
        data = tomllib.loads(read_text(path)) if path.is_file() else {}
    except (InputFileError, ValueError, OSError):
        return listing  # Codex reports its own broken config
    skills = data.get("skills")
    tokens = skills.get("max_context_tokens") if isinstance(skills, dict) else None
    if _number(tokens) and tokens > 0:
        return replace(
            listing,
            size=int(tokens * CODEX_CHARS),
            why=f"[skills] max_context_tokens = {tokens} in {path}",
        )
    window = data.get("model_context_window")
    if _number(window) and window > 0:
        return replace(
            listing,
            size=int(window * CODEX_SHARE * CODEX_CHARS),
            why=f"2% of model_context_window = {window} in {path}",
        )
    return listing


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_text(path)) if path.is_file() else {}
    except (InputFileError, ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}
