"""``exobrain fork REF --into SCOPE``: copy a skill into a scope as a new draft."""

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


@click.command("fork", context_settings=HELP, epilog=exit_codes(ok="forked"))
@click.argument("ref", metavar="REF")
@click.option(
    "--into",
    required=True,
    metavar="SCOPE",
    help="The scope that gets the copy (e.g. people/alice).",
)
@click.option("--name", metavar="NAME", help="A new name for the copy.")
@click.option("--owner", metavar="OWNER", help="Owner of the copy (default: the connected person).")
@click.option("--dry-run", is_flag=True, help="Print what would happen; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    ref: str,
    into: str,
    name: str | None,
    owner: str | None,
    dry_run: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Fork REF: a native draft at version 0.1.0 whose links.derives_from records the original's
    ref, version and hash. The original is not changed."""
    from exobrain.artifacts.evolution import fork
    from exobrain.workspace import open_workspace

    outcome = fork(open_workspace(repo), ref, into, name=name, owner=owner, dry_run=dry_run)
    emit_json(outcome.as_json()) if as_json else click.echo(outcome.summary)
