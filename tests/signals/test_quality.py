"""The quality score: bounded, monotone, decaying, and configured by signals/weights.json."""

import json
import shutil

import pytest

from exobrain.errors import InputFileError
from exobrain.signals.quality import Decay, load_weights, quality, wilson_lower
from tests.support import ROOT
from tests.support.signal_helpers import NOW, TIDY, every_ledger, sig, write


def score(root, lines=None, now=NOW):
    if lines is not None:
        write(root, lines)
    return quality(every_ledger(root), TIDY, load_weights(root), now)


def test_no_signals_is_the_documented_baseline(tmp_path):
    result = score(tmp_path, [])
    assert result.components == {
        "votes": 0.0,
        "ranks": 0.5,
        "calibration": 0.5,
        "usage": 0.0,
        "fund": 0.0,
    }
    assert result.score == pytest.approx((0.25 * 0.5 + 0.20 * 0.5) / 1.0)


def test_more_upvotes_never_lower_the_score(tmp_path):
    lines = [
        sig("vote", TIDY, -1, 5, by="d1"),
        sig("vote", TIDY, -1, 50, by="d2"),
        sig("rank", TIDY, 0.3, 2, dimension="clarity"),
    ]
    previous = score(tmp_path, lines).score
    for voter in range(25):
        lines.append(sig("vote", TIDY, 1, voter * 7 % 200, by=f"u{voter}"))
        current = score(tmp_path, lines).score
        assert current >= previous
        previous = current
    assert previous > 0.4


def test_a_flipped_vote_counts_once(tmp_path):
    once = score(tmp_path / "a", [sig("vote", TIDY, 1, 1)]).score
    flips = [sig("vote", TIDY, v, d) for v, d in ((1, 9), (-1, 8), (1, 7), (-1, 3), (1, 1))]
    assert score(tmp_path / "b", flips).score == once


def test_older_usage_weighs_less(tmp_path):
    recent = score(tmp_path / "r", [sig("usage", TIDY, 1, 1) for _ in range(5)])
    old = score(tmp_path / "o", [sig("usage", TIDY, 1, 200) for _ in range(5)])
    assert old.components["usage"] < recent.components["usage"]
    assert old.score < recent.score
    # exactly one half-life (90 days) halves the weight of a use
    half = score(tmp_path / "h", [sig("usage", TIDY, 1, 0.5)], now=NOW + 90 * 86400)
    assert half.evidence["usage"]["decayed"] == pytest.approx(0.5, rel=0.02)


def test_more_usage_funding_and_completions_never_lower_it(tmp_path):
    lines, last = [], 0.0
    for i, extra in enumerate(
        [
            sig("usage", TIDY, 1, 3),
            sig("fund", TIDY, 40, 2),
            sig("calibration", TIDY, True, 1),
            sig("usage", TIDY, 1, 100),
            sig("fund", TIDY, 5000, 1),
        ]
        * 3
    ):
        lines.append(extra)
        current = score(tmp_path, lines).score
        assert current >= last, i
        last = current
    assert 0 <= last <= 1


def test_score_is_bounded_at_the_extremes(tmp_path):
    best = [sig("vote", TIDY, 1, 0, by=f"v{i}") for i in range(300)]
    best += [
        sig("rank", TIDY, 1, 0, by=f"v{i}", dimension=d)
        for i in range(100)
        for d in ("clarity", "accuracy", "scope", "novelty")
    ]
    best += [sig("calibration", TIDY, True, 0) for _ in range(300)]
    best += [sig("usage", TIDY, 1, 0) for _ in range(3000)] + [sig("fund", TIDY, 10**6, 0)]
    top = score(tmp_path / "t", best).score
    assert 0.95 < top <= 1.0
    worst = [sig("vote", TIDY, -1, 0, by=f"v{i}") for i in range(50)]
    worst += [sig("rank", TIDY, 0, 0, by=f"v{i}", dimension="clarity") for i in range(50)]
    assert 0.0 <= score(tmp_path / "w", worst).score < 0.2


def test_wilson_lower_bound_known_values():
    assert wilson_lower(0, 0, 1.96) == 0
    assert wilson_lower(1, 1, 1.96) == pytest.approx(0.2065, abs=1e-4)
    assert wilson_lower(50, 100, 1.96) == pytest.approx(0.4038, abs=1e-4)
    assert wilson_lower(2, 2, 1.96) > wilson_lower(1, 1, 1.96)


def test_decay_weighs_future_dated_signals_as_now():
    decay = Decay(1000.0, 1.0)
    assert decay.at(5000.0) == 1.0 and decay.at(1000.0 - 86400) == pytest.approx(0.5)


def test_weights_are_read_at_run_time_from_the_repository(tmp_path):
    (tmp_path / "signals").mkdir()
    shutil.copy(ROOT / "signals" / "weights.json", tmp_path / "signals" / "weights.json")
    lines = [sig("vote", TIDY, 1, 1), sig("usage", TIDY, 1, 1)]
    before = score(tmp_path, lines).score
    data = json.loads((tmp_path / "signals/weights.json").read_text())
    data["weights"] = {"votes": 0, "ranks": 0, "calibration": 0, "usage": 1, "fund": 0}
    (tmp_path / "signals/weights.json").write_text(json.dumps(data))
    after = score(tmp_path).score
    assert after != before
    assert after == pytest.approx(score(tmp_path).components["usage"])


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(half_life_days=0), "half_life_days must be a number of days"),
        (lambda d: d["weights"].pop("fund"), "weights must be an object with exactly"),
        (lambda d: d["weights"].update(votes=-1), "weights must be numbers >= 0"),
        (
            lambda d: d["ranks"].update(prior_mean=2),
            "ranks.prior_mean must be a number from 0 to 1",
        ),
        (lambda d: d["sweep"].pop("window_days"), "sweep.window_days must be"),
        (lambda d: d["fund"].update(currency=""), "fund.currency must be a non-empty string"),
    ],
)
def test_bad_weights_name_the_key(tmp_path, change, message):
    data = json.loads((ROOT / "signals" / "weights.json").read_text())
    change(data)
    (tmp_path / "signals").mkdir()
    (tmp_path / "signals/weights.json").write_text(json.dumps(data))
    with pytest.raises(InputFileError, match=message):
        load_weights(tmp_path)


def test_packaged_default_is_the_committed_file(tmp_path):
    committed = (ROOT / "signals" / "weights.json").read_text()
    packaged = (ROOT / "scripts/exobrain/schemas/signal-weights.json").read_text()
    assert committed == packaged
    assert load_weights(tmp_path).path.name == "signal-weights.json"
    assert load_weights(ROOT).path == ROOT / "signals" / "weights.json"
