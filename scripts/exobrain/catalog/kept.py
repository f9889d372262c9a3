"""The rows of a printed catalog, kept for the next run to patch (:mod:`exobrain.catalog.patch`).

One variant of the catalog (``table``, ``json-optional``…) of one repository is kept in
``.exobrain-cache/catalog/rows/<variant>.*`` (beside the memos of :mod:`exobrain.catalog.memo`):

* ``rows.txt``: each row's text (:mod:`exobrain.catalog.text`) followed by the separator the
  variant puts between rows, in printed order, UTF-8;
* ``offsets.bin``: where each row starts in it, and its end (unsigned 64-bit, native order);
* ``index.bin``: each row's scope, as an index into ``scopes.txt`` (unsigned 32-bit);
* ``scopes.txt``: the paths of the scopes that declare a row, sorted, one per line;
* ``meta.json``: what the rows were made with (format version, toolkit, variant, scope
  configuration, cone), the commit they were read at, the units read from the disk, a
  table's column widths with how many rows have each width, and the stat signature (inode,
  size, times) of each data file.

They are trusted only while the data files are the very files this toolkit wrote here: a
file someone committed, copied or edited has another inode or time, and the rows are then
ignored (a cache is never a source of truth). The meta file, which no signature covers, is
read within :mod:`~exobrain.util.boundedjson`'s limits and checked field by field
(:func:`meta_problem`), and the parts must fit together; damaged rows are reported and made
again. Rows from elsewhere (:mod:`exobrain.catalog.publish`) are checked in full before they
are kept, their text as UTF-8 row by row. Every file is written atomically, the meta file
last.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path
from typing import Any

from exobrain import __version__
from exobrain.caches import CATALOG, REPO_CACHE, damaged
from exobrain.catalog.rows import CatalogRow
from exobrain.catalog.text import SEPARATORS, TABLE, CatalogText
from exobrain.errors import ExobrainError
from exobrain.paths import cache_folder, shown
from exobrain.util import boundedjson
from exobrain.util.confine import resolve_inside
from exobrain.util.fileio import atomic_write_text, read_bytes, stat_signature
from exobrain.workspace import Workspace

#: Kept rows live beside the memos of a full checkout, in the one folder of the printed catalog.
FOLDER = f"{CATALOG.folder}/rows"
STORE_VERSION = CATALOG.version
#: Where the rows were kept before they joined the memos (removed when rows are written).
_FORMER = "catalog-rows"
LIMIT = 1 << 31
DATA_PARTS = ("rows.txt", "offsets.bin", "index.bin", "scopes.txt")
COMMIT_ID = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")


class Stored:
    """A printed catalog as kept: each row's text followed by its separator (``body``),
    where each row starts (``offsets``, one more: the end), each row's scope as an index into
    the sorted ``scopes``, and what it was made from (``meta``, checked by
    :func:`meta_problem` first)."""

    def __init__(
        self,
        meta: dict[str, Any],
        body: bytes,
        offsets: array[int],
        index: array[int],
        scopes: list[str],
    ) -> None:
        self.meta = meta
        self.body = body
        self.offsets = offsets
        self.index = index
        self.scopes = scopes
        self.head: str = meta["head"]
        self.fresh: list[str] = meta["fresh"]
        self.widths = tuple(meta["widths"])
        self.histograms = [Counter(dict(h)) for h in meta["histograms"]]

    def problem(self, separator: str | None = None) -> str | None:
        """Why the parts do not fit together, or None. The checks cost no pass over the
        rows, unless ``separator`` is given (rows someone else made, taken once): then the
        text must be UTF-8 and every row must end with the separator, at an offset after
        the one before."""
        offsets, index = self.offsets, self.index
        if not (len(offsets) == len(index) + 1 > 1 and offsets[0] == 0):
            return "row offsets that do not match the rows"
        if offsets[-1] != len(self.body) or max(index) >= len(self.scopes):
            return "rows that do not match their text or their scopes"
        if len(self.widths) != len(self.histograms):
            return "column widths without their histograms"
        if separator is None:
            return None
        try:  # (rows from elsewhere must be text: a name that is not UTF-8 is refused)
            self.body.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"rows.txt is not UTF-8 (byte {exc.start})"
        sep = separator.encode()
        body = self.body
        for start, end in pairwise(offsets):  # (once, for a fresh clone)
            if end - start <= len(sep) or body[end - len(sep) : end] != sep:
                return f"a row at byte {start} that does not end where the next begins"
        if self.scopes != sorted(set(self.scopes)) or "" in self.scopes:
            return "scopes.txt is not a sorted list of scopes"
        return None


def meta_problem(meta: Any) -> str | None:
    """Why the meta file of kept or published rows cannot be used (its key aside), or None:
    the commit, the units read from the disk, the column widths and their histograms must
    be of the types a patch uses."""
    if not isinstance(meta, dict):
        return "meta.json is not a JSON object"
    head, fresh = meta.get("head"), meta.get("fresh")
    widths, histograms = meta.get("widths"), meta.get("histograms")
    if not isinstance(head, str) or not COMMIT_ID.match(head):
        return "meta.json names no commit"
    if type(fresh) is not list or not all(type(u) is str for u in fresh):
        return "meta.json's units are not a list of paths"
    if type(widths) is not list or not all(_count(w) for w in widths):
        return "meta.json's column widths are not counts"
    if type(histograms) is not list or not all(
        type(h) is list and all(type(p) is list and len(p) == 2 and all(map(_count, p)) for p in h)
        for h in histograms
    ):
        return "meta.json's histograms are not lists of (width, rows) pairs"
    return None


def _count(value: Any) -> bool:
    return type(value) is int and 0 <= value < 1 << 32


def rows_key(ws: Workspace, variant: str, *, cone: bool = True) -> dict[str, Any]:
    """The key of kept rows: what they must have been made with to be patched now (the same
    format, toolkit, scope configuration and, with ``cone``, cone). Published rows
    (:mod:`exobrain.catalog.publish`) name no cone: they were read from the commit alone."""
    key: dict[str, Any] = {
        "version": STORE_VERSION,
        "toolkit": __version__,
        "variant": variant,
        "collections": [list(c) for c in ws.config.collections],
    }
    if cone:
        key["cone"] = list(ws.sparse.checkout().cone or ())
    return key


@dataclass
class Rows:
    """A catalog's rows as kept: the text's kind and widths, each row's text followed by
    its separator, where each starts (and the end), each row's scope as an index into the
    sorted scope paths."""

    text: CatalogText
    body: bytes
    offsets: array[int]
    index: array[int]
    scopes: list[str]

    @classmethod
    def rendered(cls, text: CatalogText, rows: Sequence[CatalogRow]) -> Rows | None:
        """The rows of a full render (``text``, made from ``rows``); None when there are none
        or they could not be read back."""
        scopes = sorted({r.registry for r in rows})
        if not text.chunks or not _listable(text.kind, scopes):
            return None
        position = {path: i for i, path in enumerate(scopes)}
        sep = SEPARATORS[text.kind]
        joined = sep.join(text.chunks)
        offsets = array("Q", [0])
        offsets.extend(accumulate(_size(c) + len(sep) for c in text.chunks))
        body = (joined + sep).encode("utf-8", "surrogateescape")
        index = array("I", [position[r.registry] for r in rows])
        return cls(text, body, offsets, index, scopes)

    def parts(self) -> dict[str, bytes]:
        """The data files' bytes (numbers little-endian, whatever the machine)."""
        return {
            "rows.txt": self.body,
            "offsets.bin": _little(self.offsets),
            "index.bin": _little(self.index),
            "scopes.txt": "\n".join(self.scopes).encode("utf-8", "surrogateescape"),
        }

    def meta(self, key: dict[str, Any], head: str, fresh: set[str]) -> dict[str, Any]:
        text = self.text
        return {
            "key": key,
            "head": head,
            "fresh": sorted(fresh),
            "widths": list(text.widths),
            "histograms": [sorted(h.items()) for h in text.histograms or []],
        }


def _little(numbers: array[int]) -> bytes:
    if sys.byteorder == "little":
        return numbers.tobytes()
    swapped = array(numbers.typecode, numbers)
    swapped.byteswap()
    return swapped.tobytes()


def _numbers(typecode: str, data: bytes) -> array[int]:
    numbers = array(typecode)
    numbers.frombytes(data)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


class RowStore:
    """The kept rows of one output variant (``table``, ``json-optional``…) of a repository."""

    def __init__(self, root: Path, variant: str, key: dict[str, Any]) -> None:
        self.root = root
        self.variant = variant
        self.key = key

    def _path(self, part: str) -> Path:
        return self.root / REPO_CACHE / FOLDER / f"{self.variant}.{part}"

    def _read(self, part: str) -> bytes:
        path = resolve_inside(self.root, self._path(part), links=False)
        return read_bytes(path, limit=LIMIT, what="the kept catalog rows")

    def _signatures(self) -> dict[str, list[int] | None]:
        return {part: stat_signature(self._path(part)) for part in DATA_PARTS}

    def load(self) -> Stored | None:
        """The kept rows when they are whole and were made the way this run would make them;
        None when there are none, they were made otherwise (another key) or their files are
        not the ones this toolkit wrote here, and when they are damaged (reported: they are
        made again)."""
        if not os.path.lexists(self._path("meta.json")):
            return None
        try:
            meta = boundedjson.loads(self._read("meta.json"))
            if isinstance(meta, dict) and meta.get("key") != self.key:
                return None  # made otherwise: another toolkit, configuration or cone
            if isinstance(meta, dict) and meta.get("files") != self._signatures():
                return None  # not the files this toolkit wrote here
            stored = parts_stored(meta, {part: self._read(part) for part in DATA_PARTS})
        except ExobrainError as exc:
            stored = exc.message
        except OSError as exc:
            stored = str(exc)
        except ValueError as exc:
            stored = f"meta.json is not JSON ({exc})"
        if isinstance(stored, Stored):
            return stored
        where = shown(self._path("*"), self.root)
        damaged(CATALOG, where, stored)
        return None

    def save(self, rows: Rows, head: str, fresh: set[str], *, data: bool = True) -> None:
        """Keep ``rows`` read at commit ``head`` (``data`` False: the data files are kept as
        they are, only the meta file is written). A cache: a failure to write is ignored."""
        self.keep(rows.parts() if data else {}, rows.meta(self.key, head, fresh))

    def keep(self, parts: dict[str, bytes], meta: dict[str, Any]) -> None:
        """Write the data files ``parts``, then ``meta`` with their signatures."""
        try:
            cache_folder(self.root, FOLDER)
            for part, data in parts.items():
                atomic_write_text(self._path(part), data, root=self.root, durable=False)
            text_meta = json.dumps({**meta, "files": self._signatures()}, separators=(",", ":"))
            atomic_write_text(self._path("meta.json"), text_meta, root=self.root, durable=False)
            former = self.root / REPO_CACHE / _FORMER
            if former.is_dir() and not former.is_symlink():
                shutil.rmtree(former, ignore_errors=True)
        except (ExobrainError, OSError):
            pass


def parts_stored(meta: Any, parts: dict[str, bytes], separator: str | None = None) -> Stored | str:
    """The rows the data files ``parts`` and their ``meta`` hold, or why they do not fit
    (``separator``: check the text too, see :meth:`Stored.problem`)."""
    problem = meta_problem(meta)
    if problem is not None:
        return problem
    offsets, index = parts["offsets.bin"], parts["index.bin"]
    if len(offsets) % 8 or len(index) % 4:
        return "offsets.bin or index.bin cut short"
    try:  # rows kept here are written as their paths are (a name that is no UTF-8 kept)
        errors = "strict" if separator is not None else "surrogateescape"
        scopes = parts["scopes.txt"].decode("utf-8", errors).split("\n")
    except UnicodeDecodeError as exc:
        return f"scopes.txt is not UTF-8 (byte {exc.start})"
    stored = Stored(meta, parts["rows.txt"], _numbers("Q", offsets), _numbers("I", index), scopes)
    problem = stored.problem(separator)
    return stored if problem is None else problem


def _listable(kind: str, scopes: list[str]) -> bool:
    """Whether the scope paths can be kept one per line and (a table's) read back at their
    column, which a path ending in a space would not be."""
    if "\n".join(scopes).count("\n") != len(scopes) - 1:
        return False
    return kind != TABLE or not any(path[-1:].isspace() for path in scopes)


def _size(chunk: str) -> int:
    """The chunk's length in UTF-8 bytes."""
    return len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogateescape"))
