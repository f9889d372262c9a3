"""``exobrain events --since CURSOR``: what changed in your chain since a commit (read-only)."""

from __future__ import annotations

from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
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
    required=True,
    metavar="CURSOR",
    help='A commit (the "head" of the previous answer, an id, a tag, HEAD~5).',
)
@version_option
@json_option
@repo_option
@command_edge
def command(cursor: str, as_json: bool, repo: Path | None) -> None:
    """New and removed skills, lifecycle changes, edited skills and knowledge documents, and
    new signals in your connected chain between CURSOR and HEAD. Pass the printed head as the
    next --since to follow along."""
    from exobrain.search.events import events_since
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    data = events_since(ws, cursor)
    if as_json:
        emit_json(data)
        finish_read(ws)
    for event in data["events"]:
        extra = ""
        if event["type"] == "skill.lifecycle":
            extra = f" {event['from']} → {event['to']}"
        elif event["type"] == "skill.updated":
            version = event["version"]
            if version["from"] != version["to"]:
                extra = f" {version['from']} → {version['to']}"
        elif event["type"] == "signal":
            extra = f" {event['kind']} {event['value']} by {event['by']}"
        click.echo(f"{event['type']:18} {event['ref']}{extra}")
    click.echo(f"head: {data['head']}")
    finish_read(ws)
