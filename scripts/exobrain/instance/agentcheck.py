"""selftest's agent and git-hook checks, built on connect-agent's own plan.

What connect-agent would do right now is exactly what it plans in a dry run; so an agent's
links, indexes, context files and git hooks are as they should be when that plan holds only
"kept" actions. Nothing here writes: a dry run plans, reads the disk and stops.
"""

from __future__ import annotations

import os
from pathlib import Path

from exobrain.instance.verdict import FAIL, PASS, PRE_COMMIT_MARK, SKIP, Check
from exobrain.workspace import Workspace


def connected_agents(ws: Workspace) -> list[tuple[str, bool]]:
    """(agent, user level) for every agent recorded in the connection file."""
    from exobrain.connect.connection import agent_list

    return [(a, False) for a in agent_list(ws.connection, False)] + [
        (a, True) for a in agent_list(ws.connection, True)
    ]


def check_agents(ws: Workspace) -> Check:
    from exobrain.connect.connector import connect
    from exobrain.connect.request import Request
    from exobrain.search import preload as search_preloads

    agents = connected_agents(ws)
    if not agents:
        return Check(
            "agents", SKIP, "no agent connected here", fix="connect one with connect-agent AGENT"
        )
    problems: list[str] = []
    for agent, user in agents:
        label = f"{agent} (user level)" if user else agent
        report = connect(
            Request(agent, ws.root, relink=True, dry_run=True, user=user, preloads=search_preloads)
        )
        for action in report.actions:
            if action.op != "keep":
                what = action.name or action.path.name
                why = f": {action.reason}" if action.reason else ""
                problems.append(f"{label}: would {action.op} {action.kind} {what}{why}")
        problems += [f"{label}: {p}" for p in report.problems]
    names = ", ".join(label for label, _ in agents)
    if problems:
        relinks = "; ".join(
            f"connect-agent {a} --relink" + (" --user" if u else "") for a, u in agents
        )
        return Check(
            "agents", FAIL, f"{len(problems)} difference(s) from the plan", problems, relinks
        )
    return Check("agents", PASS, f"{names}: links and indexes equal the plan")


def check_hooks(ws: Workspace) -> Check:
    from exobrain.connect.githooks import HOOK_MARK, RELINK_HOOKS, VALIDATE_HOOK, hooks_dir

    folder = hooks_dir(ws.root)
    if folder is None:
        return Check("git-hooks", FAIL, "not a git work tree: no hooks folder")
    wanted: dict[str, str] = {}
    if (ws.root / ".pre-commit-config.yaml").is_file():
        wanted["pre-commit"] = PRE_COMMIT_MARK
    if connected_agents(ws):
        wanted.update(dict.fromkeys((*RELINK_HOOKS, VALIDATE_HOOK), HOOK_MARK))
    if not wanted:
        return Check("git-hooks", SKIP, "no hooks expected (no pre-commit config, no agent)")
    problems = [
        f"{hook}: {why}"
        for hook, mark in wanted.items()
        if (why := _hook_problem(folder / hook, mark))
    ]
    if problems:
        fixes = []
        if any(p.startswith("pre-commit:") for p in problems):
            fixes.append("pre-commit install")
        if any(not p.startswith("pre-commit:") for p in problems):
            fixes.append("connect-agent AGENT --relink")
        return Check(
            "git-hooks",
            FAIL,
            f"{len(problems)} hook(s) missing or not ours",
            problems,
            "; ".join(fixes),
        )
    return Check("git-hooks", PASS, f"{', '.join(wanted)} installed")


def _hook_problem(path: Path, mark: str) -> str | None:
    if not path.is_file():
        return "not installed"
    if not os.access(path, os.X_OK):
        return "not executable"
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    return None if mark in head else "a different hook is installed there"
