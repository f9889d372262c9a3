"""The catalog's printed answer, kept while nothing it was made from has changed.

``skills-status --all`` lists every declaration of the repository: 600,000 rows in an
exobrain of 100,000 people. Even from the per-registry cache (:mod:`exobrain.sparse.treecache`),
building and printing them takes seconds, and most runs ask the same question of the same
files. A cone-mode sparse checkout keeps the printed rows and patches them for what changed
(:mod:`exobrain.catalog.patch`); a full or pattern-mode checkout keeps the whole answer here
instead. Everything the catalog reads is named by a *key*:

* in a sparse checkout, the ``HEAD`` commit (every scope outside the cone is read from it)
  and the cone;
* every scope folder on the disk: its path and type, the stat signature (inode, size,
  modification and change times) of its ``skills.json`` and of each ``skills/*/SKILL.md``;
* the collections of ``scopes.json`` (which folders hold scopes, of which type);
* the toolkit's version and this format's.

The key is the sha256 of those, so it costs a walk of what is on the disk (the cone, in a
sparse checkout) and one git call. A memo is written only for an answer without findings (a
warning is worked out and reported anew every time) and only for text output (not a
terminal's table), to ``.exobrain-cache/catalog/<key>.<variant>.txt``; writing one removes
the memos of other keys. It is read only from a real file in a real cache folder, and a key
depends on inodes and change times of this machine's files, so a memo someone committed or
copied never matches.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from exobrain import __version__
from exobrain.caches import CATALOG, REPO_CACHE, damaged
from exobrain.errors import ExobrainError
from exobrain.model import GLOBAL
from exobrain.paths import cache_folder, shown
from exobrain.registry.entries import REGISTRY_FILE
from exobrain.skillmd import SKILL_FILE
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import atomic_write_text, read_bytes, stat_signature
from exobrain.workspace import Workspace

MEMO_FOLDER = CATALOG.folder
MEMO_VERSION = CATALOG.version
#: The largest memo read back (a catalog of a million rows as JSON is about 400 MB).
MEMO_LIMIT = 1 << 31
_NAME = re.compile(r"^[0-9a-f]{64}\.[a-z0-9-]+\.txt\Z")


def _skill_files(folder: str) -> list[list[Any]]:
    """(name, SKILL.md signature) of every folder in a scope's ``skills/``, by name (paths
    joined as text: this runs for every scope of a full checkout)."""
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.is_dir())
    except OSError:
        return []
    return [[name, stat_signature(f"{folder}/{name}/{SKILL_FILE}")] for name in names]


def catalog_key(ws: Workspace) -> str | None:
    """The key of the catalog ``ws`` would list now (see the module); None when a folder
    cannot be read or the repository has no commit to name (nothing is memoised then)."""
    scan = ws.disk_scan()
    if scan.problems:
        return None
    parts: list[Any] = [MEMO_VERSION, __version__, ws.config.collections]
    checkout = ws.sparse.checkout()
    if checkout.sparse:
        head = ws.sparse.committed().head
        if not head:
            return None
        parts += [head, checkout.cone]
    root = os.fspath(ws.root)
    for scope in scan.scopes:
        folder = root if scope.path == GLOBAL else f"{root}/{scope.path}"
        parts.append(
            [
                scope.path,
                scope.type,
                stat_signature(f"{folder}/{REGISTRY_FILE}"),
                _skill_files(f"{folder}/skills"),
            ]
        )
    text = json.dumps(parts, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


class CatalogMemo:
    """The memos of one key: one text per output variant (``table``, ``json``…)."""

    def __init__(self, root: Path, key: str) -> None:
        self.root = root
        self.key = key

    def _path(self, variant: str) -> Path:
        return self.root / REPO_CACHE / MEMO_FOLDER / f"{self.key}.{variant}.txt"

    def get(self, variant: str) -> bytes | None:
        """The UTF-8 text kept for ``variant``, or None: absent, or damaged (a link,
        unreadable, too big, not UTF-8: reported, and made again)."""
        memo = self._path(variant)
        if not os.path.lexists(memo):
            return None
        try:
            path = resolve_inside(self.root, memo, links=False)
            data = read_bytes(path, limit=MEMO_LIMIT, what="a catalog memo")
            data.decode("utf-8")
            return data
        except ExobrainError as exc:
            why = exc.message.removeprefix(f"{memo}: ")
        except OSError as exc:
            why = str(exc)
        except UnicodeDecodeError as exc:
            why = f"not UTF-8 (byte {exc.start})"
        damaged(CATALOG, shown(memo, self.root), why)
        return None

    def put(self, variant: str, text: bytes) -> None:
        """Keep ``text`` for ``variant`` and drop the memos of other keys (only files named
        the way this module names them). A cache: a failure to write is ignored."""
        try:
            folder = cache_folder(self.root, MEMO_FOLDER)
            for entry in os.scandir(folder):
                if _NAME.match(entry.name) and not entry.name.startswith(self.key):
                    os.unlink(entry.path)
            atomic_write_text(self._path(variant), text, root=self.root, durable=False)
        except (ExobrainError, OSError):
            pass
