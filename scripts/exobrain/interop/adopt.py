"""``exobrain adopt``: the plan for the skills other installers put on this machine.

Each installed skill with a record (:mod:`exobrain.interop.adopt_records`) gets one of three
forms in the chosen scope, decided before anything is written:

- ``external``: a declaration with ``source: {repo, path, ref}`` pinned to the commit, when
  the record names a git repository the fetcher accepts and the installed folder is exactly
  that commit's folder (checked through the fetcher's cached partial clone of the repository;
  vercel's records hold no commit, so the recorded ref, else the default branch, is resolved and
  its content compared). The ref the tool asked for is kept in the declaration's ``notes``.
- ``fork``: an imported copy recording its origin, when the folder was edited since the
  install (vercel's recorded folder hash differs from the folder's; for gh, the folder differs
  from the tree gh recorded).
- ``copy``: an imported copy with the record's provenance otherwise: a source that is not a
  git repository (a local folder, a well-known URL), a repository the fetcher refuses (a local
  one without ``allow_local``), or one whose commit cannot be checked from here (unreachable,
  or the ref has moved since the install); the plan says which.

The applying is :mod:`exobrain.interop.adopt_apply`. Nothing the other tool owns is touched.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from exobrain.agents import AGENTS, Agent, get_agent
from exobrain.artifacts.lockfile import read_lock
from exobrain.errors import ExobrainError
from exobrain.fetch.plan import FetchSettings, fetch_settings
from exobrain.fetch.report import error_text, short
from exobrain.interop.adopt_plugins import plugin_skills
from exobrain.interop.adopt_records import (
    GH,
    Installed,
    Origin,
    describe,
    find_installed,
    installed_hash,
)
from exobrain.interop.formats import detect
from exobrain.interop.formats.bundle import FoundSkill, discover
from exobrain.interop.formats.fields import SLUG, read_lenient
from exobrain.interop.importer import check_references
from exobrain.interop.inputs import FOLDER, GIT, Opened
from exobrain.interop.plan import Plan, plan_skill, read_skill_text
from exobrain.model import GLOBAL
from exobrain.paths import skill_dir
from exobrain.registry.entries import Entry
from exobrain.skillmd import SKILL_FILE, skill_text
from exobrain.util.dirhash import file_digests
from exobrain.workspace import Workspace

EXTERNAL, FORK, COPY, SKIP = "external", "fork", "copy", "skip"
#: An install an earlier run adopted into the scope (or another install of a skill this
#: run adopts): nothing to do. A folder no installer recorded: not adopt's to take.
DONE, NONE = "adopted", "unrecorded"


@dataclass
class AdoptItem:
    """One installed skill and what adopt does with it."""

    name: str
    where: str
    agents: list[str]
    folder: Path
    origin: Origin | None
    action: str = SKIP
    commit: str | None = None
    notes: list[str] = field(default_factory=list)
    problem: str | None = None
    status: str = "planned"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "installed": self.where,
            "agents": self.agents,
            "action": self.action,
            "record": describe(self.origin) if self.origin else None,
            "commit": self.commit,
            "notes": self.notes,
            "problem": self.problem,
            "status": self.status,
        }


#: A copy or fork ready to write: its item, its translation, the source it records, the adapter.
Copy = tuple[AdoptItem, Plan, Opened, ModuleType]


@dataclass
class AdoptPlan:
    scope: str
    owner: str
    tier: str
    items: list[AdoptItem] = field(default_factory=list)
    copies: list[Copy] = field(default_factory=list)

    @property
    def problems(self) -> list[AdoptItem]:
        return [i for i in self.items if i.action == SKIP]

    def as_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "owner": self.owner,
            "tier": self.tier,
            "skills": [i.as_json() for i in self.items],
        }


@dataclass(frozen=True)
class Upstream:
    """What the repository holds at the resolved commit, compared with the installed folder:
    ``same`` the same files, ``recorded`` the content the record says was installed."""

    commit: str | None = None
    same: bool = False
    recorded: bool = False
    note: str | None = None


def agents_for(names: tuple[str, ...]) -> list[Agent]:
    """The agents named with ``--agent``, else every agent in the table."""
    return [get_agent(n) for n in names] if names else list(AGENTS)


def plan_adoption(
    ws: Workspace,
    scope: str,
    owner: str,
    *,
    agents: list[Agent],
    user: bool,
    tier: str = "always",
) -> AdoptPlan:
    """The plan for every skill found (see the module docstring); writes nothing except what
    the fetcher's cache fetches to check a commit."""
    settings = fetch_settings(ws.connection)
    plan = AdoptPlan(scope, owner, tier)
    declared = {e.name: e for e in ws.registry(scope).entries if not e.is_override}
    locked = read_lock(ws.root, scope)["skills"]
    taken: dict[str, AdoptItem] = {}
    for found in _installed(ws, agents, user):
        item = _item(found)
        plan.items.append(item)
        if item.problem or item.action == NONE:
            continue
        if not SLUG.match(item.name):
            item.problem = (
                f"{item.where}: {item.name!r} is not a valid skill name; bring it in with "
                f"exobrain import {item.where} --name NEW"
            )
        elif item.name in declared or skill_dir(ws.root, scope, item.name).exists():
            if _adopted_before(item, declared.get(item.name), locked.get(item.name)):
                item.action, item.status = DONE, "adopted before"
            else:
                item.problem = (
                    f"{item.name!r} is already declared in {scope}; remove that declaration, "
                    f"or adopt into another scope"
                )
        elif item.name in taken:
            first = taken[item.name]
            if first.origin and item.origin and _same_origin(first.origin, item.origin):
                item.action, item.status = DONE, f"the same skill as {first.where}"
            else:
                item.problem = (
                    f"{first.where} is another skill named {item.name!r}; adopt one of them "
                    f"at a time (--agent, --user)"
                )
        else:
            _decide(ws, item, settings)
        taken.setdefault(item.name, item)
    plan.copies = plan_copies(ws, plan)
    return plan


def _adopted_before(item: AdoptItem, entry: Entry | None, locked: Any) -> bool:
    """Whether the scope's skill of that name is this install, adopted by an earlier run: an
    external declaration of the same repository and path, or a copy whose lock names it."""
    origin = item.origin
    assert origin is not None
    if entry is not None and entry.source is not None:
        return (entry.source["repo"], entry.source["path"]) == (origin.repo, origin.path)
    upstream = locked.get("upstream") if isinstance(locked, dict) else None
    adopted = upstream.get("adopted") if isinstance(upstream, dict) else None
    return isinstance(adopted, dict) and adopted.get("installed") == item.where


def _installed(ws: Workspace, agents: list[Agent], user: bool) -> list[Installed]:
    """The installs in the agents' folders, then the skills of Claude Code's plugins (when
    claude is among the agents) that are not among them."""
    found = find_installed(ws.root, agents, user=user)
    if any(agent.name == "claude" for agent in agents):
        seen = {item.folder for item in found}
        found += [p for p in plugin_skills(ws.root, user=user) if p.folder not in seen]
    return found


def _item(found: Installed) -> AdoptItem:
    item = AdoptItem(found.name, found.where, found.agents, found.folder, found.origin)
    if found.problem:
        item.problem = f"{found.problem}; fix or remove that record, then adopt again"
    elif found.origin is None:
        item.action = NONE
        item.notes.append(
            f"no installer's record says where it came from (made by hand?); "
            f"exobrain import {found.where} brings it in as a copy"
        )
    return item


def _same_origin(one: Origin, other: Origin) -> bool:
    """Two installs of one skill: the same repository and path (or the same local source)."""
    if one.repo or other.repo:
        return (one.repo, one.path) == (other.repo, other.path)
    return one.source == other.source


def _decide(ws: Workspace, item: AdoptItem, settings: FetchSettings) -> None:
    origin = item.origin
    assert origin is not None
    try:
        edited = bool(origin.hash) and installed_hash(item.folder) != origin.hash
    except OSError as exc:
        item.problem = f"{item.where}: cannot read the folder ({exc.strerror or exc})"
        return
    if origin.repo is None or origin.path is None:
        item.action = FORK if edited else COPY
        why = "not a git repository" if origin.repo is None else "no path inside it recorded"
        item.notes.append(f"its source {origin.source} is {why}: an imported copy")
        if edited:
            item.notes.append("edited since the install: kept as a fork")
        return
    up = check_upstream(ws, origin, item.folder, settings)
    if origin.tree or origin.pinned:  # the record names upstream: an edit differs from it
        edited = up.recorded and not up.same
    if up.recorded and up.same and up.commit:
        item.action, item.commit = EXTERNAL, up.commit
        return
    if edited:
        item.action = FORK
        item.commit = up.commit if up.recorded else None
        item.notes.append(
            f"edited since the install (its files differ from {origin.tool}'s record): "
            f"an imported copy recording its origin, so upstream's changes stay yours to take"
        )
        return
    item.action = COPY
    item.notes.append(
        (up.note or f"{origin.ref or 'the default branch'} no longer holds what was installed")
        + ": an imported copy with its origin recorded; adopt again once the commit can be "
        "checked, or declare the external skill by hand"
    )


def check_upstream(
    ws: Workspace, origin: Origin, folder: Path, settings: FetchSettings
) -> Upstream:
    """Resolve the record's ref in the fetcher's cached clone and compare that commit's folder
    with the installed one. What cannot be checked is a note, never an error."""
    from exobrain.fetch.materialise import materialise
    from exobrain.fetch.remote import SourceRefused, check_path, check_ref, check_repo, is_full_sha
    from exobrain.fetch.repocache import RepoCache, pick_ref
    from exobrain.paths import user_cache_dir
    from exobrain.util.git import Git

    assert origin.repo is not None and origin.path is not None
    try:
        url, _ = check_repo(origin.repo, allow_local=settings.allow_local, root=ws.root)
        path, ref = check_path(origin.path), check_ref(origin.ref or "HEAD")
    except SourceRefused as exc:
        return Upstream(note=f"the fetcher refuses it ({exc.message})")
    cache = RepoCache(Git(allow_file=settings.allow_local), user_cache_dir(), url)
    try:
        with cache.locked():
            if is_full_sha(ref):
                commit = ref
            else:
                info = pick_ref(cache.ls_remote([ref]), ref)
                if info is None:
                    return Upstream(note=f"{origin.repo} has no branch or tag {ref!r} any more")
                commit = info.commit
            cache.ensure_commit(commit)
            tree = cache.tree_at(commit, path)
            if origin.tree and tree != origin.tree:
                return Upstream(
                    commit,
                    note=f"{ref} is now {short(commit)}, whose folder is not the tree "
                    f"{origin.tree[:12]} {origin.tool} recorded (it has moved since)",
                )
            cache.ensure_complete(tree, settings.max_bytes)
            with tempfile.TemporaryDirectory(prefix="exobrain-adopt-") as temp:
                upstream = Path(temp) / "skill"
                upstream.mkdir()
                materialise(cache, tree, upstream, settings.max_bytes)
                recorded = (
                    bool(origin.tree) or origin.pinned or installed_hash(upstream) == origin.hash
                )
                same = _same_files(folder, upstream, gh=origin.tool == GH)
    except (ExobrainError, OSError) as exc:
        return Upstream(note=f"its commit cannot be checked from here: {error_text(exc)}")
    return Upstream(commit, same, recorded)


def _same_files(installed: Path, upstream: Path, *, gh: bool) -> bool:
    """Whether the two folders hold the same files; with ``gh``, SKILL.md is compared without
    the record gh added to its metadata (gh rewrites the frontmatter when it installs)."""
    mine, theirs = file_digests(installed), file_digests(upstream)
    if not gh:
        return mine == theirs
    if {k: v for k, v in mine.items() if k != SKILL_FILE} != {
        k: v for k, v in theirs.items() if k != SKILL_FILE
    }:
        return False
    try:
        meta, body, _ = read_lenient(skill_text(installed / SKILL_FILE), installed / SKILL_FILE)
        up_meta, up_body, _ = read_lenient(skill_text(upstream / SKILL_FILE), upstream / SKILL_FILE)
    except ExobrainError:
        return False
    metadata = meta.get("metadata")
    if isinstance(metadata, dict):
        rest = {k: v for k, v in metadata.items() if not str(k).startswith("github-")}
        meta = {k: v for k, v in meta.items() if k != "metadata"}
        if rest or "metadata" in up_meta:
            meta["metadata"] = rest
    return bool(meta == up_meta and body.strip() == up_body.strip())


def _opened(item: AdoptItem) -> Opened:
    """The installed folder as an import source that records the installer's origin."""
    origin = item.origin
    assert origin is not None
    if origin.repo and origin.path:
        path = "" if origin.path == "." else origin.path
        return Opened(GIT, origin.repo, item.folder, path, origin.ref, item.commit)
    return Opened(FOLDER, origin.source, item.folder)


def plan_copies(ws: Workspace, plan: AdoptPlan) -> list[Copy]:
    """Translate and check every copy and fork of the plan; a skill that would not pass
    skills-validate becomes a problem on its item (and is left out)."""
    policy = ws.registry(GLOBAL).policy
    planned = []
    for item in plan.items:
        if item.action not in (COPY, FORK):
            continue
        src = _opened(item)
        found = FoundSkill(item.folder, "")
        try:
            reading = read_skill_text(found)
        except ExobrainError as exc:
            item.action, item.problem = SKIP, exc.message
            continue
        adapter, _ = detect(discover(item.folder), [reading[0]])
        planned.append(
            (item, plan_skill(adapter, src, found, reading, item.name, policy), src, adapter)
        )
    check_references(ws, plan.scope, [copy for _, copy, _, _ in planned])
    kept = []
    for item, copy, src, adapter in planned:
        if copy.item.problem:
            item.action, item.problem = SKIP, copy.item.problem
        else:
            item.notes += copy.item.repairs + copy.item.flags
            kept.append((item, copy, src, adapter))
    return kept
