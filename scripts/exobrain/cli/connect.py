"""``connect-agent AGENT``: wire the skills your connection resolves into an agent."""

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


@click.command(
    context_settings=HELP,
    epilog=exit_codes(
        ok="connected (a fetch failure is only a warning)",
        failed="something in the way was skipped, a scope hook failed, or an operation failed",
    ),
)
@click.argument("agent", metavar="AGENT")
@click.option(
    "--relink",
    is_flag=True,
    help="Re-apply the stored connection without asking (does nothing when AGENT was "
    "never connected here).",
)
@click.option("--dry-run", is_flag=True, help="Print the plan and change nothing.")
@click.option(
    "--user", is_flag=True, help="Use the agent's user-level skills folder (e.g. ~/.claude/skills)."
)
@click.option(
    "--person",
    "--handle",
    "person",
    metavar="ID",
    help="Connect as this person (people/ID, plus people/ID/hosts/HOST if it exists).",
)
@click.option(
    "--host", metavar="HOST", help="Host scope under the person (default: short hostname)."
)
@click.option(
    "--group", "groups", multiple=True, metavar="GROUP", help="Also connect groups/GROUP."
)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    metavar="SCOPE",
    help="Also connect this scope (repeatable).",
)
@click.option("--guest", is_flag=True, help="Connect no scope: global skills only.")
@click.option(
    "--track-usage",
    is_flag=True,
    help="claude and gemini: install the agent's hook on its skill tool (Claude's "
    "PostToolUse on Skill, Gemini's AfterTool on activate_skill) that records a usage "
    "signal each time a skill is used (other agents: the MCP signal tool, see --mcp).",
)
@click.option(
    "--mcp",
    "mcp",
    is_flag=True,
    help="Also register the exobrain MCP server (python -I -m exobrain.mcp) in AGENT's own MCP "
    "configuration (the project's, or with --user the user's); only its entry is touched.",
)
@click.option(
    "--native-tiers/--no-native-tiers",
    "native_tiers",
    default=None,
    help="claude: also link the optional and unlisted skills and set each one's tier in "
    "Claude Code's own skillOverrides (name-only, user-invocable-only; off for a link Claude "
    "must not list), in its local settings (remembered; --no-native-tiers removes exactly "
    "what it added).",
)
@click.option(
    "--persona",
    metavar="PERSONA",
    help="Also link every skill you can see whose personas or tags include P "
    "(remembered for AGENT; --persona '' forgets it).",
)
@click.option(
    "--discover",
    "discover",
    metavar="TEXT",
    help="Write discovered-skills.md: the top skills for this task (remembered for "
    "AGENT; --discover '' forgets it).",
)
@click.option(
    "--sparse/--no-sparse",
    default=None,
    help="Keep a sparse checkout of only what the connection needs, in step after every "
    "pull (remembered; --no-sparse stops following, git sparse-checkout disable undoes it).",
)
@click.option("-q", "--quiet", is_flag=True, help="Do not list what was kept as it was.")
@click.option(
    "--force",
    is_flag=True,
    help="Connect even though this repository is not an exobrain (no skills.json at its root).",
)
@click.option(
    "--hook-timeout",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Time limit for each scope hook.",
)
@version_option
@json_option
@repo_option
@command_edge
def main(
    agent: str,
    relink: bool,
    dry_run: bool,
    user: bool,
    person: str | None,
    host: str | None,
    groups: tuple[str, ...],
    scopes: tuple[str, ...],
    guest: bool,
    track_usage: bool,
    mcp: bool,
    native_tiers: bool | None,
    persona: str | None,
    discover: str | None,
    sparse: bool | None,
    quiet: bool,
    force: bool,
    hook_timeout: float,
    as_json: bool,
    repo: Path | None,
) -> None:
    """Link the skills your connection resolves into AGENT's skills folder, write the index
    of optional skills where AGENT reads it, and install git hooks that relink after a pull.

    The connection comes from the flags, else from .exobrain.json, else (on a terminal) from a
    few questions, else guest. A scope the flags name that does not exist is offered for
    creation on a terminal (else: exobrain scope new SCOPE). Only links into this repository
    and files connect-agent generated are ever changed; anything else in the way is reported
    and kept. Outside an exobrain (no skills.json at the root) it refuses unless --force.

    AGENT is one of: claude, codex, openclaw, gemini, opencode, copilot, cursor, agents,
    windsurf, cline, roo, kiro, goose, qwen, droid, kilo, augment, qoder, vibe, pi.
    """
    from exobrain.cli.connect_output import render_report, report_json
    from exobrain.connect.choice import Flags
    from exobrain.connect.connector import connect
    from exobrain.connect.external import fetch_external
    from exobrain.connect.request import Request
    from exobrain.search import preload as search_preloads

    request = Request(
        agent,
        repo,
        relink,
        dry_run,
        user,
        Flags(person, host, groups, scopes, guest),
        hook_timeout=hook_timeout,
        external_sync=fetch_external,
        persona=persona,
        discover=discover,
        preloads=search_preloads,
        sparse=sparse,
        force=force,
        track_usage=track_usage,
        mcp=mcp,
        native_tiers=native_tiers,
    )
    if not as_json and sys.stdin.isatty() and sys.stdout.isatty():
        request.wizard = _terminal_wizard
        request.confirm = _confirm
    report = connect(request)
    if as_json:
        emit_json(report_json(report))
    else:
        render_report(report, quiet)
    report_findings(report.findings)
    sys.exit(report.exit_code)


def _confirm(text: str, default: bool) -> bool:
    return click.confirm(text, default=default)


def _terminal_wizard(ws):
    import getpass

    from exobrain.connect.choice import short_hostname, wizard

    def prompt(text: str, default: str) -> str:
        return click.prompt(text, default=default, show_default=bool(default))

    return wizard(
        ws.root,
        ws.config,
        prompt=prompt,
        confirm=_confirm,
        echo=click.echo,
        login=getpass.getuser(),
        hostname=short_hostname(),
        lookup=ws.scope_at,
        scopes=ws.scan().scopes,
    )
