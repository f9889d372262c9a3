"""The vector cache: what each encoder made of each text, and the matrices a query reads.

``emb.vectors`` (the file ``embeddings.sqlite``) holds one float16 vector per model and text
hash, so a text is embedded once whatever moves around it: an edit to a skill's body embeds
nothing new, and two skills with the same description share a vector. Embedding commits after
every batch, so an interrupted build keeps what it did and the next run goes on from there.

A query does not read thousands of vectors out of SQLite (about 90 ms for 8,000 skills). It
memory-maps an *aligned matrix* per encoder in ``.exobrain-cache/vectors/``: the float16
vectors of every view of every artifact whose views all have one, in doc-id order, and the doc
id of each row (``<name>.vec.npy``, ``<name>.ids.npy``). ``<name>`` carries the encoder, its
model, the index file's own token, the last row number (``seq``) and the two generation tokens
the rows and the vectors were read at, so a matrix is never used for another state of the
cache. Whoever needs a matrix that does not exist yet makes it from one read snapshot — by
patching the newest older one (only rows written after its ``seq`` and the artifacts it
lacked are read; an edit costs milliseconds, not a rebuild) or from scratch — and removes the
older ones; two processes making the same one write the same bytes, and a process that still
has an old one mapped keeps reading it. The folder must be a real folder inside the cache
folder, and only regular files are read from it: a link or a special file is passed over.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.caches import VECTORS
from exobrain.paths import cache_folder
from exobrain.search.embedding import Encoder, Model
from exobrain.search.index import Index
from exobrain.util.progress import Progress
from exobrain.util.staging import staged_file

VECTORS_DIR = VECTORS.folder
#: Texts embedded (and committed) at a time: a lost batch costs a second of MiniLM at most.
BATCH = 32


@dataclass(frozen=True)
class Aligned:
    """An encoder's vectors in doc-id order (see the module)."""

    ids: Any  # int64, the doc id of each row, non-decreasing
    matrix: Any  # float16 rows × dim (as stored; converted row by row for the products)
    docs: Any  # the distinct doc ids, sorted
    starts: Any  # the first row of each of ``docs``

    @functools.cached_property
    def dense(self) -> Any:
        """The whole matrix as float32, made on the first query that reads every row and kept
        with this (immutable) matrix: a process answering many queries converts it once."""
        import numpy

        return self.matrix.astype(numpy.float32)

    def cosines(self, query: Any, pool: list[int]) -> Any:
        """Each pool doc's cosine with the unit vector ``query`` (an array in pool order): the
        best of its views. None when a pool doc has no vector yet (the encoder cannot vote
        for this pool).

        Only the pool's rows are read when the pool is part of the matrix (the default view
        of a large repository): a query then touches a few hundred rows of the memory map,
        not all of them."""
        import numpy

        wanted = numpy.asarray(pool, dtype=numpy.int64)
        query = numpy.asarray(query, dtype=numpy.float32)  # a float64 one would copy the matrix
        if not len(self.docs):
            return None if len(wanted) else numpy.zeros(0, dtype=numpy.float32)
        pos = numpy.minimum(numpy.searchsorted(self.docs, wanted), len(self.docs) - 1)
        if not bool((self.docs[pos] == wanted).all()):
            return None
        if len(wanted) >= len(self.docs):
            # float32 for the product: numpy has no fast float16 path
            scores = numpy.dot(self.dense, query)
            return numpy.maximum.reduceat(scores, self.starts)[pos]
        ends = numpy.append(self.starts[1:], len(self.ids))
        counts = ends[pos] - self.starts[pos]
        firsts = numpy.cumsum(counts) - counts  # where each pool doc's rows begin in ``rows``
        rows = numpy.repeat(self.starts[pos] - firsts, counts) + numpy.arange(int(counts.sum()))
        scores = numpy.dot(self.matrix[rows].astype(numpy.float32), query)
        return numpy.maximum.reduceat(scores, firsts)

    def covers(self, pool: list[int]) -> list[int]:
        """The pool docs that have no vector in this matrix."""
        import numpy

        wanted = numpy.asarray(pool, dtype=numpy.int64)
        present = numpy.isin(wanted, self.docs)
        return [int(x) for x in wanted[~present]]


class VectorStore:
    """The vector cache of one open index."""

    def __init__(self, index: Index) -> None:
        self.index = index

    @functools.cached_property
    def folder(self) -> Path | None:
        """The matrices' folder: a real folder inside the cache folder (made when missing; a
        link there is refused, as for the cache folder itself), or None for an in-memory index
        or a cache folder that cannot be written (then matrices live in memory only)."""
        cache = self.index.folder  # the repository's .exobrain-cache, a real folder
        if cache is None:
            return None
        try:
            return cache_folder(cache.parent, VECTORS_DIR)
        except OSError:
            return None

    def missing(self, model: Model, docs: Iterable[int] | None) -> dict[bytes, str]:
        """key → text of the views of ``docs`` (None: every doc) that ``model`` has no
        vector for."""
        query = (
            "SELECT DISTINCT v.key, v.text FROM views v LEFT JOIN emb.vectors x "
            "ON x.model = ? AND x.key = v.key WHERE v.role = ? AND x.key IS NULL"
        )
        db = self.index.db
        if docs is None:
            return dict(db.execute(query, (model.model_id, model.role)))
        found: dict[bytes, str] = {}
        wanted = list(dict.fromkeys(docs))
        for start in range(0, len(wanted), 900):
            chunk = wanted[start : start + 900]
            found.update(
                db.execute(
                    f"{query} AND v.doc IN ({','.join('?' * len(chunk))})",
                    (model.model_id, model.role, *chunk),
                )
            )
        return found

    def embed(self, encoder: Encoder, texts: dict[bytes, str], progress: Progress | None) -> int:
        """Embed ``texts`` (key → text) with ``encoder`` and store the vectors, committing
        every :data:`BATCH` texts; returns how many were embedded."""
        import numpy

        keys = list(texts)
        model = encoder.model
        for start in range(0, len(keys), BATCH):
            chunk = keys[start : start + BATCH]
            vectors = encoder.encode([texts[k] for k in chunk]).astype("<f2")
            with self.index.transaction():
                self.index.db.executemany(
                    "INSERT OR REPLACE INTO emb.vectors VALUES (?, ?, ?)",
                    [
                        (model.model_id, k, numpy.ascontiguousarray(v).tobytes())
                        for k, v in zip(chunk, vectors, strict=True)
                    ],
                )
                self.index.new_generation(f"gen:{model.model_id}", "emb")
            if progress is not None:
                progress(model.role, min(start + BATCH, len(keys)), len(keys))
        return len(keys)

    def aligned(self, model: Model, *, make: bool = True) -> Aligned | None:
        """The aligned matrix of ``model`` for the cache as it is now; made when it does not
        exist yet, unless ``make`` is False (then None)."""
        index, folder = self.index, self.folder
        with index.snapshot():
            prefix = self._prefix(model)
            seq = int(index.meta("seq") or 0)
            vec_gen = index.meta(f"gen:{model.model_id}", "emb") or "0"
            name = f"{prefix}{seq}-{index.meta('docs_gen') or '0'}-{vec_gen}"
            if folder is not None and (loaded := _load(folder, name)) is not None:
                return loaded
            if not make:
                return None
            previous = _newest(folder, prefix) if folder is not None else None
            ids, matrix = self._make(model, previous)
        if folder is not None:
            _save(folder, name, ids, matrix, prefix.rsplit("-", 2)[0] + "-")
        return _aligned(ids, matrix)

    def suspects(self, model: Model, pool: list[int]) -> list[int]:
        """The docs of ``pool`` that may lack a vector of ``model``: all of them, or, when an
        older matrix exists, those it lacks and those written after it."""
        import numpy

        folder = self.folder
        previous = _newest(folder, self._prefix(model)) if folder else None
        if previous is None:
            return pool
        old, old_seq = previous
        written: set[int] = set()
        for start in range(0, len(pool), 900):
            chunk = pool[start : start + 900]
            written.update(
                i
                for (i,) in self.index.db.execute(
                    f"SELECT id FROM docs WHERE seq > ? AND id IN ({','.join('?' * len(chunk))})",
                    (old_seq, *chunk),
                )
            )
        wanted = numpy.asarray(pool, dtype=numpy.int64)
        return sorted(written | {int(i) for i in wanted[~numpy.isin(wanted, old.docs)]})

    def _prefix(self, model: Model) -> str:
        """The start of the names of ``model``'s matrices made from this index file."""
        tag = hashlib.sha256(model.model_id.encode()).hexdigest()[:8]
        return f"{model.role}-{tag}-{self.index.meta('instance') or '0'}-"

    def _make(self, model: Model, previous: tuple[Aligned, int] | None) -> tuple[Any, Any]:
        """(doc ids, matrix): ``previous`` (a matrix and its ``seq``) patched with the rows
        written since and the docs it lacked, or everything read afresh when that is most."""
        import numpy

        current = self.index.db.execute("SELECT id, seq FROM docs ORDER BY id").fetchall()
        ids = numpy.fromiter((i for i, _ in current), dtype=numpy.int64, count=len(current))
        if previous is None:
            return self._rows(model, None)
        old, old_seq = previous
        seqs = numpy.fromiter((q for _, q in current), dtype=numpy.int64, count=len(current))
        changed = ids[(seqs > old_seq) | ~numpy.isin(ids, old.docs)]
        if len(changed) * 2 > len(ids):
            return self._rows(model, None)
        keep = numpy.isin(old.ids, ids) & ~numpy.isin(old.ids, changed)
        parts = [(old.ids[keep], old.matrix[keep])] if keep.any() else []
        new_ids, new_rows = self._rows(model, [int(i) for i in changed])
        if len(new_ids):
            parts.append((new_ids, new_rows))
        if len(parts) < 2:
            return parts[0] if parts else (new_ids, new_rows)
        all_ids = numpy.concatenate([p[0] for p in parts])
        order = numpy.argsort(all_ids, kind="stable")  # each doc's views stay in their order
        place = numpy.empty_like(order)
        place[order] = numpy.arange(len(order))  # where each row of ``parts`` goes
        matrix = numpy.empty((len(order), parts[0][1].shape[1]), dtype=numpy.float16)
        matrix[place[: len(parts[0][0])]] = parts[0][1]
        matrix[place[len(parts[0][0]) :]] = parts[1][1]
        return all_ids[order], matrix

    def _rows(self, model: Model, docs: list[int] | None) -> tuple[Any, Any]:
        """(doc id per row, float16 matrix) of ``docs`` (None: all) whose views all have a
        vector, in doc-id and view order."""
        import numpy

        query = (
            "SELECT v.doc, x.vec FROM views v LEFT JOIN emb.vectors x "
            "ON x.model = ? AND x.key = v.key WHERE v.role = ?"
        )
        rows: list[tuple[int, bytes | None]] = []
        if docs is None:
            rows = self.index.db.execute(
                f"{query} ORDER BY v.doc, v.pos", (model.model_id, model.role)
            ).fetchall()
        for start in range(0, len(docs or []), 900):
            chunk = (docs or [])[start : start + 900]
            rows += self.index.db.execute(
                f"{query} AND v.doc IN ({','.join('?' * len(chunk))}) ORDER BY v.doc, v.pos",
                (model.model_id, model.role, *chunk),
            ).fetchall()
        incomplete = {doc for doc, vec in rows if vec is None}
        kept = [(doc, vec) for doc, vec in rows if doc not in incomplete]
        ids = numpy.fromiter((doc for doc, _ in kept), dtype=numpy.int64, count=len(kept))
        matrix = numpy.frombuffer(b"".join(vec for _, vec in kept if vec), dtype="<f2")
        return ids, matrix.reshape(len(kept), -1) if len(kept) else matrix

    def prune(self) -> int:
        """Drop the vectors no view refers to any more; how many went."""
        with self.index.transaction():
            gone = self.index.db.execute(
                "DELETE FROM emb.vectors WHERE key NOT IN (SELECT key FROM views)"
            ).rowcount
        return max(gone, 0)


def _aligned(ids: Any, matrix: Any) -> Aligned:
    import numpy

    starts = numpy.flatnonzero(numpy.r_[True, ids[1:] != ids[:-1]]) if len(ids) else ids
    return Aligned(ids, matrix, ids[starts] if len(ids) else ids, starts)


def _newest(folder: Path, prefix: str) -> tuple[Aligned, int] | None:
    """The matrix with the highest ``seq`` among those named ``prefix…``, and that ``seq``."""
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".ids.npy")]
    except OSError:
        return None
    for name in sorted(names, key=lambda n: -int(n[len(prefix) :].split("-", 1)[0])):
        loaded = _load(folder, name.removesuffix(".ids.npy"))
        if loaded is not None:
            return loaded, int(name[len(prefix) :].split("-", 1)[0])
    return None


#: Matrices this process has loaded, by file and signature: a name is never reused for other
#: content (see the module), so a process answering many queries maps each one once.
_LOADED: dict[str, tuple[tuple[int, ...], Aligned]] = {}
_LOADED_LIMIT = 4


def _load(folder: Path, name: str) -> Aligned | None:
    import numpy

    files = [folder / f"{name}.{suffix}.npy" for suffix in ("ids", "vec")]
    signature = _signature(files)
    if signature is None:
        return None  # not built yet, or not ours: a link or a special file is never read
    kept = _LOADED.get(str(files[1]))
    if kept is not None and kept[0] == signature:
        return kept[1]
    try:
        ids = numpy.load(files[0])
        matrix = numpy.load(files[1], mmap_mode="r")
    except (OSError, ValueError):
        return None  # not built yet, or removed by a newer build meanwhile
    if len(ids) != len(matrix):
        return None
    aligned = _aligned(ids, matrix)
    if len(_LOADED) >= _LOADED_LIMIT:
        _LOADED.pop(next(iter(_LOADED)))
    _LOADED[str(files[1])] = (signature, aligned)
    return aligned


def _signature(files: list[Path]) -> tuple[int, ...] | None:
    """(inode, size, mtime) of each file, None unless every one is a regular file."""
    found: list[int] = []
    for path in files:
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        found += [info.st_ino, info.st_size, info.st_mtime_ns]
    return tuple(found)


def _save(folder: Path, name: str, ids: Any, matrix: Any, prefix: str) -> None:
    """Write the matrix and then its ids (a reader that finds the ids finds the matrix), then
    remove this encoder's older matrices. A folder that cannot be written only costs speed."""
    import numpy

    try:
        for suffix, array in (("vec", matrix), ("ids", ids)):
            target = folder / f"{name}.{suffix}.npy"
            with staged_file(target, root=folder) as temp, open(temp, "wb") as out:
                numpy.save(out, array)
        for old in os.listdir(folder):
            if old.startswith(prefix) and not old.startswith(f"{name}."):
                try:
                    os.unlink(folder / old)
                except FileNotFoundError:
                    pass
    except OSError:
        pass
