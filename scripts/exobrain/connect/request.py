"""What connect-agent is asked and what it answers, as data: the :class:`Request` the CLI fills
(tests build it directly) and the :class:`Report` the CLI renders as lines or JSON.

They are the command's two ends, kept apart from :mod:`exobrain.connect.connector` (the way
from one to the other) because every caller of connect-agent speaks them: the CLI, instances,
selftest's agent check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.connect import external, linker, mcpconfig, nativetiers, preload, scopehooks, usage
from exobrain.connect.choice import Choice, Confirm, Flags
from exobrain.findings import Finding
from exobrain.workspace import Workspace

Wizard = Callable[[Workspace], Choice]


@dataclass
class Request:
    """What the command line asked for (the CLI fills it; tests build it directly)."""

    agent: str
    repo: Path | None = None
    relink: bool = False
    dry_run: bool = False
    user: bool = False
    flags: Flags = field(default_factory=Flags)
    wizard: Wizard | None = None  # set only when stdin and stdout are terminals
    confirm: Confirm | None = None  # offers to create a missing scope (terminals only)
    force: bool = False  # connect a repository that is not an exobrain (no root skills.json)
    hook_timeout: float = scopehooks.DEFAULT_TIMEOUT
    hostname: str | None = None  # default: this machine's short host name
    external_sync: external.ExternalSync | None = None
    persona: str | None = None  # preload this persona's skills ("" forgets it)
    discover: str | None = None  # write discovered-skills.md for this task ("" forgets)
    preloads: preload.Preloads | None = None  # search's side of --persona and --discover
    sparse: bool | None = None  # keep a sparse checkout of the connection (None: as stored)
    track_usage: bool = False  # install the usage hook in the agent's settings (--track-usage)
    mcp: bool = False  # register the MCP server in the agent's MCP configuration (--mcp)
    native_tiers: bool | None = None  # the tiers in the agent's own listing (None: as stored)


@dataclass
class Report:
    """What a connect decided and did, for the CLI to print as lines or JSON."""

    agent: str
    level: str
    root: Path
    skills_dir: Path
    dry_run: bool
    source: str = ""
    connected_scopes: list[str] = field(default_factory=list)
    person: str | None = None
    chain: list[str] = field(default_factory=list)
    actions: list[linker.Action] = field(default_factory=list)
    hooks_planned: list[scopehooks.ScopeHook] = field(default_factory=list)
    hooks_run: list[scopehooks.HookResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    never_connected: bool = False
    applied: int = 0
    owned_links: dict[str, str] = field(default_factory=dict)  # link name → text, ours
    external: Any = None  # the fetcher's report (a FetchReport) when it ran
    usage_hook: usage.UsageHook | None = None  # --track-usage, when it ran
    mcp: mcpconfig.Registration | None = None  # --mcp, when it ran
    overrides: nativetiers.Planned | None = None  # the agent's per-skill settings (planned)

    @property
    def exit_code(self) -> int:
        if any(f.bad_input for f in self.findings):
            return 2
        failed = any(not r.ok for r in self.hooks_run)
        return 1 if self.problems or failed else 0
