"""``exobrain export REF… --format agentskills-io|claude-plugin``: skills out as standard
bundles, a .skill archive or a Claude Code plugin; ``exobrain export --lock skills-lock``: the
pins of external skills out as another installer's lock file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from exobrain.workspace import Workspace


@click.command(
    "export",
    context_settings=HELP,
    epilog=exit_codes(
        failed="a skill failed the Agent Skills checks, or a pin cannot be written in the "
        "lock format (nothing exported)"
    ),
)
@click.argument("refs", metavar="REF...", nargs=-1)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("agentskills-io", "claude-plugin")),
    help="agentskills-io: standard skill folders; claude-plugin: a Claude Code plugin.",
)
@click.option(
    "--lock",
    "lock_fmt",
    type=click.Choice(("skills-lock",)),
    help="Instead of skills: the external skills' pins as a lock file (skills-lock: "
    "skills-lock.json of vercel's skills CLI, restored with npx skills experimental_install).",
)
@click.option(
    "--scope",
    "lock_scope",
    metavar="SCOPE",
    help="--lock: the external skills SCOPE declares (default: those the connection resolves).",
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="AGENT",
    help="--lock: resolve for AGENT (repeatable; default: the connected agents).",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Folder to write into (agentskills-io: DIR/<name>/; claude-plugin: the plugin); "
    "with --lock the file to write (default: ./skills-lock.json).",
)
@click.option(
    "--zip",
    "zip_file",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Write a .skill/.zip archive whose root holds the skill folder(s).",
)
@click.option(
    "--all",
    "all_scope",
    metavar="SCOPE",
    help="Export every skill declared in SCOPE (archived ones left out).",
)
@click.option(
    "--strip", is_flag=True, help="Drop the native fields instead of keeping them in metadata."
)
@click.option(
    "--name",
    "plugin_name",
    metavar="NAME",
    help="The plugin's name (claude-plugin; default: from -o).",
)
@click.option("--dry-run", is_flag=True, help="Check and list; write nothing.")
@version_option
@json_option
@repo_option
@command_edge
def command(
    refs: tuple[str, ...],
    fmt: str | None,
    lock_fmt: str | None,
    lock_scope: str | None,
    agents: tuple[str, ...],
    out: Path | None,
    zip_file: Path | None,
    all_scope: str | None,
    strip: bool,
    plugin_name: str | None,
    dry_run: bool,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Export skills (REF: skill:NAME[@HOME]) after checking each with
    agentskills_io_compat_check, or with --lock the pins of external skills; any failure
    exports nothing and says why (exit 1)."""
    from exobrain.errors import UsageError
    from exobrain.workspace import open_workspace

    if (fmt is None) == (lock_fmt is None):
        raise UsageError("give --format FORMAT (skills) or --lock FORMAT (pins), one of them")
    if lock_fmt is not None:
        if refs or zip_file or all_scope or strip or plugin_name:
            raise UsageError("--lock takes only --scope, --agent, -o FILE and --dry-run")
        _lock(open_workspace(repo), lock_fmt, out, lock_scope, agents, dry_run, as_json)
        return
    if lock_scope or agents:
        raise UsageError("--scope and --agent go with --lock; use --all SCOPE for skills")
    from exobrain.interop.exporter import export_skills

    report = export_skills(
        open_workspace(repo),
        refs,
        fmt=str(fmt),
        out=out,
        zip_file=zip_file,
        all_scope=all_scope,
        strip=strip,
        plugin_name=plugin_name,
        dry_run=dry_run,
    )
    if as_json:
        emit_json({**report.as_json(), "dry_run": dry_run})
        return
    verb = "would export" if dry_run else "exported"
    for skill in report.skills:
        moved = f" (into metadata: {', '.join(skill.moved)})" if skill.moved else ""
        click.echo(f"{verb} {skill.ref}{moved}")
    for ref in report.skipped_archived:
        click.echo(f"left out {ref} (archived)")
    click.echo(f"{len(report.skills)} skill(s) → {report.destination} ({report.format})")


def _lock(
    ws: Workspace,
    fmt: str,
    out: Path | None,
    scope: str | None,
    agents: tuple[str, ...],
    dry_run: bool,
    as_json: bool,
) -> None:
    from exobrain.interop.exporter import export_lock
    from exobrain.util.terminal import safe_line

    report = export_lock(ws, fmt, out=out, scope=scope, agents=agents, dry_run=dry_run)
    if as_json:
        emit_json({**report.as_json(), "dry_run": dry_run})
        return
    verb = "would pin" if dry_run else "pinned"
    for skill in report.skills:
        pinned = "" if skill.ref == skill.declared_ref else f" (declared {skill.declared_ref})"
        click.echo(
            safe_line(
                f"{verb} {skill.name} to {skill.ref} = {skill.commit[:12]} "
                f"from {skill.repo} {skill.path}{pinned}"
            )
        )
    click.echo(safe_line(f"{len(report.skills)} skill(s) → {report.destination} ({fmt})"))
