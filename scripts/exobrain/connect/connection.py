"""The connection file as connect-agent keeps it: the agents connected at each level, the
connection a choice makes, and the one action that rewrites ``.exobrain.json``.

Project-level agents are the connection's ``agents``, user-level ones its ``user_agents``; the
git hooks relink both after a pull. The file is rewritten only when what it says changes, and
a connect that writes checks first whether another process rewrote it meanwhile
(:func:`stored_changed`), so two connects at once never lose each other's agent.
"""

from __future__ import annotations

from pathlib import Path

from exobrain.connect import cone, linker
from exobrain.connect.choice import Choice
from exobrain.errors import InputFileError
from exobrain.scopes import (
    CONNECTION_FILE,
    USER_AGENTS_KEY,
    Connection,
    connection_data,
    read_connection,
)
from exobrain.util.fileio import dump_json
from exobrain.workspace import Workspace


def agent_list(connection: Connection, user_level: bool) -> list[str]:
    """The agents connected at project level (``agents``) or user level (``user_agents``)."""
    if not user_level:
        return list(connection.agents)
    value = connection.raw.get(USER_AGENTS_KEY, [])
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise InputFileError(f"{CONNECTION_FILE}: {USER_AGENTS_KEY} must be a list of agent names")
    return list(value)


def updated_connection(
    stored: Connection,
    choice: Choice,
    agent: str,
    user_level: bool,
    *,
    sparse: bool | None = None,
) -> Connection:
    """The stored connection with the chosen scopes and ``agent`` recorded at its level (and
    the sparse checkout turned on or off when ``sparse`` says so; None: as stored)."""
    raw = dict(stored.raw)
    if sparse is not None:
        raw[cone.SPARSE_KEY] = sparse
    agents = agent_list(stored, False)
    if user_level:
        users = agent_list(stored, True)
        raw[USER_AGENTS_KEY] = users + ([agent] if agent not in users else [])
    elif agent not in agents:
        agents.append(agent)
    people, scopes = (
        stored.people if choice.person in stored.people else (),
        choice.connected_scopes,
    )
    return Connection(list(scopes), choice.person, agents, raw, people, stored.scopes_key)


def stored_changed(ws: Workspace) -> bool:
    """Whether another process rewrote the connection file since ``ws`` read it."""
    path = ws.root / CONNECTION_FILE
    if not path.exists():
        return bool(ws.connection.raw)
    return read_connection(ws.root).raw != ws.connection.raw


def connection_action(
    root: Path, stored: Connection, connection: Connection
) -> linker.Action | None:
    """Rewrite ``.exobrain.json`` only when what it says changes."""
    data = connection_data(connection)
    path = root / CONNECTION_FILE
    if path.exists() and data == stored.raw:
        return None
    op = linker.REPLACE if path.exists() else linker.CREATE
    content = dump_json(data)
    return linker.Action("connection", op, path, CONNECTION_FILE, content=content, root=root)
