"""``exobrain lifecycle NAME --to STATE``: move a skill along its lifecycle."""

from __future__ import annotations

from pathlib import Path

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    emit_json,
    exit_codes,
    json_option,
    repo_option,
    version_option,
)


@click.command("lifecycle", context_settings=HELP, epilog=exit_codes(ok="moved (or already there)"))
@click.argument("ref", metavar="REF")
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Choice(["active", "deprecated", "archived"]),
    help="The new state (draft→active→deprecated→archived; anything→archived).",
)
@click.option(
    "--in", "home", metavar="HOME", help="The skill's home scope when the name is ambiguous."
)
@click.option("--dry-run", is_flag=True, help="Print the change; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    ref: str, to: str, home: str | None, dry_run: bool, as_json: bool, repo: Path | None
) -> None:
    """Set the lifecycle of REF (NAME or skill:NAME@HOME) in its declaration."""
    from exobrain.artifacts.evolution import set_lifecycle
    from exobrain.workspace import open_workspace

    ref = f"{ref}@{home}" if home and "@" not in ref else ref
    outcome = set_lifecycle(open_workspace(repo), ref, to, dry_run=dry_run)
    emit_json(outcome.as_json()) if as_json else click.echo(outcome.summary)
