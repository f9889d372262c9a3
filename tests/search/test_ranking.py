"""Ranking: lifecycle and quality factors, deterministic ties, the weights file."""

from __future__ import annotations

import json

import pytest

from exobrain.errors import InputFileError
from exobrain.search.engine import Filters, search
from exobrain.search.ranking import fuse, load_search_weights, relevance, score, zscores
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, exobrain, skill_md

TEXT = "Tidy a CSV file, trim cells, fix dates and drop duplicate rows."


def twins(tmp_path, lifecycles=("active", "active")):
    """Two skills whose text differs only by the order of the words in their names, so every
    signal is equal: BM25 sees the same words, MiniLM does not see the name, and WordLlama's
    mean of token vectors ignores word order."""
    names = ("csv-tidy", "tidy-csv")
    entries = [
        {"name": n, "owner": "ops", "tier": "optional", "force": True, "lifecycle": state}
        for n, state in zip(names, lifecycles, strict=True)
    ]
    return exobrain(
        tmp_path / "repo",
        {"global": entries},
        skills={f"global/{n}": skill_md(n, TEXT) for n in names},
    )


def ranked(root, query="tidy csv duplicate rows", **kwargs):
    result = search(open_workspace(root), query, **kwargs)
    return [(h.artifact.name, h.components) for h in result.hits]


@pytest.mark.parametrize("semantic", [False, True])
def test_equal_relevance_ties_break_by_reference(tmp_path, semantic):
    rows = ranked(twins(tmp_path), semantic=semantic)
    assert [n for n, _ in rows] == ["csv-tidy", "tidy-csv"]
    assert rows[0][1].relevance == pytest.approx(rows[1][1].relevance)
    assert rows[0][1].score == pytest.approx(rows[1][1].score)


@pytest.mark.parametrize("semantic", [False, True])
def test_deprecated_ranks_below_an_otherwise_identical_active_skill(tmp_path, semantic):
    # csv-tidy would win the tie; deprecating it must push it below tidy-csv
    rows = ranked(twins(tmp_path, ("deprecated", "active")), semantic=semantic)
    assert [n for n, _ in rows] == ["tidy-csv", "csv-tidy"]
    assert rows[1][1].lifecycle < rows[0][1].lifecycle
    assert rows[0][1].relevance == pytest.approx(rows[1][1].relevance)


def test_archived_is_out_unless_asked_for(tmp_path):
    root = twins(tmp_path, ("archived", "active"))
    assert [n for n, _ in ranked(root, semantic=False)] == ["tidy-csv"]
    asked = ranked(root, semantic=False, filters=Filters(lifecycles=("archived",)))
    assert [n for n, _ in asked] == ["csv-tidy"]


@pytest.mark.parametrize("semantic", [False, True])
def test_quality_changes_the_order_of_equally_relevant_skills(tmp_path, semantic):
    root = twins(tmp_path)
    scores = {"skill:csv-tidy@global": 0.1, "skill:tidy-csv@global": 0.9}
    rows = ranked(root, semantic=semantic, quality=lambda refs: scores)
    assert [n for n, _ in rows] == ["tidy-csv", "csv-tidy"]
    assert rows[0][1].quality == 0.9 and rows[1][1].quality == 0.1


def test_quality_does_not_beat_much_better_relevance(tmp_path):
    root = exobrain(
        tmp_path / "repo",
        {
            "global": [
                {"name": n, "owner": "ops", "tier": "optional", "force": True}
                for n in ("csv-tidy", "git-bisect")
            ]
        },
        skills={
            "global/csv-tidy": skill_md("csv-tidy", TEXT),
            "global/git-bisect": skill_md("git-bisect", "Find the commit that broke the build."),
        },
    )
    scores = {"skill:csv-tidy@global": 0.0, "skill:git-bisect@global": 1.0}
    rows = ranked(root, semantic=False, quality=lambda refs: scores)
    assert rows[0][0] == "csv-tidy"


def test_the_repository_weights_file_is_used_and_checked(tmp_path):
    root = twins(tmp_path, ("deprecated", "active"))
    packaged = load_search_weights(root)
    assert packaged.path.name == "signal-weights.json"
    assert packaged.boosts[:2] == (2.0, 1.5)
    data = json.loads(packaged.path.read_text("utf-8"))
    data["search"]["lifecycle"]["deprecated"] = 1.0
    data["search"]["quality"]["weight"] = 0.0
    build_tree(root, {"signals/weights.json": {"half_life_days": 90, **data}})
    weights = load_search_weights(root)
    assert weights.path == root / "signals" / "weights.json"
    # with deprecation not penalised, the tie is broken by reference again
    assert [n for n, _ in ranked(root, semantic=False)] == ["csv-tidy", "tidy-csv"]
    data["search"]["fusion"]["minilm"] = "lots"
    build_tree(root, {"signals/weights.json": data})
    with pytest.raises(InputFileError, match="search.fusion.minilm must be a number"):
        load_search_weights(root)
    data["search"]["fusion"]["minilm"] = 0.5
    data["search"]["fusion"]["lexical"] = 0
    build_tree(root, {"signals/weights.json": data})
    with pytest.raises(InputFileError, match="search.fusion.lexical must be above 0"):
        load_search_weights(root)


def test_fusion_is_the_weighted_mean_of_standardised_signals():
    weights = {"lexical": 0.25, "minilm": 0.5, "wordllama": 0.25}
    lexical, minilm = [0.0, 3.0, 1.0, 0.0], [0.2, 0.1, 0.5, 0.3]
    both = fuse({"lexical": lexical, "minilm": minilm}, weights)
    z_lex, z_min = zscores(lexical), zscores(minilm)
    assert both == pytest.approx(
        [(0.25 * a + 0.5 * b) / 0.75 for a, b in zip(z_lex, z_min, strict=True)]
    )
    # a signal without spread (no lexical match at all) does not vote, and does not divide
    alone = fuse({"lexical": [0.0] * 4, "minilm": minilm}, weights)
    assert alone == pytest.approx([0.5 / 0.75 * z for z in z_min])
    assert zscores([0.7, 0.7 + 1e-9]) == [0.0, 0.0]  # float noise is not a difference


def test_relevance_is_one_for_the_best_and_keeps_ratios_of_fused_gaps():
    rel = relevance([2.0, 1.0, 2.0, -1.0])
    assert rel[0] == rel[2] == 1.0
    assert rel[1] == pytest.approx(0.36787944)
    assert rel[3] == pytest.approx(rel[1] ** 3)


def test_score_formula():
    from dataclasses import replace
    from pathlib import Path

    weights = replace(load_search_weights(Path("/nonexistent")), quality_weight=0.5)
    total, quality, _factor = score(0.8, None, "deprecated", weights)
    assert quality == weights.quality_neutral
    assert total == pytest.approx(0.8 * (0.5 + 0.5 * quality) * weights.lifecycle["deprecated"])


def ledger(root, votes: dict[str, int]) -> None:
    """Up-votes from distinct people, each in their own ledger, as the signals code writes
    them."""
    from exobrain.signals.ledger import dump_line, make_signal

    tree: dict[str, str] = {}
    for ref, count in votes.items():
        for i in range(count):
            line = dump_line(make_signal("vote", ref, 1, by=f"voter{i}", host="h", at=1.7e9))
            path = f"signals/voter{i}/h.jsonl"
            tree[path] = tree.get(path, "") + line
            tree[f"people/voter{i}/AGENTS.md"] = f"# voter{i}\n"  # a person, so it counts
    build_tree(root, tree)


def test_signals_reorder_equally_relevant_skills_from_the_command_line(tmp_path):
    from click.testing import CliRunner

    from exobrain.cli.umbrella import main

    root = twins(tmp_path)
    ledger(root, {"skill:tidy-csv@global": 6})
    result = CliRunner().invoke(
        main, ["search", "tidy csv duplicate rows", "--json", "--repo", str(root)]
    )
    hits = json.loads(result.stdout)["hits"]
    assert [h["name"] for h in hits] == ["tidy-csv", "csv-tidy"]
    assert hits[0]["components"]["quality"] > hits[1]["components"]["quality"]
    assert hits[0]["components"]["relevance"] == pytest.approx(hits[1]["components"]["relevance"])
    rows = json.loads(
        CliRunner()
        .invoke(main, ["list", "--sort", "quality:desc", "--json", "--repo", str(root)])
        .stdout
    )
    assert [r["name"] for r in rows] == ["tidy-csv", "csv-tidy"]
    assert rows[0]["quality"] > rows[1]["quality"] > 0


def test_skipping_hopeless_refs_never_changes_the_top_k():
    """Quality is computed only for refs that can still make the top k: same order as scoring
    every ref (random relevances, lifecycles and qualities)."""
    import random
    from pathlib import Path

    from exobrain.search.ranking import contenders, order

    weights = load_search_weights(Path("/nonexistent"))
    rng = random.Random(7)
    for _ in range(200):
        n, k = rng.randint(1, 40), rng.randint(1, 10)
        rel = {f"skill:s{i}@global": rng.random() for i in range(n)}
        life = {ref: rng.choice(["active", "deprecated", "draft"]) for ref in rel}
        qual = {ref: rng.random() for ref in rel}

        def top(refs, rel=rel, qual=qual, life=life, k=k):
            return order({r: score(rel[r], qual[r], life[r], weights)[0] for r in refs})[:k]

        assert top(contenders(rel, life, k, weights)) == top(rel)
