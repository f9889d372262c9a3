"""The search index: incremental refresh keyed by content hash, corrupt files rebuilt, any
query text handled safely."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from exobrain.search import embedding
from exobrain.search.corpus import open_view
from exobrain.search.engine import Searcher, fts_query, search
from exobrain.search.indexfiles import index_path
from exobrain.workspace import open_workspace
from tests.support.helpers import exobrain, skill_md

SKILLS = {
    "tidy-imports": "Sort and group Python import statements.",
    "flaky-tests": "Find and fix flaky tests that fail at random.",
    "release-notes": "Write release notes from merged pull requests.",
}


def repo(tmp_path):
    entries = [{"name": n, "owner": "team", "tier": "optional", "force": True} for n in SKILLS]
    return exobrain(
        tmp_path / "repo",
        {"global": entries},
        skills={f"global/{n}": skill_md(n, d) for n, d in SKILLS.items()},
    )


def refresh(root, semantic=False):
    ws = open_workspace(root)
    return Searcher(ws, semantic=semantic).refresh(open_view(ws).skills())


def names(result):
    return [h.artifact.name for h in result.hits]


def test_first_refresh_indexes_everything_then_nothing(tmp_path):
    root = repo(tmp_path)
    first = refresh(root)
    assert sorted(first.reindexed) == sorted(f"skill:{n}@global" for n in SKILLS)
    again = refresh(root)
    assert again.checked == 3 and again.rehashed == [] and again.reindexed == []


def test_editing_one_skill_reindexes_and_embeds_only_that_skill(tmp_path):
    root = repo(tmp_path)
    assert search(open_workspace(root), "flaky").update.embedded == {"minilm": 3, "wordllama": 3}
    path = root / "skills" / "flaky-tests" / "SKILL.md"
    path.write_text(skill_md("flaky-tests", "Quarantine nondeterministic tests."), "utf-8")
    result = search(open_workspace(root), "quarantine nondeterministic")
    assert result.update.rehashed == ["skill:flaky-tests@global"]
    assert result.update.reindexed == ["skill:flaky-tests@global"]
    assert result.update.embedded == {"minilm": 1, "wordllama": 1}
    assert names(result)[0] == "flaky-tests" and result.encoders == ["minilm", "wordllama"]


def test_touch_without_change_rehashes_but_does_not_reindex(tmp_path):
    root = repo(tmp_path)
    refresh(root)
    path = root / "skills" / "tidy-imports" / "SKILL.md"
    path.write_bytes(path.read_bytes())  # new mtime, same content
    update = refresh(root)
    assert update.rehashed == ["skill:tidy-imports@global"] and update.reindexed == []


def test_a_new_file_in_the_folder_changes_the_content_hash(tmp_path):
    root = repo(tmp_path)
    refresh(root)
    (root / "skills" / "release-notes" / "helper.py").write_text("print(1)\n", "utf-8")
    update = refresh(root)
    assert update.reindexed == ["skill:release-notes@global"]


def test_deleted_skill_leaves_the_index_and_prune_removes_undeclared(tmp_path):
    root = repo(tmp_path)
    refresh(root)
    (root / "skills" / "tidy-imports" / "SKILL.md").unlink()
    assert refresh(root).removed == ["skill:tidy-imports@global"]
    ws = open_workspace(root)
    searcher = Searcher(ws, semantic=False)
    kept = [a for a in open_view(ws).skills() if a.name == "flaky-tests"]
    assert searcher.refresh(kept, prune=True).removed == ["skill:release-notes@global"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "old-format"])
def test_corrupt_index_is_rebuilt_not_a_crash(tmp_path, damage):
    root = repo(tmp_path)
    refresh(root)
    path = index_path(root)
    if damage == "garbage":
        path.write_bytes(b"this is not a database\n" * 200)
    elif damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    else:
        db = sqlite3.connect(path)
        db.execute("UPDATE meta SET value = '0' WHERE key = 'format'")
        db.commit()
        db.close()
    for suffix in ("-wal", "-shm"):
        (path.parent / (path.name + suffix)).unlink(missing_ok=True)
    result = search(open_workspace(root), "flaky tests", semantic=False)
    assert names(result)[0] == "flaky-tests"
    assert any("rebuilt" in n or "replaced" in n for n in result.notes)
    assert refresh(root).reindexed == []  # the rebuilt index is whole again


@pytest.mark.parametrize(
    "text",
    [
        '"unbalanced',
        "a AND OR NOT",
        "NEAR(x y)",
        "name:flaky",
        "flaky*",
        "^tests",
        "-minus",
        "(paren",
        "'; DROP TABLE docs;--",
        "ünïcödé tests",
        "x" * 300,
    ],
)
def test_any_text_is_a_safe_query(tmp_path, text):
    root = repo(tmp_path)
    result = CliRunner().invoke(main, ["search", "--repo", str(root), "--lexical", "--", text])
    assert result.exit_code in (0, 1), result.output  # 1: nothing matched well
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text", ["", "   ", "!!! ??? ---", '""'])
def test_a_query_without_words_is_a_clear_usage_error(tmp_path, text):
    root = repo(tmp_path)
    result = CliRunner().invoke(main, ["search", "--repo", str(root), text])
    assert result.exit_code == 2
    assert "no words to search for" in result.output


def test_fts_query_quotes_every_word_and_drops_stopwords():
    assert fts_query('how do I "dock" a ligand?') == '"dock" OR "ligand"'
    assert fts_query("the a an") == '"the" OR "a" OR "an"'


def test_without_the_extra_search_is_lexical_and_says_so_once(tmp_path, monkeypatch):
    root = repo(tmp_path)
    monkeypatch.setattr(embedding, "find_models", lambda roles=embedding.ROLES: {})
    result = CliRunner().invoke(main, ["search", "--repo", str(root), "flaky"])
    assert result.exit_code == 0
    assert result.stderr.count("semantic search is off") == 1
    assert "pip install" in result.stderr
    data = CliRunner().invoke(main, ["search", "--repo", str(root), "--json", "flaky"])
    assert '"mode": "lexical"' in data.stdout


def test_vectors_are_keyed_by_text_and_reused(tmp_path):
    root = repo(tmp_path)
    search(open_workspace(root), "flaky")
    db = sqlite3.connect(index_path(root).parent / "embeddings.sqlite")
    assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 6
    db.close()
    # the same texts in a second skill need no new vector; a body-only edit neither
    text = (root / "skills" / "tidy-imports" / "SKILL.md").read_text("utf-8")
    copy = root / "skills" / "tidy-imports-copy"
    copy.mkdir()
    (copy / "SKILL.md").write_text(text.replace("tidy-imports", "tidy-imports-copy"), "utf-8")
    path = root / "skills" / "release-notes" / "SKILL.md"
    path.write_text(path.read_text("utf-8") + "\nMore instructions, same description.\n", "utf-8")
    ws = open_workspace(root)
    artifact = open_view(ws).skills()[0]
    from dataclasses import replace

    twin = replace(artifact, ref="skill:tidy-imports-copy@global", file=str(copy / "SKILL.md"))
    searcher = Searcher(ws)
    searcher.refresh([twin, *open_view(ws).skills()])
    ids = list(searcher.index.ids([twin.ref, "skill:release-notes@global"]).values())
    model = searcher.encoders.models["minilm"]
    assert searcher.encoders.vectors.missing(model, ids) == {}
    # the copy's WordLlama text starts with its own name: that one is new
    assert list(
        searcher.encoders.vectors.missing(searcher.encoders.models["wordllama"], ids).values()
    ) == ["tidy imports copy: Sort and group Python import statements."]


def test_lexical_search_and_the_substrate_verbs_load_no_model(tmp_path):
    """``--lexical``, ``list`` and ``get`` never import numpy, tokenizers or onnxruntime (a
    fresh interpreter checks), so they stay as quick as before the encoders came."""
    import subprocess
    import sys

    root = repo(tmp_path)
    probe = (
        "import sys\nfrom pathlib import Path\n"
        "from exobrain.search.engine import search\n"
        "from exobrain.search.substrate import Substrate\n"
        "from exobrain.workspace import open_workspace\n"
        f"ws = open_workspace(Path({str(root)!r}))\n"
        "assert search(ws, 'flaky', semantic=False).hits\n"
        "assert Substrate(ws).list()\n"
        "print(sorted(m for m in sys.modules\n"
        "             if m.split('.')[0] in ('numpy', 'tokenizers', 'onnxruntime')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_ids_of_a_large_pool_follow_the_rows_generation(tmp_path, monkeypatch):
    from exobrain.search import index as index_module

    monkeypatch.setattr(index_module, "SCAN_IDS_FROM", 1)  # every pool is "large"
    root = repo(tmp_path)
    ws = open_workspace(root)
    searcher = Searcher(ws, semantic=False)
    skills = open_view(ws).skills()
    searcher.refresh(skills)
    refs = [a.ref for a in skills]
    first = searcher.index.ids(refs)
    assert sorted(first) == sorted(refs) and searcher.index.ids(refs) == first
    (root / "skills/flaky-tests/SKILL.md").unlink()
    searcher.forget(refs)
    searcher.refresh(skills)  # the row is deleted: a new generation
    assert sorted(searcher.index.ids(refs)) == sorted(r for r in refs if "flaky" not in r)
