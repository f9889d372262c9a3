"""Ranking: lifecycle and quality factors, deterministic ties, the weights file."""

from __future__ import annotations

import json

import pytest

from exobrain.errors import InputFileError
from exobrain.search.engine import Filters, search
from exobrain.search.ranking import load_search_weights, relevance, score
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, exobrain, skill_md

TEXT = "Tidy a CSV file: trim cells, fix dates and drop duplicate rows."


def twins(tmp_path, lifecycles=("active", "active")):
    """Two skills whose text differs only by the order of the words in their names, so both
    halves of relevance are equal (mean-pooled vectors ignore word order)."""
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
    data["search"]["fusion"]["lexical"] = "lots"
    build_tree(root, {"signals/weights.json": data})
    with pytest.raises(InputFileError, match="search.fusion.lexical must be a number"):
        load_search_weights(root)


def test_rrf_fusion_puts_first_in_both_lists_at_one(tmp_path):
    from dataclasses import replace

    weights = replace(load_search_weights(tmp_path), fusion="rrf")
    fused = relevance({"a": 3.0, "b": 1.0}, {"a": 0.9, "b": 0.5, "c": 0.7}, weights)
    assert fused["a"][2] == pytest.approx(1.0)
    assert fused["c"][2] > 0 and fused["b"][2] < fused["a"][2]


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

    from exobrain.search.engine import _contenders
    from exobrain.search.ranking import order

    weights = load_search_weights(Path("/nonexistent"))
    rng = random.Random(7)
    for _ in range(200):
        n, k = rng.randint(1, 40), rng.randint(1, 10)
        fused = {f"skill:s{i}@global": (0, 0, rng.random()) for i in range(n)}
        life = {ref: rng.choice(["active", "deprecated", "draft"]) for ref in fused}
        qual = {ref: rng.random() for ref in fused}

        def top(refs, fused=fused, qual=qual, life=life, k=k):
            return order({r: score(fused[r][2], qual[r], life[r], weights)[0] for r in refs})[:k]

        assert top(_contenders(fused, life, k, weights)) == top(fused)
