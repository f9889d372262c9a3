"""Context surfaces: what each agent reads besides its skills folder, as linker actions.

Claude imports generated files (``connected-scopes.md``, ``optional-skills.md``) from a marked
block in its ``CLAUDE.md``; Codex gets one generated ``AGENTS.override.md`` with everything
inline; OpenClaw a marked block in its workspace ``USER.md``; the other agents an
``optional-skills.md`` beside their skills folder. Paths are relative to the repository when
the file lives inside it, absolute otherwise, so they work from wherever the agent runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from exobrain.agents import CONTEXT_CLAUDE, CONTEXT_CODEX, CONTEXT_OPENCLAW, Agent, optional_dir
from exobrain.catalog import description_of, skill_dir
from exobrain.connect import indexes, linker
from exobrain.errors import InputFileError
from exobrain.model import GLOBAL
from exobrain.paths import link_text
from exobrain.resolve import Resolved
from exobrain.scopes import SCOPE_FLAG
from exobrain.skillmd import SKILL_FILE
from exobrain.util.fileio import read_text
from exobrain.workspace import Workspace

CODEX_DOC_LIMIT = 32 * 1024  # Codex's default project_doc_max_bytes


@dataclass
class Remarks:
    """Where surfaces report what they could not do: problems (exit 1) and warnings."""

    problems: list[str]
    warnings: list[str]


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def index_rows(
    ws: Workspace,
    rows: list[Resolved],
    optional: list[Resolved],
    context: Path,
    skills_dir: Path,
    remarks: Remarks,
) -> list[indexes.IndexRow]:
    """The optional skills as the index lists them; paths relative to the repository when the
    index lives inside it, absolute otherwise."""
    root = ws.root
    inside = _inside(context, root)
    result = []
    for row in optional:
        path = skill_dir(root, row.home, row.name) / SKILL_FILE
        if not path.is_file():
            remarks.problems.append(
                f"{row.link_name}: optional skill has no {link_text(path, root, True)}; not listed"
            )
            continue
        result.append(
            indexes.index_row(
                row.name, link_text(path, root, inside), description_of(root, row.home, row.name)
            )
        )
    for row in rows:  # external optional skills the fetcher installed beside the skills folder
        if row.is_external and row.tier == "optional":
            path = optional_dir(skills_dir) / row.link_name / SKILL_FILE
            if path.is_file():
                result.append(
                    indexes.index_row(row.name, link_text(path, root, inside), _description(path))
                )
    return result


def _description(path: Path) -> str:
    from exobrain.skillmd import quick_meta

    try:
        value = quick_meta(path).get("description")
    except InputFileError:
        return ""
    return value if isinstance(value, str) else ""


def scope_docs(
    ws: Workspace, context: Path, *, sidecars: bool, texts: bool, remarks: Remarks
) -> list[indexes.ScopeDoc]:
    """Each connected scope's AGENTS.md (and CLAUDE.md sidecar), shallow to deep, as paths
    seen from ``context`` (relative inside the repository, absolute outside)."""
    inside = _inside(context, ws.root)
    docs = []
    for scope in ws.chain.scopes:
        if scope.path == GLOBAL:
            continue
        folder = scope.directory(ws.root)
        sidecar = folder / "CLAUDE.md"
        text = ""
        if texts:
            try:
                text = read_text(folder / SCOPE_FLAG)
            except InputFileError as exc:
                remarks.warnings.append(f"{exc.message}; left out of the context")
                continue
        docs.append(
            indexes.ScopeDoc(
                scope.path,
                link_text(folder / SCOPE_FLAG, context, inside),
                link_text(sidecar, context, inside) if sidecars and sidecar.is_file() else None,
                text,
            )
        )
    return docs


def _own_file(agent: Agent) -> str:
    """The context file of an agent whose surface has one (CLAUDE.md, AGENTS.override.md,
    USER.md); an agent that only gets an index file has none."""
    if agent.context_file is None:
        raise ValueError(f"{agent.name} has no context file of its own")
    return agent.context_file


def context_actions(
    ws: Workspace,
    agent: Agent,
    context: Path,
    rows: list[indexes.IndexRow],
    remarks: Remarks,
    discovered: str | None,
    place: Path,
) -> list[linker.Action | None]:
    """The agent's context surface: Claude imports generated files from a block in CLAUDE.md,
    Codex gets one AGENTS.override.md, OpenClaw a block in USER.md, others an index file.
    ``discovered`` (connect-agent --discover) is one more generated file, inlined where the
    surface inlines everything; ``place`` is the root every file must stay inside."""
    from exobrain.connect.preload import DISCOVERED_FILE, without_mark

    if agent.context == CONTEXT_CLAUDE:
        surface = _own_file(agent)
        index = indexes.optional_index(rows)
        scopes = indexes.connected_scopes(
            scope_docs(ws, context, sidecars=True, texts=False, remarks=remarks)
        )
        files = [
            (indexes.SCOPES_FILE, scopes),
            (indexes.INDEX_FILE, index),
            (DISCOVERED_FILE, discovered),
        ]
        actions = [linker.plan_file(context / name, text, root=place) for name, text in files]
        imports = [
            name
            for (name, text), action in zip(files, actions, strict=False)
            if text is not None and (action is None or action.op != linker.SKIP)
        ]
        return [
            *actions,
            linker.plan_block(context / surface, indexes.import_block(imports), root=place),
        ]
    if agent.context == CONTEXT_CODEX:
        surface = _own_file(agent)
        shadowed_path = context / SCOPE_FLAG
        shadowed = None
        if shadowed_path.is_file():
            try:
                shadowed = read_text(shadowed_path)
            except InputFileError as exc:
                remarks.warnings.append(f"{exc.message}; left out of {surface}")
        docs = scope_docs(ws, context, sidecars=False, texts=True, remarks=remarks)
        text = indexes.codex_override(shadowed, docs, rows)
        if discovered:
            text = (
                (text or indexes.GENERATED_MARK + "\n").rstrip("\n")
                + "\n\n"
                + without_mark(discovered)
            )
        if text is not None and len(text.encode("utf-8")) > CODEX_DOC_LIMIT:
            remarks.warnings.append(
                f"{surface} is {len(text.encode('utf-8')) // 1024} KiB; Codex reads "
                f"the first {CODEX_DOC_LIMIT // 1024} KiB unless project_doc_max_bytes is raised"
            )
        return [linker.plan_file(context / surface, text, root=place)]
    if agent.context == CONTEXT_OPENCLAW:
        surface = _own_file(agent)
        docs = scope_docs(ws, context, sidecars=False, texts=False, remarks=remarks)
        body = indexes.openclaw_block(docs, rows)
        if discovered:
            body = ((body + "\n\n") if body else "") + without_mark(discovered).rstrip("\n")
        return [linker.plan_block(context / surface, body, root=place)]
    return [
        linker.plan_file(context / indexes.INDEX_FILE, indexes.optional_index(rows), root=place),
        linker.plan_file(context / DISCOVERED_FILE, discovered, root=place),
    ]
