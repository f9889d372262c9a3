"""The search index: SQLite FTS5 plus the texts the encoders embed, kept fresh and read.

Its tables (the files that hold them, and how they are opened: :mod:`exobrain.search.indexfiles`):
``docs`` (one row per artifact: its ref, the stat signature and content hash it was read at,
the frontmatter as JSON and, when that could not be read, why), ``fts`` (an FTS5 table over
name, triggers, description, instructions, tags and personas; rowid = docs.id) and ``views``
(per artifact and encoder, the texts that encoder embeds and their sha256 keys, see
:mod:`exobrain.search.docs`); the vectors are in the embeddings file, attached as ``emb``
(:mod:`exobrain.search.vectors`).

Updates are incremental. An artifact whose file and folder stat signature is unchanged is not
read; a changed one is re-hashed (the skill folder's dirhash ``h1:``, the file's sha256 for
knowledge) and re-parsed only when the hash moved. Every row written gets the next number of a
counter that never goes back (``seq``), and every write transaction that changes rows a new
``docs_gen`` token: the vector matrices built from the rows are named by the token and
patched from the rows written since their ``seq`` (:mod:`exobrain.search.vectors`).
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from exobrain.errors import ExobrainError
from exobrain.search.artifact import Artifact
from exobrain.search.docs import Doc, artifact_hash, read_doc, stat_signature
from exobrain.search.query import quoted
from exobrain.skillmd import links_of
from exobrain.util.progress import Progress

COLUMNS = ("name", "triggers", "description", "instructions", "tags", "personas")


class Row(NamedTuple):
    """One indexed artifact as the readers need it."""

    id: int
    description: str
    meta: dict[str, Any]
    hash: str


@dataclass
class Update:
    """What one refresh did (for the benchmark, the tests and ``--json`` output)."""

    checked: int = 0
    rehashed: list[str] = field(default_factory=list)
    reindexed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    embedded: dict[str, int] = field(default_factory=dict)  # encoder role → texts embedded
    rebuilt: str | None = None  # why a cache file was rebuilt from scratch, if one was
    unreadable: dict[str, str] = field(default_factory=dict)  # file → why it was skipped


def text_key(text: str) -> bytes:
    """The cache key of an embedded text: the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


#: A pool this large has its ids read in one scan of the table (kept per generation).
SCAN_IDS_FROM = 2000


class Index:
    """An open index (with the embeddings file attached as ``emb``). Every method may raise
    ``sqlite3.DatabaseError`` on a corrupt file; :func:`~exobrain.search.indexfiles.open_index`
    and the search turn that into a rebuild."""

    def __init__(self, db: sqlite3.Connection, path: Path | None) -> None:
        self.db = db
        self.path = path
        self._seq = 0  # the last row number given out, inside a refresh
        self._every: tuple[str, dict[str, int]] | None = None  # (docs_gen, ref → id)

    @property
    def folder(self) -> Path | None:
        """The cache folder (None: an in-memory index, for a read-only checkout)."""
        return self.path.parent if self.path is not None else None

    def meta(self, key: str, schema: str = "main") -> str | None:
        row = self.db.execute(f"SELECT value FROM {schema}.meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str, schema: str = "main") -> None:
        self.db.execute(f"INSERT OR REPLACE INTO {schema}.meta VALUES (?, ?)", (key, value))

    def new_generation(self, key: str, schema: str = "main") -> None:
        """Give ``key`` a fresh random token (inside the write that changed what it names), so
        files derived from the old state are never mistaken for the new one, even after the
        index was deleted and rebuilt."""
        self.set_meta(key, uuid.uuid4().hex[:12], schema)

    def refresh(
        self,
        artifacts: Iterable[Artifact],
        *,
        prune: bool = False,
        update: Update | None = None,
        progress: Progress | None = None,
    ) -> Update:
        """Bring the rows of ``artifacts`` up to date (``prune``: drop every other row).

        A first pass compares stat signatures without any lock; only when something changed
        is a write transaction opened (and the changed rows checked again inside it, so two
        processes refreshing at once do the work once)."""
        update = update or Update()
        wanted: dict[str, tuple[Artifact, str | None]] = {}
        for artifact in artifacts:
            if artifact.file is not None and artifact.ref not in wanted:
                wanted[artifact.ref] = (artifact, stat_signature(artifact))
        update.checked += len(wanted)
        known = self._known(None if prune else list(wanted))
        stale = [
            ref
            for ref, (_, stat) in wanted.items()
            if (known.get(ref) or (0, None, None))[1] != stat
        ]
        gone = [ref for ref in known if ref not in wanted] if prune else []
        if stale or gone:
            with self.transaction():
                known = self._known(stale + gone)
                self._seq = int(self.meta("seq") or 0)
                for done, ref in enumerate(stale, 1):
                    self._refresh_one(wanted[ref][0], wanted[ref][1], known.get(ref), update)
                    if progress is not None and done % 200 == 0:
                        progress("index", done, len(stale))
                for ref in gone:
                    if ref in known:
                        self._delete(known[ref][0])
                        update.removed.append(ref)
                if update.reindexed or update.removed:
                    self.set_meta("seq", str(self._seq))
                    self.new_generation("docs_gen")
            if progress is not None:
                progress("index", len(stale), len(stale))
        return update

    def _known(self, refs: list[str] | None) -> dict[str, tuple[int, str, str]]:
        """ref → (id, stat signature, hash) of ``refs`` (None: every row)."""
        rows = (
            self.db.execute("SELECT ref, id, stat, hash FROM docs").fetchall()
            if refs is None
            else self._select("ref, id, stat, hash", "ref", refs)
        )
        return {ref: (doc_id, stat, digest) for ref, doc_id, stat, digest in rows}

    def _refresh_one(
        self, artifact: Artifact, stat: str | None, old: tuple[int, str, str] | None, update: Update
    ) -> None:
        if stat is None:
            if old:
                self._delete(old[0])
                update.removed.append(artifact.ref)
            return
        if old and old[1] == stat:
            return  # another process did it meanwhile
        try:
            digest = artifact_hash(artifact)
            update.rehashed.append(artifact.ref)
            if old and old[2] == digest:
                self.db.execute("UPDATE docs SET stat = ? WHERE id = ?", (stat, old[0]))
                return
            self._write(artifact, read_doc(artifact), stat, digest, old[0] if old else None)
        except ExobrainError as exc:
            update.unreadable[artifact.file or artifact.ref] = exc.message
            return  # unreadable now: skipped, reported as a warning (skills-validate: an error)
        except OSError as exc:
            update.unreadable[artifact.file or artifact.ref] = exc.strerror or str(exc)
            return
        update.reindexed.append(artifact.ref)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A write transaction taken up front (``BEGIN IMMEDIATE``), so two writers queue on
        the busy timeout instead of failing when a read lock would need upgrading."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """A read transaction: every read inside sees one state of both files."""
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def _write(
        self, artifact: Artifact, doc: Doc, stat: str, digest: str, doc_id: int | None
    ) -> None:
        self._seq += 1
        values = (
            artifact.ref,
            artifact.type,
            stat,
            digest,
            doc.description,
            json.dumps(doc.meta, ensure_ascii=False, sort_keys=True),
            self._seq,
            doc.problem,
        )
        if doc_id is None:
            doc_id = self.db.execute(
                "INSERT INTO docs (ref, type, stat, hash, description, meta, seq, problem) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            ).lastrowid
        else:
            self.db.execute(
                "UPDATE docs SET ref = ?, type = ?, stat = ?, hash = ?, "
                "description = ?, meta = ?, seq = ?, problem = ? WHERE id = ?",
                (*values, doc_id),
            )
            self.db.execute("DELETE FROM fts WHERE rowid = ?", (doc_id,))
            self.db.execute("DELETE FROM views WHERE doc = ?", (doc_id,))
        self.db.execute(
            f"INSERT INTO fts (rowid, {', '.join(COLUMNS)}) VALUES "
            f"(?, {', '.join('?' * len(COLUMNS))})",
            (doc_id, *(doc.fields[c] for c in COLUMNS)),
        )
        self.db.executemany(
            "INSERT INTO views VALUES (?, ?, ?, ?, ?)",
            [
                (doc_id, role, pos, text_key(text), text)
                for role, texts in doc.views.items()
                for pos, text in enumerate(texts)
            ],
        )

    def _delete(self, doc_id: int) -> None:
        self.db.execute("DELETE FROM docs WHERE id = ?", (doc_id,))
        self.db.execute("DELETE FROM fts WHERE rowid = ?", (doc_id,))
        self.db.execute("DELETE FROM views WHERE doc = ?", (doc_id,))

    # --- reading -------------------------------------------------------------------------

    def rows(self, refs: Iterable[str]) -> dict[str, Row]:
        """The indexed rows of ``refs`` (refs not in the index are left out)."""
        return {
            ref: Row(doc_id, description, json.loads(meta), digest)
            for doc_id, ref, description, meta, digest in self._select(
                "id, ref, description, meta, hash", "ref", list(refs)
            )
        }

    def problems(self) -> dict[str, str]:
        """ref → why its frontmatter could not be read (it is indexed by its raw text), for
        the rows that have such a problem."""
        return dict(self.db.execute("SELECT ref, problem FROM docs WHERE problem IS NOT NULL"))

    def ids(self, refs: Iterable[str]) -> dict[str, int]:
        """ref → doc id of the indexed ``refs``. For a pool of thousands, every row's id is
        read in one scan and kept while the rows' generation (``docs_gen``, read first, so
        rows are never kept under a newer token than theirs) stays the same."""
        wanted = list(refs)
        if len(wanted) < SCAN_IDS_FROM:
            return dict(self._select("ref, id", "ref", wanted))
        generation = self.meta("docs_gen")
        if generation is None or self._every is None or self._every[0] != generation:
            every = dict(self.db.execute("SELECT ref, id FROM docs").fetchall())
            self._every = (generation, every) if generation is not None else None
        else:
            every = self._every[1]
        return {ref: every[ref] for ref in wanted if ref in every}

    def _select(self, columns: str, key: str, values: list[Any]) -> list[tuple[Any, ...]]:
        """``SELECT columns FROM docs WHERE key IN values``, in chunks SQLite accepts."""
        found: list[tuple[Any, ...]] = []
        values = list(dict.fromkeys(values))
        for start in range(0, len(values), 900):
            chunk = values[start : start + 900]
            found += self.db.execute(
                f"SELECT {columns} FROM docs WHERE {key} IN ({','.join('?' * len(chunk))})", chunk
            ).fetchall()
        return found

    def supersedes(self) -> dict[str, list[str]]:
        """ref → its ``links.supersedes`` refs, for the rows whose frontmatter has any."""
        return {
            ref: refs
            for ref, meta in self.db.execute(
                "SELECT ref, meta FROM docs WHERE instr(meta, '\"supersedes\"') > 0"
            )
            if (refs := links_of(json.loads(meta), "supersedes"))
        }

    def coverage(self, words: list[str], doc_ids: list[int]) -> dict[int, float]:
        """doc id → the share of ``words``, each weighted by its inverse document frequency
        over the whole index, that the doc's name, triggers or description hold (0 to 1; see
        :class:`~exobrain.search.ranking.Floor`). Two small queries per word, over the few
        ``doc_ids`` asked about."""
        if not doc_ids or not words:
            return dict.fromkeys(doc_ids, 0.0)
        total = self.db.execute("SELECT count(*) FROM docs").fetchone()[0]
        ids = ",".join(str(int(i)) for i in doc_ids)
        weights: dict[str, float] = {}
        holders: dict[str, set[int]] = {}
        for word in words:
            text = quoted(word)
            df = self.db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (text,)).fetchone()
            weights[word] = math.log((total - df[0] + 0.5) / (df[0] + 0.5) + 1)
            found = self.db.execute(
                f"SELECT rowid FROM fts WHERE fts MATCH ? AND rowid IN ({ids})",
                (f"{{name triggers description}}: {text}",),
            )
            holders[word] = {row[0] for row in found}
        whole = math.fsum(weights.values()) or 1.0
        return {i: math.fsum(weights[w] for w in words if i in holders[w]) / whole for i in doc_ids}

    def lexical(
        self, match: str, boosts: tuple[float, ...], limit: int, pool: list[int]
    ) -> dict[int, float]:
        """doc id → BM25 relevance (higher is better) of the best ``limit`` rows among the doc
        ids ``pool`` that match the FTS5 expression ``match``.

        The ranking function is given with the query (``rank MATCH 'bm25(…)'``), so the
        column boosts of the weights file apply without touching the table, and FTS5 sorts
        and cuts inside SQLite (``ORDER BY rank LIMIT``). When the pool is not the whole
        index, it is joined in as a temporary table, so rows nobody here may see never take
        one of the ``limit`` places."""
        rank = f"bm25({', '.join(repr(float(b)) for b in boosts)})"
        total = self.db.execute("SELECT count(*) FROM docs").fetchone()[0]
        if len(set(pool)) >= total:
            rows = self.db.execute(
                "SELECT rowid, rank FROM fts WHERE fts MATCH ? AND rank MATCH ? "
                "ORDER BY rank LIMIT ?",
                (match, rank, limit),
            )
        else:
            self.db.execute("CREATE TEMP TABLE IF NOT EXISTS pool (id INTEGER PRIMARY KEY)")
            self.db.execute("DELETE FROM temp.pool")
            self.db.executemany("INSERT OR IGNORE INTO temp.pool VALUES (?)", ((i,) for i in pool))
            rows = self.db.execute(
                "SELECT f.rowid, f.rank FROM fts f JOIN temp.pool p ON p.id = f.rowid "
                "WHERE fts MATCH ? AND f.rank MATCH ? ORDER BY f.rank LIMIT ?",
                (match, rank, limit),
            )
        return {doc_id: -score for doc_id, score in rows}
