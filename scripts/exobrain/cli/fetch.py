"""``fetch-external-skills``: install, refresh and prune the external skills of connected agents."""

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
    report_findings,
    version_option,
)

STYLES = {
    "fetched": "green",
    "updated": "green",
    "moved": "green",
    "unchanged": "dim",
    "removed": "yellow",
    "modified": "yellow",
    "unverified": "yellow",
    "failed": "bold red",
}


@click.command(
    context_settings=HELP,
    epilog=exit_codes(
        ok="everything is in place",
        failed="a skill failed or an install differs from the commit it was fetched from "
        "(with --check, also: something would change or an install cannot be checked)",
    ),
)
@click.option(
    "--agent",
    "agent_names",
    multiple=True,
    metavar="AGENT",
    help="Agent to fetch for (repeatable; default: the agents in .exobrain.json).",
)
@click.option("--user", is_flag=True, help="Use each agent's user-level skills folder.")
@click.option(
    "--force",
    is_flag=True,
    help="Fetch again even when pinned, and replace or remove locally modified copies.",
)
@click.option(
    "--check", is_flag=True, help="Only report what would change (exit 1 when something would)."
)
@json_option
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Cache folder (default: $EXOBRAIN_CACHE_DIR or ~/.cache/exobrain).",
)
@click.option("--allow-local", is_flag=True, help="Accept file:// URLs and local paths as sources.")
@version_option
@repo_option
@command_edge
def main(
    agent_names: tuple[str, ...],
    user: bool,
    force: bool,
    check: bool,
    as_json: bool,
    cache_dir: Path | None,
    allow_local: bool,
    repo: Path | None,
) -> None:
    """Fetch the external skills (declarations with a source) your connection resolves.

    Each skill is fetched from its git repository through one cached partial clone per
    repository, into the agent's skills folder (always) or the sibling skills-optional/
    (optional, unlisted). Pinned commits and tags are fetched once; branches are re-fetched
    when they moved. Installs that are off or no longer declared are removed. One line per
    skill; on a terminal, a progress display while it works.
    """
    from exobrain.agents import agent_names as known_agents
    from exobrain.agents import get_agent
    from exobrain.errors import UsageError
    from exobrain.fetch.fetcher import sync_external
    from exobrain.fetch.report import SkillEvent
    from exobrain.workspace import open_workspace

    if check and force:
        raise UsageError("--check reports without changing anything; drop --force")
    ws = open_workspace(repo)
    names = list(dict.fromkeys(agent_names or ws.connection.agents))
    if not names:
        raise UsageError(
            "no agent to fetch for: .exobrain.json lists no connected agents",
            hint=f"pass --agent NAME (one of: {', '.join(known_agents())})",
        )
    agents = [get_agent(name) for name in names]
    from exobrain.cli.progress import progress

    reports = []
    with progress("fetching external skills", quiet=as_json) as display:
        finished = 0

        def event(happened: SkillEvent) -> None:
            nonlocal finished
            if happened.action == "checking":
                display.tick(finished, None, f"{happened.agent} {happened.link_name}")
                return
            finished += 1
            display.tick(finished, None, "")
            if not as_json:
                display.say(happened.line(), STYLES.get(happened.action, "cyan"))

        for agent in agents:
            reports.append(
                sync_external(
                    ws,
                    agent.folders(ws.root, user),
                    cache_dir=cache_dir,
                    force=force,
                    check=check,
                    allow_local=True if allow_local else None,
                    progress=event,
                )
            )
    code = (
        2
        if ws.has_bad_input
        else (1 if any(r.failed or r.tampered or (check and r.pending) for r in reports) else 0)
    )
    if as_json:
        emit_json(
            {
                "check": check,
                "exit_code": code,
                "reports": [r.as_json() for r in reports],
                "findings": [f.as_json() for f in ws.findings],
            }
        )
    else:
        for report in reports:
            click.echo(report.summary())
    report_findings(ws.findings)
    for report in reports:
        for warning in report.warnings:
            click.echo(f"warning: {warning}", err=True)
    sys.exit(code)
