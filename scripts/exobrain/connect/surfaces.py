"""Context surfaces: what each agent reads besides its skills folder, as linker actions.

Each agent gets the index where it actually reads it (the table and its sources:
``knowledge/exobrain/agents.md``): Claude imports generated files (``connected-scopes.md``,
``optional-skills.md``) from a marked block in its ``CLAUDE.md``; Gemini the index from a block
in ``GEMINI.md``; Codex one generated ``AGENTS.override.md`` with everything inline; OpenClaw a
marked block in its workspace ``USER.md``; Copilot, Cursor, Windsurf, Kiro, Cline and Roo Code
one generated instructions/rule file; OpenCode the index file, listed in ``opencode.json``'s
``instructions``; ``agents`` and the agents that read no file connect-agent may write (goose,
Qwen Code, Droid, ...) the index file beside their folder. What the agent reads every session
is fitted into its budget (:mod:`exobrain.connect.budgets`), the rows shown chosen by their
score (:mod:`exobrain.connect.scoring`); the rows that do not fit go to
``optional-skills-more.md``, and the index says how to find them (the MCP ``search`` tool
where the exobrain server is registered for the agent, else ``exobrain search``).
Paths are relative to the repository when the file lives inside it, absolute otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from exobrain.agents import (
    CONTEXT_CLAUDE,
    CONTEXT_CODEX,
    CONTEXT_GEMINI,
    CONTEXT_OPENCLAW,
    CONTEXT_OPENCODE,
    CONTEXT_RULE,
    Agent,
    Folders,
    optional_dir,
)
from exobrain.connect import blocks, budgets, configs, indexes, linker, scoring
from exobrain.connect.preload import DISCOVERED_FILE, without_mark
from exobrain.errors import InputFileError
from exobrain.model import EXTERNAL, GLOBAL
from exobrain.paths import link_text, shown, skill_dir
from exobrain.resolve import Resolved
from exobrain.scopes import SCOPE_FLAG
from exobrain.skillmd import SKILL_FILE, description_of
from exobrain.util.fileio import read_text
from exobrain.workspace import Workspace


@dataclass
class Remarks:
    """Where surfaces report what they could not do: problems (exit 1) and warnings."""

    problems: list[str]
    warnings: list[str]


@dataclass
class Surface:
    """One agent's context at one level: where its files go and what it is handed."""

    ws: Workspace
    folders: Folders
    rows: list[indexes.IndexRow]
    remarks: Remarks
    discovered: str | None
    search: Callable[[], str] | None = None  # how the agent finds what the index leaves out

    @property
    def agent(self) -> Agent:
        return self.folders.agent

    @property
    def files(self) -> Path:
        return self.folders.files

    @property
    def place(self) -> Path:
        """The root every generated file must stay inside."""
        return self.folders.write_root(self.folders.files)

    def shown(self, path: Path) -> str:
        """``path`` as the agent should read it: from the repository root, else absolute."""
        return link_text(path, self.ws.root, _inside(path, self.ws.root))


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def index_rows(
    ws: Workspace,
    rows: list[Resolved],
    optional: list[Resolved],
    files: Path,
    skills_dir: Path,
    remarks: Remarks,
) -> list[indexes.IndexRow]:
    """The optional skills as the index lists them (same-named ones told apart by their
    home); paths relative to the repository when the index lives inside it, else absolute."""
    root = ws.root
    inside = _inside(files, root)
    result = []
    for row in optional:
        path = skill_dir(root, row.home, row.name) / SKILL_FILE
        if not path.is_file():
            remarks.problems.append(
                f"{row.link_name}: optional skill has no {link_text(path, root, True)}; not listed"
            )
            continue
        description = description_of(root, row.home, row.name)
        shown_path = link_text(path, root, inside)
        result.append(
            indexes.index_row(row.name, shown_path, description, row.home, row.identity.ref)
        )
    for row in rows:  # external optional skills the fetcher installed beside the skills folder
        if row.is_external and row.tier == "optional":
            path = optional_dir(skills_dir) / row.link_name / SKILL_FILE
            if path.is_file():
                home = f"{EXTERNAL} {row.owner}"
                shown_path, ref = link_text(path, root, inside), row.identity.ref
                result.append(
                    indexes.index_row(row.name, shown_path, _description(path), home, ref)
                )
    return indexes.distinguish(result)


def _description(path: Path) -> str:
    from exobrain.skillmd import quick_meta

    try:
        value = quick_meta(path).get("description")
    except InputFileError:
        return ""
    return value if isinstance(value, str) else ""


def scope_docs(
    ws: Workspace, seen_from: Path, *, sidecar: str | None, texts: bool, remarks: Remarks
) -> list[indexes.ScopeDoc]:
    """Each connected scope's AGENTS.md (and the agent's sidecar beside it: CLAUDE.md,
    CODEX.md, OPENCLAW.md), shallow to deep, as paths seen from ``seen_from`` (relative inside
    the repository, absolute outside); with ``texts``, their text, the sidecar's appended."""
    inside = _inside(seen_from, ws.root)
    docs = []
    for scope in ws.chain.scopes:
        if scope.path == GLOBAL:
            continue
        folder = scope.directory(ws.root)
        extra = folder / sidecar if sidecar and (folder / sidecar).is_file() else None
        try:
            text = _joined(folder / SCOPE_FLAG, extra) if texts else ""
        except InputFileError as exc:
            remarks.warnings.append(f"{exc.message}; left out of the context")
            continue
        docs.append(
            indexes.ScopeDoc(
                scope.path,
                link_text(folder / SCOPE_FLAG, seen_from, inside),
                link_text(extra, seen_from, inside) if extra else None,
                text,
            )
        )
    return docs


def _joined(first: Path, second: Path | None) -> str:
    text = read_text(first)
    return text if second is None else text.rstrip("\n") + "\n\n" + read_text(second)


def context_actions(
    ws: Workspace,
    folders: Folders,
    rows: list[indexes.IndexRow],
    remarks: Remarks,
    discovered: str | None,
    search: Callable[[], str] | None = None,
) -> list[linker.Action | None]:
    """The agent's context surface (see the module docstring). ``discovered`` (connect-agent
    --discover) is one more generated file, inlined where the surface inlines everything;
    ``search`` gives how the index says to find the skills it has no room for (asked only
    then; default: the ``exobrain search`` command)."""
    agent = folders.agent
    surface = Surface(ws, folders, rows, remarks, discovered, search)
    kinds = {
        CONTEXT_CLAUDE: _claude,
        CONTEXT_GEMINI: _gemini,
        CONTEXT_CODEX: _codex,
        CONTEXT_OPENCLAW: _openclaw,
        CONTEXT_RULE: _rule,
        CONTEXT_OPENCODE: _opencode,
    }
    path = folders.surface
    if agent.context not in kinds or path is None:
        actions = _index_only(surface)
    else:
        actions = kinds[agent.context](surface, path)
    return [*actions, *_retired(surface)]


#: Renders a surface's text from the index rows that fit and the line pointing at the rest.
Render = Callable[[list[indexes.IndexRow], str | None], str | None]


def _fitted(
    surface: Surface, render: Render, where: Path, size: int | None = None
) -> tuple[str | None, linker.Action | None]:
    """The text for ``where`` with the rows that fit the agent's budget (``size`` when given:
    what is left of it), and the overflow file's action."""
    agent, budget = surface.agent, surface.agent.budget
    limit, why = budget.size, budget.why
    if size is not None:
        limit = size
    elif agent.context == CONTEXT_CODEX:
        limit, why = budgets.codex_budget(budget)
    overflow = surface.files / indexes.OVERFLOW_FILE
    more = surface.shown(overflow)

    def full(rows: list[indexes.IndexRow], hidden: int) -> str | None:
        how = surface.search() if surface.search and hidden else None
        return render(rows, indexes.more_line(hidden, more, how) if hidden else None)

    def scores() -> dict[str, float]:
        return dict(scoring.index_scores(surface.ws, surface.rows))

    fit = budgets.fit(surface.rows, full, max(limit, 0), budget.lines, scores)
    label = shown(where, surface.ws.root)
    if fit.overflow:
        surface.remarks.warnings.append(
            f"{len(fit.overflow)} of {len(surface.rows)} optional skills did not fit "
            f"the context budget of {agent.name} ({limit:,} bytes: {why}); {label} points to "
            f"{more}, which lists them"
        )
    if fit.over:
        surface.remarks.warnings.append(
            f"{label} is over the context budget of {agent.name} ({limit:,} bytes: {why}) even "
            f"without the optional skills; the agent may not read all of it"
        )
    text = indexes.overflow_index(fit.overflow)
    return fit.text, linker.plan_file(overflow, text, root=surface.place)


def _claude(surface: Surface, path: Path) -> list[linker.Action | None]:
    """Generated files beside CLAUDE.md, imported from our block in it."""
    folder = path.parent
    index, overflow = _fitted(surface, indexes.optional_index, folder / indexes.INDEX_FILE)
    docs = scope_docs(
        surface.ws, folder, sidecar=surface.agent.sidecar, texts=False, remarks=surface.remarks
    )
    files = [
        (indexes.SCOPES_FILE, indexes.connected_scopes(docs)),
        (indexes.INDEX_FILE, index),
        (DISCOVERED_FILE, surface.discovered),
    ]
    return [*_imported(surface, path, files, lambda name: name), overflow]


def _gemini(surface: Surface, path: Path) -> list[linker.Action | None]:
    """The index (and discovered skills) in the agent's folder, imported from our block in
    GEMINI.md with ``@./`` paths relative to it."""
    folder = surface.files
    index, overflow = _fitted(surface, indexes.optional_index, folder / indexes.INDEX_FILE)
    files = [(indexes.INDEX_FILE, index), (DISCOVERED_FILE, surface.discovered)]

    def seen(name: str) -> str:
        return f"./{link_text(folder / name, path.parent, True)}"

    return [*_imported(surface, path, files, seen, folder), overflow]


def _imported(
    surface: Surface,
    path: Path,
    files: list[tuple[str, str | None]],
    seen: Callable[[str], str],
    folder: Path | None = None,
) -> list[linker.Action | None]:
    """Generated ``files`` (name, text) in ``folder`` (default: beside ``path``) and the block
    in ``path`` importing those written, each by the path ``seen(name)`` gives."""
    folder = folder or path.parent
    actions = [linker.plan_file(folder / name, text, root=surface.place) for name, text in files]
    imports = [
        seen(name)
        for (name, text), action in zip(files, actions, strict=True)
        if text is not None and (action is None or action.op != linker.SKIP)
    ]
    ours = tuple(seen(name) for name, _ in files)
    block = blocks.import_block(imports)
    return [*actions, linker.plan_block(path, block, root=surface.place, generated=ours)]


def _codex(surface: Surface, path: Path) -> list[linker.Action | None]:
    """One AGENTS.override.md: the AGENTS.md it shadows (and the root's CODEX.md), each
    connected scope's AGENTS.md and CODEX.md, the index and the discovered skills, inline."""
    folder, sidecar = path.parent, surface.agent.sidecar
    shadowed = None
    if (folder / SCOPE_FLAG).is_file():
        extra = folder / sidecar if sidecar and (folder / sidecar).is_file() else None
        try:
            shadowed = _joined(folder / SCOPE_FLAG, extra)
        except InputFileError as exc:
            surface.remarks.warnings.append(f"{exc.message}; left out of {path.name}")
    docs = scope_docs(surface.ws, folder, sidecar=sidecar, texts=True, remarks=surface.remarks)
    extra_text = without_mark(surface.discovered) if surface.discovered else None

    def render(rows: list[indexes.IndexRow], more: str | None) -> str | None:
        return indexes.codex_override(shadowed, docs, rows, more, extra_text)

    text, overflow = _fitted(surface, render, path)
    return [linker.plan_file(path, text, root=surface.place), overflow]


def _openclaw(surface: Surface, path: Path) -> list[linker.Action | None]:
    """A block in USER.md; the budget counts the whole file, the user's own text included."""
    docs = scope_docs(
        surface.ws, path.parent, sidecar=surface.agent.sidecar, texts=False, remarks=surface.remarks
    )
    extra = without_mark(surface.discovered) if surface.discovered else None
    try:
        outside = blocks.outside_size(read_text(path)) if path.is_file() else 0
    except InputFileError:
        outside = 0  # the block's action reports the unreadable file
    frame = len(f"\n\n{blocks.BEGIN}\n\n{blocks.END}\n".encode())

    def render(rows: list[indexes.IndexRow], more: str | None) -> str | None:
        return indexes.openclaw_block(docs, rows, more, extra)

    body, overflow = _fitted(surface, render, path, surface.agent.budget.size - outside - frame)
    return [linker.plan_block(path, body, root=surface.place), overflow]


def _rule(surface: Surface, path: Path) -> list[linker.Action | None]:
    """One generated rule/instructions file holding the index (Copilot, Cursor)."""
    front = list(surface.agent.front)
    extra = without_mark(surface.discovered) if surface.discovered else None

    def render(rows: list[indexes.IndexRow], more: str | None) -> str | None:
        return indexes.rule_file(front, rows, more, extra)

    text, overflow = _fitted(surface, render, path)
    return [linker.plan_file(path, text, root=surface.place), overflow]


def _opencode(surface: Surface, path: Path) -> list[linker.Action | None]:
    """The index file, listed under ``instructions`` in opencode.json (only our entries
    there are ever added or removed)."""
    actions = _index_only(surface)
    read = (indexes.INDEX_FILE, DISCOVERED_FILE)  # the overflow is read on demand only
    wanted = [
        surface.shown(a.path)
        for a in actions
        if a is not None
        and a.path.name in read
        and a.op in (linker.KEEP, linker.CREATE, linker.REPLACE)
    ]
    ours = [surface.shown(surface.files / name) for name in read]
    entry = configs.plan_json_list(path, "instructions", wanted, ours, root=surface.place)
    return [*actions, entry]


def _index_only(surface: Surface) -> list[linker.Action | None]:
    """The index file (and discovered skills) beside the skills folder."""
    index_path = surface.files / indexes.INDEX_FILE
    index, overflow = _fitted(surface, indexes.optional_index, index_path)
    if index and surface.agent.context == CONTEXT_RULE:  # Cursor, Windsurf, Cline: user level
        surface.remarks.warnings.append(
            f"{surface.agent.name} reads no user-level rules folder connect-agent can write to "
            f"(its user rules live in its settings or in one file of yours): add a rule there "
            f"that says to read {index_path} when a request might need a skill"
        )
    return [
        linker.plan_file(index_path, index, root=surface.place),
        linker.plan_file(surface.files / DISCOVERED_FILE, surface.discovered, root=surface.place),
        overflow,
    ]


def _retired(surface: Surface) -> list[linker.Action | None]:
    """Files an earlier version wrote where this agent never read them (Copilot's and Cursor's
    index and discovered skills beside their skills folder, now in their rule file): removed
    when they are ours."""
    if surface.agent.context != CONTEXT_RULE:
        return []
    if surface.folders.surface is None:
        return []
    old = [surface.files / indexes.INDEX_FILE, surface.files / DISCOVERED_FILE]
    actions = [linker.plan_file(path, None, root=surface.place) for path in old]
    return [a for a in actions if a is not None and a.op == linker.REMOVE]
