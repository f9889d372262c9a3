"""``exobrain export REF… --format agentskills-io|claude-plugin``: skills out as standard
bundles, a .skill archive or a Claude Code plugin."""

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
    "export",
    context_settings=HELP,
    epilog=exit_codes(failed="a skill failed the Agent Skills checks (nothing exported)"),
)
@click.argument("refs", metavar="REF...", nargs=-1)
@click.option(
    "--format",
    "fmt",
    required=True,
    type=click.Choice(("agentskills-io", "claude-plugin")),
    help="agentskills-io: standard skill folders; claude-plugin: a Claude Code plugin.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Folder to write into (agentskills-io: DIR/<name>/; claude-plugin: the plugin).",
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
    fmt: str,
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
    agentskills_io_compat_check; any failure exports nothing and says why (exit 1)."""
    from exobrain.interop.exporter import export_skills
    from exobrain.workspace import open_workspace

    report = export_skills(
        open_workspace(repo),
        refs,
        fmt=fmt,
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
