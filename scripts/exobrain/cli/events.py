"""``exobrain events --since CURSOR``: what changed in your chain since a commit, or with
``--follow`` as it happens (read-only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    echo_line,
    emit_json,
    exit_codes,
    finish_read,
    json_option,
    repo_option,
    version_option,
)


@click.command("events", context_settings=HELP, epilog=exit_codes())
@click.option(
    "--since",
    "cursor",
    metavar="CURSOR",
    help='A commit (the "head" of the previous answer, an id, a tag, HEAD~5).',
)
@click.option(
    "--follow",
    is_flag=True,
    help="Keep waiting: print each new event (commits and new ledger lines) as it comes, "
    "until Ctrl-C; with --json one JSON object per line.",
)
@click.option(
    "--interval",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    metavar="SECONDS",
    help="With --follow: how often to look.",
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    cursor: str | None, follow: bool, interval: float, as_json: bool, repo: Path | None
) -> None:
    """New and removed skills, lifecycle changes, edited skills and knowledge documents, skills
    invoked and new signals in your connected chain between CURSOR and HEAD. Pass the printed
    head as the next --since to follow along, or --follow to wait for them."""
    from exobrain.errors import UsageError
    from exobrain.search.events import events_since
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    if follow:
        _follow(ws, cursor, interval, as_json)
    if cursor is None:
        raise UsageError("name a commit with --since CURSOR, or pass --follow")
    data = events_since(ws, cursor)
    if as_json:
        emit_json(data)
        finish_read(ws)
    for event in data["events"]:
        echo_line(_line(event))
    echo_line(f"head: {data['head']}")
    finish_read(ws)


def _follow(ws, cursor: str | None, interval: float, as_json: bool) -> None:
    """Poll until Ctrl-C (or SIGTERM), printing each event as one line; exit 0."""
    import signal
    import sys
    import time

    from exobrain.search.follow import Follower
    from exobrain.util.terminal import json_text, safe_line

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    follower = Follower(ws, cursor)
    try:
        while True:
            for event in follower.poll():
                click.echo(json_text(event, indent=None) if as_json else safe_line(_line(event)))
            sys.stdout.flush()
            time.sleep(interval)
    except KeyboardInterrupt:
        sys.exit(0)


def _line(event: dict[str, Any]) -> str:
    """One event as a line of text (printed through the output filter: refs, people and
    agents come from registries and ledgers)."""
    kind, extra = event["type"], ""
    if kind == "skill.lifecycle":
        extra = f" {event['from']} → {event['to']}"
    elif kind == "skill.updated":
        version = event["version"]
        if version["from"] != version["to"]:
            extra = f" {version['from']} → {version['to']}"
    elif kind == "signal":
        extra = f" {event['kind']} {event['value']} by {event['by']}"
    elif kind == "skill.invoked":
        via = f" (as {event['via']})" if event.get("via") else ""
        extra = f"{via} by {event['by']}" + (f" in {event['agent']}" if event["agent"] else "")
    return f"{kind:18} {event['ref']}{extra}"
