"""``exobrain get REF``: one skill or knowledge document, in full (read-only)."""

from __future__ import annotations

from pathlib import Path

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
from exobrain.util.terminal import safe_text


@click.command(
    "get", context_settings=HELP, epilog=exit_codes(bad="bad usage, or REF is not visible to you")
)
@click.argument("ref", metavar="REF")
@version_option
@json_option
@repo_option
@command_edge
def command(ref: str, as_json: bool, repo: Path | None) -> None:
    """Print an artifact you can see: skill:NAME[@HOME] or knowledge:PATH[@SCOPE] (PATH below
    knowledge/, without .md). Its frontmatter, body and links; --json for all fields."""
    from exobrain.search.engine import signal_quality
    from exobrain.search.substrate import Substrate
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    row = Substrate(ws, signal_quality(ws)).get(ref)
    if as_json:
        emit_json(row)
        finish_read(ws)
    # what follows came from files: each line through the one output filter, the body as
    # lines (its newlines and tabs kept, every other control shown escaped)
    echo_line(f"{row['ref']}  ({row['type']}, {row['lifecycle']}, tier {row['tier']})")
    for key in ("path", "owner", "version", "hash", "quality"):
        if row.get(key) is not None:
            echo_line(f"  {key + ':':9} {row[key]}")
    if row["description"]:
        echo_line(f"  {'about:':9} {' '.join(row['description'].split())}")
    for link in row["links"]["outgoing"]:
        echo_line(f"  {link['predicate']} → {link['ref'] or link['target']}")
    for link in row["links"]["incoming"]:
        echo_line(f"  {link['predicate']} ← {link['source']}")
    click.echo("")
    click.echo(safe_text(row["body"].strip("\n")))
    finish_read(ws)
