"""``exobrain publish-catalog``: the catalog's rows at HEAD, committed to a branch for fresh
clones to start from (:mod:`exobrain.catalog.publish`)."""

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
    context_settings=HELP,
    epilog=exit_codes(
        ok="published",
        failed="git could not write the branch",
        bad="a work tree that differs from HEAD, a catalog with findings, or a branch that "
        "holds anything else",
    ),
)
@click.option(
    "--branch",
    metavar="BRANCH",
    default="exobrain-catalog",
    show_default=True,
    help="The branch to commit the rows to (its one commit is replaced).",
)
@version_option
@json_option
@repo_option
@command_edge
def command(branch: str, as_json: bool, repo: Path | None) -> None:
    """Commit the rows skills-status --all prints at HEAD (table, --plain and --json) to a
    branch, as one commit without history, for CI to push after each merge. A clone that
    names the branch (git config exobrain.catalog origin/BRANCH) starts its first catalog
    from them and patches them for what changed since, instead of reading every registry
    and SKILL.md. Let only CI push the branch: clones trust what it says."""
    from exobrain.catalog.publish import publish
    from exobrain.workspace import open_workspace

    done = publish(open_workspace(repo), branch)
    if as_json:
        emit_json(
            {"branch": done.branch, "commit": done.commit, "head": done.head, "rows": done.rows}
        )
        return
    click.echo(
        f"{done.branch}: the catalog of {done.head[:12]} ({done.rows} rows), "
        f"commit {done.commit[:12]}"
    )
    click.echo(f"push it: git push --force origin {done.branch}")
