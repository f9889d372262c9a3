"""One fetch run's dealings with the skills' repositories: the only part of it that runs git.

A run asks three things of the repositories — which commit a ref names now, whether an
installed folder still holds the commit it was fetched at, and a commit's folder written out
as a new install — and what they share is done once per run: the git runner (its
``network_calls`` is what the report shows), one ``git ls-remote`` per URL for all the refs
the run asks of it, and one cached clone per URL that installs are checked against. Git
plumbing is imported only when one of them is needed.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from exobrain.errors import ExobrainError, InputFileError, OperationFailed
from exobrain.fetch import installs
from exobrain.fetch.plan import Want
from exobrain.fetch.remote import Source
from exobrain.fetch.report import short
from exobrain.util.dirhash import content_hash
from exobrain.util.staging import staged_folder

if TYPE_CHECKING:  # git plumbing is imported only when something has to be fetched
    from exobrain.fetch.repocache import RefInfo, RepoCache
    from exobrain.util.git import Git


class Repos:
    """The repositories' side of one :func:`exobrain.fetch.fetcher.sync_external` call:
    its git runner, the ls-remote answers, the caches."""

    def __init__(
        self, git: Git | None, cache_dir: Path | None, *, allow_local: bool, max_bytes: int
    ) -> None:
        self._git, self.cache_dir = git, cache_dir
        self.allow_local, self.max_bytes = allow_local, max_bytes
        self.listings: dict[str, dict[str, str] | ExobrainError] = {}
        self.refs: dict[str, set[str]] = {}  # url → the refs the run will ask of it
        self.caches: dict[str, RepoCache] = {}  # url → the cache installs are checked against

    @property
    def git(self) -> Git:
        if self._git is None:
            from exobrain.util.git import Git

            self._git = Git(allow_file=self.allow_local)
        return self._git

    @property
    def cache_root(self) -> Path:
        from exobrain.paths import user_cache_dir

        return self.cache_dir or user_cache_dir()

    @property
    def network_calls(self) -> int:
        return self._git.network_calls if self._git else 0

    def close(self) -> None:
        for cache in self.caches.values():
            cache.close()

    def verify(
        self,
        record: installs.InstallRecord,
        source: Source,
        folder: Path,
        *,
        check: bool,
        force: bool,
    ) -> tuple[str, str]:
        """Whether ``folder`` still holds what was fetched (:func:`exobrain.fetch.drift.verify`,
        against this run's one cache per URL)."""
        from exobrain.fetch.drift import verify
        from exobrain.fetch.repocache import RepoCache

        cache = self.caches.get(source.url)
        if cache is None:
            cache = self.caches[source.url] = RepoCache(self.git, self.cache_root, source.url)
        fill = None if check or force else self.max_bytes
        return verify(cache, record, source, folder, fill=fill, force=force)

    def resolve(self, source: Source) -> RefInfo:
        """The commit ``source.ref`` names: itself when pinned, else one ls-remote per URL."""
        from exobrain.fetch.repocache import RefInfo, RepoCache, pick_ref
        from exobrain.util.git import GitFailed

        if source.pinned:
            return RefInfo(source.ref, "commit")
        if source.url not in self.listings:
            cache = RepoCache(self.git, self.cache_root, source.url)
            try:
                self.listings[source.url] = cache.ls_remote(sorted(self.refs[source.url]))
            except GitFailed as exc:
                self.listings[source.url] = exc
        listing = self.listings[source.url]
        if isinstance(listing, ExobrainError):
            raise listing
        info = pick_ref(listing, source.ref)
        if info is None:
            raise OperationFailed(
                f"{source.repo} has no branch or tag {source.ref!r}",
                hint="use a branch, a tag or a full 40-character commit id",
            )
        return info

    def install(
        self, want: Want, source: Source, info: RefInfo, target: Path, *, root: Path, ws_root: Path
    ) -> None:
        """``info.commit``'s ``source.path`` as the install at ``target`` (writes inside
        ``root``), with its install record; ``ws_root`` is the exobrain that made it."""
        from exobrain.fetch.materialise import materialise
        from exobrain.fetch.repocache import RepoCache

        cache = RepoCache(self.git, self.cache_root, source.url)
        with staged_folder(target, root=root, replace=True) as tmp:
            with cache.locked():
                cache.ensure_commit(info.commit)
                tree = cache.tree_at(info.commit, source.path)
                cache.ensure_complete(tree, self.max_bytes)
                materialise(cache, tree, tmp, self.max_bytes)
            _verify_skill(tmp, f"{source.repo} {source.path} at {short(info.commit)}")
            installs.write_record(
                tmp,
                installs.InstallRecord(
                    name=want.skill.name,
                    owner=want.skill.owner or "",
                    repo=source.repo,
                    path=source.path,
                    ref=source.ref,
                    ref_kind=info.kind,
                    commit=info.commit,
                    hash=content_hash(tmp),
                    exobrain=str(ws_root),
                    fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
                ),
                root=tmp,
            )


def _verify_skill(folder: Path, label: str) -> None:
    """The fetched folder must hold a SKILL.md whose frontmatter parses."""
    from exobrain.skillmd import SKILL_FILE, read_skill

    path = folder / SKILL_FILE
    if path.is_symlink() or not path.is_file():
        raise OperationFailed(
            f"no {SKILL_FILE} in {label}", hint="check source.path: it must name the skill's folder"
        )
    try:
        read_skill(path)
    except InputFileError as exc:
        raise OperationFailed(exc.message.replace(str(path), f"{label}: {SKILL_FILE}")) from exc
