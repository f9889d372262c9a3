"""``exobrain selftest``: check that this exobrain is healthy, one verdict per check."""

from __future__ import annotations

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

LABELS = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}
COLOURS = {"pass": "green", "fail": "red", "skip": "yellow"}


@click.command(
    "selftest",
    context_settings=HELP,
    epilog=exit_codes(ok="every check passed or was skipped", failed="a check failed"),
)
@click.option("--no-suite", is_flag=True, help="Skip the package's own test suite (fast).")
@click.option(
    "--full",
    is_flag=True,
    help="Run the whole test suite (minutes), not only its quick part (the skills' own tests "
    "and the toolkit's core tests).",
)
@click.option(
    "--suite",
    "suite_paths",
    multiple=True,
    metavar="PATH",
    help="Run only these test paths (repeatable; default: the quick part of the suite).",
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    no_suite: bool, full: bool, suite_paths: tuple[str, ...], as_json: bool, repo: Path | None
) -> None:
    """Check this exobrain: schemas present, skills-validate clean, locks current, agent docs
    true, each connected agent's links and indexes equal to connect-agent's plan, git hooks
    installed, and the quick part of the package's own tests passing (--full: all of them).
    Exit 1 when any check fails."""
    from exobrain.errors import UsageError
    from exobrain.instance.selftest import Options, selftest
    from exobrain.workspace import open_workspace

    chosen = [name for name, on in (("--no-suite", no_suite), ("--full", full)) if on]
    if suite_paths:
        chosen.append("--suite")
    if len(chosen) > 1:
        raise UsageError(f"{' and '.join(chosen)} exclude each other")
    ws = open_workspace(repo)
    umbrella = click.get_current_context().find_root()  # exobrain: the verbs docs may name
    group = umbrella.command
    verbs = frozenset(group.list_commands(umbrella) if isinstance(group, click.Group) else ())
    options = Options(suite=not no_suite, suite_paths=tuple(suite_paths), full=full, verbs=verbs)
    result = selftest(ws, options, progress=None if as_json else _line)
    if as_json:
        emit_json(result.as_json())
    else:
        counts = result.as_json()
        click.echo(
            f"selftest: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped"
        )
    sys.exit(result.exit_code)


def _line(check) -> None:
    """One check: its verdict, then its problem lines and fix, each through the output filter
    (they quote the repository's files: paths, pyproject.toml's test paths, pytest's output)."""
    from exobrain.cli.edge import stdout_is_terminal
    from exobrain.util.terminal import safe_line

    label = LABELS[check.status]
    if stdout_is_terminal():
        label = click.style(label, fg=COLOURS[check.status], bold=True)
    click.echo(f"{label}  {check.name:<16} {safe_line(check.detail)}")
    for problem in check.problems[:20]:
        echo_line(f"        {problem}")
    if len(check.problems) > 20:
        click.echo(f"        … and {len(check.problems) - 20} more (--json lists all)")
    if check.fix and check.status in ("fail", "skip"):
        echo_line(f"        fix: {check.fix}")
