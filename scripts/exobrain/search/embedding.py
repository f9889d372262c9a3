"""The semantic half of search: a small static embedding model, run on the CPU, fully offline.

The model is WordLlama (the optional ``[semantic]`` extra): a 32,000 × 256 table of token
vectors and the Llama 2 BPE tokenizer, both shipped inside its wheel. A text's vector is the
mean of its tokens' vectors, normalised, so cosine similarity is a dot product.

Two paths, for two costs:

* **Documents** (index build, :func:`embed_documents`) go through WordLlama itself, loaded
  with downloads disabled (nothing is ever fetched). Numpy makes thousands of texts cheap.
* **Queries** (every search, :class:`QueryEncoder`) must not pay for importing numpy and
  loading the model (a second on a busy machine). The tokenizer's vocabulary and merges are
  copied once into the cache's SQLite file, a few rows of which a query reads; the token
  vectors are read straight from the wheel's weights file through ``mmap``. This is the same
  BPE as the model's tokenizer (a test checks the ids and vectors against WordLlama's own).

Texts are normalised the same way on both paths (whitespace collapsed), so the BPE never sees
two spaces in a row and can run word by word.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import mmap
import operator
import os
import sqlite3
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

DIM = 256
_CONFIG = "l2_supercat"
_WEIGHTS = f"weights/{_CONFIG}_{DIM}.safetensors"
_TOKENIZER = f"tokenizers/{_CONFIG}_tokenizer_config.json"
_SPACE = "\u2581"
_PAIR = 1 << 16  # pair code = left * _PAIR + right (ids < 32,000)
INSTALL_HINT = "pip install 'exobrain-skills[semantic]'"


@dataclass(frozen=True)
class Model:
    """Where the installed model's files are, and a name that changes with them."""

    weights: Path
    tokenizer: Path
    version: str

    @property
    def model_id(self) -> str:
        stat = self.weights.stat()
        return f"wordllama-{self.version}/{_CONFIG}_{DIM}/{stat.st_size}"


def find_model() -> Model | None:
    """The installed WordLlama's files, found without importing it; None when not installed."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    weights, tokenizer = folder / _WEIGHTS, folder / _TOKENIZER
    if not weights.is_file() or not tokenizer.is_file():
        return None
    version = "?"
    try:
        text = (folder / "_version.py").read_text(encoding="utf-8")
        version = text.split("version = ", 1)[1].split("\n", 1)[0].strip().strip("'\"")
    except (OSError, IndexError):
        pass
    return Model(weights, tokenizer, version)


def normalise(text: str) -> str:
    """Whitespace collapsed to single spaces: the form both paths embed."""
    return " ".join(text.split())


# --- tokenizer tables in SQLite ---------------------------------------------------------------

TOKENIZER_SCHEMA = """
CREATE TABLE IF NOT EXISTS bpe_vocab (token TEXT PRIMARY KEY, id INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bpe_merges (pair INTEGER PRIMARY KEY, rank INTEGER NOT NULL,
                                       merged INTEGER NOT NULL);
"""


def store_tokenizer(db: sqlite3.Connection, model: Model) -> None:
    """Copy the tokenizer's vocabulary and merge table into ``db``'s tables (created from
    :data:`TOKENIZER_SCHEMA`), replacing any old copy."""
    vocab, merges = _tokenizer_rows(model.tokenizer)
    db.execute("DELETE FROM bpe_vocab")
    db.execute("DELETE FROM bpe_merges")
    db.executemany("INSERT INTO bpe_vocab VALUES (?, ?)", vocab)
    db.executemany("INSERT INTO bpe_merges VALUES (?, ?, ?)", merges)


@functools.lru_cache(maxsize=2)
def _tokenizer_rows(path: Path) -> tuple[list[tuple[str, int]], list[tuple[int, int, int]]]:
    """(token, id) and (pair code, rank, merged id) rows of a tokenizer file (read once per
    process: several indexes may be built in one run)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    bpe = data["model"]
    if bpe.get("type") != "BPE" or not bpe.get("byte_fallback"):
        raise ValueError(f"{path}: not the byte-fallback BPE this reader implements")
    vocab: dict[str, int] = bpe["vocab"]
    merges = []
    for rank, merge in enumerate(bpe["merges"]):
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        merges.append((vocab[left] * _PAIR + vocab[right], rank, vocab[left + right]))
    return sorted(vocab.items()), merges


class Tokenizer:
    """Llama 2 BPE with byte fallback, reading only the table rows a text needs."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._ids: dict[str, int | None] = {}
        self._merges: dict[int, tuple[int, int] | None] = {}

    def encode(self, text: str) -> list[int]:
        words = normalise(text).split(" ")
        pieces = [_SPACE + w for w in words if w]
        self._load_ids({ch for piece in pieces for ch in piece})
        ids: list[int] = []
        for piece in pieces:
            ids.extend(self._bpe(piece))
        return ids

    def _load_ids(self, tokens: Iterable[str]) -> None:
        missing = [t for t in tokens if t not in self._ids]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            found = dict(
                self.db.execute(
                    "SELECT token, id FROM bpe_vocab WHERE token IN "
                    f"({','.join('?' * len(chunk))})",
                    chunk,
                )
            )
            for token in chunk:
                self._ids[token] = found.get(token)

    def _merge_info(self, pairs: Iterable[int]) -> None:
        missing = [p for p in set(pairs) if p not in self._merges]
        if missing:
            found = {
                pair: (rank, merged)
                for pair, rank, merged in self.db.execute(
                    f"SELECT pair, rank, merged FROM bpe_merges WHERE pair IN "
                    f"({','.join('?' * len(missing))})",
                    missing,
                )
            }
            for pair in missing:
                self._merges[pair] = found.get(pair)

    def _symbols(self, piece: str) -> list[int]:
        symbols: list[int] = []
        for ch in piece:
            known = self._ids.get(ch)
            if known is not None:
                symbols.append(known)
                continue
            byte_tokens = [f"<0x{b:02X}>" for b in ch.encode("utf-8")]
            self._load_ids(byte_tokens)
            symbols.extend(self._ids[t] or 0 for t in byte_tokens)
        return symbols

    def _bpe(self, piece: str) -> list[int]:
        """Merge the lowest-ranked adjacent pair (leftmost on ties) until none applies: the
        order the reference implementation's priority queue produces."""
        symbols = self._symbols(piece)
        while len(symbols) > 1:
            pairs = [a * _PAIR + b for a, b in itertools.pairwise(symbols)]
            self._merge_info(pairs)
            best = None
            for position, pair in enumerate(pairs):
                info = self._merges[pair]
                if info is not None and (best is None or info[0] < best[0]):
                    best = (info[0], position, info[1])
            if best is None:
                break
            _, position, merged = best
            symbols[position : position + 2] = [merged]
        return symbols


# --- vectors ----------------------------------------------------------------------------------


class TokenVectors:
    """The model's token table, memory-mapped from the weights file (float16 rows)."""

    def __init__(self, weights: Path) -> None:
        with open(weights, "rb") as handle:
            header_size = struct.unpack("<Q", handle.read(8))[0]
            header = json.loads(handle.read(header_size))
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        tensor = header["embedding.weight"]
        if tensor["dtype"] != "F16" or tensor["shape"][1] != DIM:
            raise ValueError(f"{weights}: unexpected tensor {tensor['dtype']} {tensor['shape']}")
        self.rows = tensor["shape"][0]
        self._offset = 8 + header_size + tensor["data_offsets"][0]
        self._row = struct.Struct(f"<{DIM}e")

    def mean(self, ids: Sequence[int]) -> list[float] | None:
        """The normalised mean of the rows of ``ids`` (None for no tokens or a zero vector)."""
        if not ids:
            return None
        total = [0.0] * DIM
        for token in ids:
            row = self._row.unpack_from(
                self._map, self._offset + min(token, self.rows - 1) * DIM * 2
            )
            total = [a + b for a, b in zip(total, row, strict=False)]
        return unit(total)


def unit(vector: Sequence[float]) -> list[float] | None:
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector] if norm > 0 else None


_VEC = struct.Struct(f"<{DIM}e")


def unpack_vector(blob: bytes) -> tuple[float, ...]:
    return _VEC.unpack(blob)


def signature(vector: Sequence[float]) -> int:
    """The sign bits of a vector as one integer, first component most significant (numpy's
    ``packbits`` order): Hamming distance between signatures is a cheap first cut before exact
    cosines (the model is trained to survive binarisation)."""
    bits = 0
    for x in vector:
        bits = (bits << 1) | (x > 0)
    return bits


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(map(operator.mul, a, b))


class QueryEncoder:
    """Query text → unit vector, with nothing heavier than the standard library."""

    def __init__(self, db: sqlite3.Connection, model: Model) -> None:
        self.tokenizer = Tokenizer(db)
        self.vectors = TokenVectors(model.weights)

    def encode(self, text: str) -> list[float] | None:
        return self.vectors.mean(self.tokenizer.encode(text))


def embed_documents(texts: list[str]) -> list[tuple[bytes, bytes]]:
    """(float16 unit vector, sign-bit signature) of many texts, through WordLlama itself.

    Used only when the index is built or updated, so numpy and the model load stay out of
    queries. Downloads are disabled: the weights and tokenizer come from the wheel.
    """
    if not texts:
        return []
    import numpy

    matrix = _wordllama().embed([normalise(t) or "-" for t in texts], norm=True, return_np=True)
    halves = numpy.nan_to_num(matrix).astype("<f2")
    signs = numpy.packbits(matrix > 0, axis=1)
    return [(halves[i].tobytes(), signs[i].tobytes()) for i in range(len(texts))]


@functools.lru_cache(maxsize=1)
def _wordllama():
    """WordLlama loaded from its own wheel, offline (once per process)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import logging

    import wordllama
    from wordllama import WordLlama

    logging.getLogger("wordllama").setLevel(logging.WARNING)
    return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
