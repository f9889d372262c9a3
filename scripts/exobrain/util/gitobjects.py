"""Git's objects as data: what an object id looks like, one object as ``git cat-file`` gives it,
and the entries of a raw tree object. Pure shapes and parsing, no process: the persistent
reader (:class:`~exobrain.util.git.ObjectReader`) yields them, and whoever walks trees
(:mod:`exobrain.util.repository`, the sparse checkout's committed skills, the repository
cache) reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OID = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})$")


def is_oid(name: str) -> bool:
    return bool(_OID.match(name))


@dataclass(frozen=True)
class GitObject:
    """One object as ``cat-file`` gave it; ``data`` is None when it was over the size cap."""

    oid: str
    kind: str
    size: int
    data: bytes | None


@dataclass(frozen=True)
class TreeEntry:
    """One entry of a tree object."""

    mode: str  # 40000 folder, 100644/100755 file, 120000 link, 160000 submodule
    name: str
    oid: str

    @property
    def is_tree(self) -> bool:
        return self.mode == "40000"

    @property
    def is_file(self) -> bool:
        return self.mode in ("100644", "100755")


def parse_tree(data: bytes, oid_bytes: int = 20) -> list[TreeEntry]:
    """The entries of a raw tree object (``<mode> <name>\\0<binary id>`` each; ids are 20
    bytes, 32 in a SHA-256 repository)."""
    entries: list[TreeEntry] = []
    pos, size = 0, oid_bytes
    while pos < len(data):
        space = data.index(b" ", pos)
        nul = data.index(b"\0", space)
        oid = data[nul + 1 : nul + 1 + size].hex()
        name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
        entries.append(TreeEntry(data[pos:space].decode(), name, oid))
        pos = nul + 1 + size
    return entries
