"""External skills for one agent: plan from the resolver, fetch through the cache, install.

For every external row the resolver gives the agent: ``always`` belongs in the agent's skills
folder as ``<name>.<owner>``, ``optional`` and ``unlisted`` in the sibling
``skills-optional/``; an install of ours that no agent sharing the folder wants any more is
removed, and one in the wrong place is moved. An install is refreshed only when its declaration
changed, its branch moved (one ``git ls-remote`` per repository), or ``--force`` asks; pinned
commits and tags never touch the network again (the repositories' side — ls-remote, the
cached clones, writing an install — is :mod:`exobrain.fetch.repos`). Failures are per skill:
the others carry on and the report says which failed, so ``connect-agent`` can treat them as
non-fatal.

What is ours is what the folder's ownership record (:mod:`exobrain.util.ownership`) lists:
only those installs are refreshed, moved or removed, ``--force`` included. A folder in the way
that the record does not list — a user's copy of an install carrying its install record, a
folder of the user's — is reported and left alone. Installs made by an earlier version, before
the record existed, are adopted once (:func:`exobrain.fetch.installs.ours`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from exobrain.agents import Folders, optional_dir
from exobrain.errors import ExobrainError
from exobrain.fetch import installs
from exobrain.fetch.plan import Want, fetch_settings, sharing_agents, wants_for
from exobrain.fetch.remote import Source, SourceRefused, check_source
from exobrain.fetch.report import FetchReport, SkillEvent, error_text, failed, settled, short
from exobrain.fetch.repos import Repos
from exobrain.paths import shown
from exobrain.registry.entries import Entry
from exobrain.resolve import Resolved
from exobrain.util.dirhash import content_hash
from exobrain.util.fileio import make_folders
from exobrain.util.staging import clean_leftovers, discard_folder
from exobrain.workspace import Workspace

if TYPE_CHECKING:  # git plumbing is imported only when something has to be fetched
    from exobrain.util.git import Git


def sync_external(
    ws: Workspace,
    folders: Folders,
    *,
    cache_dir: Path | None = None,
    force: bool = False,
    check: bool = False,
    allow_local: bool | None = None,
    progress: Callable[[SkillEvent], None] | None = None,
    rows: list[Resolved] | None = None,
    git: Git | None = None,
) -> FetchReport:
    """Bring an agent's external skills in its skills folder (``folders``: project or user
    level, and its ``skills-optional/`` sibling) in line with the resolver; with ``check``
    only report what would change.

    ``progress`` is called with an event whose action is ``"checking"`` when a skill starts
    and with its final event when it is done. ``allow_local`` None means the
    ``.exobrain.json`` setting. ``rows`` are ``ws.resolve(agent.name)`` when the caller has
    them already; ``git`` an injected runner (its ``network_calls`` is what the report shows).
    Raises only for bad settings and for project-level agent folders that are links;
    per-skill problems are events.
    """
    settings = fetch_settings(ws.connection)
    allow = settings.allow_local if allow_local is None else allow_local
    folders.check()
    repos = Repos(git, cache_dir, allow_local=allow, max_bytes=settings.max_bytes)
    run = _Run(ws, folders, repos, force, check, progress)
    return run.go(ws.resolve(folders.agent.name) if rows is None else rows)


class _Run:
    """One :func:`sync_external` call: its options, its repositories, the report."""

    def __init__(
        self,
        ws: Workspace,
        folders: Folders,
        repos: Repos,
        force: bool,
        check: bool,
        progress: Callable[[SkillEvent], None] | None,
    ) -> None:
        self.ws, self.folders, self.repos = ws, folders, repos
        self.agent, self.skills_dir = folders.agent, folders.skills
        self.force, self.check = force, check
        self.progress = progress or (lambda event: None)
        self.report = FetchReport(folders.agent.name, folders.skills, check)
        self.ours: dict[Path, set[str]] = {}  # place → names of our installs there

    def root_of(self, place: Path) -> Path:
        """The folder writes in ``place`` must stay inside (see Folders.write_root)."""
        return self.folders.write_root(place)

    def go(self, rows: list[Resolved]) -> FetchReport:
        try:
            return self._go(rows)
        finally:
            self.repos.close()

    def _go(self, rows: list[Resolved]) -> FetchReport:
        places = (self.skills_dir, optional_dir(self.skills_dir))
        for place in places:
            self.ours[place] = installs.ours(place, self.ws.root)
        if not self.check:
            for place in places:
                clean_leftovers(place)
        mine = self._around_foreign(wants_for(rows, self.skills_dir), tell=True)
        wanted = {(w.folder, w.skill.link_name) for w in mine}
        for other in sharing_agents(self.ws, self.agent, self.skills_dir):
            wanted |= {
                (w.folder, w.skill.link_name)
                for w in self._around_foreign(
                    wants_for(self.ws.resolve(other.name), self.skills_dir)
                )
            }
        installed = {
            (place, name): rec
            for place in places
            for name, rec in installs.scan(place).items()
            if name in self.ours[place]
        }
        stale = {key: rec for key, rec in installed.items() if key not in wanted}
        sources = {id(w): self._source(w) for w in mine}
        for source in sources.values():
            if isinstance(source, Source) and not source.pinned:
                self.repos.refs.setdefault(source.url, set()).add(source.ref)
        for want in mine:
            link = want.skill.link_name
            # the same install elsewhere: the other folder of this agent (its tier changed) or
            # under its other name (plain ↔ told apart, a same-named skill came or went)
            names = (link, want.skill.name, want.skill.identity.told_apart)
            move_from = next(
                (key for key in stale if key[1] in names and key != (want.folder, link)), None
            )
            if move_from is not None and (want.folder, link) not in installed:
                stale.pop(move_from)
            else:
                move_from = self._bash_install(want)
            self._finish(self._one(want, sources[id(want)], move_from))
        if stale and self.ws.has_bad_input:
            self.report.warnings.append(
                "some skills.json files have errors: installed external "
                "skills are not removed until they are fixed"
            )
        else:
            for (place, link), record in stale.items():
                self._finish(self._remove(place, link, record))
        self.report.network_calls = self.repos.network_calls
        if not self.check:
            for place in places:
                installs.record_ours(place, self.ws.root, self.ours[place])
        return self.report

    def _bash_install(self, want: Want) -> tuple[Path, str] | None:
        """The bash implementation's install of this skill (``<name>.<owner>``, adopted as
        ours) when the skill now goes under its plain name: the fetch replaces it there."""
        name = want.skill.identity.told_apart
        folder = want.folder / name
        if name == want.skill.link_name or name not in self.ours.get(want.folder, set()):
            return None
        if os.path.lexists(want.folder / want.skill.link_name):
            return None
        return (want.folder, name) if installs.is_bash_install(folder) else None

    def _around_foreign(self, wants: list[Want], tell: bool = False) -> list[Want]:
        """``wants`` with every plain name that a folder not ours already holds (another
        installer's copy, the user's own) moved to the told-apart name, so the skill is still
        installed and nothing of theirs is touched; ``tell``: say so in the report."""
        placed = []
        for want in wants:
            link = want.skill.link_name
            taken = link not in self.ours.get(want.folder, set()) and os.path.lexists(
                want.folder / link
            )
            if taken and link == want.skill.name:
                told = want.skill.identity.told_apart
                want = Want(replace(want.skill, link=told), want.folder)
                if tell:
                    self.report.warnings.append(
                        f"{link}: {self.place(want.folder / link)} was not installed by "
                        f"exobrain (another installer's copy, or your own): installed as "
                        f"{told}; the agent sees both until you remove that one"
                    )
            placed.append(want)
        return placed

    def _finish(self, event: SkillEvent) -> None:
        self.report.events.append(event)
        self.progress(event)

    def _source(self, want: Want) -> Source | str:
        decl = want.skill.declaration
        if decl is None or decl.source is None:
            return "no declaration with a source reaches this connection"
        try:
            return check_source(decl.source, allow_local=self.repos.allow_local, root=self.ws.root)
        except SourceRefused as exc:
            return f"{self._where(decl)}: {exc}"

    def _where(self, decl: Entry) -> str:
        registry = self.ws.registry(decl.scope)
        line = registry.line_of(decl.index)
        return f"{shown(registry.path, self.ws.root)}{f':{line}' if line else ''} {decl.label()}"

    def place(self, path: Path) -> str:
        for base, prefix in ((self.ws.root, ""), (Path.home(), "~/")):
            try:
                return prefix + path.relative_to(base).as_posix()
            except ValueError:
                continue
        return str(path)

    def _one(
        self, want: Want, source: Source | str, move_from: tuple[Path, str] | None
    ) -> SkillEvent:
        skill = want.skill
        decl_source = skill.declaration.source if skill.declaration else None
        event = SkillEvent(
            self.agent.name,
            skill.name,
            skill.owner or "",
            skill.link_name,
            self.place(want.folder),
            repo=decl_source["repo"] if decl_source else None,
            ref=decl_source["ref"] if decl_source else None,
            check=self.check,
        )
        self.progress(event)
        if not isinstance(source, Source):
            return failed(event, source)
        try:
            return self._place_and_decide(event, want, source, move_from)
        except (ExobrainError, OSError) as exc:
            kept = (
                f"; kept the installed copy at {short(event.from_commit)}"
                if event.from_commit
                else ""
            )
            return failed(event, f"{error_text(exc)}{kept}")

    def _place_and_decide(
        self, event: SkillEvent, want: Want, source: Source, move_from: tuple[Path, str] | None
    ) -> SkillEvent:
        target = want.folder / want.skill.link_name
        record = None
        if target.exists() or target.is_symlink():
            record = installs.read_record(target)
            adopted = target.name in self.ours.get(want.folder, set())
            if record is None and adopted and installs.is_bash_install(target):
                event.message = f"replaces the bash implementation's install ({target.name})"
            elif record is None or not adopted:
                return failed(
                    event,
                    f"{self.place(target)} exists and was not installed by "
                    f"exobrain; left alone (move it away to install here)",
                )
        current = target
        if record is None and move_from is not None:
            place, name = move_from
            current = place / name
            record = installs.read_record(current)
            event.moved_from = self.place(current if name != target.name else place)
            if record is None and installs.is_bash_install(current):
                event.message = f"replaces the bash implementation's install ({name})"
            if not self.check:
                folder = make_folders(self.root_of(want.folder), want.folder)
                os.rename(current, folder / target.name)
                current = target
                self.ours[place].discard(name)
                self.ours[want.folder].add(target.name)
        event.from_commit = record.commit if record else None
        return self._decide(event, want, source, record, current, target)

    def _decide(
        self,
        event: SkillEvent,
        want: Want,
        source: Source,
        record: installs.InstallRecord | None,
        current: Path,
        target: Path,
    ) -> SkillEvent:
        state, note = (
            self.repos.verify(record, source, current, check=self.check, force=self.force)
            if record
            else ("intact", "")
        )
        if state == "unverified":
            event.action, event.message = state, note
            return event
        modified = state == "modified"
        if modified:
            event.message = note
        same = record is not None and (record.repo, record.path, record.ref) == (
            source.repo,
            source.path,
            source.ref,
        )
        if same and record is not None and not self.force and record.ref_kind != "branch":
            return settled(event, modified)
        info = self.repos.resolve(source)
        event.to_commit = info.commit
        if same and record is not None and not self.force and info.commit == record.commit:
            return settled(event, modified)
        if (
            record is not None
            and not self.force
            and not modified
            and (record.repo, record.path, record.commit) == (source.repo, source.path, info.commit)
        ):
            if not self.check:  # same content, now named by another ref: only the record changes
                new = replace(record, ref=source.ref, ref_kind=info.kind)
                installs.write_record(current, new, root=self.root_of(want.folder))
            return settled(event, False)
        if modified and not self.force:
            event.action = "modified"
            event.message += f"; {short(info.commit)} is available, --force replaces the changes"
            return event
        if self.check:
            event.action = "would-update" if record else "would-fetch"
            return event
        self.repos.install(
            want, source, info, target, root=self.root_of(want.folder), ws_root=self.ws.root
        )
        self.ours[want.folder].add(target.name)
        event.action = "updated" if record else "fetched"
        return event

    def _remove(self, place: Path, link: str, record: installs.InstallRecord) -> SkillEvent:
        event = SkillEvent(
            self.agent.name,
            record.name,
            record.owner,
            link,
            self.place(place),
            repo=record.repo,
            ref=record.ref,
            from_commit=record.commit,
            check=self.check,
        )
        folder = place / link
        try:
            if not self.force and content_hash(folder) != record.hash:
                event.action = "modified"
                event.message = "no longer wanted here, not removed; --force removes it"
            elif self.check:
                event.action = "would-remove"
            else:
                discard_folder(folder)
                self.ours[place].discard(link)
                event.action = "removed"
        except (ExobrainError, OSError) as exc:
            return failed(event, f"cannot remove {self.place(folder)}: {error_text(exc)}")
        return event
