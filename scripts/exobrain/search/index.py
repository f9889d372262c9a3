"""The search index: SQLite FTS5 plus cached vectors, in the gitignored ``.exobrain-cache/``.

One file, ``.exobrain-cache/search.sqlite``, holds

* ``docs``: one row per artifact (its ref, the stat signature and content hash it was read
  at, the frontmatter as JSON, the embedding-text hash);
* ``fts``: an FTS5 table over name, triggers, description, instructions, tags and personas
  (rowid = docs.id), queried with BM25 and per-column weights;
* ``vectors``: float16 unit vectors and their sign-bit signatures, keyed by the hash of the
  text embedded (so an unchanged text is never embedded twice, whatever moved);
* the tokenizer tables of the query encoder (see :mod:`exobrain.search.embedding`).

Updates are incremental (what is read from a file is in :mod:`exobrain.search.docs`). An
artifact whose file and folder stat signature is unchanged is not read; a changed one is
re-hashed (the skill folder's dirhash ``h1:``, the file's sha256 for knowledge) and re-parsed
only when the hash moved. The file is a cache: when it is missing,
from an older format, or corrupt (SQLite refuses it), it is deleted and built again — a broken
cache is never an error.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from exobrain.errors import ExobrainError
from exobrain.paths import REPO_CACHE, cache_folder
from exobrain.search.corpus import Artifact
from exobrain.search.docs import Doc, artifact_hash, read_doc, stat_signature
from exobrain.search.embedding import TOKENIZER_SCHEMA
from exobrain.skillmd import links_of

FORMAT = "2"
INDEX_FILE = "search.sqlite"
COLUMNS = ("name", "triggers", "description", "instructions", "tags", "personas")
SCHEMA = (
    f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY, ref TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
    stat TEXT NOT NULL, hash TEXT NOT NULL, embed_hash TEXT NOT NULL,
    description TEXT NOT NULL, meta TEXT NOT NULL, problem TEXT);
CREATE INDEX IF NOT EXISTS docs_embed ON docs (embed_hash);
CREATE INDEX IF NOT EXISTS docs_problem ON docs (ref) WHERE problem IS NOT NULL;
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5({", ".join(COLUMNS)},
    tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS vectors (embed_hash TEXT PRIMARY KEY, vec BLOB NOT NULL,
                                    sig BLOB NOT NULL) WITHOUT ROWID;
"""
    + TOKENIZER_SCHEMA
)


class Row(NamedTuple):
    """One indexed artifact as the readers need it."""

    id: int
    description: str
    meta: dict[str, Any]
    hash: str


@dataclass
class Update:
    """What one refresh did (for the benchmark, the tests and ``--verbose`` output)."""

    checked: int = 0
    rehashed: list[str] = field(default_factory=list)
    reindexed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    embedded: int = 0
    rebuilt: str | None = None  # why the file was rebuilt from scratch, if it was
    unreadable: dict[str, str] = field(default_factory=dict)  # file → why it was skipped


class Index:
    """An open index file. Every method may raise ``sqlite3.DatabaseError`` on a corrupt file;
    :func:`with_index` turns that into a rebuild."""

    def __init__(self, db: sqlite3.Connection, path: Path | None) -> None:
        self.db = db
        self.path = path
        self._pending: dict[str, str] = {}  # texts written by this process, by embed hash

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def refresh(
        self,
        artifacts: Iterable[Artifact],
        *,
        prune: bool = False,
        embedder: Callable[[list[str]], list[tuple[bytes, bytes]]] | None = None,
        update: Update | None = None,
    ) -> Update:
        """Bring the rows of ``artifacts`` up to date (``prune``: drop every other row), then
        embed those of their texts that have no vector yet when an ``embedder`` is given.

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
                for ref in stale:
                    self._refresh_one(wanted[ref][0], wanted[ref][1], known.get(ref), update)
                for ref in gone:
                    if ref in known:
                        self._delete(known[ref][0])
                        update.removed.append(ref)
        if prune:
            with self.transaction():
                self.db.execute(
                    "DELETE FROM vectors WHERE embed_hash NOT IN (SELECT embed_hash FROM docs)"
                )
        if embedder is not None:
            update.embedded += self.embed_missing(embedder, None if prune else list(wanted))
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

    def _write(
        self, artifact: Artifact, doc: Doc, stat: str, digest: str, doc_id: int | None
    ) -> None:
        values = (
            artifact.ref,
            artifact.type,
            stat,
            digest,
            doc.embed_hash,
            doc.description,
            json.dumps(doc.meta, ensure_ascii=False, sort_keys=True),
            doc.problem,
        )
        if doc_id is None:
            doc_id = self.db.execute(
                "INSERT INTO docs (ref, type, stat, hash, embed_hash, description, meta, problem) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            ).lastrowid
        else:
            self.db.execute(
                "UPDATE docs SET ref = ?, type = ?, stat = ?, hash = ?, "
                "embed_hash = ?, description = ?, meta = ?, problem = ? WHERE id = ?",
                (*values, doc_id),
            )
            self.db.execute("DELETE FROM fts WHERE rowid = ?", (doc_id,))
        self.db.execute(
            f"INSERT INTO fts (rowid, {', '.join(COLUMNS)}) VALUES "
            f"(?, {', '.join('?' * len(COLUMNS))})",
            (doc_id, *(doc.fields[c] for c in COLUMNS)),
        )
        self._pending[doc.embed_hash] = doc.embed_text

    def _delete(self, doc_id: int) -> None:
        self.db.execute("DELETE FROM docs WHERE id = ?", (doc_id,))
        self.db.execute("DELETE FROM fts WHERE rowid = ?", (doc_id,))

    def embed_missing(
        self, embedder: Callable[[list[str]], list[tuple[bytes, bytes]]], refs: list[str] | None
    ) -> int:
        """Embed the texts of ``refs`` (None: every row) that have no vector yet."""
        query = (
            "SELECT DISTINCT d.embed_hash FROM docs d LEFT JOIN vectors v "
            "ON v.embed_hash = d.embed_hash WHERE v.embed_hash IS NULL"
        )
        if refs is None:
            missing = [h for (h,) in self.db.execute(query)]
        else:
            missing = []
            for start in range(0, len(refs), 900):
                chunk = refs[start : start + 900]
                missing += [
                    h
                    for (h,) in self.db.execute(
                        f"{query} AND d.ref IN ({','.join('?' * len(chunk))})", chunk
                    )
                ]
            missing = list(dict.fromkeys(missing))
        if not missing:
            return 0
        texts = {h: self._pending.get(h) for h in missing}
        unknown = [h for h, t in texts.items() if t is None]
        if unknown:  # written by an earlier run without the model: rebuild the text
            for embed_hash, text in self._texts_for(unknown).items():
                texts[embed_hash] = text
        hashes = [h for h in missing if texts.get(h) is not None]
        vectors = embedder([texts[h] for h in hashes])  # type: ignore[misc]
        with self.transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [(h, vec, sig) for h, (vec, sig) in zip(hashes, vectors, strict=False)],
            )
        return len(hashes)

    def _texts_for(self, hashes: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        marks = ",".join("?" * len(hashes))
        for embed_hash, *cols in self.db.execute(
            f"SELECT d.embed_hash, f.name, f.description, f.triggers, f.instructions "
            f"FROM docs d JOIN fts f ON f.rowid = d.id WHERE d.embed_hash IN ({marks})",
            hashes,
        ):
            found[embed_hash] = "\n".join(cols)
        return found

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
        """ref → doc id of the indexed ``refs``."""
        return dict(self._select("ref, id", "ref", list(refs)))

    def _select(self, columns: str, key: str, values: list) -> list[tuple]:
        """``SELECT columns FROM docs WHERE key IN values``, in chunks SQLite accepts."""
        found: list[tuple] = []
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

    def lexical(self, match: str, boosts: tuple[float, ...]) -> dict[int, float]:
        """doc id → BM25 relevance (higher is better) for an FTS5 query expression."""
        weights = ", ".join(repr(float(b)) for b in boosts)
        return {
            doc_id: -score
            for doc_id, score in self.db.execute(
                f"SELECT rowid, bm25(fts, {weights}) FROM fts WHERE fts MATCH ?", (match,)
            )
        }

    def signatures(self, doc_ids: list[int]) -> dict[int, bytes]:
        """doc id → sign-bit signature of its vector (ids without a vector are left out)."""
        return self._by_ids("v.sig", doc_ids)

    def vectors(self, doc_ids: list[int]) -> dict[int, bytes]:
        """doc id → float16 unit vector."""
        return self._by_ids("v.vec", doc_ids)

    def _by_ids(self, column: str, doc_ids: list[int]) -> dict[int, bytes]:
        found: dict[int, bytes] = {}
        for start in range(0, len(doc_ids), 900):
            chunk = doc_ids[start : start + 900]
            found.update(
                self.db.execute(
                    f"SELECT d.id, {column} FROM docs d JOIN vectors v ON v.embed_hash = "
                    f"d.embed_hash WHERE d.id IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
            )
        return found


def index_path(root: Path) -> Path:
    return root / REPO_CACHE / INDEX_FILE


def open_index(path: Path | None, *, root: Path) -> tuple[Index, str | None]:
    """Open (creating) the index at ``path`` in ``root``'s cache folder (a real folder: a
    committed link there is refused); a file SQLite cannot read or of another format is
    deleted and started afresh. Returns the index and why it was reset (None when it was fine)."""
    reason = None
    if path is not None and os.path.lexists(path) and not path.is_file():
        reason = f"{path} is not a file: a temporary index is used for this run"
        path = None
    if path is not None:
        try:
            path = cache_folder(root) / path.name
        except OSError:
            path = None  # a read-only checkout: index in memory for this run
        else:  # the cache folder is ours: a link among SQLite's files is dropped, never followed
            for suffix in ("", "-journal", "-wal", "-shm"):
                if os.path.islink(f"{path}{suffix}"):
                    os.unlink(f"{path}{suffix}")
    try:
        index = _connect(path)
        version = index.meta("format")
        if version is not None and version != FORMAT:
            reason = f"index format {version} replaced by {FORMAT}"
            index.db.close()
            discard(path)
            index = _connect(path)
    except sqlite3.DatabaseError as exc:
        if not is_corrupt(exc):
            raise
        reason = f"unreadable index ({exc}) rebuilt"
        discard(path)
        index = _connect(path)
    return index, reason


def is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file itself is bad (not a database, malformed, cut short, or
    missing our tables), as opposed to busy, locked or read-only, which a rebuild won't cure."""
    code = getattr(exc, "sqlite_errorcode", None)
    bad = (
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_NOTADB,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FORMAT,
    )
    text = str(exc)
    return (code is not None and code & 0xFF in bad) or any(
        s in text for s in ("no such", "malformed", "not a database")
    )


def _connect(path: Path | None) -> Index:
    db = sqlite3.connect(
        ":memory:" if path is None else os.fspath(path), timeout=30, isolation_level=None
    )  # transactions are explicit (Index.transaction)
    db.execute("PRAGMA busy_timeout = 30000")
    if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
        db.execute("PRAGMA journal_mode = WAL")  # readers do not wait for a refresh
    db.executescript(SCHEMA)
    index = Index(db, path)
    if index.meta("format") is None:
        with index.transaction():
            index.set_meta("format", FORMAT)
    return index


def discard(path: Path | None) -> None:
    """Delete an index file and SQLite's side files (they are ours: the cache folder)."""
    if path is None:
        return
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass
