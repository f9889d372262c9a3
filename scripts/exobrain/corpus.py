"""The artifacts a connection may see: skills and knowledge documents, and who may see what.

Search and the read-only substrate verbs all start here, so they share one rule:

* by default, what the connected chain holds — every skill declared in a chain scope, every
  skill an override in the chain points at, and the knowledge documents of chain scopes;
* with ``everywhere`` (``--all-scopes``), the shared scopes too (global, seed, groups, teams
  and any other non-personal scope);
* never another person's scope (a ``person`` or ``host`` scope outside the chain), and never a
  folder named ``local`` except inside a personal scope of the chain: those are private.

A knowledge document is a markdown file under a scope's ``knowledge/`` folder (frontmatter
optional); its reference is ``knowledge:<path below knowledge/ without .md>@<scope>``. Symbolic
links are never followed while looking for them, so a link cannot pull a private file in.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import installs
from .agents import AGENTS, optional_dir
from .catalog import skill_dir
from .errors import UsageError
from .registry import EXTERNAL, Entry
from .resolve import Resolved
from .scopes import Scope
from .skillmd import SKILL_FILE
from .workspace import Workspace

PERSONAL = frozenset({"person", "host"})
KNOWLEDGE_DIR = "knowledge"
PRIVATE_DIR = "local"
TYPES = ("skill", "knowledge")
_KNOWLEDGE_REF = re.compile(r"^knowledge:(?P<path>[^@\s]+)(?:@(?P<home>[^@\s]+))?$")


@dataclass(frozen=True)
class Artifact:
    """One skill or knowledge document, with where it lives and how it reaches me."""

    ref: str                     # canonical: skill:NAME@HOME or knowledge:PATH@SCOPE
    type: str                    # "skill" | "knowledge"
    name: str
    home: str                    # scope path, or external/<owner>
    scope: str                   # the scope holding the file, or the declaring registry
    path: Path | None            # SKILL.md or the .md file; None: external not installed
    declaration: Entry | None = None
    resolved: Resolved | None = None

    @property
    def folder(self) -> Path | None:
        return self.path.parent if self.type == "skill" and self.path else None

    @property
    def lifecycle(self) -> str:
        return self.declaration.lifecycle if self.declaration else "active"

    @property
    def owner(self) -> str | None:
        return self.declaration.owner if self.declaration else None

    @property
    def tier(self) -> str:
        """The tier for me: what the resolver says, ``off`` when my chain does not mention it."""
        if self.type != "skill":
            return "-"
        return self.resolved.tier if self.resolved else "off"


def skill_ref(entry: Entry) -> str:
    return f"skill:{entry.name}@{home_of(entry)}"


def home_of(entry: Entry) -> str:
    return f"{EXTERNAL}/{entry.owner}" if entry.source else entry.scope


@dataclass
class View:
    """What one connection can see, built once per command."""

    ws: Workspace
    scopes: list[Scope]                       # scopes whose artifacts are visible
    everywhere: bool = False
    _rows: dict[tuple[str, ...], Resolved] = field(default_factory=dict)
    _skills: list[Artifact] | None = None
    _installed: dict[tuple[str, str], Path] | None = None

    @property
    def scope_paths(self) -> set[str]:
        return {s.path for s in self.scopes}

    def skills(self) -> list[Artifact]:
        """Every visible skill declaration, once each (chain order, then file order)."""
        if self._skills is None:
            found: dict[tuple[str, ...], Artifact] = {}
            for scope in self.scopes:
                for entry in self.ws.registry(scope.path).entries:
                    if not entry.is_override and entry.identity not in found:
                        found[entry.identity] = self._artifact(entry)
            for identity, row in self._rows.items():  # opted in from outside the chain
                if identity not in found and row.declaration is not None:
                    found[identity] = self._artifact(row.declaration)
            self._skills = list(found.values())
        return self._skills

    def _artifact(self, entry: Entry) -> Artifact:
        if entry.source:
            path = self.installed().get((entry.name, entry.owner or ""))
        else:
            path = skill_dir(self.ws.root, entry.scope, entry.name) / SKILL_FILE
        return Artifact(skill_ref(entry), "skill", entry.name, home_of(entry), entry.scope,
                        path, entry, self._rows.get(entry.identity))

    def installed(self) -> dict[tuple[str, str], Path]:
        """(name, owner) → SKILL.md of an installed external copy, from the install records in
        the agents' project and user folders."""
        if self._installed is None:
            self._installed = {}
            for agent in AGENTS:
                folders = {agent.skills_dir(self.ws.root), agent.user_skills_dir()}
                for folder in sorted(folders | {optional_dir(f) for f in folders}):
                    for name, record in sorted(installs.scan(folder).items()):
                        path = folder / name / SKILL_FILE
                        if path.is_file():
                            self._installed.setdefault((record.name, record.owner), path)
        return self._installed

    def knowledge(self) -> list[Artifact]:
        """Every visible knowledge document (sorted by scope order, then path)."""
        found = []
        for scope in self.scopes:
            base = scope.directory(self.ws.root) / KNOWLEDGE_DIR
            private_ok = scope.type in PERSONAL
            for rel in _markdown_files(base, private_ok):
                name = rel[:-3]
                found.append(Artifact(f"knowledge:{name}@{scope.path}", "knowledge", name,
                                      scope.path, scope.path, base / rel))
        return found

    def artifacts(self, types: tuple[str, ...] = TYPES) -> list[Artifact]:
        return (self.skills() if "skill" in types else []) + (
            self.knowledge() if "knowledge" in types else [])

    def find(self, text: str, types: tuple[str, ...] = TYPES) -> Artifact:
        """The visible artifact a reference names (``skill:NAME[@HOME]``,
        ``knowledge:PATH[@SCOPE]``). Unknown and invisible read the same, so a private
        artifact's existence is not revealed."""
        text = text.strip()
        if text.startswith("knowledge:"):
            match = _KNOWLEDGE_REF.match(text)
            if not match or not _safe_relative(match.group("path")):
                raise UsageError(f"{text!r} is not a knowledge reference",
                                 hint="write knowledge:PATH[@SCOPE], PATH below knowledge/ "
                                      "without .md (e.g. knowledge:exobrain/skills@global)")
            path, home = match.group("path").removesuffix(".md"), match.group("home")
            candidates = [a for a in self.knowledge() if a.name == path
                          and (home is None or a.home == home)]
        else:
            from .refs import parse_ref

            ref = parse_ref(text)
            candidates = [a for a in self.skills() if a.name == ref.name
                          and (ref.home is None or a.home == ref.home)]
        candidates = [a for a in candidates if a.type in types]
        if not candidates:
            raise UsageError(f"no visible artifact {text!r}",
                             hint="it does not exist or lives in a scope you are not connected "
                                  "to; exobrain list shows what you can see")
        return candidates[-1]  # the deepest in the chain


def open_view(ws: Workspace, *, everywhere: bool = False) -> View:
    """The connection's view: the chain, or with ``everywhere`` every non-personal scope plus
    the chain's own personal scopes."""
    chain = list(ws.chain.scopes)
    scopes = chain
    if everywhere:
        chain_paths = {s.path for s in chain}
        scopes = [s for s in ws.discover().scopes
                  if s.path in chain_paths or s.type not in PERSONAL]
    allowed = {s.path for s in scopes}
    # A skill declared outside the view is visible only when an override in the chain makes
    # it reach me (then it is linked into my agents anyway); an override to "off" shows nothing.
    rows = {row.identity: row for row in ws.resolve()
            if row.declaration is not None
            and (row.declaration.scope in allowed or row.tier != "off")}
    return View(ws, scopes, everywhere, rows)


def _safe_relative(path: str) -> bool:
    parts = path.split("/")
    return not path.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def _markdown_files(base: Path, private_ok: bool) -> list[str]:
    """Markdown files below ``base`` as POSIX paths, without following links or entering
    hidden folders (nor ``local/`` unless ``private_ok``)."""
    found: list[str] = []

    def walk(folder: str, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
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

