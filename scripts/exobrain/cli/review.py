"""``authoring-review``: a new shared skill must carry committed proof that it earns its reach."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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


@click.command(
    context_settings=HELP,
    epilog=exit_codes(
        ok="clean (or skipped, or no base to compare with)",
        failed="a new shared skill lacks proof, a lifecycle change is not allowed, or git failed",
        more="3 no findings, but review needed: executables, importable Python at the root or "
        "crons.json commands that are new or changed are listed for a person to read (0 with "
        "--review-ok)",
    ),
)
@click.option(
    "--base",
    metavar="REV",
    help="Compare with the merge base of HEAD and REF (default: origin/HEAD, else "
    "origin/main, main, master).",
)
@click.option(
    "--review-ok",
    is_flag=True,
    help="Exit 0 instead of 3 when the only result is the list for a reviewer (the author's "
    "own pre-commit hook; the pull-request check keeps 3).",
)
@version_option
@json_option
@repo_option
@command_edge
def main(base: str | None, review_ok: bool, as_json: bool, repo: Path | None) -> None:
    """Check that each skill new in a shared scope carries committed proof.

    Shared scopes are global, seed, groups and teams (every scope type but person and host).
    A skill is new when its declaration or SKILL.md appears there and was not there at the
    base; a rename in the same registry keeps its standing, a move from a person scope does
    not. Proof is tracked by git (staged or committed) inside the skill's folder — a test
    (test_*, *_test.*, *.test.* in any language, tests/…) that is not empty, an eval
    (evals/*.json, *.eval.json) that parses, an ab-results.json with recorded runs — or a
    crons.json job naming the skill. Lifecycle changes must go
    draft→active→deprecated→archived (or straight to archived). What runs on members'
    machines and is new or changed -- executables of shared scopes, importable Python at the
    repository root (a package, module or .pth file the base did not have), crons.json
    commands -- and every new voter (a person scope a change adds) is listed for a person to
    read: "review needed", exit 3. Set
    EXOBRAIN_SKIP_AUTHORING_REVIEW=1 to skip the check (it says so).
    """
    from exobrain.gate.review import (
        REVIEW_NEEDED,
        SKIP_VARIABLE,
        pick_base,
        review,
        skip_requested,
    )
    from exobrain.util.repository import Repository

    if skip_requested(dict(os.environ)):
        message = (
            f"authoring-review: skipped because {SKIP_VARIABLE}="
            f"{os.environ[SKIP_VARIABLE]}; nothing was checked"
        )
        if as_json:
            emit_json(
                {
                    "skipped": True,
                    "base": None,
                    "message": message,
                    "new_shared_skills": [],
                    "lifecycle_problems": [],
                    "warnings": [],
                    "exit_code": 0,
                }
            )
        else:
            click.echo(message)
        return
    root = _root(repo)
    git = Repository(root, own_env=True)
    chosen = pick_base(git, base)
    if chosen is None:
        message = (
            "authoring-review: no base to compare with (none of origin/HEAD, origin/main, "
            "main, master exists); nothing checked — pass --base REF"
        )
        if as_json:
            emit_json(
                {
                    "skipped": False,
                    "base": None,
                    "message": message,
                    "new_shared_skills": [],
                    "lifecycle_problems": [],
                    "warnings": [],
                    "exit_code": 0,
                }
            )
        else:
            click.echo(message)
        return
    result = review(git, chosen, on_disk=root)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    code = 0 if review_ok and result.exit_code == REVIEW_NEEDED else result.exit_code
    if as_json:
        emit_json({**result.as_json(), "exit_code": code})
    else:
        _render(result)
    sys.exit(code)


def _root(repo: Path | None) -> Path:
    """The exobrain root exactly as every other command finds it (without reading its files)."""
    from exobrain.workspace import exobrain_root

    return exobrain_root(repo)


def _reading(reading) -> None:
    """The reading list: what runs on members' machines and is new or changed (GitHub: an
    annotation each). Paths and commands are the committer's text: one filtered line each."""
    github = os.environ.get("GITHUB_ACTIONS") == "true"
    if reading.executables:
        click.echo(
            "Executables new or changed in shared scopes: they run on members' machines once "
            "trusted there (exobrain trust PATH); read each one before merging:"
        )
    for item in reading.executables:
        echo_line(f"  {item.change:15} {item.path} ({item.scope})")
        if github:
            echo_line(
                f"::warning file={item.path}::{item.change} executable in shared scope "
                f"{item.scope}: read it before merging"
            )
    if reading.python:
        click.echo(
            "Importable Python new at the repository root: Python started here with the "
            "current folder on its import path imports it instead of an installed package of "
            "that name; read it before merging:"
        )
    for found in reading.python:
        echo_line(f"  new {found.kind:11} {found.path}")
        if github:
            echo_line(
                f"::warning file={found.path.rstrip('/')}::new importable Python at the "
                "repository root: read it before merging"
            )
    if reading.commands:
        click.echo(
            "crons.json commands new or changed: every crontab they are installed in runs "
            "them unattended; read each one before merging:"
        )
    for job in reading.commands:
        echo_line(f"  {job.change:15} {job.job}: {job.command}")
        if github:
            echo_line(
                f"::warning file=crons.json::{job.change} command of job {job.job}: read it "
                "before merging"
            )
    if reading.voters:
        click.echo(
            "New voters: a person scope makes its person a voter, whose votes move every "
            "skill's score; check that each is a real member before merging:"
        )
    for voter in reading.voters:
        brings = f", {voter.ledgers} ledger(s) added" if voter.ledgers else ""
        echo_line(f"  new voter       {voter.person} ({voter.scope}{brings})")
        if github:
            echo_line(
                f"::warning file={voter.scope}/AGENTS.md::new voter {voter.person}: check the "
                "person before merging"
            )


def _render(result) -> None:
    from exobrain.gate.proof import PROOF_RULES
    from exobrain.gate.review import SKIP_VARIABLE

    base = result.base
    against = f"{base.ref} at {base.commit[:10]}" + (
        "" if base.merge_base else " (no common ancestor with HEAD)"
    )
    if not (result.unproven or result.lifecycle):
        proven = len(result.new)
        what = (
            f"{proven} new shared skill{'s' if proven != 1 else ''}, all proven"
            if proven
            else "no new shared skills"
        )
        reading = result.reading
        if not reading:
            click.echo(f"authoring-review: ok — {what} (compared with {against})")
            return
        counts = [
            f"{len(items)} {label}"
            for items, label in (
                (reading.executables, "executable(s)"),
                (reading.python, "importable Python at the root"),
                (reading.commands, "crons.json command(s)"),
                (reading.voters, "new voter(s)"),
            )
            if items
        ]
        click.echo(
            f"authoring-review: review needed — {what}, "
            f"{', '.join(counts)} to read (compared with {against})"
        )
        _reading(reading)
        return
    unproven = result.unproven
    if unproven:
        count = len(unproven)
        click.echo(
            f"authoring-review: {count} new shared skill{'s' if count != 1 else ''} "
            f"without committed proof (compared with {against})"
        )
        for skill in unproven:
            click.echo(f"  {skill.name} ({skill.scope}): {skill.reason}")
            click.echo(f"    proof: {skill.needs()}")
            for found in skill.rejected:
                click.echo(f"    not proof: {found}")
            for path in skill.untracked:
                click.echo(f"    note: {path} is on disk but not tracked by git: git add it")
    if result.lifecycle:
        click.echo(
            f"authoring-review: lifecycle changes that are not allowed (compared with {against})"
        )
        for change in result.lifecycle:
            click.echo(f"  {change.name} ({change.scope}): {change.problem}")
    if unproven:
        click.echo(
            "Proof lives in the skill's own folder and must be tracked by git "
            "(staged or committed):"
        )
        for rule in PROOF_RULES:
            click.echo(f"  - {rule}")
        click.echo('  - or a job in crons.json whose "skill" names it')
        click.echo(
            "Without proof, keep the skill under a person scope "
            "(people/<you>/skills/), where it imposes on no one."
        )
    _reading(result.reading)
    click.echo(f"Skip this check once: {SKIP_VARIABLE}=1 (pre-commit: SKIP=authoring-review).")
