"""``exobrain register PATH``: check a skill, optionally bump its version, declare and lock it."""

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
from exobrain.model import DECLARED_TIERS
from exobrain.util.versions import BUMPS


@click.command("register", context_settings=HELP, epilog=exit_codes(ok="registered"))
@click.argument("path", metavar="PATH", type=click.Path(exists=True, path_type=Path))
@click.option("--bump", type=click.Choice(BUMPS), help="Raise the version before locking.")
@click.option(
    "--tier",
    type=click.Choice(DECLARED_TIERS),
    help="Tier of the declaration (new declarations default to optional).",
)
@click.option(
    "--owner", metavar="OWNER", help="Owner of a new declaration (default: the connected person)."
)
@click.option("--dry-run", is_flag=True, help="Check and print; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    path: Path,
    bump: str | None,
    tier: str | None,
    owner: str | None,
    dry_run: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Register the skill folder PATH (<scope>/skills/<name>) as a versioned artifact."""
    from exobrain.artifacts.register import register
    from exobrain.workspace import open_workspace

    done = register(open_workspace(repo), path, bump=bump, tier=tier, owner=owner, dry_run=dry_run)
    if as_json:
        emit_json(
            {
                "ref": done.ref,
                "version": done.version,
                "hash": done.hash,
                "bumped_from": done.bumped_from,
                "declared": done.declared,
                "notes": done.notes,
                "dry_run": dry_run,
            }
        )
        return
    for note in done.notes:
        click.echo(f"note: {note}")
    bumped = f" (bumped from {done.bumped_from})" if done.bumped_from else ""
    verb = "would register" if dry_run else "registered"
    click.echo(f"{verb} {done.ref} {done.version}{bumped}" + ("" if dry_run else f" {done.hash}"))
    if done.declared:
        click.echo("declaration added or updated; next: connect-agent AGENT --relink")
