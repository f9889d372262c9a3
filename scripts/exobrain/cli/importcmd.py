"""``exobrain import SOURCE``: bring skills in from a folder, bundle, archive or git repository;
``exobrain import --update NAME``: take a new upstream release of an imported skill."""

from __future__ import annotations

import sys
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

FORMATS = ("agentskills", "kdense", "claude")


@click.command(
    "import",
    context_settings=HELP,
    epilog=exit_codes(failed="some skill could not be imported (the others were)"),
)
@click.argument("source", metavar="SOURCE", required=False)
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), help="The source's format (default: detected)."
)
@click.option(
    "--into", metavar="SCOPE", help="The scope that gets the skills (default: your person scope)."
)
@click.option(
    "--name", "new_name", metavar="NAME", help="Import the one chosen skill under this name."
)
@click.option("--all", "all_skills", is_flag=True, help="Import every skill of a bundle.")
@click.option(
    "--skill",
    "skills",
    multiple=True,
    metavar="NAME",
    help="Import this skill of a bundle (repeatable).",
)
@click.option(
    "--tier",
    type=click.Choice(DECLARED_TIERS),
    help="Tier of the new declarations (default: optional).",
)
@click.option(
    "--owner",
    metavar="OWNER",
    help="Owner of the new declarations (default: the connected person).",
)
@click.option("--path", "sub_path", metavar="PATH", help="Folder inside a git repository.")
@click.option("--ref", "git_ref", metavar="REV", help="Branch, tag or commit of a git repository.")
@click.option(
    "--allow-local",
    is_flag=True,
    help="Let git read file:// and local repository paths (also a .exobrain.json setting).",
)
@click.option(
    "--update",
    "update",
    metavar="NAME",
    help="Re-import the imported skill NAME from its recorded upstream.",
)
@click.option("--dry-run", is_flag=True, help="Show what would happen; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    source: str | None,
    fmt: str | None,
    into: str | None,
    new_name: str | None,
    all_skills: bool,
    skills: tuple[str, ...],
    tier: str | None,
    owner: str | None,
    sub_path: str | None,
    git_ref: str | None,
    allow_local: bool,
    update: str | None,
    dry_run: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Import skills from SOURCE: a skill folder, a bundle folder, a .skill/.zip archive, a git
    URL (with --path and --ref) or owner/repo[/path][@ref] on GitHub. Each skill is translated
    (repairs are listed), copied into <scope>/skills/<name>/, declared and locked with its
    upstream commit and hash. On a terminal, a progress display while it works."""
    from exobrain.errors import UsageError
    from exobrain.workspace import open_workspace

    ws = open_workspace(repo)
    if update:
        extra = [
            flag
            for flag, value in (
                ("SOURCE", source),
                ("--format", fmt),
                ("--name", new_name),
                ("--all", all_skills),
                ("--skill", skills),
                ("--tier", tier),
                ("--owner", owner),
                ("--path", sub_path),
                ("--ref", git_ref),
            )
            if value
        ]
        if extra:
            raise UsageError(
                f"--update takes only NAME (and --into, --dry-run); drop {', '.join(extra)}"
            )
        from exobrain.interop.reimport import update_skill

        report = update_skill(
            ws, update, into=into, dry_run=dry_run, allow_local=True if allow_local else None
        )
    else:
        if not source:
            raise UsageError("give a SOURCE to import, or --update NAME")
        if all_skills and skills:
            raise UsageError("give --all or --skill, not both")
        from exobrain.cli.progress import progress
        from exobrain.interop.importer import import_skills

        with progress(f"importing {source}", quiet=as_json) as display:
            report = import_skills(
                ws,
                source,
                fmt=fmt,
                into=into,
                new_name=new_name,
                skills=skills,
                all_skills=all_skills,
                tier=tier,
                owner=owner,
                path=sub_path,
                ref=git_ref,
                dry_run=dry_run,
                allow_local=True if allow_local else None,
                tick=display.tick,
            )
    code = 1 if report.skipped else 0
    if as_json:
        emit_json({**report.as_json(), "exit_code": code})
        sys.exit(code)
    _render(report)
    sys.exit(code)


def _render(report) -> None:
    click.echo(f"{report.source}: format {report.format} ({report.reason}); into {report.scope}")
    for note in report.notes:
        click.echo(f"note: {note}")
    for item in report.items:
        if item.status == "skipped":
            click.echo(f"skipped  {item.name} ({item.upstream}): {item.problem}")
            continue
        moved = item.previous and item.status != "up to date"
        version = f"{item.previous} → {item.version}" if moved else item.version
        click.echo(f"{item.status:8} {item.ref} {version}  from {item.upstream}")
        for line in item.repairs:
            click.echo(f"  repaired: {line}")
        for line in item.flags:
            click.echo(f"  flagged:  {line}")
        for line in item.notes:
            click.echo(f"  note:     {line}")
    done = [i for i in report.items if i.status in ("imported", "updated")]
    planned = [i for i in report.items if i.status.startswith("would")]
    if report.skipped:
        click.echo(
            f"{len(report.items) - len(report.skipped)} of {len(report.items)} skills "
            f"{'would be ' if report.dry_run else ''}imported; {len(report.skipped)} "
            f"skipped (nothing of them was written)"
        )
    if report.dry_run and planned:
        click.echo("dry run: nothing was written")
    elif done:
        click.echo("next: skills-validate, then connect-agent AGENT --relink")
