"""``exobrain mcp``: serve this exobrain to an agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

from pathlib import Path

import click

from exobrain.cli.edge import HELP, command_edge, exit_codes, repo_option, version_option


@click.command(
    "mcp",
    context_settings=HELP,
    epilog=exit_codes(
        ok="the client closed the connection",
        bad="not inside an exobrain, or an unknown agent",
    ),
)
@click.option(
    "--agent", metavar="AGENT", help="The agent running the server (usage lines name it)."
)
@version_option
@repo_option
@command_edge
def command(agent: str | None, repo: Path | None) -> None:
    """Serve the substrate verbs as MCP tools over stdin/stdout: search, discover, get, list,
    links, signals, and signal to record uses, outcomes and votes; skills and knowledge
    documents as resources. Agents start it themselves: connect-agent AGENT --mcp registers
    it (as python -I -m exobrain.mcp, which starts faster)."""
    from exobrain.agents import get_agent
    from exobrain.mcp.server import serve
    from exobrain.mcp.worker import Exobrain
    from exobrain.workspace import exobrain_root

    if agent:
        get_agent(agent)
    serve(Exobrain(exobrain_root(repo), agent))
