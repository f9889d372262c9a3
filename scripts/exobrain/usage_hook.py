"""The Claude Code usage hook: one usage line per skill the agent invokes.

Claude Code runs ``python -m exobrain.usage_hook --repo ROOT`` after every call of its
``Skill`` tool (a ``PostToolUse`` hook with matcher ``Skill``) and passes the hook payload as
JSON on stdin: ``tool_name``, ``tool_input`` (``{"skill": NAME, "args": …}``),
``tool_response``, ``cwd``, ``session_id`` …. The hook maps NAME (the link name the agent
sees, e.g. ``tidy.groups__acme``, or a plain skill name) to the skill this connection
resolves and appends ``{"kind": "usage", "value": 1, "auto": true, "agent": "claude", …}`` to
the person's ledger.

It must never get in the agent's way: every error is swallowed, written to
``$XDG_STATE_HOME/exobrain/usage-hook.log`` (default ``~/.local/state``) and the exit code is
always 0. It imports no click, rich or jsonschema, so a call costs little more than Python's
start-up. :func:`install_usage_hook` merges the hook into ``.claude/settings.local.json``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

HOOK_MODULE = "exobrain.usage_hook"
EVENT = "PostToolUse"
MATCHER = "Skill"
TIMEOUT_SECONDS = 10
LOG_LIMIT = 256 * 1024


def log_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "exobrain" / "usage-hook.log"


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
    except Exception:  # noqa: BLE001 - the log is best effort by design
        pass


def invoked_skill(payload: Any) -> str | None:
    """The skill name in a Skill tool payload, or None when the payload is about something else."""
    if not isinstance(payload, dict) or payload.get("tool_name") != MATCHER:
        return None
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    response = payload.get("tool_response") if isinstance(payload.get("tool_response"), dict) else {}
    for value in (tool_input.get("skill"), tool_input.get("skill_name"), tool_input.get("name"),
                  response.get("commandName")):
        if isinstance(value, str) and value.strip():
            return value.strip().lstrip("/")
    return None


def resolve_invoked(ws, name: str, agent: str = "claude") -> str | None:
    """The canonical ref of the skill ``name`` names for ``agent`` on this connection: its link
    name first (``tidy.groups__acme``), else a plain name that only one resolved skill has.
    None when no skill this exobrain links or lists has that name (a plugin's, a personal one)."""
    rows = [r for r in ws.resolve(agent) if r.tier != "off"]
    matches = [r for r in rows if r.link_name == name] or [r for r in rows if r.name == name]
    if len(matches) != 1:
        return None
    row = matches[0]
    home = f"external/{row.owner}" if row.is_external else row.home
    return f"skill:{row.name}@{home}"


def record_usage(payload: Any, repo: Path | None, agent: str = "claude") -> Path | None:
    """Append the usage line for ``payload``; the ledger written, or None when it was skipped."""
    from .scopes import find_root
    from .signals import author, host_id, make_signal, record_signal
    from .workspace import open_workspace

    name = invoked_skill(payload)
    if name is None:
        return None
    if repo is None:
        start = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
        repo = find_root(Path(start))
    ws = open_workspace(repo)
    ref = resolve_invoked(ws, name, agent)
    if ref is None:
        log(f"skipped {name!r}: no skill of {ws.root} resolves to that name for {agent}")
        return None
    line = make_signal("usage", ref, 1, by=author(ws), host=host_id(ws), agent=agent, auto=True)
    path, warning = record_signal(ws.root, line)
    if warning:
        log(warning)
    return path


def main(argv: list[str] | None = None) -> int:
    """Entry point: read the payload, record, log any error; always exit 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        repo = Path(args[args.index("--repo") + 1]) if "--repo" in args else None
        text = sys.stdin.read()
        record_usage(json.loads(text) if text.strip() else {}, repo)
    except Exception as exc:  # noqa: BLE001 - a hook must never fail the agent's turn
        log(f"error: {type(exc).__name__}: {exc}")
    return 0


# --- installing -----------------------------------------------------------------------------

def usage_hook_command(root: Path) -> list[str]:
    """The command Claude Code should run: this Python, this module, this exobrain."""
    return [sys.executable, "-m", HOOK_MODULE, "--repo", str(root)]


def install_usage_hook(settings_path: Path, command: list[str]) -> bool:
    """Merge the hook into a Claude settings file; True when the file changed.

    Other settings and hooks are kept as they are (unknown keys included); a hook of ours
    with an outdated command is updated in place; running it twice changes nothing. A file
    that is not a JSON object is refused (InputFileError), never rewritten. The write is atomic.
    """
    import shlex

    from .errors import InputFileError
    from .fileio import atomic_write_text, dump_json, load_json

    line = shlex.join(command)
    data: Any = load_json(settings_path) if settings_path.exists() else {}
    if not isinstance(data, dict):
        raise InputFileError(f"{settings_path}: expected a JSON object")
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InputFileError(f"{settings_path}: hooks must be an object of events",
                             hint="fix the file by hand, then run the command again")
    groups = hooks.setdefault(EVENT, [])
    if not isinstance(groups, list):
        raise InputFileError(f"{settings_path}: hooks.{EVENT} must be a list of matcher groups",
                             hint="fix the file by hand, then run the command again")
    ours = [(group, hook) for group in groups if isinstance(group, dict)
            for hook in (group.get("hooks") if isinstance(group.get("hooks"), list) else [])
            if isinstance(hook, dict) and HOOK_MODULE in str(hook.get("command", ""))]
    wanted = {"type": "command", "command": line, "timeout": TIMEOUT_SECONDS}
    if ours:
        group, hook = ours[0]
        if group.get("matcher") == MATCHER and all(hook.get(k) == v for k, v in wanted.items()):
            return False
        if group.get("matcher") != MATCHER:
            group["hooks"].remove(hook)
            if not group["hooks"]:
                groups.remove(group)
            groups.append({"matcher": MATCHER, "hooks": [wanted]})
        else:
            hook.update(wanted)
    else:
        groups.append({"matcher": MATCHER, "hooks": [wanted]})
    atomic_write_text(settings_path, dump_json(data))
    return True


if __name__ == "__main__":
    sys.exit(main())
