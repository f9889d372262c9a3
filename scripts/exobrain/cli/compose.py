"""``exobrain compose NEW --from REF --from REF …``: a skill made of skills."""

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


@click.command(
    "compose",
    context_settings=HELP,
    epilog=exit_codes(
        ok="the skill was written (or, with --dry-run, would be)",
        bad="a part that does not resolve, a name that is taken, or a broken registry",
    ),
)
@click.argument("name", metavar="NEW")
@click.option(
    "--from",
    "parts",
    multiple=True,
    required=True,
    metavar="REF",
    help="A part (skill:NAME[@HOME]); give two or more, in the order they are used.",
)
@click.option("--into", metavar="SCOPE", help="Its scope (default: your person scope).")
@click.option(
    "--description",
    metavar="TEXT",
    help="What it does and when to use it (default: from its parts).",
)
@click.option(
    "--tier", type=click.Choice(["always", "optional", "unlisted"]), help="Default: optional."
)
@click.option(
    "--owner", metavar="OWNER", help="Owner of the declaration (default: the connected person)."
)
@click.option("--dry-run", is_flag=True, help="Print what would be made; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    name: str,
    parts: tuple[str, ...],
    into: str | None,
    description: str | None,
    tier: str | None,
    owner: str | None,
    dry_run: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Compose NAME from skills: a `source: composed` skill whose body links its parts and
    whose dependencies.skills names them, declared and locked at 0.1.0. Wherever it is linked,
    connect-agent links its parts too."""
    from exobrain.artifacts.compose import compose
    from exobrain.workspace import open_workspace

    done, path = compose(
        open_workspace(repo),
        name,
        list(parts),
        into=into,
        description=description,
        tier=tier,
        owner=owner,
        dry_run=dry_run,
    )
    if as_json:
        emit_json({"ref": done.ref, "version": done.version, "path": path, "dry_run": dry_run})
        return
    verb = "would compose" if dry_run else "composed"
    click.echo(f"{verb} {done.ref} {done.version} from {', '.join(parts)} ({path})")
    if not dry_run:
        click.echo(f"next: connect-agent AGENT --relink links it and its {len(parts)} parts")
