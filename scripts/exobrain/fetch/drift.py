"""Whether an installed external skill still holds what was fetched, and which files differ.

The install record inside the folder holds a content hash, but whoever can edit the files can
rewrite the record too, so the record is never the proof. The proof is the fetched commit in
the cached clone: git names every file there by its blob id, and the files on disk are hashed
the same way and compared id by id (trees read locally, no blob read, never the network).
When the clone is gone or lacks the commit, the files cannot be checked: the caller says so,
and fills the cache when it may.
"""

from __future__ import annotations

from pathlib import Path

from exobrain.errors import ExobrainError, OperationFailed
from exobrain.fetch.installs import InstallRecord
from exobrain.fetch.remote import Source
from exobrain.fetch.repocache import RepoCache
from exobrain.fetch.report import short
from exobrain.util.dirhash import content_hash, counts, file_digests

#: At most this many file names are listed; the rest are counted.
SHOWN = 5


def changed_files(cache: RepoCache, commit: str, path: str, folder: Path) -> list[str] | None:
    """Paths inside ``folder`` that were changed, added or removed since ``commit``'s
    ``path`` was installed there (``changed: x``, ``added: y``, ``removed: z``); None when the
    cache cannot tell."""
    fetched = cache.blob_ids(commit, path)
    if fetched is None:
        return None
    fetched = {p: oid for p, oid in fetched.items() if counts(p)}
    local = file_digests(folder, blob="sha256" if len(commit) == 64 else "sha1")
    found = [f"changed: {p}" for p in sorted(fetched) if p in local and local[p] != fetched[p]]
    found += [f"added: {p}" for p in sorted(local.keys() - fetched.keys())]
    found += [f"removed: {p}" for p in sorted(fetched.keys() - local.keys())]
    return found


def describe(found: list[str] | None) -> str:
    """The changed files in a few words, for the skill's line."""
    if found is None:
        return "the content differs from the install record (the cache cannot say which file)"
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return "; ".join(found[:SHOWN]) + more


def verify(
    cache: RepoCache,
    record: InstallRecord,
    source: Source,
    folder: Path,
    *,
    fill: int | None,
    force: bool = False,
) -> tuple[str, str]:
    """Whether ``folder`` still holds what was fetched: ``intact``, ``modified`` (with the
    files that differ) or ``unverified`` (with why and the fix) when ``fill`` is None.

    The files are compared with the fetched commit in ``cache`` — for a pinned declaration
    the commit it pins, whatever the record claims — never with the record's own hash, which
    whoever edits the files can rewrite. With ``fill`` (the size cap) a cache that lacks the
    commit is filled first (a fetch); under ``force`` the install is replaced anyway, so what
    cannot be told counts as intact. Only when the declaration names another repository now
    (the install is then replaced unless it was edited) does the record's hash decide."""

    def rehashed() -> bool:  # read only when needed: it reads every file again
        return content_hash(folder) == record.hash

    if record.repo != source.repo:
        return ("intact", "") if rehashed() else ("modified", describe(None))
    commit = source.ref if source.pinned and record.ref == source.ref else record.commit
    found = changed_files(cache, commit, record.path, folder)
    if found is None and fill is not None:
        cache.close()  # the reader it kept would not see what the fetch brings
        _fill(cache, commit, record.path, fill)
        found = changed_files(cache, commit, record.path, folder)
    if found:
        again = "; the install record was rewritten to match" if rehashed() else ""
        return "modified", describe(found) + again
    if found is not None or force:
        return "intact", ""
    if not rehashed():
        return "modified", describe(None)
    if fill is not None:
        raise OperationFailed(f"the cached clone of {source.repo} cannot show {short(commit)}")
    gone = "is missing" if not cache.dir.is_dir() else f"lacks {short(commit)}"
    return "unverified", (
        f"the cached clone of {source.repo} {gone}; run fetch-external-skills to "
        f"fetch it again and check the files"
    )


def _fill(cache: RepoCache, commit: str, path: str, max_bytes: int) -> None:
    """Bring ``commit``'s ``path`` back into the cache, to check an install against it."""
    try:
        with cache.locked():
            cache.ensure_commit(commit)
            cache.ensure_complete(cache.tree_at(commit, path), max_bytes)
    except ExobrainError as exc:
        raise OperationFailed(
            f"cannot check the install against {short(commit)}: {exc.message}",
            hint="fetch-external-skills --force fetches the skill again",
        ) from exc
