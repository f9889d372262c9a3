"""The ranking's array arithmetic (search/dense.py) gives the pure functions' numbers."""

import numpy
import pytest

from exobrain.search import dense
from exobrain.search.ranking import contenders, fuse, load_search_weights, relevance

WEIGHTS = {"lexical": 0.25, "minilm": 0.5, "wordllama": 0.25}


def signals(size: int, seed: int) -> dict[str, list[float]]:
    rng = numpy.random.default_rng(seed)
    lexical = numpy.where(rng.random(size) < 0.1, rng.random(size) * 12, 0.0)
    return {
        "lexical": lexical.tolist(),
        "minilm": rng.uniform(-0.2, 0.9, size).tolist(),
        "wordllama": rng.uniform(-0.1, 0.6, size).tolist(),
    }


@pytest.mark.parametrize("seed", range(5))
def test_fuse_matches_the_pure_function(seed):
    values = signals(500, seed)
    expected = fuse(values, WEIGHTS)
    got = dense.fuse({k: numpy.asarray(v) for k, v in values.items()}, WEIGHTS)
    assert got.tolist() == pytest.approx(expected, abs=1e-9)


def test_a_signal_without_spread_does_not_vote():
    values = {"lexical": [0.0] * 4, "minilm": [0.1, 0.5, 0.3, 0.2]}
    assert dense.fuse(values, WEIGHTS).tolist() == pytest.approx(fuse(values, WEIGHTS))
    assert dense.zscores(numpy.zeros(0)).tolist() == []


@pytest.mark.parametrize(("seed", "k"), [(0, 1), (1, 5), (2, 10), (3, 50), (4, 600)])
def test_shortlist_keeps_the_same_contenders_with_the_same_relevance(tmp_path, seed, k):
    weights = load_search_weights(tmp_path)  # the packaged weights
    values = signals(500, seed)
    fused = fuse(values, WEIGHTS)
    matched = [v > 0 for v in values["lexical"]]
    lifecycles = ["deprecated" if i % 7 == 0 else "active" for i in range(500)]
    kept = [i for i in range(500) if matched[i] or fused[i] >= 0]
    rel = dict(zip(kept, relevance([fused[i] for i in kept]), strict=True))
    expected = contenders(rel, {i: lifecycles[i] for i in kept}, k, weights)
    factors = numpy.asarray([weights.lifecycle[c] for c in lifecycles])
    positions, relevances = dense.shortlist(
        numpy.asarray(fused), numpy.asarray(matched), factors, k, weights.quality_weight
    )
    assert positions.tolist() == expected
    assert relevances.tolist() == pytest.approx([rel[i] for i in expected])
