"""The vector cache: what each encoder made of each text, and the matrices a query reads.

``emb.vectors`` (the file ``embeddings.sqlite``) holds one float16 vector per model and text
hash, so a text is embedded once whatever moves around it: an edit to a skill's body embeds
nothing new, and two skills with the same description share a vector. Embedding commits after
every batch, so an interrupted build keeps what it did and the next run goes on from there.

A query does not read thousands of vectors out of SQLite (about 90 ms for 8,000 skills). It
memory-maps an *aligned matrix* per encoder in ``.exobrain-cache/vectors/``: the float32
vectors of every view of every artifact whose views all have one, in doc-id order, and the doc
id of each row (``<name>.vec.npy``, ``<name>.ids.npy``). ``<name>`` carries the encoder, its
model and the two generation tokens the rows and the vectors were read at, so a matrix is
never used for another state of the cache. Whoever needs a matrix that does not exist yet
builds it from one read snapshot (two processes building the same one write the same bytes)
and removes the older ones; a process that still has an old one mapped keeps reading it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.search.embedding import Encoder, Model
from exobrain.search.index import Index, Progress
from exobrain.util.staging import staged_file

VECTORS_DIR = "vectors"
#: Texts embedded (and committed) at a time: a lost batch costs a second of MiniLM at most.
BATCH = 32


@dataclass(frozen=True)
class Aligned:
    """An encoder's vectors in doc-id order (see the module)."""

    ids: Any  # int64, the doc id of each row, non-decreasing
    matrix: Any  # float32 rows × dim
    docs: Any  # the distinct doc ids, sorted
    starts: Any  # the first row of each of ``docs``

    def cosines(self, query: Any, pool: list[int]) -> list[float] | None:
        """Each pool doc's cosine with the unit vector ``query``: the best of its views.
        None when a pool doc has no vector yet (the encoder cannot vote for this pool)."""
        import numpy

        wanted = numpy.asarray(pool, dtype=numpy.int64)
        if not len(self.docs):
            return None if len(wanted) else []
        pos = numpy.minimum(numpy.searchsorted(self.docs, wanted), len(self.docs) - 1)
        if not bool((self.docs[pos] == wanted).all()):
            return None
        per_doc = numpy.maximum.reduceat(self.matrix @ query, self.starts)
        return [float(x) for x in per_doc[pos]]

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

    def missing(self, role: str, model: Model, docs: Iterable[int] | None) -> dict[bytes, str]:
        """key → text of the views of ``docs`` (None: every doc) that ``model`` has no
        vector for."""
        query = (
            "SELECT DISTINCT v.key, v.text FROM views v LEFT JOIN emb.vectors x "
            "ON x.model = ? AND x.key = v.key WHERE v.role = ? AND x.key IS NULL"
        )
        db = self.index.db
        if docs is None:
            return dict(db.execute(query, (model.model_id, role)))
        found: dict[bytes, str] = {}
        wanted = list(dict.fromkeys(docs))
        for start in range(0, len(wanted), 900):
            chunk = wanted[start : start + 900]
            found.update(
                db.execute(
                    f"{query} AND v.doc IN ({','.join('?' * len(chunk))})",
                    (model.model_id, role, *chunk),
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

    def aligned(self, model: Model) -> Aligned:
        """The aligned matrix of ``model`` for the index as it is now (built when missing)."""
        with self.index.snapshot():
            docs_gen = self.index.meta("docs_gen") or "0"
            vec_gen = self.index.meta(f"gen:{model.model_id}", "emb") or "0"
            model_tag = hashlib.sha256(model.model_id.encode()).hexdigest()[:8]
            name = f"{model.role}-{model_tag}-{docs_gen}-{vec_gen}"
            folder = self.index.folder
            loaded = _load(folder / VECTORS_DIR, name) if folder is not None else None
            if loaded is not None:
                return loaded
            ids, matrix = self._build(model)
        if folder is not None:
            _save(folder / VECTORS_DIR, name, ids, matrix, f"{model.role}-{model_tag}-")
        return _aligned(ids, matrix)

    def _build(self, model: Model) -> tuple[Any, Any]:
        """(doc id per row, float32 matrix) of every doc whose views all have a vector."""
        import numpy

        rows = self.index.db.execute(
            "SELECT v.doc, x.vec FROM views v LEFT JOIN emb.vectors x "
            "ON x.model = ? AND x.key = v.key WHERE v.role = ? ORDER BY v.doc, v.pos",
            (model.model_id, model.role),
        ).fetchall()
        incomplete = {doc for doc, vec in rows if vec is None}
        kept = [(doc, vec) for doc, vec in rows if doc not in incomplete]
        ids = numpy.fromiter((doc for doc, _ in kept), dtype=numpy.int64, count=len(kept))
        blob = b"".join(vec for _, vec in kept)
        matrix = numpy.frombuffer(blob, dtype="<f2").astype(numpy.float32)
        return ids, matrix.reshape(len(kept), -1) if len(kept) else matrix.reshape(0, 0)

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


def _load(folder: Path, name: str) -> Aligned | None:
    import numpy

    try:
        ids = numpy.load(folder / f"{name}.ids.npy")
        matrix = numpy.load(folder / f"{name}.vec.npy", mmap_mode="r")
    except (OSError, ValueError):
        return None  # not built yet, or removed by a newer build meanwhile
    if len(ids) != len(matrix):
        return None
    return _aligned(ids, matrix)


def _save(folder: Path, name: str, ids: Any, matrix: Any, prefix: str) -> None:
    """Write the matrix and then its ids (a reader that finds the ids finds the matrix), then
    remove this encoder's older matrices. A folder that cannot be written only costs speed."""
    import numpy

    try:
        for suffix, array in (("vec", matrix), ("ids", ids)):
            with staged_file(folder / f"{name}.{suffix}.npy") as temp, open(temp, "wb") as out:
                numpy.save(out, array)
        for old in os.listdir(folder):
            if old.startswith(prefix) and not old.startswith(f"{name}."):
                try:
                    os.unlink(folder / old)
                except FileNotFoundError:
                    pass
    except OSError:
        pass
