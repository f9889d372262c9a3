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

from exobrain.fetch.repocache import RepoCache
from exobrain.util.dirhash import counts, file_digests

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
