"""The search index's two files in ``.exobrain-cache/``: where they are, opening, starting afresh.

Both are caches (gitignored; delete them any time):

* ``search.sqlite``: the rows of :mod:`exobrain.search.index` (``docs``, ``fts``, ``views``).
  Cheap to rebuild: about 2 s for 8,000 skills.
* ``embeddings.sqlite``, attached as ``emb``: the vectors, keyed by model and text hash
  (:mod:`exobrain.search.vectors`). Expensive to rebuild (MiniLM: minutes for thousands of skills),
  so it is a file of its own and survives a rebuild of the other.

A file that is missing, from an older format, or corrupt (SQLite refuses it) is deleted and
built again — a broken cache is never an error. Both live in the repository's cache folder,
which must be a real folder (:func:`exobrain.paths.cache_folder`); a link among their files is
dropped, and a cache file that is not a file (a folder, a FIFO) gives a temporary index for the
run.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from exobrain.caches import EMBEDDINGS, REPO_CACHE, SEARCH
from exobrain.paths import cache_folder
from exobrain.search.index import COLUMNS, Index

FORMAT = str(SEARCH.version)  # of SCHEMA: a file of another format is replaced
INDEX_FILE = SEARCH.folder
EMBEDDINGS_FILE = EMBEDDINGS.folder
EMBEDDINGS_FORMAT = str(EMBEDDINGS.version)
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY, ref TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
    stat TEXT NOT NULL, hash TEXT NOT NULL, description TEXT NOT NULL, meta TEXT NOT NULL,
    seq INTEGER NOT NULL, problem TEXT);
CREATE INDEX IF NOT EXISTS docs_problem ON docs (ref) WHERE problem IS NOT NULL;
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5({", ".join(COLUMNS)},
    tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS views (
    doc INTEGER NOT NULL, role TEXT NOT NULL, pos INTEGER NOT NULL, key BLOB NOT NULL,
    text TEXT NOT NULL, PRIMARY KEY (doc, role, pos)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS views_key ON views (key);
"""
EMBEDDINGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS emb.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS emb.vectors (
    model TEXT NOT NULL, key BLOB NOT NULL, vec BLOB NOT NULL,
    PRIMARY KEY (model, key)) WITHOUT ROWID;
"""


def index_path(root: Path) -> Path:
    return root / REPO_CACHE / INDEX_FILE


def open_index(path: Path | None, *, root: Path) -> tuple[Index, str | None]:
    """Open (creating) the index at ``path`` and its embeddings file in ``root``'s cache folder
    (a real folder: a committed link there is refused); a file SQLite cannot read or of
    another format is deleted and started afresh. Returns the index and why a file was reset
    (None when both were fine)."""
    reason = None
    odd = [f for f in _files(path) if os.path.lexists(f) and not f.is_file()] if path else []
    if odd:
        reason = f"{odd[0]} is not a file: a temporary index is used for this run"
        path = None
    if path is not None:
        try:
            path = cache_folder(root) / path.name
        except OSError:
            path = None  # a read-only checkout: index in memory for this run
        else:  # the cache folder is ours: a link among SQLite's files is dropped, never followed
            for ours in _files(path):
                for suffix in ("", "-journal", "-wal", "-shm"):
                    if os.path.islink(f"{ours}{suffix}"):
                        os.unlink(f"{ours}{suffix}")
    try:
        index = _connect(path)
        for schema, key, wanted, file in (
            ("main", "format", FORMAT, INDEX_FILE),
            ("emb", "format", EMBEDDINGS_FORMAT, EMBEDDINGS_FILE),
        ):
            version = index.meta(key, schema)
            if version is not None and version != wanted:
                reason = f"{file} format {version} replaced by {wanted}"
                index.db.close()
                discard(path, (file,))
                index = _connect(path)
    except sqlite3.DatabaseError as exc:
        if not is_corrupt(exc):
            raise
        reason = f"unreadable index ({exc}) rebuilt"
        discard(path)
        index = _connect(path)
    return index, reason


def _files(path: Path) -> tuple[Path, Path]:
    """The index file at ``path`` and the embeddings file beside it."""
    return path, path.parent / EMBEDDINGS_FILE


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
    embeddings = ":memory:" if path is None else os.fspath(path.parent / EMBEDDINGS_FILE)
    db.execute("ATTACH DATABASE ? AS emb", (embeddings,))
    for schema in ("main", "emb"):
        if db.execute(f"SELECT count(*) FROM {schema}.sqlite_master").fetchone()[0] == 0:
            db.execute(f"PRAGMA {schema}.journal_mode = WAL")  # readers never wait for writers
        # a cache: a power cut may cost the last commits, never the file (WAL), and no commit
        # waits for the disk
        db.execute(f"PRAGMA {schema}.synchronous = NORMAL")
    db.executescript(SCHEMA + EMBEDDINGS_SCHEMA)
    index = Index(db, path)
    fresh = [s for s in ("main", "emb") if index.meta("format", s) is None]
    if fresh:
        with index.transaction():
            for schema in fresh:
                index.set_meta("format", FORMAT if schema == "main" else EMBEDDINGS_FORMAT, schema)
            if "main" in fresh:  # names what is derived from this file, not from an older one
                index.new_generation("instance")
    return index


def discard(path: Path | None, files: tuple[str, ...] = (INDEX_FILE, EMBEDDINGS_FILE)) -> None:
    """Delete cache ``files`` in the index's folder and SQLite's side files (they are ours)."""
    if path is None:
        return
    for name in files:
        for suffix in ("", "-journal", "-wal", "-shm"):
            try:
                os.unlink(f"{path.parent / name}{suffix}")
            except FileNotFoundError:
                pass
