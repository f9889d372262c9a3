"""``exobrain``: one umbrella for the artifact, signal, search, substrate and instance verbs.

Subcommands are imported only when invoked (the table maps a verb to ``module:attribute``), so
``exobrain --help`` and each verb pay only for what they use. Adding a verb is one table row.
"""

from __future__ import annotations

import importlib

import click

from exobrain.cli.edge import HELP, exit_codes, version_option

#: verb → "module:attribute" of a click command, relative to ``exobrain.cli``.
VERBS: dict[str, str] = {
    "adopt": "adopt:command",
    "create-instance": "create_instance:command",
    "signal": "signal:signal",
    "signals": "signal:signals",
    "quality": "quality:main",
    "sweep": "sweep:main",
    "comment": "comment:command",
    "compose": "compose:command",
    "crons": "crons:crons",
    "discover": "discover:command",
    "events": "events:command",
    "export": "export:command",
    "fork": "fork:command",
    "harvest": "harvest:command",
    "get": "get:command",
    "import": "importcmd:command",
    "index": "index:command",
    "lifecycle": "lifecycle:command",
    "links": "links:command",
    "list": "list:command",
    "lock": "lock:command",
    "mcp": "mcp_server:command",
    "publish-catalog": "publish_catalog:command",
    "register": "register:command",
    "remove": "remove:command",
    "move": "move:command",
    "scope": "scope:group",
    "selftest": "selftest:command",
    "search": "search:command",
    "show": "show:command",
    "sparse": "sparse:command",
    "site": "site:command",
    "supersede": "supersede:command",
    "trust": "trust:command",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are loaded from :data:`VERBS` on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = VERBS.get(name)
        if target is None:
            return None
        module, attribute = target.split(":")
        return getattr(importlib.import_module(f"exobrain.cli.{module}"), attribute)


@click.group(
    cls=LazyGroup,
    context_settings=HELP,
    epilog=exit_codes(ok="done (each verb's --help says what its codes mean)"),
)
@version_option
def main() -> None:
    """exobrain: skills as versioned artifacts in a shared git repository.

    Every verb takes --help, --version and --repo PATH, and --json where it prints data
    (knowledge/exobrain/cli.md has the grammar they share)."""
