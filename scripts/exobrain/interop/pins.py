"""The pins of external skills, as another installer's lock file needs them: for each skill
its checked source, the commit it resolved to, the tags naming that commit and the files of
the skill at that commit.

Why not read the installed copies: an install may carry local edits (the fetcher keeps them as
"modified"), and a lock must describe the commit, so the files come from the cached partial
clone at that commit. The commit is the installed one when this exobrain installed the skill
for a connected agent (what the user has now is what a colleague should get), else what the
declared ref names on the remote now. One ``ls-remote`` per repository answers both that and
which tags name each commit, asked every time (a tag can be moved). Every problem is per
skill, so one report names them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from pathlib import Path

from exobrain.agents import get_agent, optional_dir
from exobrain.artifacts.promote import real_scope
from exobrain.errors import ExobrainError, InputFileError, OperationFailed, UsageError
from exobrain.fetch import installs
from exobrain.fetch.plan import ON_TIERS, FetchSettings, fetch_settings
from exobrain.fetch.remote import Source, SourceRefused, check_source
from exobrain.fetch.repocache import RefInfo, RepoCache, SizeCapExceeded, pick_ref
from exobrain.fetch.report import error_text
from exobrain.model import Identity, Lifecycle
from exobrain.paths import shown, user_cache_dir
from exobrain.registry.entries import Entry
from exobrain.skillmd import SKILL_FILE
from exobrain.skillmd import parse as parse_skill
from exobrain.util.git import Git
from exobrain.workspace import Workspace

_TAGS = "refs/tags/"
#: Folders a checkout holds that installers leave out of a skill's files.
_SKIPPED = (".git", "node_modules")


@dataclass(frozen=True)
class Pin:
    """One external skill at its resolved commit."""

    name: str
    owner: str
    where: str  # the declaration, for messages: "skills.json:4 name (owner)"
    source: Source
    commit: str
    ref_kind: str  # commit | tag | branch
    tags: tuple[str, ...]  # the tags naming ``commit`` (short names, sorted)
    files: tuple[tuple[str, bytes], ...]  # the skill folder's regular files at ``commit``
    skill_name: str  # the ``name`` of its SKILL.md, what other installers key on
    installed: bool  # whether ``commit`` is the one installed for a connected agent


@dataclass(frozen=True)
class _Wanted:
    entry: Entry
    where: str
    source: Source


def gather(
    ws: Workspace,
    *,
    scope: str | None = None,
    agents: tuple[str, ...] = (),
    cache_dir: Path | None = None,
    git: Git | None = None,
) -> tuple[list[Pin], list[str]]:
    """The pins of the external skills the connection resolves on for ``agents`` (default:
    the connected agents), or those ``scope`` declares; and one problem per skill that has
    none. Raises only for bad usage and for a workspace whose registries have errors."""
    settings = fetch_settings(ws.connection)
    if ws.has_bad_input:
        raise InputFileError(
            "some skills.json files have errors, so the external skills cannot be resolved",
            hint="run skills-validate, fix what it names, then export again",
        )
    chosen = _chosen_agents(ws, agents, scope)
    wanted, problems = _wanted(ws, scope, chosen, settings.allow_local)
    run = _Run(ws, chosen, git or Git(allow_file=settings.allow_local), cache_dir, settings)
    for item in wanted:  # one ls-remote per repository lists every ref its skills name
        refs = run.refs.setdefault(item.source.url, set())
        if not item.source.pinned:
            refs.add(item.source.ref)
    pins = []
    for item in wanted:
        try:
            pins.append(run.pin(item))
        except (ExobrainError, OSError) as exc:
            problems.append(f"{item.where}: {error_text(exc)}")
    return pins, problems


def _chosen_agents(ws: Workspace, agents: tuple[str, ...], scope: str | None) -> list[str]:
    if scope is not None and agents:
        raise UsageError("give --scope or --agent, not both")
    names = list(agents) if agents else ([] if scope is not None else list(ws.connection.agents))
    if scope is None and not names:
        raise UsageError(
            "no agent is connected, so no external skill resolves for this connection",
            hint="name one with --agent A, or export what a scope declares with --scope S",
        )
    return [get_agent(name).name for name in dict.fromkeys(names)]


def _wanted(
    ws: Workspace, scope: str | None, agents: list[str], allow_local: bool
) -> tuple[list[_Wanted], list[str]]:
    """The external declarations to pin (one per skill), and those whose source is refused."""
    if scope is not None:
        scope = real_scope(ws, scope, "--scope")
        entries = [
            e
            for e in ws.registry(scope).entries
            if not e.is_override and e.source and e.lifecycle != Lifecycle.ARCHIVED
        ]
        if not entries:
            raise UsageError(f"{scope} declares no external skill (none with a source)")
    else:
        found: dict[Identity, Entry] = {}
        for agent in agents:
            for row in ws.resolve(agent):
                decl = row.declaration
                if row.is_external and row.tier in ON_TIERS and decl and decl.source:
                    found.setdefault(row.identity, decl)
        entries = list(found.values())
        if not entries:
            raise UsageError(
                f"no external skill resolves on for {', '.join(agents)}",
                hint="declare one with a source, or export a scope with --scope S",
            )
    wanted, problems = [], []
    for entry in entries:
        registry = ws.registry(entry.scope)
        line = registry.line_of(entry.index)
        where = f"{shown(registry.path, ws.root)}{f':{line}' if line else ''} {entry.label()}"
        try:
            assert entry.source is not None
            source = check_source(entry.source, allow_local=allow_local, root=ws.root)
        except SourceRefused as exc:
            problems.append(f"{where}: {exc.message}")
            continue
        wanted.append(_Wanted(entry, where, source))
    return wanted, problems


class _Run:
    """One :func:`gather`: the git runner, the ``ls-remote`` answers per repository URL."""

    def __init__(
        self,
        ws: Workspace,
        agents: list[str],
        git: Git,
        cache_dir: Path | None,
        settings: FetchSettings,
    ) -> None:
        self.ws, self.agents, self.git = ws, agents, git
        self.cache_root = cache_dir or user_cache_dir()
        self.max_bytes = settings.max_bytes
        self.listings: dict[str, dict[str, str]] = {}
        self.refs: dict[str, set[str]] = {}  # URL → the refs its skills name

    def pin(self, item: _Wanted) -> Pin:
        source, entry = item.source, item.entry
        record = self._installed(entry, source)
        if record is not None:
            info = RefInfo(record.commit, record.ref_kind)
        elif source.pinned:
            info = RefInfo(source.ref, "commit")
        else:
            info = self._remote(source)
        tags = self._tags_at(source.url, info.commit)  # asked even for an installed tag: it
        # may have been moved to another commit since
        files = self._files(source, info.commit)
        skill_name = self._skill_name(files, info.commit)
        return Pin(
            entry.name,
            entry.owner or "",
            item.where,
            source,
            info.commit,
            info.kind,
            tags,
            files,
            skill_name,
            record is not None,
        )

    def _installed(self, entry: Entry, source: Source) -> installs.InstallRecord | None:
        """The install record of this skill in a chosen agent's folders, when this exobrain
        installed it from this very source."""
        names = (entry.identity.name, entry.identity.told_apart)  # plain, or told apart
        for name in self.agents:
            agent = get_agent(name)
            for user in (False, True):
                skills = agent.folders(self.ws.root, user=user).skills
                for place, link in product((skills, optional_dir(skills)), names):
                    record = installs.read_record(place / link)
                    if (
                        record is not None
                        and record.exobrain == str(self.ws.root)
                        and (record.repo, record.path, record.ref)
                        == (source.repo, source.path, source.ref)
                    ):
                        return record
        return None

    def _listing(self, url: str) -> dict[str, str]:
        """Every tag of ``url`` and the refs its skills name, from one ``ls-remote``."""
        if url not in self.listings:
            cache = RepoCache(self.git, self.cache_root, url)
            self.listings[url] = cache.ls_remote([f"{_TAGS}*", *sorted(self.refs.get(url, ()))])
        return self.listings[url]

    def _remote(self, source: Source) -> RefInfo:
        info = pick_ref(self._listing(source.url), source.ref)
        if info is None:
            raise OperationFailed(
                f"{source.repo} has no branch or tag {source.ref!r}",
                hint="use a branch, a tag or a full 40-character commit id",
            )
        return info

    def _tags_at(self, url: str, commit: str) -> tuple[str, ...]:
        listing = self._listing(url)
        return tuple(
            sorted(
                name.removeprefix(_TAGS)
                for name, oid in listing.items()
                if name.startswith(_TAGS)
                and not name.endswith("^{}")
                and listing.get(name + "^{}", oid) == commit
            )
        )

    def _files(self, source: Source, commit: str) -> tuple[tuple[str, bytes], ...]:
        """The regular files of the skill folder at ``commit`` (links and submodules are not
        files in a checkout), read from the cached clone, fetched first when missing."""
        cache = RepoCache(self.git, self.cache_root, source.url)
        with cache.locked():
            cache.ensure_commit(commit)
            tree = cache.tree_at(commit, source.path)
            cache.ensure_complete(tree, self.max_bytes)
            blobs = [
                e
                for e in cache.entries(tree)
                if e.kind == "blob"
                and e.mode != "120000"
                and not any(part in _SKIPPED for part in e.path.split("/")[:-1])
            ]
            total = sum(e.size for e in blobs)
            if total > self.max_bytes:  # the fetcher's cap, for what is read into memory here
                raise SizeCapExceeded(
                    f"the skill is {total} bytes, over the {self.max_bytes} byte size cap",
                    hint='raise "external_skills": {"max_bytes": N} in .exobrain.json '
                    "if you trust this source",
                )
            content = cache.read_small([e.oid for e in blobs]) if blobs else {}
        return tuple((e.path, content[e.oid]) for e in blobs)

    def _skill_name(self, files: tuple[tuple[str, bytes], ...], commit: str) -> str:
        text = dict(files).get(SKILL_FILE)
        label = Path(f"{SKILL_FILE} at {commit[:12]}")
        if text is None:
            raise OperationFailed(f"no {SKILL_FILE} in the skill's folder at {commit[:12]}")
        try:
            meta = parse_skill(text.decode("utf-8"), label).meta
        except (InputFileError, UnicodeDecodeError) as exc:
            raise OperationFailed(f"{label}: {getattr(exc, 'message', exc)}") from None
        name, description = meta.get("name"), meta.get("description")
        if not isinstance(name, str) or not name or not isinstance(description, str):
            raise OperationFailed(
                f"{label} has no name and description; other installers would not find it"
            )
        return name
