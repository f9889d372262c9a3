"""The agents' usage hook: one usage line per skill the agent invokes.

Two agents have a hook that sees a skill being used, and both run
``python -m exobrain.signals.usage_hook --repo ROOT --agent AGENT`` with the hook payload as
JSON on stdin (the other agents record usage through the MCP ``signal`` tool):

* **Claude Code**, after every call of its ``Skill`` tool (a ``PostToolUse`` hook with matcher
  ``Skill``): ``tool_name``, ``tool_input`` (``{"skill": NAME, "args": …}``),
  ``tool_response``, ``cwd``, ``session_id`` … (https://code.claude.com/docs/en/hooks). The
  hook checks ``tool_name`` itself: Copilot in VS Code runs Claude's hooks and ignores
  matchers, so it calls the hook after every tool;
* **Gemini CLI**, after its ``activate_skill`` tool (an ``AfterTool`` hook with that matcher):
  ``tool_name``, ``tool_input`` (``{"name": NAME}``), ``cwd`` … (gemini-cli
  ``docs/hooks/reference.md``, ``docs/tools/activate-skill.md``). Its stdout must be JSON.

The hook maps NAME (the link name the agent sees, e.g. ``tidy.groups__acme``, or a plain skill
name) to the skill this connection resolves and appends ``{"kind": "usage", "value": 1,
"auto": true, "agent": AGENT, …}`` to the person's ledger. A name whose skill is superseded
(an old link, a user-level copy) is filed against the successor, ``via`` the old reference.

It must never get in the agent's way: every error is swallowed, written to
``$XDG_STATE_HOME/exobrain/usage-hook.log`` (default ``~/.local/state``) and the exit code is
always 0. It imports no click, rich or jsonschema, and it keeps what resolution found (names →
refs, person, host) in the user cache dir, keyed on the size, mtime and inode of every file
resolution read, so a call usually costs little more than Python's start-up.
:func:`install_usage_hook` merges the hook into ``.claude/settings.local.json``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from exobrain.caches import USAGE_HOOK, USAGE_LOG
from exobrain.util import boundedjson

if TYPE_CHECKING:  # a hook call that hits its cache imports no workspace
    from exobrain.workspace import Workspace

HOOK_MODULE = "exobrain.signals.usage_hook"
EVENT = "PostToolUse"
MATCHER = "Skill"
TIMEOUT_SECONDS = 10
LOG_LIMIT = 256 * 1024
#: agent → (its hook event, the tool that uses a skill, the tool input key naming it, the
#: hook's timeout as that agent counts it: seconds for Claude, milliseconds for Gemini)
HOOKS = {
    "claude": (EVENT, MATCHER, "skill", TIMEOUT_SECONDS),
    "gemini": ("AfterTool", "activate_skill", "name", TIMEOUT_SECONDS * 1000),
}


def log_path() -> Path:
    from exobrain.paths import user_state_dir

    return user_state_dir() / USAGE_LOG.folder


def log(message: str) -> None:
    """Append one line to the hook's log (rotated at 256 KiB); never raises."""
    try:
        path = log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_LIMIT:
            os.replace(path, path.with_suffix(".log.1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{stamp} {message}\n")
    except Exception:
        pass


def invoked_skill(payload: Any, agent: str = "claude") -> str | None:
    """The skill name in a skill tool payload of ``agent``, or None when the payload is about
    something else (another tool: Copilot in VS Code sends Claude's hook every tool call)."""
    _event, tool, key, _timeout = HOOKS[agent]
    if not isinstance(payload, dict) or payload.get("tool_name") != tool:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        response = {}
    for value in (
        tool_input.get(key),
        tool_input.get("skill_name"),
        tool_input.get("name"),
        response.get("commandName"),
    ):
        if isinstance(value, str) and value.strip():
            return value.strip().lstrip("/")
    return None


def skill_names(ws: Workspace, agent: str) -> dict[str, str]:
    """Every name ``agent`` may invoke a skill of this connection by → its canonical ref: the
    link names (``tidy.groups__acme``), plus plain names that only one resolved skill has.
    A name that is not here (a plugin's skill, a personal one) is not one of ours."""
    rows = [r for r in ws.resolve(agent) if r.tier != "off"]
    refs = {
        r.link_name: f"skill:{r.name}@" + (f"external/{r.owner}" if r.is_external else r.home)
        for r in rows
    }
    plain: dict[str, list[str]] = {}
    for r in rows:
        plain.setdefault(r.name, []).append(refs[r.link_name])
    for name, found in plain.items():
        if len(found) == 1 and name not in refs:
            refs[name] = found[0]
    return refs


def superseded_names(ws: Workspace, agent: str) -> dict[str, list[str]]:
    """The link names of skills resolution replaced by a successor → [the successor's ref, the
    superseded skill's own ref]: a use through an old link counts for the successor."""
    return {
        r.link_name: [r.superseded_by.ref, r.identity.ref]
        for r in ws.resolve(agent)
        if r.superseded_by is not None
    }


# --- the resolution cache: a hook call that hits it imports no dataclass-based module -------


def _cache_path(root: str, agent: str) -> str:
    import hashlib

    from exobrain.paths import user_cache_dir

    digest = hashlib.sha256(f"{root}\0{agent}".encode()).hexdigest()[:20]
    return os.path.join(user_cache_dir(), USAGE_HOOK.folder, f"{digest}.json")


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ino]


def _environment() -> list[str | None]:
    """What the person and host also depend on besides files."""
    return [os.environ.get("EXOBRAIN_HOST"), os.uname().nodename]


def cached_resolution(root: str, agent: str) -> dict[str, Any] | None:
    """The cached names, person and host, when no file they were computed from changed; a
    cache that cannot be read or is of the wrong shape is logged and resolved anew (its
    values are used as they stand: a bad one would fail every hook call until the files
    changed)."""
    path = _cache_path(root, agent)
    try:
        with open(path, encoding="utf-8") as handle:
            data = boundedjson.loads(handle.read())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # (UnicodeDecodeError and bad JSON are ValueErrors)
        log(f"resolution cache {path} ignored: unreadable ({exc})")
        return None
    if not _resolution_shaped(data):
        log(f"resolution cache {path} ignored: of the wrong shape")
        return None
    if data["environment"] != _environment():
        return None
    if any(_stamp(file) != stamp for file, stamp in data["files"].items()):
        return None
    return data  # type: ignore[no-any-return]


def _resolution_shaped(data: Any) -> bool:
    """Whether a cached resolution holds what a hook call reads, of the types it needs."""
    if not isinstance(data, dict):
        return False
    names, superseded, files = data.get("names"), data.get("superseded", {}), data.get("files")
    return (
        isinstance(names, dict)
        and all(type(k) is str and type(v) is str for k, v in names.items())
        and isinstance(superseded, dict)
        and all(
            type(k) is str and type(v) is list and len(v) == 2 and all(type(r) is str for r in v)
            for k, v in superseded.items()
        )
        and type(data.get("person")) is str
        and type(data.get("host")) is str
        and type(data.get("environment")) is list
        and isinstance(files, dict)
        and all(
            type(k) is str and (v is None or (type(v) is list and len(v) == 3))
            for k, v in files.items()
        )
    )


def fresh_resolution(root: str, agent: str) -> dict[str, Any]:
    """Resolve the connection, then cache the result keyed on every file that was read."""
    from exobrain.errors import ExobrainError
    from exobrain.paths import user_cache_dir
    from exobrain.registry.entries import registry_path
    from exobrain.scopes import CONNECTION_FILE, SCOPE_FLAG, ancestor_paths
    from exobrain.signals.ledger import author, host_id
    from exobrain.util.fileio import atomic_write_text
    from exobrain.workspace import open_workspace

    ws = open_workspace(Path(root))
    data = {
        "names": skill_names(ws, agent),
        "superseded": superseded_names(ws, agent),
        "person": author(ws),
        "host": host_id(ws),
        "environment": _environment(),
    }
    scopes = {"seed", *ws.chain.paths, *ws.connection.connected_scopes}
    for leaf in ws.connection.connected_scopes:
        scopes.update(ancestor_paths(leaf.strip("/")))
    files = [ws.root / CONNECTION_FILE, ws.root / "scopes.json"]
    files += [ws.root / scope / SCOPE_FLAG for scope in scopes if scope != "global"]
    files += [registry_path(ws.root, scope) for scope in ws.registries]
    # supersession lives in the SKILL.md files (exobrain supersede edits only those)
    files += [
        ws.root / ("" if e.scope == "global" else e.scope) / "skills" / e.name / "SKILL.md"
        for e in ws.chain_entries()
        if not e.is_override and e.source is None
    ]
    data["files"] = {str(path): _stamp(str(path)) for path in files}
    try:
        atomic_write_text(
            Path(_cache_path(root, agent)), json.dumps(data), root=user_cache_dir(), durable=False
        )
    except (OSError, ExobrainError) as exc:
        log(f"resolution cache not written: {exc}")
    return data


def record_usage(payload: Any, repo: Path | None, agent: str = "claude") -> Path | None:
    """Append the usage line for ``payload``; the ledger written, or None when it was skipped."""
    from exobrain.signals.ledger import make_signal, record_signal

    name = invoked_skill(payload, agent)
    if name is None:
        return None
    if repo is None:
        from exobrain.scopes import find_root

        start = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        repo = find_root(Path(start))
    root = os.path.realpath(repo)
    resolution = cached_resolution(root, agent) or fresh_resolution(root, agent)
    ref, via = resolution["names"].get(name), None
    superseded = resolution.get("superseded", {})
    if ref is None and name in superseded:
        ref, via = superseded[name]
    if ref is None:
        log(f"skipped {name!r}: no skill of {root} resolves to that name for {agent}")
        return None
    line = make_signal(
        "usage",
        ref,
        1,
        by=resolution["person"],
        host=resolution["host"],
        agent=agent,
        auto=True,
        via=via,
    )
    path, warning = record_signal(Path(root), line)
    if warning:
        log(warning)
    return path


def main(argv: list[str] | None = None) -> int:
    """Entry point: read the payload, record, log any error; always exit 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    agent = args[args.index("--agent") + 1] if "--agent" in args[:-1] else "claude"
    try:
        repo = Path(args[args.index("--repo") + 1]) if "--repo" in args else None
        text = sys.stdin.read()
        if agent not in HOOKS:
            raise ValueError(f"no usage hook for agent {agent!r}")
        record_usage(boundedjson.loads(text) if text.strip() else {}, repo, agent)
    except Exception as exc:
        log(f"error: {type(exc).__name__}: {exc}")
    if agent == "gemini":
        print("{}")  # Gemini CLI reads the hook's stdout as JSON: nothing to decide
    return 0


# --- installing -----------------------------------------------------------------------------


def usage_hook_command(root: Path, agent: str = "claude") -> list[str]:
    """The command the agent should run: this Python isolated from the environment (``-I``:
    neither the repository the agent runs it in nor ``PYTHONPATH`` reaches the import path),
    this module, this exobrain, the agent."""
    from exobrain.paths import python_module

    command = python_module(HOOK_MODULE, "--repo", str(root))
    return command if agent == "claude" else [*command, "--agent", agent]


def _hooks_of(group: dict[str, Any]) -> list[Any]:
    """A matcher group's ``hooks`` (none when it holds no list)."""
    hooks = group.get("hooks")
    return hooks if isinstance(hooks, list) else []


def install_usage_hook(
    settings_path: Path, command: list[str], *, root: Path, agent: str = "claude"
) -> bool:
    """Merge the hook into an agent's settings file inside ``root`` (the repository, or the
    agent's home with ``--user``): Claude's ``settings.local.json`` or ``settings.json``,
    Gemini's ``settings.json`` (the same ``hooks`` → event → matcher groups shape); True when
    the file changed.

    Other settings and hooks are kept as they are (unknown keys included); a hook of ours
    with an outdated command is updated in place; running it twice changes nothing. A file
    that is not a JSON object is refused (InputFileError), never rewritten. The write is atomic;
    a settings file that is a symlink is written through when the link stays inside ``root``
    (it stays a link) and refused with the link named when it leaves, never replaced.
    """
    import shlex

    from exobrain.errors import InputFileError
    from exobrain.util.fileio import atomic_write_text, dump_json, load_json

    event, matcher, _key, timeout = HOOKS[agent]
    line = shlex.join(command)
    data: Any = load_json(settings_path) if settings_path.exists() else {}
    if not isinstance(data, dict):
        raise InputFileError(f"{settings_path}: expected a JSON object")
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InputFileError(
            f"{settings_path}: hooks must be an object of events",
            hint="fix the file by hand, then run the command again",
        )
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise InputFileError(
            f"{settings_path}: hooks.{event} must be a list of matcher groups",
            hint="fix the file by hand, then run the command again",
        )
    ours = [
        (group, hook)
        for group in groups
        if isinstance(group, dict)
        for hook in _hooks_of(group)
        if isinstance(hook, dict) and HOOK_MODULE in str(hook.get("command", ""))
    ]
    wanted = {"type": "command", "command": line, "timeout": timeout}
    if ours:
        group, hook = ours[0]
        if group.get("matcher") == matcher and all(hook.get(k) == v for k, v in wanted.items()):
            return False
        if group.get("matcher") != matcher:
            group["hooks"].remove(hook)
            if not group["hooks"]:
                groups.remove(group)
            groups.append({"matcher": matcher, "hooks": [wanted]})
        else:
            hook.update(wanted)
    else:
        groups.append({"matcher": matcher, "hooks": [wanted]})
    atomic_write_text(settings_path, dump_json(data), root=root)
    return True


if __name__ == "__main__":
    sys.exit(main())
