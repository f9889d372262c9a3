"""``fetch-external-skills``: install, refresh and prune the external skills of connected agents."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from exobrain.cli.edge import (
    command_edge,
    emit_json,
    json_option,
    repo_option,
    report_findings,
    stdout_is_terminal,
)

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from exobrain.fetch.report import SkillEvent

STYLES = {
    "fetched": "green",
    "updated": "green",
    "moved": "green",
    "unchanged": "dim",
    "removed": "yellow",
    "modified": "yellow",
    "failed": "bold red",
}


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
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
    help="Cache folder (default: $EXOBRAIN_CACHE_DIR or ~/.cache/exobrain).",
)
@click.option("--allow-local", is_flag=True, help="Accept file:// URLs and local paths as sources.")
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
    when they moved. Installs that are off or no longer declared are removed.

    Exit 0 when everything is in place, 1 when a skill failed (or, with --check, when
    something would change), 2 for bad usage or broken input files.
    """
    from exobrain.agents import agent_names as known_agents
    from exobrain.agents import get_agent
    from exobrain.errors import UsageError
    from exobrain.fetch.fetcher import sync_external
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
    view = _View(as_json)
    reports = []
    try:
        for agent in agents:
            reports.append(
                sync_external(
                    ws,
                    agent,
                    agent.skills_dir(ws.root, user),
                    user=user,
                    cache_dir=cache_dir,
                    force=force,
                    check=check,
                    allow_local=True if allow_local else None,
                    progress=view.event,
                )
            )
    finally:
        view.close()
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
            view.say(report.summary())
    report_findings(ws.findings)
    for report in reports:
        for warning in report.warnings:
            click.echo(f"warning: {warning}", err=True)
    sys.exit(code)


class _View:
    """Per-skill output: a live spinner on a terminal's stderr, one line per skill otherwise."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.progress: Progress | None = None
        self.tasks: dict[tuple[str, str], TaskID] = {}
        if not as_json and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn

            self.progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                console=Console(stderr=True),
                transient=True,
            )
            self.progress.start()
        self.rich_lines = self.progress is not None and stdout_is_terminal()

    def event(self, event: SkillEvent) -> None:
        key = (event.agent, event.link_name)
        if event.action == "checking":
            if self.progress is not None:
                self.tasks[key] = self.progress.add_task(f"{event.agent}  {event.link_name}")
            return
        if self.progress is not None and key in self.tasks:
            self.progress.remove_task(self.tasks.pop(key))
        self.say(event.line(), STYLES.get(event.action, "cyan"))

    def say(self, text: str, style: str | None = None) -> None:
        if self.as_json:
            return
        if self.rich_lines and self.progress is not None:
            from rich.text import Text

            self.progress.console.print(Text(text, style=style or ""))
        else:
            click.echo(text)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
