"""``exobrain create-instance DIR``: render a fresh exobrain from this seed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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
    "create-instance",
    context_settings=HELP,
    epilog=exit_codes(
        ok="created (and connected)", failed="created, but connecting the agent reported problems"
    ),
)
@click.argument("target", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--person", metavar="ID", help="Create the person scope people/ID.")
@click.option(
    "--host", metavar="HOST", help="Create the host scope people/ID/hosts/HOST (needs --person)."
)
@click.option(
    "--agent", metavar="AGENT", help="Then connect this agent in the new instance (e.g. claude)."
)
@version_option
@json_option
@repo_option
@command_edge
def command(
    target: Path,
    person: str | None,
    host: str | None,
    agent: str | None,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Render a new exobrain instance into DIR (new or empty): the framework (package, tests,
    schemas, knowledge/exobrain/, the global skills and their locks, CI and pre-commit files,
    .gitignore, .gitattributes), a fresh skills.json declaring the global skills, crons.json,
    scopes.json, the person and host scopes, and a git repository with one commit. Nothing of
    seed/ is copied. --repo names the seed (default: the repository around you)."""
    from exobrain.instance.create import create_instance
    from exobrain.scopes import find_root

    seed = find_root() if repo is None else repo.expanduser().resolve()
    if agent is not None:
        from exobrain.agents import get_agent

        get_agent(agent)  # an unknown agent is refused before anything is written
    created = create_instance(seed, target, person=person, host=host)
    connected = None
    if agent is not None:
        connected = _connect(created.root, agent, person, host)
    if as_json:
        emit_json({**created.as_json(), "connect": connected})
        sys.exit(0 if connected is None else connected["exit_code"])
    click.echo(
        f"created {created.root}: {created.files} files, one commit {created.commit[:12]} on main"
    )
    click.echo(
        f"  framework: {created.framework_files} files from the seed {created.seed}"
        + (f" at {created.seed_commit[:12]}" if created.seed_commit else "")
    )
    click.echo(f"  skills.json declares: {', '.join(created.declared) or 'nothing'}")
    click.echo(f"  scopes: {', '.join(created.scopes) or 'none (pass --person ID)'}")
    for note in created.notes:
        click.echo(f"  note: {note}")
    if connected is not None:
        click.echo(f"  connected {agent}: {connected['summary']}")
        for line in connected["warnings"]:
            click.echo(f"  warning: {line}", err=True)
        for line in connected["problems"]:
            click.echo(f"  problem: {line}", err=True)
    click.echo(
        "  note: its test suite is the seed's code: exobrain selftest runs it once you have "
        "read it and trusted it there (exobrain trust --suite)"
    )
    click.echo(f"next: cd {created.root} && pip install -e '.[test]' && exobrain selftest")
    sys.exit(0 if connected is None else connected["exit_code"])


def _connect(root: Path, agent: str, person: str | None, host: str | None) -> dict[str, Any]:
    """connect-agent AGENT in the new instance, with the scopes just created (external skills
    are fetched as connect-agent fetches them; a failed fetch is only a warning)."""
    from exobrain.connect.choice import Flags
    from exobrain.connect.connector import connect
    from exobrain.connect.external import fetch_external
    from exobrain.connect.request import Request
    from exobrain.search import preload as search_preloads

    flags = Flags(person, host, (), (), person is None)
    report = connect(
        Request(
            agent,
            root,
            flags=flags,
            hostname=host or "",
            external_sync=fetch_external,
            preloads=search_preloads,
        )
    )
    links = [a for a in report.actions if a.kind == "link"]
    linked = sum(1 for a in links if a.op in ("create", "replace"))
    files = sum(1 for a in report.actions if a.kind != "link" and a.changes)
    events = report.external.events if report.external is not None else []
    failed = [f"external skill {e.link_name}: {e.text()}" for e in events if e.failed]
    return {
        "agent": agent,
        "exit_code": report.exit_code,
        "summary": f"{linked} skill(s) linked, {files} file(s) written",
        "problems": report.problems,
        "warnings": failed + report.warnings,
    }
