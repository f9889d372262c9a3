"""``exobrain links REF``: an artifact's links, outgoing and incoming (read-only)."""

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


@click.command(
    "links",
    context_settings=HELP,
    epilog=exit_codes(bad="bad usage (an unknown predicate), or REF is not visible to you"),
)
@click.argument("ref", metavar="REF")
@click.option(
    "--predicate",
    metavar="P",
    help="Only this predicate: uses_tool, uses_skill, derives_from, "
    "documents_artifact, supersedes.",
)
@version_option
@json_option
@repo_option
@command_edge
def command(ref: str, predicate: str | None, as_json: bool, repo: Path | None) -> None:
    """Links written in REF's frontmatter (resolved when the target is visible to you) and the
    links other visible artifacts point at REF with."""
    from exobrain.search.substrate import Substrate
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    data = Substrate(ws).links(ref, predicate)
    if as_json:
        emit_json(data)
        finish_read(ws)
    if not data["outgoing"] and not data["incoming"]:
        echo_line(f"{data['ref']}: no links")
    for link in data["outgoing"]:
        target = link["ref"] or f"{link['target']}" + (
            " (not visible)"
            if link["predicate"] in ("uses_skill", "derives_from", "supersedes")
            else ""
        )
        echo_line(f"{data['ref']} {link['predicate']} {target}")
    for link in data["incoming"]:
        echo_line(f"{link['source']} {link['predicate']} {data['ref']}")
    finish_read(ws)
