"""connect-agent as a library: choose the connection, resolve, plan, apply, run scope hooks.

:func:`connect` is the whole command without the terminal: it takes a
:class:`~exobrain.connect.request.Request` and returns the ``Report`` (same module) that the
CLI renders as lines or JSON. Everything it changes goes through :func:`linker.apply` after a
plan that read the disk once, so ``dry_run`` and a second identical run write nothing.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from exobrain.agents import Folders, get_agent
from exobrain.connect import (
    cone,
    external,
    githooks,
    linker,
    linkset,
    listing,
    mcpcheck,
    mcpconfig,
    nativetiers,
    ownedlinks,
    placement,
    preload,
    scopehooks,
    surfaces,
    trust,
    usage,
)
from exobrain.connect.choice import Choice, create_scopes, from_flags, short_hostname, stored_choice
from exobrain.connect.connection import (
    agent_list,
    connection_action,
    stored_changed,
    updated_connection,
)
from exobrain.connect.request import Report, Request
from exobrain.errors import UsageError
from exobrain.paths import shown, skill_dir
from exobrain.registry.entries import REGISTRY_FILE
from exobrain.resolve import Resolved
from exobrain.scopes import CONNECTION_FILE
from exobrain.util.terminal import safe_line
from exobrain.workspace import Workspace, open_workspace, workspace_for


def connect(request: Request) -> Report:
    """Choose the connection, resolve for the agent, plan every change, then (unless
    ``dry_run``) apply the plan, record the connection, run the scope hooks and the steps
    asked for (``track_usage``, ``mcp``), whose results are in the report.

    A run that has something to change takes the connection file's lock and, when another
    process rewrote the connection meanwhile, plans again under it from a fresh read, so two
    connects at once never lose each other's agent; a run with nothing to change takes no
    lock and writes nothing."""
    agent = get_agent(request.agent)
    if request.track_usage:
        usage.check_tracking(agent.name)
    if request.mcp:
        mcpconfig.check_agent(agent.name)
    if request.native_tiers:
        nativetiers.check_agent(agent.name)
    ws = open_workspace(request.repo)
    if request.mcp:  # never registered unless it starts, as the agent will start it
        mcpcheck.check_server(mcpconfig.server_command(ws.root, agent.name), ws.root)
    folders = agent.folders(ws.root, request.user)
    _check_utf8([ws.root, folders.skills, folders.files, folders.surface, folders.settings])
    report = _connect(ws, folders, request)
    if not request.dry_run and not report.never_connected:
        _relink_neighbours(folders, request, report)
    if not request.dry_run:
        if request.track_usage:
            report.usage_hook = usage.install(folders)
        if request.mcp and not report.never_connected:  # no connection to serve
            report.mcp = mcpconfig.register(agent.name, ws.root, user=request.user)
    return report


def _check_utf8(paths: list[Path | None]) -> None:
    """Refuse, before anything is written, a path that is not UTF-8 (a folder named in another
    encoding): the indexes, the agents' settings and the ownership records are UTF-8 text,
    and the first of them to name it would fail halfway through the connect."""
    for path in paths:
        if path is None:
            continue
        try:
            str(path).encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError(
                f"{safe_line(str(path))}: the path is not valid UTF-8 (a folder's name holds "
                f"bytes of another encoding); nothing was written",
                hint="rename the folder to a UTF-8 name, or connect from a clone whose path is",
            ) from None


def _relink_neighbours(folders: Folders, request: Request, report: Report) -> None:
    """Relink the other agents connected at this level whose loaders read this agent's
    folder or whose folder this agent reads: the placement of their shared skills may have
    moved with this connect (a skill Gemini had in ``.gemini/skills`` goes to
    ``.agents/skills`` once Codex, which reads only that, is connected too)."""
    ws = open_workspace(folders.root)
    mine = set(folders.reads)
    for other in linkset.connected_agents(ws, folders):
        if other.name == folders.agent.name:
            continue
        theirs = other.folders(ws.root, folders.user)
        if theirs.skills not in mine and folders.skills not in theirs.reads:
            continue
        again = Request(
            other.name,
            repo=ws.root,
            relink=True,
            user=request.user,
            hook_timeout=request.hook_timeout,
            preloads=request.preloads,
        )
        done = _connect(ws, theirs, again)
        changed = sum(1 for a in done.actions if a.changes and a.kind == "link")
        if changed:
            report.notes.append(
                f"relinked {other.name} as well ({changed} link(s) moved): both read "
                f"{shown(theirs.skills if theirs.skills in mine else folders.skills, ws.root)}"
            )
        report.warnings += [f"{other.name}: {line}" for line in done.problems + done.warnings]


def _connect(ws: Workspace, folders: Folders, request: Request) -> Report:
    agent = folders.agent
    if not request.force:
        refuse_outside_exobrain(ws)
    if request.relink:
        if request.flags.given:
            raise UsageError(
                "--relink re-applies the stored connection: drop "
                "--person/--host/--group/--scope/--guest, or drop --relink"
            )
        connected = agent_list(ws.connection, folders.user_level)
        if agent.name not in connected:
            report = _empty_report(folders, request)
            report.never_connected = True
            report.notes.append(
                f"{agent.name} was never connected here at {report.level} level "
                f"({CONNECTION_FILE} lists: {', '.join(connected) or 'none'}); nothing to do"
            )
            return report
        choice = stored_choice(ws.connection)
    else:
        choice = _choose(ws, request)
    if choice.create and not request.dry_run:
        create_scopes(ws.root, ws.config, choice.create)
        choice.notes += [f"created the scope {path}" for path in choice.create]
    ws = _follow_cone(ws, folders, choice, request)
    report = _prepare(ws, folders, choice, request, sync=True)
    if request.dry_run:
        return report
    if any(action.changes for action in report.actions):
        from exobrain.util.locking import exclusive  # only a run that writes pays for the lock

        with exclusive(ws.root / CONNECTION_FILE, root=ws.root):
            if stored_changed(ws):
                fresh = open_workspace(ws.root)
                if choice.source == "stored":
                    choice = stored_choice(fresh.connection)
                first, report = report, _prepare(fresh, folders, choice, request, sync=False)
                report.notes = list(dict.fromkeys(first.notes + report.notes))  # fetcher's too
                report.warnings = list(dict.fromkeys(first.warnings + report.warnings))
            report.applied = linker.apply(report.actions)
    ownedlinks.record_links(report.skills_dir, report.root, report.owned_links, report.actions)
    nativetiers.record(report.overrides)
    report.hooks_run = scopehooks.run_hooks(
        report.hooks_planned, report.root, agent.name, report.skills_dir, request.hook_timeout
    )
    return report


def _follow_cone(ws: Workspace, folders: Folders, choice: Choice, request: Request) -> Workspace:
    """With a sparse checkout wanted (``--sparse``, or stored), bring its cone in line with
    the connection before anything is planned, so links point at folders on disk."""
    connection = updated_connection(
        ws.connection, choice, folders.agent.name, folders.user_level, sparse=request.sparse
    )
    if connection.raw.get(cone.SPARSE_KEY) is not True:
        return ws
    return cone.follow(ws, connection, dry_run=request.dry_run, notes=choice.notes)


def refuse_outside_exobrain(ws: Workspace) -> None:
    """An exobrain has its global registry at the root; a repository without one (and never
    connected before) is some other project, where links, hooks and a connection file would
    be unwelcome."""
    if (ws.root / REGISTRY_FILE).is_file() or (ws.root / CONNECTION_FILE).is_file():
        return
    raise UsageError(
        f"{ws.root} is not an exobrain (no {REGISTRY_FILE} at its root): nothing was changed",
        hint="run connect-agent inside your exobrain, pass --repo PATH, or --force to "
        "connect this repository anyway",
    )


def _empty_report(folders: Folders, request: Request) -> Report:
    return Report(folders.agent.name, folders.level, folders.root, folders.skills, request.dry_run)


def _prepare(
    ws: Workspace, folders: Folders, choice: Choice, request: Request, *, sync: bool
) -> Report:
    """Everything up to applying: the connection to record, the resolution, the plan."""
    agent = folders.agent
    folders.check()
    report = _empty_report(folders, request)
    report.source, report.notes = choice.source, list(choice.notes)
    stored = ws.connection
    user_level = report.level == "user"
    connection = updated_connection(stored, choice, agent.name, user_level, sparse=request.sparse)
    wanted = preload.merged(
        preload.stored_preload(stored, agent.name), request.persona, request.discover
    )
    connection.raw = preload.with_preload(connection.raw, agent.name, wanted)
    connection.raw = nativetiers.with_native(
        connection.raw, agent.name, user_level, request.native_tiers
    )
    ws = workspace_for(ws.root, ws.config, connection)
    report.connected_scopes, report.person = connection.connected_scopes, connection.person
    report.chain = ws.chain.paths
    rows = ws.resolve(agent.name)
    if (wanted.persona or wanted.discover) and request.preloads is None:
        raise UsageError(
            f"{CONNECTION_FILE} asks for a persona or discovery preload, which "
            f"this caller cannot compute",
            hint="run connect-agent",
        )
    if wanted.persona and request.preloads is not None:
        rows, raised = request.preloads.persona_rows(ws, rows, wanted.persona)
        rows = ws.named(ws.with_dependencies(rows))  # what they need comes with them
        report.notes.append(
            f"persona {wanted.persona}: "
            + (
                f"{len(raised)} skill(s) preloaded ({', '.join(raised)})"
                if raised
                else "no other visible skill has that persona or tag"
            )
        )
    if sync:
        external.sync(
            request.external_sync,
            dry_run=request.dry_run,
            ws=ws,
            folders=folders,
            rows=rows,
            report=report,
        )
    discovered = None
    if wanted.discover and request.preloads is not None:
        discovered, notes = preload.discovered_index(
            request.preloads, ws, wanted.discover, folders.files, agent.name
        )
        report.notes += (
            notes
            if discovered
            else [
                *notes,
                f"no visible skill fits {wanted.discover!r}: {preload.DISCOVERED_FILE} not written",
            ]
        )
    actions = [
        *plan(ws, folders, rows, report, discovered=discovered, mcp=request.mcp),
        connection_action(ws.root, stored, connection),
    ]
    report.actions = [a for a in actions if a is not None]
    report.findings = ws.findings
    report.hooks_planned = scopehooks.find_hooks(
        ws.root, ws.chain.scopes, agent.name, trust.load_trust_or_warn(report.warnings)
    )
    return report


def _choose(ws: Workspace, request: Request) -> Choice:
    """Flags, else the stored file, else the wizard (terminals only), else guest."""
    if request.flags.given:
        hostname = request.hostname if request.hostname is not None else short_hostname()
        return from_flags(
            ws.root,
            ws.config,
            request.flags,
            ws.connection,
            hostname,
            request.confirm,
            lookup=ws.scope_at,
        )
    if (ws.root / CONNECTION_FILE).exists():
        return stored_choice(ws.connection)
    if request.wizard is not None and not request.dry_run:
        return request.wizard(ws)
    note = "no connection stored: connected as guest (global skills only)"
    return Choice("guest", [], None, [note + "; pass --person to connect yourself"])


def plan(
    ws: Workspace,
    folders: Folders,
    rows: list[Resolved],
    report: Report,
    *,
    discovered: str | None = None,
    mcp: bool = False,
) -> list[linker.Action]:
    """Every action for this agent: links, its per-skill settings, context files
    (``discovered``: the text of discovered-skills.md; ``mcp``: the MCP server is being
    registered), git hooks (pure over what it reads)."""
    agent, root, skills_dir = folders.agent, ws.root, folders.skills
    tiers = nativetiers.linked_tiers(ws.connection, agent.name, folders.user_level)
    mine: dict[str, Path] = {}
    optional = []
    for row in rows:
        if row.is_external:
            continue
        if row.tier in ("always", "optional") and ws.reads_committed(row.home, row.name):
            report.problems.append(
                f"{row.link_name}: {shown(skill_dir(root, row.home, row.name), root)} is outside "
                f"the sparse checkout; connect-agent {agent.name} --sparse brings it in"
            )
            continue
        if row.tier in tiers:
            mine[row.link_name] = skill_dir(root, row.home, row.name)
        if row.tier == "optional":
            optional.append(row)
    report.warnings += placement.name_clashes(
        agent.name, [(r.name, r.link_name) for r in rows if r.tier in tiers]
    )
    report.owned_links = ownedlinks.claimed_links(skills_dir, root)
    wanted = linkset.placed_here(ws, folders, mine, report.warnings)
    wanted = linkset.around_foreign(
        root, skills_dir, wanted, set(report.owned_links), report.warnings
    )
    actions = linker.plan_links(
        skills_dir,
        wanted,
        root,
        place=folders.write_root(skills_dir),
        owned=report.owned_links,
        keep_unwanted=ws.has_bad_input,
    )
    if ws.has_bad_input and set(report.owned_links) - set(wanted):
        report.warnings.append(
            "some skills.json files have errors: links no longer wanted are not removed "
            "until they are fixed"
        )
    report.problems += [f"{a.name}: {a.reason}" for a in actions if a.problem]
    report.overrides = native = nativetiers.plan(ws.connection, folders, rows, list(wanted))
    report.notes += native.notes
    report.warnings += listing.warnings(folders, wanted, native.overrides)
    remarks = surfaces.Remarks(report.problems, report.warnings)
    listed = surfaces.index_rows(ws, rows, optional, folders.files, skills_dir, remarks)
    search = cache(lambda: mcpconfig.search_hint(agent.name, root, user=folders.user, asked=mcp))
    actions += [
        a
        for a in [
            native.action,
            *surfaces.context_actions(ws, folders, listed, remarks, discovered, search),
        ]
        if a is not None
    ]
    return [*actions, *githooks.connection_hooks(ws, report.notes)]
