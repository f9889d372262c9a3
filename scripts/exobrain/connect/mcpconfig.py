"""``connect-agent AGENT --mcp``: register the exobrain MCP server in the agent's own MCP
configuration, owning exactly one entry, ``exobrain``, and nothing else in the file.

Each agent keeps its servers in its own file and shape (the formats and their sources are in
``knowledge/exobrain/agents.md``); this module is the table of those places plus two careful
editors:

* **JSON and JSONC** (Claude Code, Gemini CLI, Cursor, Copilot, OpenCode, OpenClaw): the file
  may hold comments and trailing commas (Gemini, VS Code and others accept them); only our
  entry's text is edited (:func:`~exobrain.util.jsonc.set_member`: its value replaced, or the
  member inserted in the indentation of its siblings), so every other byte -- comments,
  spacing, order -- is kept. A file that is neither (OpenClaw also allows JSON5: unquoted
  keys, single quotes) is refused and left as it is, with the agent's own command to run
  instead.
* **TOML** (Codex), without a TOML writer: our table ``[mcp_servers.exobrain]`` is replaced in
  the text, or appended, every other byte kept; the result is parsed again (``tomllib``) and
  written only when it equals the original document plus our entry — a file that declares the
  server some other way (an inline table, dotted keys) is refused rather than broken.

An entry named ``exobrain`` that does not run ``exobrain.mcp`` is the user's: it is reported
and kept. Running it again changes nothing; writes are atomic and confined to the repository
(project files) or the agent's home (``--user``).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from exobrain.connect import mcpstart
from exobrain.connect.mcpstart import Start
from exobrain.errors import InputFileError, UsageError
from exobrain.paths import python_module

SERVER = "exobrain"
MODULE = "exobrain.mcp"


@dataclass(frozen=True)
class Place:
    """Where one agent reads MCP servers: the project file (relative to the repository, None
    when it has none), the user file (relative to the home folder), the key path of the
    server map, and how an entry is written (``shape``)."""

    project: str | None
    user: str
    keys: tuple[str, ...]
    shape: str  # "stdio", "plain", "vscode", "copilot-cli", "opencode", "toml"
    refused_hint: str | None = None  # the agent's own command, for a file we cannot edit
    #: the project level lives in the user file, under ``projects.<root>`` (Claude Code's
    #: "local" scope: private to this clone, and started without an approval prompt)
    local: bool = False


PLACES: dict[str, Place] = {
    "claude": Place(None, ".claude.json", ("mcpServers",), "stdio", local=True),
    "codex": Place(".codex/config.toml", ".codex/config.toml", ("mcp_servers",), "toml"),
    "gemini": Place(".gemini/settings.json", ".gemini/settings.json", ("mcpServers",), "plain"),
    "cursor": Place(".cursor/mcp.json", ".cursor/mcp.json", ("mcpServers",), "plain"),
    "copilot": Place(
        ".vscode/mcp.json", ".copilot/mcp-config.json", ("mcpServers",), "copilot-cli"
    ),
    "opencode": Place("opencode.json", ".config/opencode/opencode.json", ("mcp",), "opencode"),
    "openclaw": Place(
        None,
        ".openclaw/openclaw.json",
        ("mcp", "servers"),
        "plain",
        refused_hint="openclaw mcp set exobrain '{json}'",
    ),
}


@dataclass(frozen=True)
class Registration:
    path: Path
    changed: bool
    skipped: str | None = None  # why our entry was not written (the user's entry is there)
    start: Start = field(default_factory=lambda: Start(None))  # will the agent start it
    excluded: bool = False  # the project file was kept out of git (.git/info/exclude)

    def as_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "changed": self.changed,
            "skipped": self.skipped,
            **self.start.as_json(),
            "excluded": self.excluded,
        }


def server_command(root: Path, agent: str) -> list[str]:
    """What the agent runs: this Python isolated from the environment (``-I``: neither the
    repository the agent starts it in nor ``PYTHONPATH`` reaches the import path), the server
    module, this exobrain, the agent's name."""
    return python_module(MODULE, "--repo", str(root), "--agent", agent)


def config_file(agent: str, root: Path, user: bool) -> tuple[Path, Path]:
    """(the configuration file, the folder writes must stay inside) for ``agent``: the
    project file in the repository, or with ``--user`` (OpenClaw: always; Claude Code: at
    both levels, its project level under ``projects.<root>``) the user file in the agent's
    home, where the agent's own variable moves it (``CLAUDE_CONFIG_DIR`` holds
    ``.claude.json``; ``CODEX_HOME`` is the ``.codex`` folder)."""
    place = _place(agent)
    if not user and place.project is not None:
        return root / place.project, root
    if agent == "claude" and os.environ.get("CLAUDE_CONFIG_DIR"):
        home = Path(os.environ["CLAUDE_CONFIG_DIR"]).expanduser()
        return home / ".claude.json", home
    if agent == "codex":
        from exobrain.agents import get_agent

        home = get_agent("codex").home()
        return home / "config.toml", home
    return Path.home() / place.user, Path.home()


def servers_keys(agent: str, root: Path, user: bool) -> tuple[str, ...]:
    """The key path of the server map in the JSON file of :func:`config_file` (VS Code's
    ``servers`` for Copilot's project; ``projects.<root>.mcpServers`` for Claude's local
    scope)."""
    place = _place(agent)
    if agent == "copilot" and not user:
        return ("servers",)
    if place.local and not user:
        return ("projects", str(root), *place.keys)
    return place.keys


def entry_for(agent: str, command: list[str], *, user: bool = False) -> dict[str, Any]:
    """Our entry in the agent's shape (VS Code's ``servers`` file for Copilot's project)."""
    shape = _place(agent).shape
    if shape == "opencode":
        return {"type": "local", "command": command, "enabled": True}
    entry: dict[str, Any] = {"command": command[0], "args": command[1:]}
    if shape == "stdio" or (shape == "copilot-cli" and not user):
        return {"type": "stdio", **entry}
    if shape == "copilot-cli":
        return {"type": "local", **entry, "tools": ["*"]}
    return entry


def register(agent: str, root: Path, *, user: bool = False) -> Registration:
    """Write (or keep) our entry in ``agent``'s MCP configuration, keep a project file with
    this machine's paths out of git, and say whether the agent will start the server."""
    place = _place(agent)
    path, inside = config_file(agent, root, user)
    command = server_command(root, agent)
    if place.shape == "toml":
        done = _register_toml(path, inside, command)
    else:
        keys = servers_keys(agent, root, user)
        done = _register_json(path, inside, keys, entry_for(agent, command, user=user), place)
    excluded = (
        not done.skipped and path.is_relative_to(root) and mcpstart.keep_out_of_git(root, path)
    )
    return replace(done, start=mcpstart.will_start(agent, root, user=user), excluded=excluded)


def registered(agent: str, root: Path, *, user: bool = False) -> bool:
    """Whether our server is in ``agent``'s MCP configuration for this clone (at project
    level, or with ``user`` the user's): read only, and False for an agent without one or a
    file that cannot be read (connect-agent --mcp reports those)."""
    import tomllib

    from exobrain.util import jsonc
    from exobrain.util.fileio import read_text

    place = PLACES.get(agent)
    if place is None:
        return False
    path, _inside = config_file(agent, root, user)
    try:
        if not path.is_file():
            return False
        text = read_text(path)
        data: Any = tomllib.loads(text) if place.shape == "toml" else jsonc.loads(text, path)
    except (InputFileError, ValueError, OSError):
        return False
    keys = place.keys if place.shape == "toml" else servers_keys(agent, root, user)
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return isinstance(data, dict) and is_ours(data.get(SERVER))


def search_hint(agent: str, root: Path, *, user: bool = False, asked: bool = False) -> str:
    """How the index tells the agent to find the skills it has no room for: the MCP server's
    ``search`` tool where our server is registered for the agent (or is being registered:
    ``asked``) and the agent will start it, else the ``exobrain search`` command (with
    ``--repo`` where the index lives outside the clone)."""
    from exobrain.agents import get_agent
    from exobrain.connect import indexes

    known = agent in PLACES and (asked or registered(agent, root, user=user))
    if known and mcpstart.will_start(agent, root, user=user).starts is not False:
        return indexes.MCP_SEARCH
    outside = user or get_agent(agent).project_skills is None
    return indexes.cli_search(str(root) if outside else None)


def is_ours(entry: Any) -> bool:
    """Whether an ``exobrain`` entry runs our server (else it is the user's and is kept)."""
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    words = [*command] if isinstance(command, list) else [command, *(entry.get("args") or [])]
    return MODULE in [str(w) for w in words]


def check_agent(agent: str) -> None:
    """Refuse ``--mcp`` for an agent without an MCP configuration of its own."""
    _place(agent)


def _place(agent: str) -> Place:
    place = PLACES.get(agent)
    if place is None:
        raise UsageError(
            f"--mcp: {agent} has no MCP configuration of its own",
            hint=f"use one of: {', '.join(PLACES)}",
        )
    return place


# --- JSON -------------------------------------------------------------------------------


def _register_json(
    path: Path, inside: Path, keys: tuple[str, ...], wanted: dict[str, Any], place: Place
) -> Registration:
    from exobrain.util import jsonc
    from exobrain.util.fileio import atomic_write_text, dump_json, read_text

    original = read_text(path) if path.exists() or path.is_symlink() else ""
    data: Any = _parse_json(original, path, place, wanted) if original.strip() else {}
    servers: Any = data
    for key in keys:
        if not isinstance(servers, dict):
            break
        servers = servers.setdefault(key, {})
    if not isinstance(servers, dict):
        raise InputFileError(
            f"{path}: {'.'.join(keys)} must be an object of servers",
            hint="fix the file by hand, then run the command again",
        )
    current = servers.get(SERVER)
    if current is not None and not is_ours(current):
        return Registration(path, False, f"an MCP server named {SERVER} that is not ours")
    if current == wanted:
        return Registration(path, False)
    if place.shape == "opencode" and not original.strip():
        data = {"$schema": "https://opencode.ai/config.json", **data}
    servers[SERVER] = wanted
    text = (
        jsonc.set_member(original, (*keys, SERVER), wanted, path)
        if original.strip()
        else dump_json(data)
    )
    atomic_write_text(path, text, root=inside)
    return Registration(path, True)


def _parse_json(text: str, path: Path, place: Place, wanted: dict[str, Any]) -> Any:
    from exobrain.util import jsonc

    try:
        data = jsonc.loads(text, path)
    except InputFileError as exc:
        if place.refused_hint:
            hint = place.refused_hint.replace("{json}", json.dumps(wanted))
            raise InputFileError(exc.message, hint=f"it is left as it is; run {hint}") from exc
        raise
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: expected a JSON object")
    return data


# --- TOML (Codex) -------------------------------------------------------------------------

_HEADER = re.compile(r"^[ \t]*\[", re.M)
_OURS = re.compile(r'^[ \t]*\[[ \t]*mcp_servers[ \t]*\.[ \t]*"?exobrain"?[ \t]*\][^\n]*\n?', re.M)


def _register_toml(path: Path, inside: Path, command: list[str]) -> Registration:
    import tomllib

    from exobrain.util.fileio import atomic_write_text, read_text

    original = read_text(path) if path.exists() or path.is_symlink() else ""
    before = _parse_toml(original, path)
    servers = before.get("mcp_servers", {})
    current = servers.get(SERVER) if isinstance(servers, dict) else None
    if current is not None and not is_ours(current):
        return Registration(path, False, f"an MCP server named {SERVER} that is not ours")
    wanted = {"command": command[0], "args": command[1:]}
    if isinstance(current, dict) and {k: current.get(k) for k in wanted} == wanted:
        return Registration(path, False)
    block = (
        f"[mcp_servers.{SERVER}]\n"
        f"command = {json.dumps(command[0])}\n"
        f"args = [{', '.join(json.dumps(a) for a in command[1:])}]\n"
    )
    found = _OURS.search(original)
    if found:
        following = _HEADER.search(original, found.end())
        end = following.start() if following else len(original)
        kept = _extra_lines(original[found.end() : end])
        text = original[: found.start()] + block + kept + original[end:]
    else:
        ending = "" if not original or original.endswith("\n") else "\n"
        text = original + ending + ("\n" if original.strip() else "") + block
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        after = None
    expected = {**before, "mcp_servers": {**servers, SERVER: {**(current or {}), **wanted}}}
    if after != expected:
        raise InputFileError(
            f"{path}: declares the {SERVER} MCP server in a way this editor does not change",
            hint=f"replace it by a [mcp_servers.{SERVER}] table, or add by hand:\n{block}",
        )
    atomic_write_text(path, text, root=inside)
    return Registration(path, True)


def _extra_lines(body: str) -> str:
    """The lines of our old table other than ``command`` and ``args`` (the user's additions,
    such as ``startup_timeout_sec``), kept as they are."""
    lines = body.splitlines(keepends=True)
    return "".join(line for line in lines if not re.match(r"[ \t]*(command|args)[ \t]*=", line))


def _parse_toml(text: str, path: Path) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(f"{path}: not valid TOML ({exc})") from exc
