"""The query encoder is the model's own tokenizer and pooling, without loading the model."""

from __future__ import annotations

import importlib.util
import sqlite3

import pytest

from exobrain.search import embedding
from exobrain.search.index import SCHEMA
from tests.support.search_corpus import load_fixture

TRICKY = [
    "dock a ligand into a pocket",
    "Hello, World! naïve café — 日本語 テスト 🚀",
    "  spaces\tand\nnewlines  ",
    "x" * 40,
    "snake_case CamelCase kebab-case 3.14159 $HOME",
    "Ünïcödé ß ﬁ 𝔘 ÆØÅ",
    "",
    "a",
]


@pytest.fixture(scope="module")
def model():
    found = embedding.find_model()
    assert found is not None, "the [semantic] extra (wordllama) must be installed"
    return found


@pytest.fixture(scope="module")
def db(model):
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    embedding.store_tokenizer(conn, model)
    return conn


def texts() -> list[str]:
    data = load_fixture()
    found = [q["q"] for q in data["queries"]] + TRICKY
    for skill in data["skills"]:
        found += [skill["description"], skill["body"], *skill.get("triggers", [])]
    return found


def test_token_ids_match_the_reference_tokenizer(model, db):
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(model.tokenizer))
    ours = embedding.Tokenizer(db)
    for text in texts():
        normal = embedding.normalise(text)
        assert ours.encode(text) == reference.encode(normal, add_special_tokens=False).ids, text


def test_query_vectors_match_wordllama(model, db):
    encoder = embedding.QueryEncoder(db, model)
    sample = [t for t in texts() if t.strip()][:60]
    for text, (vec, sig) in zip(sample, embedding.embed_documents(sample), strict=False):
        mine = encoder.encode(text)
        assert embedding.dot(mine, embedding.unpack_vector(vec)) > 0.999, text
        differ = (embedding.signature(mine) ^ int.from_bytes(sig, "big")).bit_count()
        assert differ <= 2, text  # only components within float16 noise of zero may flip


def test_empty_text_has_no_vector(model, db):
    assert embedding.QueryEncoder(db, model).encode("   ") is None


def test_no_model_when_wordllama_is_not_installed(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "wordllama" else real(name, *a),
    )
    assert embedding.find_model() is None


def test_queries_do_not_import_numpy_or_the_model(tmp_path):
    """Once the index is built, a hybrid query runs on the standard library alone (checked in
    a fresh interpreter, after another one built the index)."""
    import subprocess
    import sys

    from tests.support.search_corpus import build_corpus

    root = build_corpus(tmp_path / "corpus")
    prelude = (
        "import sys\nfrom pathlib import Path\n"
        "from exobrain.workspace import open_workspace\n"
        "from exobrain.search.engine import search\n"
        f"ws = open_workspace(Path({str(root)!r}))\n"
    )
    build = subprocess.run(
        [sys.executable, "-c", prelude + "search(ws, 'warm up')"], capture_output=True, text=True
    )
    assert build.returncode == 0, build.stderr
    query = prelude + (
        "r = search(ws, 'fit a drug into an enzyme pocket')\n"
        "assert r.mode == 'hybrid' and r.update.reindexed == []\n"
        "print(sorted(m for m in sys.modules\n"
        "             if m.split('.')[0] in ('numpy', 'wordllama', 'tokenizers')))"
    )
    out = subprocess.run([sys.executable, "-c", query], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
