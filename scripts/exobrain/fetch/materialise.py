"""Writing one skill's tree out of the cache into a fresh folder, refusing unsafe content.

The fetched tree is untrusted: a path could try to climb out (``..``) or into ``.git``, a
symlink could point at the user's files, and a repository could be far bigger than a skill
should be. Names and the total size are checked from the tree listing before anything is
written; symlinks are created last and then resolved on disk with the one escape rule
(:func:`exobrain.util.confine.leaves`, through any chain of links), so nothing outside the new
folder is ever written to or pointed at. A fetched tree carrying an install record of its own
is refused: that file is the toolkit's proof of ownership, never the upstream's to supply.
"""

from __future__ import annotations

import os
from pathlib import Path

from exobrain.errors import OperationFailed
from exobrain.fetch.repocache import RepoCache, SizeCapExceeded
from exobrain.util.confine import unsafe_entries
from exobrain.util.dirhash import INSTALL_RECORD
from exobrain.util.fileio import default_dir_mode

SYMLINK, EXECUTABLE = "120000", "100755"
_LINK_MAX = 4096


class UnsafeContent(OperationFailed):
    """Fetched content the fetcher will not install (escaping links, odd names)."""


def materialise(cache: RepoCache, tree: str, dest: Path, max_bytes: int) -> int:
    """Write ``tree`` into the existing empty folder ``dest``; return the bytes written.

    Sub-modules are skipped: they are other repositories, not part of the skill.
    """
    entries = [e for e in cache.entries(tree) if e.kind == "blob"]
    for entry in entries:
        if any(p in ("", ".", "..") or p.lower() == ".git" for p in entry.path.split("/")):
            raise UnsafeContent(f"refused: the skill holds an unsafe path {entry.path!r}")
        if entry.path.split("/")[-1] == INSTALL_RECORD:
            raise UnsafeContent(f"refused: the skill holds an install record ({entry.path})")
    total = sum(e.size for e in entries)
    if total > max_bytes:
        raise SizeCapExceeded(
            f"the skill is {total} bytes, over the {max_bytes} byte size cap",
            hint='raise "external_skills": {"max_bytes": N} in .exobrain.json '
            "if you trust this source",
        )
    links = [e for e in entries if e.mode == SYMLINK]
    if any(e.size > _LINK_MAX for e in links):
        raise UnsafeContent("refused: the skill holds a symlink with an implausible target")
    files: dict[str, list[Path]] = {}
    for entry in entries:
        if entry.mode != SYMLINK:
            target = dest / entry.path
            target.parent.mkdir(parents=True, exist_ok=True)
            files.setdefault(entry.oid, []).append(target)
    cache.write_blobs(files)
    for entry in entries:  # as a git checkout: executable for whom the umask lets read
        if entry.mode == EXECUTABLE:
            os.chmod(dest / entry.path, default_dir_mode())
    targets = cache.read_small(sorted({e.oid for e in links})) if links else {}
    for entry in links:
        link = dest / entry.path
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.fsdecode(targets[entry.oid]), link)
    check_links(dest)
    return total


def check_links(folder: Path) -> None:
    """Refuse any symlink under ``folder`` that leads (through other links too) outside it."""
    for rel, why in unsafe_entries(folder):
        raise UnsafeContent(f"refused: {rel!r} is {why}")
