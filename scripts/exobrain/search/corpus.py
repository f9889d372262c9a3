"""Which artifacts a connection may see — skills and knowledge documents, each an
:class:`~exobrain.search.artifact.Artifact` — and who may see what.

Search and the read-only substrate verbs all start here, so they share one rule:

* by default, what the connected chain holds — every skill declared in a chain scope, every
  skill an override in the chain points at, and the knowledge documents of chain scopes;
* with ``everywhere`` (``--all-scopes``), every scope of the repository: the same
  declarations ``skills-status --all`` lists (the repository is readable by all its members,
  so search and the catalog agree), other people's scopes included;
* never a folder named ``local`` except inside a personal scope of the chain: the one place
  meant to be private.

A knowledge document is a markdown file under a scope's ``knowledge/`` folder (frontmatter
optional); its reference is ``knowledge:<path below knowledge/ without .md>@<scope>``. Symbolic
links are never followed while looking for them, so a link cannot pull a private file in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from exobrain.agents import AGENTS, optional_dir
from exobrain.errors import UsageError
from exobrain.fetch import installs
from exobrain.findings import WARNING, Finding
from exobrain.model import EXTERNAL, GLOBAL, Identity, Reason
from exobrain.paths import shown
from exobrain.registry.entries import Entry
from exobrain.resolve import Resolved
from exobrain.scopes import Scope
from exobrain.search.artifact import Artifact, home_of, skill_ref
from exobrain.skillmd import SKILL_FILE
from exobrain.supersession import LinksReader, supersedes_edges
from exobrain.workspace import Workspace

PERSONAL = frozenset({"person", "host"})
KNOWLEDGE_DIR = "knowledge"
PRIVATE_DIR = "local"
TYPES = ("skill", "knowledge")
_KNOWLEDGE_REF = re.compile(r"^knowledge:(?P<path>[^@\s]+)(?:@(?P<home>[^@\s]+))?\Z")


@dataclass
class View:
    """What one connection can see, built once per command. Resolution (tiers for me) is
    computed on first need, so a caller may refresh the search index first and hand its
    frontmatter to the resolver as ``supersedes`` instead of re-reading every SKILL.md."""

    ws: Workspace
    scopes: list[Scope]  # scopes whose artifacts are visible
    everywhere: bool = False
    supersedes: LinksReader | None = None
    #: the agent the answers are for (its agent filters apply); None: agent-neutral
    agent: str | None = None
    _rows: dict[Identity, Resolved] | None = None
    _declared: dict[Identity, Artifact] | None = None
    _skills: list[Artifact] | None = None
    _installed: dict[tuple[str, str], str] | None = None
    _copies: dict[Identity, Path] = field(default_factory=dict)

    @property
    def scope_paths(self) -> set[str]:
        return {s.path for s in self.scopes}

    def declared(self) -> list[Artifact]:
        """The skills declared in the visible scopes, not yet resolved."""
        if self._declared is None:
            entries: dict[Identity, Entry] = {}
            for scope in self.scopes:
                for entry in self.ws.registry(scope.path).entries:
                    if not entry.is_override and entry.identity not in entries:
                        entries[entry.identity] = entry
            self._copies = self.ws.sparse.skill_copies(
                [Identity(e.scope, e.name) for e in entries.values() if not e.source]
            )
            self._declared = {key: self._artifact(e, None) for key, e in entries.items()}
        return list(self._declared.values())

    def rows(self) -> dict[Identity, Resolved]:
        """My resolution of the chain, by identity. A skill declared outside the view is kept
        only when an override in the chain makes it reach me (it is then linked into my agents
        anyway); an override to "off" reveals nothing."""
        if self._rows is None:
            allowed = self.scope_paths
            self._rows = {
                row.identity: row
                # ranking, not linking: a dependency keeps its own tier (and no file is read)
                for row in self.ws.resolve(
                    self.agent, supersedes=self.supersedes, dependencies=False
                )
                if row.declaration is not None
                and (row.declaration.scope in allowed or row.tier != "off")
            }
        return self._rows

    def skills(self) -> list[Artifact]:
        """Every visible skill, resolved: the declarations of the visible scopes (chain order,
        then file order), then skills the chain opted into from elsewhere."""
        if self._skills is None:
            rows = self.rows()
            self.declared()
            assert self._declared is not None
            chain = set(self.ws.chain.paths)
            found = {
                key: replace(a, resolved=rows.get(key), in_chain=key in rows or a.scope in chain)
                for key, a in self._declared.items()
            }
            for identity, row in rows.items():
                if identity not in found and row.declaration is not None:
                    found[identity] = self._artifact(row.declaration, row)
            successor = self._successors(found)
            self._skills = [
                replace(a, successor=successor[key]) if key in successor else a
                for key, a in found.items()
            ]
        return self._skills

    def _successors(self, found: dict[Identity, Artifact]) -> dict[Identity, str]:
        """Each visible skill some other visible, unarchived skill supersedes → that one's ref
        (whatever either's tier: a search lists both, the successor first)."""
        entries = [a.declaration for a in found.values() if a.declaration is not None]
        edges = supersedes_edges(self.ws.root, entries, self.supersedes)
        successor: dict[Identity, str] = {}
        for new, olds in edges.items():
            artifact = found.get(new)
            if artifact is None or artifact.lifecycle == "archived":
                continue
            for old in olds:
                if old in found and old != new:
                    successor.setdefault(old, artifact.ref)
        return successor

    def _artifact(self, entry: Entry, row: Resolved | None) -> Artifact:
        if entry.source:
            file = self.installed().get((entry.name, entry.owner or ""))
        elif Identity(entry.scope, entry.name) in self._copies:  # outside the sparse checkout
            file = str(self._copies[Identity(entry.scope, entry.name)])
        else:  # a string, not a Path: this runs for every visible skill
            folder = "" if entry.scope == GLOBAL else entry.scope + "/"
            file = f"{self.ws.root}/{folder}skills/{entry.name}/{SKILL_FILE}"
        return Artifact(
            skill_ref(entry), "skill", entry.name, home_of(entry), entry.scope, file, entry, row
        )

    @property
    def installs_read(self) -> bool:
        """Whether :meth:`installed` looked at the agents' folders (the chain has externals)."""
        return self._installed is not None

    def installed(self) -> dict[tuple[str, str], str]:
        """(name, owner) → SKILL.md of an installed external copy, from the install records in
        the agents' project and user folders."""
        if self._installed is None:
            self._installed = {}
            for agent in AGENTS:
                folders = {agent.folders(self.ws.root).skills, agent.user_skills_dir()}
                for folder in sorted(folders | {optional_dir(f) for f in folders}):
                    for name, record in sorted(installs.scan(folder).items()):
                        path = folder / name / SKILL_FILE
                        if path.is_file():
                            self._installed.setdefault((record.name, record.owner), str(path))
        return self._installed

    def _unlisted(self, folder: str, exc: OSError) -> None:
        """A folder of documents that exists but cannot be listed: a warning (once), since
        what it holds is left out of every answer."""
        if isinstance(exc, PermissionError):
            finding = Finding(
                WARNING,
                "folder-unreadable",
                shown(Path(folder), self.ws.root),
                f"cannot read folder ({exc.strerror}); what it holds is left out",
            )
            if finding not in self.ws.findings:
                self.ws.findings.append(finding)

    def knowledge(self) -> list[Artifact]:
        """Every visible knowledge document (sorted by scope order, then path)."""
        found = []
        chain = set(self.ws.chain.paths)
        for scope in self.scopes:
            base = scope.directory(self.ws.root) / KNOWLEDGE_DIR
            private_ok = scope.type in PERSONAL and scope.path in chain
            files = {rel: base / rel for rel in _markdown_files(base, private_ok, self._unlisted)}
            if self.ws.sparse.scope_left_out(scope.path):
                # read from git: copies, never private ones
                copies = self.ws.sparse.knowledge_copies(scope.path, KNOWLEDGE_DIR)
                files = {
                    rel: path
                    for rel, path in copies.items()
                    if rel.endswith(".md") and PRIVATE_DIR not in rel.split("/")[:-1]
                }
            for rel, path in sorted(files.items()):
                name = rel[:-3]
                found.append(
                    Artifact(
                        f"knowledge:{name}@{scope.path}",
                        "knowledge",
                        name,
                        scope.path,
                        scope.path,
                        str(path),
                    )
                )
        return found

    def link_target(self, target: str) -> Artifact | None:
        """The visible skill a link in a frontmatter names (``NAME@HOME`` exactly; a bare name:
        the deepest visible skill of that name), or None when none is visible."""
        from exobrain.errors import ExobrainError
        from exobrain.refs import parse_ref

        try:
            ref = parse_ref(target)
        except ExobrainError:
            return None
        found = [
            a
            for a in self.skills()
            if a.name == ref.name and (ref.home is None or a.home == ref.home)
        ]
        return found[-1] if found else None

    def artifacts(self, types: tuple[str, ...] = TYPES) -> list[Artifact]:
        return (self.skills() if "skill" in types else []) + (
            self.knowledge() if "knowledge" in types else []
        )

    def find(self, text: str, types: tuple[str, ...] = TYPES) -> Artifact:
        """The visible artifact a reference names (``skill:NAME[@HOME]``,
        ``knowledge:PATH[@SCOPE]``). Unknown and invisible read the same, so a private
        artifact's existence is not revealed."""
        text = text.strip()
        if text.startswith("knowledge:"):
            match = _KNOWLEDGE_REF.match(text)
            if not match or not _safe_relative(match.group("path")):
                raise UsageError(
                    f"{text!r} is not a knowledge reference",
                    hint="write knowledge:PATH[@SCOPE], PATH below knowledge/ "
                    "without .md (e.g. knowledge:exobrain/skills@global)",
                )
            path, home = match.group("path").removesuffix(".md"), match.group("home")
            candidates = [
                a for a in self.knowledge() if a.name == path and (home is None or a.home == home)
            ]
        else:
            from exobrain.refs import parse_ref

            ref = parse_ref(text)
            candidates = [
                a
                for a in self.skills()
                if a.name == ref.name and (ref.home is None or a.home == ref.home)
            ]
        # what the view's agent may not use is not there for it (agent and skipAgents)
        candidates = [a for a in candidates if a.type in types and not not_for_agent(a)]
        if not candidates:
            raise UsageError(
                f"no visible artifact {text!r}",
                hint="it does not exist or lives in a scope you are not connected "
                "to; exobrain list shows what you can see",
            )
        return candidates[-1]  # the deepest in the chain


def not_for_agent(artifact: Artifact) -> bool:
    """Whether the artifact's declaration keeps it from the view's agent."""
    row = artifact.resolved
    return row is not None and row.reason is Reason.NOT_FOR_AGENT


def open_view(ws: Workspace, *, everywhere: bool = False, agent: str | None = None) -> View:
    """The connection's view for ``agent`` (None: agent-neutral): the chain, or with
    ``everywhere`` every scope of the repository (what the catalog lists)."""
    if everywhere:
        return View(ws, list(ws.scan().scopes), True, agent=agent)
    return View(ws, list(ws.chain.scopes), False, agent=agent)


def shared_view(ws: Workspace) -> View:
    """Every shared scope (global, seed, groups, teams: all but person and host scopes),
    whatever this machine is connected to: what a published catalog shows by default (in a
    sparse checkout, the scopes it leaves out too: the scan lists them from git)."""
    return View(ws, [s for s in ws.scan().scopes if s.type not in PERSONAL], True)


def repository_view(ws: Workspace) -> View:
    """Every scope of the repository, personal ones included (``skills-status --all``'s
    reach); in a sparse checkout the scan lists the scopes it leaves out from git."""
    return View(ws, list(ws.scan().scopes), True)


def index_artifacts(ws: Workspace) -> list[Artifact]:
    """Every skill folder and knowledge document of the repository, for building the search
    cache (never shown to anyone: queries filter the cache through :func:`open_view`). Found
    on disk, so a whole-repository update reads no registry."""
    found: list[Artifact] = []
    view = repository_view(ws)
    outside = [s for s in view.scopes if ws.sparse.scope_left_out(s.path)]
    copies = ws.sparse.skill_copies(
        [Identity(s.path, n) for s in outside for n in ws.sparse.committed_skills(s.path)]
    )
    for (home, name, _), copy in sorted(copies.items()):  # scopes outside a sparse checkout
        found.append(Artifact(f"skill:{name}@{home}", "skill", name, home, home, str(copy)))
    for scope in view.scopes:
        base = os.path.join(scope.directory(ws.root), "skills")
        try:
            entries = sorted(
                e.name for e in os.scandir(base) if not e.name.startswith(".") and e.is_dir()
            )
        except OSError as exc:
            view._unlisted(base, exc)
            continue
        for name in entries:  # a folder without SKILL.md is dropped by the refresh
            found.append(
                Artifact(
                    f"skill:{name}@{scope.path}",
                    "skill",
                    name,
                    scope.path,
                    scope.path,
                    os.path.join(base, name, SKILL_FILE),
                )
            )
    for (name, owner), path in sorted(view.installed().items()):
        home = f"{EXTERNAL}/{owner}"
        found.append(Artifact(f"skill:{name}@{home}", "skill", name, home, home, path))
    return found + view.knowledge()


def _safe_relative(path: str) -> bool:
    parts = path.split("/")
    return not path.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def _markdown_files(
    base: Path, private_ok: bool, unlisted: Callable[[str, OSError], None]
) -> list[str]:
    """Markdown files below ``base`` as POSIX paths, without following links or entering
    hidden folders (nor ``local/`` unless ``private_ok``); a folder that cannot be listed is
    given to ``unlisted`` and left out."""
    found: list[str] = []

    def walk(folder: str, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            unlisted(folder, exc)
            return
        for entry in entries:
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            if entry.is_dir():
                if entry.name != PRIVATE_DIR or private_ok:
                    walk(entry.path, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".md") and entry.is_file():
                found.append(prefix + entry.name)

    walk(os.fspath(base), "")
    return found
