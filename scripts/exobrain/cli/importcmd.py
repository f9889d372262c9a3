"""``exobrain import SOURCE``: bring skills in from a folder, bundle, archive or git repository;
``exobrain import --update NAME``: take a new upstream release of an imported skill;
``exobrain import --update --all``: the same for every imported skill at once."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from exobrain.cli.edge import (
    HELP,
    command_edge,
    echo_line,
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
    epilog=exit_codes(failed="some skill could not be imported or updated (the others were)"),
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
@click.option(
    "--all",
    "all_skills",
    is_flag=True,
    help="Import every skill of a bundle; with --update, update every imported skill.",
)
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
    is_flag=False,
    flag_value="",
    metavar="[NAME]",
    help="Re-import the imported skill NAME from its recorded upstream, or from SOURCE (a local "
    "source: this machine's own folder, archive or repository); --update --all: each.",
)
@click.option(
    "--fork-local",
    is_flag=True,
    help="With --update: fork a locally edited skill (keeping the edits) before taking upstream.",
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
    fork_local: bool,
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
    if fork_local and update is None:
        raise UsageError("--fork-local goes with --update NAME or --update --all")
    if update is not None:
        extra = [
            flag
            for flag, value in (
                ("SOURCE", source if all_skills else None),
                ("--format", fmt),
                ("--name", new_name),
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
                f"--update takes only NAME [SOURCE] or --all (and --into, --fork-local, "
                f"--dry-run, --allow-local); drop {', '.join(extra)}"
            )
        if bool(update) == all_skills:
            raise UsageError("give --update NAME for one skill or --update --all for every one")
        if all_skills:
            from exobrain.interop.reimport_all import update_all

            batch = update_all(
                ws,
                into=into,
                dry_run=dry_run,
                fork_local=fork_local,
                allow_local=True if allow_local else None,
            )
            _finish_batch(batch, as_json)
        from exobrain.interop.reimport import update_skill

        report = update_skill(
            ws,
            update,
            into=into,
            source=source,
            dry_run=dry_run,
            fork_local=fork_local,
            allow_local=True if allow_local else None,
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
    _gate_ahead(ws, report)
    sys.exit(code)


def _gate_ahead(ws, report) -> None:
    """Say before the commit what the authoring gate will ask of skills imported into a
    shared scope, and the path that does not fight it."""
    from exobrain.gate.preview import after_import

    scope = ws.scope_at(report.scope)
    names = [i.name for i in report.items if i.status in ("imported", "would import")]
    if scope is None:
        return
    person = ws.connection.person or ""
    for line in after_import(ws.root, scope.path, scope.type, names, person):
        click.echo(line)


def _render(report) -> None:
    echo_line(f"{report.source}: format {report.format} ({report.reason}); into {report.scope}")
    for note in report.notes:
        echo_line(f"note: {note}")
    for item in report.items:
        if item.status == "skipped":
            echo_line(f"skipped  {item.name} ({item.upstream}): {item.problem}")
            _render_hidden(item)
            continue
        moved = item.previous and item.status != "up to date"
        version = f"{item.previous} → {item.version}" if moved else item.version
        echo_line(f"{item.status:8} {item.ref} {version}  from {item.upstream}")
        for line in item.repairs:
            echo_line(f"  repaired: {line}")
        for line in item.flags:
            echo_line(f"  flagged:  {line}")
        _render_hidden(item)
        for line in item.notes:
            echo_line(f"  note:     {line}")
        if item.forked:
            click.echo(f"  {'would fork' if report.dry_run else 'forked'}: {_forked(item)}")
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


def _render_hidden(item) -> None:
    """The hidden characters found in the incoming folder, one line each (their level says
    what they mean for the scope: an error refuses the skill, a warning or info does not)."""
    for found in item.hidden:
        at = f"{found['file']}:{found['line']}" if found.get("line") else found["file"]
        echo_line(f"  hidden:   {found['level'].upper()} {at}: {found['message']}")


def _forked(item) -> str:
    return f"the local edits of {item.ref} into {item.forked} (a native draft)"


def _finish_batch(batch, as_json: bool) -> NoReturn:
    """Print the outcome of --update --all (one line per skill, a total, then the fixes) and
    exit: 1 when some skill could not be updated."""
    code = 1 if batch.failed else 0
    if as_json:
        emit_json({**batch.as_json(), "exit_code": code})
        sys.exit(code)
    for item in batch.items:
        if item.problem:
            echo_line(f"{item.status:12} {item.ref}: {item.problem}")
            continue
        moved = item.previous and item.status != "up to date"
        version = f"{item.previous} → {item.version}" if moved else item.version
        forked = f"; {'would fork' if batch.dry_run else 'forked'} {_forked(item)}"
        echo_line(f"{item.status:12} {item.ref} {version}{forked if item.forked else ''}")
        _render_hidden(item)
    where = f" in {batch.scope}" if batch.scope else ""
    counts = ", ".join(f"{n} {status}" for status, n in batch.totals().items())
    click.echo(f"{len(batch.items)} imported skill(s){where}: {counts or 'none'}")
    if batch.failed:
        names = ", ".join(str(i.ref) for i in batch.failed)
        click.echo(f"not updated: {names} (nothing of them was written)")
        for ref, hint in batch.hints.items():
            click.echo(f"  fix {ref}: {hint}")
    if batch.dry_run:
        click.echo("dry run: nothing was written")
    elif any(i.status == "updated" for i in batch.items):
        click.echo("next: skills-validate, then connect-agent AGENT --relink")
    sys.exit(code)
