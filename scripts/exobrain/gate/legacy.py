"""Files in the shapes of the original bash implementation (bo2/exobrain), which an exobrain
made with it still holds: what skills-validate says about each, as info, with how to move it to
today's form. Nothing is rewritten: the toolkit reads every shape it accepts with the same
meaning (``scopes.json``'s ``scopes`` form, ``local/``, the ``connected`` key and a list of ids in
``person``, scope hooks named ``*.sh``) and only tells about the rest (``schedule.json``, the
Claude settings hook of a script that is gone).

The full list, with the decision for each shape: ``knowledge/exobrain/scopes.md``, "Exobrains
made with the original bash implementation".
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from exobrain.connect.newscope import local_ignored
from exobrain.connect.scopehooks import HOOK_NAME
from exobrain.errors import InputFileError
from exobrain.findings import INFO, Finding
from exobrain.model import GLOBAL
from exobrain.paths import shown
from exobrain.scopes import BASH_CONNECTED_KEY, CONNECTION_FILE, LOCAL, today_form
from exobrain.util.fileio import load_json
from exobrain.workspace import Workspace

CODE = "bash-era-form"
LOCAL_CODE = "local-not-ignored"
SCHEDULE_FILE = "schedule.json"
_EVERY = re.compile(r"^\s*(\d+)\s*([mh])\s*$")


def legacy_findings(ws: Workspace) -> list[Finding]:
    """One info per file still in a bash-era shape, saying how to move it to today's form."""
    found = _scope_config(ws) + _connection(ws)
    for scope in ws.scan().scopes:
        if scope.path == LOCAL:
            found.append(_local(ws))
            found += _local_ignored(ws)
        if ws.sparse.without_folder(scope.path):
            continue  # outside the sparse checkout, no file of it on the disk
        folder = scope.directory(ws.root)
        found += _schedule(ws, folder / SCHEDULE_FILE)
        if scope.path != GLOBAL:
            found += _scope_hooks(ws, folder / "scripts")
    found += _claude_settings(ws)
    return found


def _info(ws: Workspace, path: Path, message: str) -> Finding:
    return Finding(INFO, CODE, shown(path, ws.root), message)


def _scope_config(ws: Workspace) -> list[Finding]:
    if not ws.config.bash_era:
        return []
    today = json.dumps(today_form(ws.config))
    return [
        _info(
            ws,
            ws.root / "scopes.json",
            f'the bash implementation\'s form {{"scopes": [{{"type", "collection"}}]}}, read with '
            f"the same meaning; today's form: {today}",
        )
    ]


def _connection(ws: Workspace) -> list[Finding]:
    path, raw = ws.root / CONNECTION_FILE, ws.connection.raw
    found = []
    if ws.connection.scopes_key == BASH_CONNECTED_KEY:
        found.append(
            _info(
                ws,
                path,
                f'"{BASH_CONNECTED_KEY}" is the bash implementation\'s name of the connected '
                f'scopes, read as "connected_scopes"; rename the key to move to today\'s form',
            )
        )
    if isinstance(raw.get("person"), list):
        found.append(
            _info(
                ws,
                path,
                f"person lists several ids {raw['person']}, all read as you; today's form is "
                f'one id: "person": "{ws.connection.person}"',
            )
        )
    return found


def _local(ws: Workspace) -> Finding:
    return _info(
        ws,
        ws.root / LOCAL,
        "local/ is the bash implementation's private scope, read as a host scope (skill links "
        "end in .local); today's form is a host scope: move its AGENTS.md, skills.json and "
        "skills/ to people/<you>/hosts/<host>/ and connect that",
    )


def _local_ignored(ws: Workspace) -> list[Finding]:
    """local/ is this machine's alone: shown to no one else, and it must never be committed
    either (``git add -A`` would push it while git does not ignore it)."""
    if local_ignored(ws.root):
        return []
    return [
        Finding(
            INFO,
            LOCAL_CODE,
            shown(ws.root / LOCAL, ws.root),
            "local/ is this machine's own scope but git does not ignore it, so git add -A "
            "would commit it for everyone; add the line /local/ to the root .gitignore "
            "(exobrain scope new adds it), and if it was committed already: "
            "git rm -r --cached local",
        )
    ]


def _scope_hooks(ws: Workspace, scripts: Path) -> list[Finding]:
    if not scripts.is_dir():
        return []
    return [
        _info(
            ws,
            path,
            f"a scope hook under the bash implementation's name, run as {path.stem}; rename "
            f"it to scripts/{path.stem} to move to today's form (then trust it again under "
            f"its new name: exobrain trust)",
        )
        for path in sorted(scripts.glob(f"{HOOK_NAME}*.sh"))
        if path.is_file() and not (scripts / path.stem).exists()
    ]


def _schedule(ws: Workspace, path: Path) -> list[Finding]:
    if not path.is_file():
        return []
    try:
        data = load_json(path)
    except InputFileError as exc:
        return [_info(ws, path, f"the bash implementation's scheduler file, unreadable: {exc}")]
    jobs = data.get("jobs") if isinstance(data, dict) else None
    proposed = [_cron_job(job) for job in jobs if isinstance(job, dict)] if jobs else []
    return [
        _info(
            ws,
            path,
            "the bash implementation's scheduler file, which nothing runs today; move its "
            "jobs to the top-level crons.json (`exobrain crons --crontab` installs them): "
            + json.dumps([job for job in proposed if job], ensure_ascii=False),
        )
    ]


def _cron_job(job: dict[str, Any]) -> dict[str, str] | None:
    """A bash scheduler job (``every`` "<n>m"/"<n>h", ``command`` an argv list with
    ``{ROOT}``) as a crons.json job; None for a disabled one."""
    if job.get("enabled") is False:
        return None
    argv = job.get("command")
    words = [str(w).replace("{ROOT}", ".") for w in argv] if isinstance(argv, list) else [argv]
    return {
        "name": str(job.get("name", "job")),
        "schedule": _cron_schedule(str(job.get("every", ""))),
        "command": shlex.join(str(w) for w in words),
    }


def _cron_schedule(every: str) -> str:
    """A cron expression for a bash ``every`` period (or a note to pick one)."""
    match = _EVERY.match(every)
    if not match:
        return f"<pick a schedule for every {every!r}>"
    minutes = int(match.group(1)) * (60 if match.group(2) == "h" else 1)
    if minutes < 60 and 60 % minutes == 0:
        return f"*/{minutes} * * * *" if minutes > 1 else "* * * * *"
    if minutes % 60 == 0 and 24 % (minutes // 60) == 0:
        hours = minutes // 60
        return "0 0 * * *" if hours == 24 else f"0 */{hours} * * *"
    if minutes % 1440 == 0:
        return f"0 0 */{minutes // 1440} * *"
    return f"<no cron expression repeats exactly every {every}; pick one>"


def _claude_settings(ws: Workspace) -> list[Finding]:
    """A committed ``.claude/settings.json`` hook that runs one of the bash implementation's
    scripts which no longer exists errors in every Claude session."""
    path = ws.root / ".claude" / "settings.json"
    if not path.is_file():
        return []
    try:
        data = load_json(path)
    except InputFileError:
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    commands: list[str] = [
        hook["command"]
        for groups in (hooks.values() if isinstance(hooks, dict) else [])
        for group in (groups if isinstance(groups, list) else [])
        for hook in (group.get("hooks", []) if isinstance(group, dict) else [])
        if isinstance(hook, dict) and isinstance(hook.get("command"), str)
    ]
    found = []
    for command in commands:
        for script in re.findall(r"(?:\$\{?CLAUDE_PROJECT_DIR\}?/)?(scripts/[\w.-]+\.sh)", command):
            if not (ws.root / script).is_file():
                found.append(
                    _info(
                        ws,
                        path,
                        f"a hook runs {script}, a script of the bash implementation that is "
                        f"gone: every Claude session reports it failing; remove the hook",
                    )
                )
    return found
