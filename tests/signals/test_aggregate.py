"""Aggregation exactly as SPEC-013 section 3, both reading paths, malformed lines, the cache."""

import json
import os

import pytest

from exobrain.signals import aggregate as signal_aggregate
from exobrain.signals import cache as signal_cache
from exobrain.signals.aggregate import aggregate, aggregate_files
from exobrain.signals.ledger import FUND_UNIT, ledger_files
from exobrain.signals.timestamps import day_number, format_ts
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree
from tests.support.signal_helpers import DAY, LINT, NOW, TIDY, every_ledger, repo, sig, write


def agg_of(root):
    return every_ledger(root)


def test_vote_replace_a_flipping_voter_counts_once(tmp_path):
    write(
        tmp_path,
        [
            sig("vote", TIDY, 1, 3),
            sig("vote", TIDY, -1, 2),
            sig("vote", TIDY, 1, 1),
            sig("vote", TIDY, -1, 5, by="bo"),
        ],
    )
    agg = agg_of(tmp_path)
    votes = agg.votes_of(TIDY)
    assert {by: v for by, (_t, v) in votes.items()} == {"al": 1, "bo": -1}
    assert votes["al"][0] == pytest.approx(NOW - DAY, abs=0.001)
    # the latest wins whatever the order of the lines and files
    write(tmp_path, [sig("vote", TIDY, 1, 1), sig("vote", TIDY, -1, 2)], host="other")
    write(tmp_path, [sig("vote", TIDY, -1, 0.5)], host="z")
    assert agg_of(tmp_path).votes_of(TIDY)["al"][1] == -1


def test_rank_replace_per_rater_and_dimension(tmp_path):
    write(
        tmp_path,
        [
            sig("rank", TIDY, 0.2, 3, dimension="clarity"),
            sig("rank", TIDY, 0.9, 1, dimension="clarity"),
            sig("rank", TIDY, 0.4, 2, dimension="scope"),
            sig("rank", TIDY, 0.6, 2, dimension="clarity", by="bo"),
        ],
    )
    ranks = agg_of(tmp_path).ranks_of(TIDY)
    assert {k: v for k, (_t, v) in ranks.items()} == {
        ("al", "clarity"): 0.9,
        ("al", "scope"): 0.4,
        ("bo", "clarity"): 0.6,
    }


def test_usage_sum_calibration_append_fund_sum(tmp_path):
    write(
        tmp_path,
        [
            sig("usage", TIDY, 1, 0, auto=True),
            sig("usage", TIDY, 1, 0),
            sig("usage", TIDY, 1, 10),
            sig("usage", LINT, 1, 0),
            sig("calibration", TIDY, True, 1),
            sig("calibration", TIDY, False, 1),
            sig("calibration", TIDY, True, 2, note="done"),
            sig("fund", TIDY, 10.5, 1),
            sig("fund", TIDY, 0.25, 30),
            sig("fund", TIDY, 7, 1, currency="eur"),
        ],
    )
    write(tmp_path, [sig("usage", TIDY, 1, 0, by="bo")], person="bo")
    agg = agg_of(tmp_path)
    today = day_number(format_ts(NOW))
    assert sum(agg.usage[TIDY].values()) == 4 and agg.usage[TIDY][today] == 3
    assert sum(agg.usage[LINT].values()) == 1
    outcomes = agg.calibration[TIDY].values()
    assert (sum(c for c, _ in outcomes), sum(n for _, n in outcomes)) == (2, 3)
    totals = {}
    for (currency, _day), amount in agg.fund[TIDY].items():
        totals[currency] = totals.get(currency, 0) + amount
    assert totals == {"token": 10.75 * FUND_UNIT, "eur": 7 * FUND_UNIT}
    assert agg.lines == 11 and agg.problems == []


def test_slow_path_reads_hand_written_lines_the_same(tmp_path):
    lines = [
        sig("vote", TIDY, 1, 2),
        sig("rank", TIDY, 0.75, 2, dimension="novelty"),
        sig("usage", TIDY, 1, 1, auto=True, agent="claude"),
        sig("calibration", TIDY, False, 3, note='timed out "badly"'),
        sig("fund", TIDY, 3, 4),
    ]
    fast = write(tmp_path / "a", lines)
    slow = tmp_path / "b" / "signals" / "al" / "h.jsonl"
    slow.parent.mkdir(parents=True)
    # key order changed, spaces, a +00:00 offset instead of Z: every line takes the slow path
    text = ""
    for line in lines:
        moved = {"by": line["by"], **{k: v for k, v in line.items() if k != "by"}}
        moved["ts"] = moved["ts"].replace("Z", "+00:00")
        text += json.dumps(moved) + "\n"
    slow.write_text(text)
    a, b = agg_of(tmp_path / "a"), agg_of(tmp_path / "b")
    assert fast.read_text() != slow.read_text()
    assert a.numbers() == b.numbers() and a.lines == b.lines == 5 and b.problems == []


def test_malformed_lines_are_skipped_and_reported_never_fatal(tmp_path):
    path = write(tmp_path, [sig("vote", TIDY, 1, 1)])
    with open(path, "ab") as handle:
        handle.write(
            b'{"ts": "2026-01-01T00:00:00Z", "skill": "skill:tidy@global", "kind": '
            b'"vote", "value": 2, "by": "al"}\n'
            b"not json at all\n"
            b'{"ts": "2026-01-01T00:00:00", "skill": "skill:tidy@global", "kind": '
            b'"usage", "value": 1, "by": "al"}\n'
            b'{"ts": "2026-01-01T00:00:00Z", "skill": "tidy", "kind": "usage", '
            b'"value": 1, "by": "al"}\n'
            b'{"ts": "2026-01-01T00:00:00Z", "skill": "skill:tidy@global", '
            b'"kind": "rank", "value": 1.5, "dimension": "clarity", "by": "al"}\n'
            b'{"ts": "2026-01-01T00:00:00Z", "skill": "skill:tidy@global", '
            b'"kind": "fund", "value": -3, "currency": "token", "by": "al"}\n'
            b'{"ts": "2026-01-01T00:00:00Z", "skill": "skill:tidy@global", '
            b'"kind": "calibration", "value": true, "note": "\xff", "by": "al"}\n'
            b'{"ts": "0001-01-01T00:00:00+00:00", "skill": "skill:tidy@global", '
            b'"kind": "usage", "value": 1, "by": "al"}\n' + b"[" * 100_000 + b"\n"
            b"\n"
            b'{"ts": "2026-01-01T00:00:00Z", "skill": "skill:tidy@global", '
            b'"kind": "usage", "value": 1, "by": "al"}'
        )  # no final newline: still read
    agg = agg_of(tmp_path)
    assert agg.lines == 2 and sum(agg.usage[TIDY].values()) == 1
    rel = "signals/al/h.jsonl"
    assert [p.split(": skipped: ")[0] for p in agg.problems] == [
        f"{rel}:{n}" for n in (2, 3, 4, 5, 6, 7, 8, 9, 10)
    ]
    reasons = " | ".join(agg.problems)
    for words in (
        "vote value must be 1 or -1",
        "invalid JSON",
        "timezone",
        "home-qualified",
        "from 0 to 1",
        "from 0.000001",
        "not UTF-8",
    ):
        assert words in reasons


def test_impossible_dates_and_non_json_numbers_in_toolkit_shaped_lines(tmp_path):
    good = sig("usage", TIDY, 1, 1)
    path = write(tmp_path, [good])
    text = path.read_text()
    bad_day = text.replace(good["ts"][:10], "2026-02-30")
    zero_led = text.replace(
        '"kind":"usage","value":1,"auto":false', '"kind":"fund","value":01,"currency":"token"'
    )
    tiny = text.replace(
        '"kind":"usage","value":1,"auto":false',
        '"kind":"fund","value":0.0000001,"currency":"token"',
    )
    path.write_text(text + bad_day + zero_led + tiny + text)
    agg = agg_of(tmp_path)
    assert sum(agg.usage[TIDY].values()) == 2 and TIDY not in agg.fund
    assert [p.split(": skipped: ")[0] for p in agg.problems] == [
        "signals/al/h.jsonl:2",
        "signals/al/h.jsonl:3",
        "signals/al/h.jsonl:4",
    ]
    assert "timezone" in agg.problems[0] and "invalid JSON" in agg.problems[1]
    assert "from 0.000001" in agg.problems[2]


def test_cache_hits_when_unchanged_and_misses_after_any_change(tmp_path, monkeypatch):
    root = repo(tmp_path)
    build_tree(root, {"people/bo/AGENTS.md": "# bo\n"})
    path = write(root, [sig("usage", TIDY, 1)])
    write(root, [sig("vote", TIDY, 1, by="bo")])
    with open(path, "a") as handle:
        handle.write("garbage\n")
    first = aggregate(open_workspace(root))
    calls = []
    real = signal_aggregate.aggregate_files
    monkeypatch.setattr(signal_aggregate, "aggregate_files", lambda *a: calls.append(1) or real(*a))
    again = aggregate(open_workspace(root))
    assert calls == [] and again.numbers() == first.numbers()
    assert (
        again.problems
        == first.problems
        == ["signals/al/h.jsonl:2: skipped: invalid JSON (Expecting value)"]
    )
    assert len(first.votes_of(TIDY)) == 1  # bo's, a person of the repository
    write(root, [sig("usage", TIDY, 1)], append=True)
    assert sum(aggregate(open_workspace(root)).usage[TIDY].values()) == 2 and calls == [1]
    assert signal_cache.cache_path(root).is_file()
    assert str(signal_cache.cache_dir()).startswith(os.environ["XDG_CACHE_HOME"])
    # a corrupt cache is ignored, not fatal
    signal_cache.cache_path(root).write_bytes(b"\x80garbage")
    assert sum(aggregate(open_workspace(root)).usage[TIDY].values()) == 2


def test_snapshot_covers_its_bucket_in_its_own_file_only(tmp_path):
    day_ago = sig("usage", TIDY, 1, 40)
    snapshot = {
        **day_ago,
        "ts": format_ts((day_number(day_ago["ts"])) * DAY),
        "value": 5,
        "snapshot": True,
    }
    del snapshot["auto"]
    # union merge brought back two raw lines of a compacted day, and a duplicate snapshot
    write(tmp_path, [snapshot, day_ago, day_ago, snapshot, sig("usage", TIDY, 1, 0)])
    write(tmp_path, [day_ago], host="other")  # another file: not covered
    agg = agg_of(tmp_path)
    assert agg.usage[TIDY][day_number(day_ago["ts"])] == 6
    assert sum(agg.usage[TIDY].values()) == 7


def test_ledger_files_finds_only_person_host_jsonl(tmp_path):
    write(tmp_path, [sig("usage", TIDY, 1)])
    (tmp_path / "signals" / "weights.json").write_text("{}")
    (tmp_path / "signals" / "al" / "notes.txt").write_text("x")
    (tmp_path / "signals" / ".hidden").mkdir()
    (tmp_path / "signals" / ".hidden" / "x.jsonl").write_text("")
    assert [p.relative_to(tmp_path).as_posix() for p in ledger_files(tmp_path)] == [
        "signals/al/h.jsonl"
    ]
    assert aggregate_files(tmp_path, []).numbers() == agg_of(tmp_path / "none").numbers()
