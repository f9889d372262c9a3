"""Which files of an installed external skill differ from what was fetched.

An install's record holds one content hash, enough to tell that the folder changed but not
where. The cached clone still holds the fetched commit, so the files are compared one by one
with the blobs there — read from the cache only, never from the network. When the cache is gone
or lacks the commit, only "changed" can be said.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from exobrain.errors import ExobrainError
from exobrain.fetch.repocache import RepoCache
from exobrain.util.dirhash import file_digests

#: At most this many file names are listed; the rest are counted.
SHOWN = 5


def changed_files(cache: RepoCache, commit: str, path: str, folder: Path) -> list[str] | None:
    """Paths inside ``folder`` that were changed, added or removed since ``commit``'s
    ``path`` was installed there (``changed: x``, ``added: y``, ``removed: z``); None when the
    cache cannot tell."""
    if not cache.dir.is_dir():
        return None
    spec = f"{commit}:{path}" if path not in ("", ".") else f"{commit}^{{tree}}"
    done = cache.git.run(["rev-parse", "--verify", "--quiet", spec], cwd=cache.dir, check=False)
    tree = done.stdout.decode().strip()
    if done.returncode != 0 or not tree:
        return None
    try:
        entries = [e for e in cache.entries(tree) if e.kind == "blob"]
        contents = cache.read_small([e.oid for e in entries])
    except ExobrainError:  # a cache git cannot read is a cache that cannot tell
        return None
    if any(e.oid not in contents for e in entries):
        return None
    fetched = {e.path: hashlib.sha256(contents[e.oid]).hexdigest() for e in entries}
    local = file_digests(folder)
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
