"""How ``connect-agent`` shows its report: a marked line per change on a terminal, the
closing summary, and the ``--json`` document (:mod:`exobrain.cli.connect` runs the command)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from exobrain.cli.edge import echo_line
from exobrain.paths import shown
from exobrain.util.terminal import safe_line

SYMBOLS = {"keep": "✓", "create": "+", "replace": "~", "remove": "-", "skip": "!"}
COLOURS = {
    "keep": "green",
    "create": "cyan",
    "replace": "yellow",
    "remove": "magenta",
    "skip": "red",
}
_EXTERNAL = {
    "fetched": "↓",
    "updated": "↑",
    "unchanged": "=",
    "moved": "→",
    "removed": "-",
    "modified": "!",
    "failed": "✗",
}
VERBS = {
    "link": {
        "keep": "kept",
        "create": "linked",
        "replace": "replaced",
        "remove": "removed",
        "skip": "skipped",
    },
    "file": {
        "keep": "kept",
        "create": "wrote",
        "replace": "updated",
        "remove": "removed",
        "skip": "skipped",
    },
    "block": {
        "keep": "kept",
        "create": "added block",
        "replace": "updated block",
        "remove": "removed block",
        "skip": "skipped",
    },
    "entry": {
        "keep": "kept",
        "create": "wrote",
        "replace": "updated entry",
        "remove": "removed",
        "skip": "skipped",
    },
    "hook": {
        "keep": "kept",
        "create": "installed",
        "replace": "updated",
        "remove": "removed",
        "skip": "skipped",
    },
    "connection": {"create": "wrote", "replace": "updated"},
}


def _line(action, root: Path) -> str:
    symbol = click.style(SYMBOLS[action.op], fg=COLOURS[action.op], bold=True)
    verb = VERBS[action.kind][action.op]
    if action.kind == "link":
        subject = action.name
        if action.op in ("create", "replace") or (action.op == "keep" and action.target):
            subject += f" → {action.target}"
    else:
        subject = shown(action.path, root)
    reason = f" ({action.reason})" if action.reason and action.op != "skip" else ""
    if action.op == "skip":
        reason = f": {action.reason}"
    return f"{symbol} {verb:<13} {safe_line(subject + reason)}"  # names and paths: anyone's


def render_report(report, quiet: bool) -> None:
    """The report on a terminal: who is connected, a line per change, hooks, the summary."""
    root = report.root
    if report.never_connected:
        for note in report.notes:
            click.echo(note)
        _render_steps(report)
        return
    who = ", ".join(report.connected_scopes) or "guest: global only"
    if report.person:
        who += f" (as {report.person})"
    echo_line(f"{report.agent} [{report.level}] ← {who} → {shown(report.skills_dir, root)}")
    for note in report.notes:
        echo_line(f"  note: {note}")
    for event in report.external.events if report.external is not None else []:
        if event.action == "modified":  # said once, as the problem it is (connector)
            continue
        if not (quiet and event.action == "unchanged"):
            echo_line(
                f"{_EXTERNAL.get(event.action, '…')} external      {event.link_name}: "
                f"{event.text()}"
            )
    for action in report.actions:
        if quiet and action.op == "keep":
            continue
        click.echo(_line(action, root))
    for hook in report.hooks_planned if report.dry_run else []:
        path = safe_line(shown(hook.path, root))
        if hook.trusted:
            click.echo(f"  would run {path}")
        else:
            click.echo(f"  would not run {path}: not trusted on this machine ({hook.trust})")
    for result in report.hooks_run:
        _render_hook(result, root)
    for warning in report.warnings:
        echo_line(f"warning: {warning}", err=True)
    for problem in report.problems:
        echo_line(f"problem: {problem}", err=True)
    click.echo(_summary(report))
    _render_steps(report)


def _render_steps(report) -> None:
    """The lines of --track-usage and --mcp, after the rest."""
    root = report.root
    if report.usage_hook is not None:
        mark = "+ usage hook  " if report.usage_hook.changed else "✓ usage hook  "
        click.echo(f"{mark}{shown(report.usage_hook.settings, root)}")
    server = report.mcp
    if server is not None:
        where = shown(server.path, root)
        if server.skipped:
            click.echo(f"! mcp server   {where}: skipped: {server.skipped}")
            return
        click.echo(f"{'+' if server.changed else '✓'} mcp server   {where}")
        if server.excluded:
            click.echo(
                "  kept out of git: listed in .git/info/exclude (it holds this machine's paths)"
            )
        if server.start.starts is False and server.start.step:
            click.echo(f"! mcp server   {report.agent} will not start it yet; one step:")
            for line in server.start.step.splitlines():
                click.echo(f"    {line}")
        elif server.start.starts:
            click.echo(f"  {report.agent} starts it in this folder")


def _render_hook(result, root: Path) -> None:
    """A scope hook's line; what the hook printed follows as it printed it (it ran because
    this machine trusts its content)."""
    path = safe_line(shown(result.hook.path, root))
    if result.untrusted:
        error = safe_line(result.error or "")
        click.echo(f"{click.style('!', fg='red', bold=True)} not run       {path}: {error}")
        return
    if result.ok:
        click.echo(
            f"{click.style('✓', fg='green', bold=True)} ran           {path} "
            f"({result.seconds:.1f}s)"
        )
    else:
        why = (
            f"timed out after {result.seconds:.1f}s; killed"
            if result.timed_out
            else result.error or f"exited {result.exit_code}"
        )
        click.echo(f"{click.style('!', fg='red', bold=True)} hook failed   {path}: {why}")
    for line in result.output.splitlines():
        click.echo(f"    {line}")


def _summary(report) -> str:
    """The closing line; each count is the number of lines above it with that mark (a
    ``! skipped`` file or hook counts as skipped like a link)."""
    links = [a for a in report.actions if a.kind == "link"]
    counts = {op: sum(1 for a in links if a.op == op) for op in SYMBOLS}
    skipped = sum(1 for a in report.actions if a.op == "skip")
    files = sum(1 for a in report.actions if a.kind != "link" and a.changes)
    parts = [
        f"{counts['create']} linked",
        f"{counts['keep']} kept",
        f"{counts['replace']} replaced",
        f"{counts['remove']} removed",
        f"{skipped} skipped",
        f"{files} file(s) changed",
    ]
    if report.hooks_run:
        untrusted = sum(1 for r in report.hooks_run if r.untrusted)
        failed = sum(1 for r in report.hooks_run if not r.ok) - untrusted
        parts.append(f"{len(report.hooks_run) - untrusted} hook(s) run, {failed} failed")
        if untrusted:
            parts.append(f"{untrusted} not trusted")
    prefix = "dry run, nothing changed — would do: " if report.dry_run else "done: "
    return prefix + ", ".join(parts)


def report_json(report) -> dict[str, Any]:
    """The report as ``--json`` prints it."""
    root = report.root
    return {
        "agent": report.agent,
        "level": report.level,
        "dry_run": report.dry_run,
        "never_connected": report.never_connected,
        "root": str(root),
        "skills_dir": str(report.skills_dir),
        "connection": {
            "source": report.source,
            "connected_scopes": report.connected_scopes,
            "person": report.person,
            "chain": report.chain,
        },
        "plan": [a.as_json() for a in report.actions],
        "external": report.external.as_json() if report.external is not None else None,
        "scope_hooks": (
            [
                {"path": shown(h.path, root), "scope": h.scope, "trust": h.trust}
                for h in report.hooks_planned
            ]
            if report.dry_run
            else [r.as_json(root) for r in report.hooks_run]
        ),
        "result": {
            "applied": not report.dry_run and not report.never_connected,
            "changes": report.applied,
            "exit_code": report.exit_code,
        },
        "notes": report.notes,
        "warnings": report.warnings,
        "problems": report.problems,
        "findings": [f.as_json() for f in report.findings],
        **({"usage_hook": report.usage_hook.as_json()} if report.usage_hook else {}),
        **({"mcp": report.mcp.as_json()} if report.mcp else {}),
    }
