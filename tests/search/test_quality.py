"""Search quality on the fixed fixture corpus: lexical-only versus hybrid.

The corpus (tests/fixtures/search_corpus.yaml) has 64 skills and 48 queries whose expected top
hit is known; half are paraphrases that share few words with the skill. Hybrid search (BM25
fused with WordLlama embeddings, the [semantic] extra, installed by the test extra) must beat
lexical search on the paraphrases. Run with ``pytest -s`` to see the figures.
"""

from __future__ import annotations

import json

from exobrain.search.discover import content_words
from exobrain.search.embedding import find_model
from exobrain.search.engine import search
from exobrain.workspace import open_workspace
from tests.support.search_corpus import build_corpus, evaluate, load_fixture


def skill_words(skill: dict) -> set[str]:
    text = " ".join(
        [
            skill["name"].replace("-", " "),
            skill["description"],
            " ".join(skill.get("triggers", [])),
            " ".join(skill.get("tags", [])),
            " ".join(skill.get("personas", [])),
            skill["body"],
        ]
    )
    return content_words(text)


def test_fixture_is_big_enough_and_paraphrases_share_few_words():
    data = load_fixture()
    skills = {s["name"]: s for s in data["skills"]}
    queries = data["queries"]
    assert len(skills) >= 60 and len(queries) >= 40
    paraphrases = [q for q in queries if q["kind"] == "paraphrase"]
    assert len(paraphrases) * 2 >= len(queries)
    assert all(q["expect"] in skills for q in queries)
    shared = []
    for query in paraphrases:
        words = content_words(query["q"])
        common = words & skill_words(skills[query["expect"]])
        assert len(common) * 2 <= len(words), (query["q"], common)
        shared.append(len(common))
    assert sum(shared) / len(shared) <= 1.0


def test_hybrid_beats_lexical_on_paraphrases(tmp_path):
    assert find_model() is not None, (
        "the [semantic] extra (wordllama) must be installed: pip install -e '.[test]'"
    )
    root = build_corpus(tmp_path / "corpus")
    queries = load_fixture()["queries"]

    def runner(semantic: bool):
        def run(query: str) -> list[str]:
            result = search(open_workspace(root), query, k=10, semantic=semantic)
            assert result.mode == ("hybrid" if semantic else "lexical")
            return [hit.artifact.name for hit in result.hits]

        return run

    lexical = evaluate(runner(False), queries)
    hybrid = evaluate(runner(True), queries)
    report = {
        mode: {
            kind: {
                "precision_at_1": round(r["precision_at_1"], 3),
                "mrr": round(r["mrr"], 3),
                "queries": r["n"],
            }
            for kind, r in result.items()
        }
        for mode, result in (("lexical", lexical), ("hybrid", hybrid))
    }
    print("\nsearch quality on the fixture corpus:\n" + json.dumps(report, indent=2))
    assert hybrid["paraphrase"]["precision_at_1"] > lexical["paraphrase"]["precision_at_1"]
    assert hybrid["paraphrase"]["mrr"] > lexical["paraphrase"]["mrr"]
    # and not at the expense of the queries that use the skills' own words
    assert hybrid["lexical"]["precision_at_1"] >= lexical["lexical"]["precision_at_1"] - 0.05
    assert lexical["lexical"]["precision_at_1"] >= 0.9
