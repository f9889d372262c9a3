"""``connect-agent claude --native-tiers``: the tiers in Claude Code's own skill listing,
through its per-skill setting ``skillOverrides``, as an option beside the seed's surfaces.

Claude Code 2.1.197 reads ``skillOverrides``, an object of skill name → ``on`` |
``name-only`` | ``user-invocable-only`` | ``off``, from its settings files (local, project,
user; its ``/skills`` screen writes the local one) and keys it by the skill's folder name —
for us the link name. Measured on the program (the model's request, captured offline): a
``name-only`` skill is listed as ``- name`` with no description and the model may still
invoke it; ``user-invocable-only`` and ``off`` keep it out of the model's listing (the first
keeps ``/name`` for the user). That is close to the four tiers, so with the option on:

* ``optional`` skills are linked too, with ``name-only`` (the index still lists them with
  their summaries and paths, within its budget);
* ``unlisted`` skills are linked too, with ``user-invocable-only`` ("invocable by name");
* a link another connected agent needs in Claude's folder that Claude is not meant to have
  gets ``off``;
* ``always`` skills get nothing (``on`` is the default).

The entries go in the settings file of the agent row (``.claude/settings.local.json`` in the
project, kept out of git through ``.git/info/exclude``; ``$CLAUDE_CONFIG_DIR/settings.json``
with ``--user``). connect-agent owns exactly the entries it wrote: they are recorded in the
ownership record of that file (:mod:`exobrain.util.ownership`, kind ``settings``) with their
value, and an entry is ours only while the file still holds that value. An entry of the
user's (one not recorded, or changed since, e.g. in ``/skills``) is never changed or removed;
``--no-native-tiers`` removes ours (and the links), and a file that held nothing else goes.

Why it is an option, not the default: every ``name-only`` skill still takes ``name + 3``
characters of Claude Code's listing budget (8,000 at 200K), and past it the ``always`` skills
lose their descriptions; with 400 optional skills they all did. The index costs nothing of
that budget. Codex's ``[[skills.config]] enabled = false`` has no ``name-only`` state: it only
turns a skill off, which connect-agent never links for Codex, so nothing maps onto it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.agents import Folders
from exobrain.connect.linker import CREATE, KEEP, REMOVE, REPLACE, SKIP, Action, read_existing
from exobrain.errors import InputFileError, UsageError
from exobrain.paths import owned_records
from exobrain.resolve import Resolved
from exobrain.scopes import CONNECTION_FILE, Connection
from exobrain.util import boundedjson, ownership
from exobrain.util.jsonstyle import render_like

AGENTS = ("claude",)
KEY = "skillOverrides"
KIND = "entry"
#: the connection's lists of the agents with the option on, at project and at user level
STORED, USER_STORED = "native_tiers", "user_native_tiers"
#: each tier's value (``always``: none, ``on`` is the default)
VALUES = {"optional": "name-only", "unlisted": "user-invocable-only"}
OFF = "off"
ALWAYS = frozenset({"always"})
NATIVE = frozenset({"always", *VALUES})


def check_agent(agent: str) -> None:
    """Refuse the option for an agent without a per-skill setting it maps onto."""
    if agent not in AGENTS:
        raise UsageError(
            f"--native-tiers is for {' and '.join(AGENTS)} (Claude Code's skillOverrides)",
            hint=f"{agent} has no per-skill listing setting with a name-only state "
            "(Codex's [[skills.config]] enabled = false only turns a skill off)",
        )


def _stored(raw: Mapping[str, Any], user_level: bool) -> list[str]:
    key = USER_STORED if user_level else STORED
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise InputFileError(f"{CONNECTION_FILE}: {key} must be a list of agent names")
    return list(value)


def with_native(
    raw: dict[str, Any], agent: str, user_level: bool, asked: bool | None
) -> dict[str, Any]:
    """The connection's data with the option recorded for ``agent`` at its level as asked
    (None: as stored)."""
    if asked is None:
        return raw
    names = [a for a in _stored(raw, user_level) if a != agent] + ([agent] if asked else [])
    key = USER_STORED if user_level else STORED
    new = {k: v for k, v in raw.items() if k != key}
    return {**new, key: names} if names else new


def is_on(connection: Connection, agent: str, user_level: bool) -> bool:
    return agent in AGENTS and agent in _stored(connection.raw, user_level)


def linked_tiers(connection: Connection, agent: str, user_level: bool) -> frozenset[str]:
    """The tiers linked into the agent's folder: ``always``, and with the option on
    ``optional`` and ``unlisted`` too."""
    return NATIVE if is_on(connection, agent, user_level) else ALWAYS


def wanted_values(rows: list[Resolved], links: list[str]) -> dict[str, str]:
    """The entry each link of the agent's folder needs: its tier's value, ``off`` for a link
    the agent is not meant to have, none for an ``always`` skill."""
    tiers = {row.link_name: row.tier.value for row in rows if not row.is_external}
    wanted = {}
    for name in links:
        tier = tiers.get(name)
        if tier in VALUES:
            wanted[name] = VALUES[tier]
        elif tier != "always":
            wanted[name] = OFF
    return wanted


@dataclass
class Planned:
    """The plan for the settings file: its action, what of it is ours once applied (None:
    leave the record as it is), the overrides the file will hold (for the listing check) and
    the notes to show."""

    action: Action | None = None
    ours: dict[str, str] | None = None
    overrides: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    settings: Path | None = None
    root: Path | None = None  # the exobrain whose entries these are


def plan(
    connection: Connection, folders: Folders, rows: list[Resolved], links: list[str]
) -> Planned:
    """The settings file's action for the links ``links`` placed in the agent's folder."""
    agent, settings = folders.agent.name, folders.settings
    if agent not in AGENTS or settings is None:
        return Planned()
    on = is_on(connection, agent, folders.user_level)
    root = folders.root
    record = ownership.load(owned_records(), settings).mine(ownership.SETTINGS, root) or {}
    place = root if folders.in_repository else folders.agent.home()
    try:
        text = read_existing(settings)
        data: Any = boundedjson.loads(text) if text and text.strip() else {}
    except (InputFileError, ValueError) as exc:
        if not on and not record:
            return Planned()
        reason = getattr(exc, "message", None) or f"not JSON ({exc})"
        return Planned(Action(KIND, SKIP, settings, reason=reason, root=place))
    current = data.get(KEY, {}) if isinstance(data, dict) else None
    if not isinstance(current, dict):
        if not on and not record:
            return Planned()
        reason = f"not a JSON object with a {KEY} object; left as it is"
        return Planned(Action(KIND, SKIP, settings, reason=reason, root=place))
    wanted = wanted_values(rows, links) if on else {}
    ours = {name: value for name, value in record.items() if current.get(name) == value}
    new = {name: value for name, value in current.items() if name not in ours or name in wanted}
    notes = []
    for name, value in wanted.items():
        if name in current and name not in ours:
            if current[name] != value:
                notes.append(
                    f"{KEY}.{name} is {current[name]!r} in {settings.name}, set by you: kept "
                    f"(the {value!r} of --native-tiers is not written)"
                )
            continue
        new[name] = value
    mine = {name: value for name, value in wanted.items() if new.get(name) == value}
    mine = {name: value for name, value in mine.items() if name in ours or name not in current}
    result = Planned(None, mine, dict(new), notes, settings, root)
    if new == current:
        if text is not None and (wanted or ours):
            result.action = Action(KIND, KEEP, settings, root=place)
        return result if (on or record) else Planned(overrides=dict(current))
    body = {k: v for k, v in data.items() if k != KEY}
    if not new and not body and text is not None:
        result.action = Action(KIND, REMOVE, settings, reason="nothing left in it", root=place)
        return result
    content = {**data, KEY: new} if new else body
    rendered = render_like(text, content) if text else _dumped(content)
    op = REPLACE if text is not None else CREATE
    result.action = Action(KIND, op, settings, content=rendered, root=place)
    return result


def _dumped(data: Any) -> str:
    from exobrain.util.fileio import dump_json

    return dump_json(data)


def record(planned: Planned | None) -> None:
    """After applying: write down which entries of the file are ours (those it now holds with
    the value written), and keep a project file out of git."""
    if planned is None or planned.ours is None or planned.settings is None or not planned.root:
        return
    settings, root = planned.settings, planned.root
    try:
        text = read_existing(settings)
        data = boundedjson.loads(text) if text and text.strip() else {}
    except (InputFileError, ValueError):
        return
    current = data.get(KEY, {}) if isinstance(data, dict) else {}
    held = current if isinstance(current, dict) else {}
    ours = {name: value for name, value in planned.ours.items() if held.get(name) == value}
    ownership.record(owned_records(), settings, ownership.SETTINGS, root, ours)
    written = planned.action is not None and planned.action.op in (CREATE, REPLACE)
    if ours and written and settings.is_relative_to(root):
        from exobrain.connect.mcpstart import keep_out_of_git

        keep_out_of_git(root, settings, why="per-machine settings written by connect-agent")
