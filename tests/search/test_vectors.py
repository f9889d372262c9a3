"""The vector cache: texts embedded once, matrices patched after edits, a first search that
does not wait for a long embedding, the background build and ``exobrain index``."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from exobrain.paths import packaged
from exobrain.search import background, embedding, encoders
from exobrain.search.build import build_index
from exobrain.search.engine import Searcher, search
from exobrain.search.indexfiles import index_path
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, exobrain, skill_md

SKILLS = {
    "tidy-imports": "Sort and group Python import statements.",
    "flaky-tests": "Find and fix flaky tests that fail at random.",
    "release-notes": "Write release notes from merged pull requests.",
}
ALL = ["minilm", "wordllama"]


def repo(tmp_path, skills=SKILLS):
    entries = [{"name": n, "owner": "team", "tier": "optional", "force": True} for n in skills]
    return exobrain(
        tmp_path / "repo",
        {"global": entries},
        skills={f"global/{n}": skill_md(n, d) for n, d in skills.items()},
    )


def edit(root, name, text):
    path = root / "skills" / name / "SKILL.md"
    path.write_text(text(path.read_text("utf-8")), "utf-8")


def test_only_texts_that_changed_are_embedded(tmp_path):
    root = repo(tmp_path)
    assert search(open_workspace(root), "flaky").update.embedded == {"minilm": 3, "wordllama": 3}
    assert search(open_workspace(root), "flaky").update.embedded == {}
    edit(root, "flaky-tests", lambda t: t + "\nA body line no encoder sees.\n")
    again = search(open_workspace(root), "flaky")
    assert again.update.reindexed == ["skill:flaky-tests@global"] and again.update.embedded == {}
    edit(root, "flaky-tests", lambda t: t.replace("Find and fix", "Quarantine"))
    changed = search(open_workspace(root), "quarantine")
    assert changed.update.embedded == {"minilm": 1, "wordllama": 1}
    assert changed.hits[0].artifact.name == "flaky-tests" and changed.encoders == ALL


def test_a_patched_matrix_equals_one_made_from_scratch(tmp_path):
    import numpy

    root = repo(tmp_path)
    build_index(open_workspace(root))
    edit(root, "release-notes", lambda t: t.replace("Write", "Draft"))
    (root / "skills" / "tidy-imports" / "SKILL.md").unlink()
    build_tree(root, {"skills/new-one/SKILL.md": skill_md("new-one", "A brand new skill.")})
    build_index(open_workspace(root))
    searcher = Searcher(open_workspace(root))
    folder = index_path(root).parent / "vectors"
    for model in searcher.encoders.models.values():
        names = [p.name for p in folder.iterdir() if p.name.startswith(model.role)]
        assert len(names) == 2  # the current matrix and its ids; older ones are gone
        patched = searcher.encoders.vectors.aligned(model, make=False)
        ids, matrix = searcher.encoders.vectors._rows(model, None)
        assert numpy.array_equal(patched.ids, ids) and numpy.array_equal(patched.matrix, matrix)
        assert len(set(ids.tolist())) == 3
    # a removal prunes the vectors nothing refers to any more (the removed skill's, the old
    # description's): one per encoder and skill is left
    vectors = searcher.index.db.execute("SELECT count(*) FROM emb.vectors").fetchone()[0]
    assert vectors == 6


def test_a_first_search_does_not_wait_for_a_long_embedding(tmp_path, monkeypatch):
    root = repo(tmp_path)
    monkeypatch.setattr(encoders, "INLINE_SECONDS", 0.0)
    result = search(open_workspace(root), "flaky tests")
    assert result.mode == "lexical" and result.encoders == []
    assert result.pending == {"minilm": 3, "wordllama": 3}
    assert result.hits[0].artifact.name == "flaky-tests"
    assert any("run exobrain index to embed them" in n for n in result.notes)
    out = CliRunner().invoke(main, ["search", "flaky", "--json", "--repo", str(root)])
    assert json.loads(out.stdout)["pending"] == {"minilm": 3, "wordllama": 3}
    # exobrain index embeds everything, with a progress line per tenth on stderr
    done = CliRunner().invoke(main, ["index", "--repo", str(root)])
    assert done.exit_code == 0, done.output
    assert "embedding (MiniLM): 3/3" in done.stderr and "wordllama 3, minilm 3" in done.stdout
    ready = search(open_workspace(root), "flaky tests")
    assert ready.mode == "hybrid" and ready.encoders == ALL and ready.pending == {}
    again = CliRunner().invoke(main, ["index", "--json", "--repo", str(root)])
    report = json.loads(again.stdout)
    assert report["checked"] == 3 and report["reindexed"] == 0 and report["embedded"] == {}


def test_the_background_build_embeds_what_a_search_left(tmp_path, monkeypatch):
    root = repo(tmp_path)
    monkeypatch.setattr(encoders, "INLINE_SECONDS", 0.0)
    monkeypatch.setenv(background.ENV, "1")
    first = search(open_workspace(root), "release notes")
    assert first.encoders == [] and any("in the background" in n for n in first.notes)
    assert background.started[-1].wait(timeout=120) == 0
    log = (root / ".exobrain-cache" / background.LOG_FILE).read_text("utf-8")
    assert not background.running(root) and log == "", log
    later = search(open_workspace(root), "release notes")
    assert later.encoders == ALL and later.update.embedded == {}


def test_an_interrupted_embedding_keeps_what_it_did(tmp_path, monkeypatch):
    from exobrain.search import vectors

    root = repo(tmp_path)
    searcher = Searcher(open_workspace(root))
    searcher.refresh(searcher.view().skills())
    model = searcher.encoders.models["minilm"]
    real = embedding.load(model)

    class Failing:
        model = real.model
        dim = real.dim
        calls = 0

        def encode(self, texts):
            Failing.calls += 1
            if Failing.calls == 2:
                raise KeyboardInterrupt
            return real.encode(texts)

    monkeypatch.setattr(vectors, "BATCH", 1)
    texts = searcher.encoders.vectors.missing(model, None)
    with pytest.raises(KeyboardInterrupt):
        searcher.encoders.vectors.embed(Failing(), texts, None)
    assert len(searcher.encoders.vectors.missing(model, None)) == len(texts) - 1


def test_an_encoder_installed_later_is_used_without_rereading_files(tmp_path, monkeypatch):
    root = repo(tmp_path)
    monkeypatch.setattr(embedding, "find_models", lambda roles=embedding.ROLES: {})
    assert search(open_workspace(root), "flaky").mode == "lexical"
    monkeypatch.undo()
    later = search(open_workspace(root), "flaky")
    assert later.update.reindexed == [] and later.encoders == ALL


def test_a_corrupt_embeddings_file_is_rebuilt(tmp_path):
    root = repo(tmp_path)
    build_index(open_workspace(root))
    cache = index_path(root).parent
    for suffix in ("-wal", "-shm"):
        (cache / f"embeddings.sqlite{suffix}").unlink(missing_ok=True)
    (cache / "embeddings.sqlite").write_bytes(b"not a database at all\n" * 100)
    result = search(open_workspace(root), "flaky tests")
    assert result.hits[0].artifact.name == "flaky-tests" and result.encoders == ALL
    assert any("rebuilt" in n for n in result.notes)


def test_invisible_skills_never_take_a_place_among_the_lexical_matches(tmp_path):
    """Other people's skills are in the cache (exobrain index reads the whole repository) but
    must not take one of the ``lexical_limit`` places a visible match needs."""
    entries = {
        "global": [{"name": "csv-a", "owner": "team", "tier": "optional", "force": True}],
        "people/bob": [{"name": f"csv-{i}", "owner": "bob", "tier": "optional"} for i in range(5)],
    }
    skills = {"global/csv-a": skill_md("csv-a", "Clean a file.")}
    skills |= {f"people/bob/csv-{i}": skill_md(f"csv-{i}", "csv csv csv tidy") for i in range(5)}
    root = exobrain(tmp_path / "repo", entries, scopes=["people/bob"], skills=skills)
    weights = json.loads(packaged("signal-weights.json").read_text("utf-8"))
    weights["search"]["lexical_limit"] = 1
    build_tree(root, {"signals/weights.json": weights})
    build_index(open_workspace(root))
    hits = search(open_workspace(root), "csv", semantic=False).hits
    assert [h.artifact.name for h in hits] == ["csv-a"] and hits[0].components.bm25 > 0


def test_the_index_file_format_and_the_vectors_survive_each_other(tmp_path):
    root = repo(tmp_path)
    build_index(open_workspace(root))
    db = sqlite3.connect(index_path(root))
    db.execute("UPDATE meta SET value = 'old' WHERE key = 'format'")
    db.commit()
    db.close()
    result = search(open_workspace(root), "flaky")
    assert any("search.sqlite format old replaced" in n for n in result.notes)
    assert result.update.embedded == {} and result.encoders == ALL  # no vector was lost


def test_cosines_of_part_of_the_matrix_equal_those_of_all_of_it():
    import numpy

    from exobrain.search.vectors import _aligned

    rng = numpy.random.default_rng(3)
    ids = numpy.array([2, 2, 5, 7, 7, 7, 9], dtype=numpy.int64)  # docs with 1 to 3 views
    matrix = rng.standard_normal((len(ids), 4)).astype(numpy.float32)
    aligned = _aligned(ids, matrix)
    query = rng.standard_normal(4).astype(numpy.float32)
    best = {d: max(float(matrix[i] @ query) for i in numpy.flatnonzero(ids == d)) for d in ids}
    everything = aligned.cosines(query, [9, 2, 7, 5])
    assert everything == pytest.approx([best[9], best[2], best[7], best[5]])
    assert aligned.cosines(query, [7, 2]) == pytest.approx([best[7], best[2]])
    assert aligned.cosines(query, [7, 3]) is None  # doc 3 has no vector: cannot vote
    assert aligned.covers([3, 5, 4]) == [3, 4]


def test_the_cache_files_are_never_written_through_a_link(tmp_path, monkeypatch):
    """A link among the cache's files (the embeddings, the build's log) is replaced by a file
    of ours; whatever it pointed at is left as it was."""
    root = repo(tmp_path)
    theirs = build_tree(tmp_path / "outside", {"notes.txt": "someone else's notes\n"})
    cache = root / ".exobrain-cache"
    cache.mkdir()
    for name in ("embeddings.sqlite", background.LOG_FILE):
        (cache / name).symlink_to(theirs / "notes.txt")
    monkeypatch.setattr(encoders, "INLINE_SECONDS", 0.0)
    monkeypatch.setenv(background.ENV, "1")
    search(open_workspace(root), "release notes")
    assert background.started[-1].wait(timeout=120) == 0
    assert search(open_workspace(root), "release notes").encoders == ALL
    assert (theirs / "notes.txt").read_text("utf-8") == "someone else's notes\n"
    for name in ("embeddings.sqlite", background.LOG_FILE):
        assert (cache / name).is_file() and not (cache / name).is_symlink(), name


def test_a_linked_matrix_folder_is_refused(tmp_path):
    root = repo(tmp_path)
    elsewhere = build_tree(tmp_path / "elsewhere", {"keep.txt": "keep\n"})
    (root / ".exobrain-cache").mkdir()
    (root / ".exobrain-cache" / "vectors").symlink_to(elsewhere)
    result = CliRunner().invoke(main, ["search", "flaky", "--repo", str(root)])
    assert result.exit_code == 2, result.output
    assert ".exobrain-cache/vectors" in result.stderr and "link" in result.stderr
    assert [p.name for p in elsewhere.iterdir()] == ["keep.txt"]


def test_an_embeddings_file_that_is_not_a_file_gives_a_temporary_index(tmp_path, monkeypatch):
    root = repo(tmp_path)
    (root / ".exobrain-cache" / "embeddings.sqlite").mkdir(parents=True)
    monkeypatch.setattr(encoders, "INLINE_SECONDS", 0.0)
    monkeypatch.setenv(background.ENV, "1")
    builds = len(background.started)
    result = search(open_workspace(root), "flaky tests")
    assert result.hits[0].artifact.name == "flaky-tests"
    assert any("embeddings.sqlite is not a file: a temporary index" in n for n in result.notes)
    # nothing would keep what a background build embeds, so none is started
    assert any("temporary for this run" in n for n in result.notes)
    assert len(background.started) == builds and not index_path(root).exists()


def test_exobrain_index_warns_about_a_skill_it_could_not_read(tmp_path):
    root = repo(tmp_path)
    edit(root, "flaky-tests", lambda t: t.replace("---\n", "---\nname: [\n", 1))
    done = CliRunner().invoke(main, ["index", "--lexical", "--repo", str(root)])
    assert done.exit_code == 0, done.output
    assert "skill-unreadable" in done.stderr and "skills/flaky-tests/SKILL.md" in done.stderr
