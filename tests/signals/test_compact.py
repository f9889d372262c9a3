"""Compaction folds old lines into snapshots and changes no aggregate and no score."""

import json
import random

from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from exobrain.signals.compact import compact_person, compact_text
from exobrain.signals.ledger import DIMENSIONS
from exobrain.signals.quality import load_weights, quality_all
from exobrain.signals.timestamps import day_number, format_ts
from tests.support.signal_helpers import LINT, NOW, TIDY, every_ledger, repo, sig, write

SKILLS = [TIDY, LINT, "skill:old@global"]


def random_lines(rng, person, count):
    lines = []
    for _ in range(count):
        skill, days = rng.choice(SKILLS), rng.random() * 400
        pick = rng.random()
        if pick < 0.4:
            lines.append(sig("usage", skill, 1, days, by=person, auto=rng.random() < 0.5))
        elif pick < 0.55:
            lines.append(sig("vote", skill, rng.choice((1, -1)), days, by=person))
        elif pick < 0.7:
            lines.append(
                sig(
                    "rank",
                    skill,
                    rng.randint(0, 20) / 20,
                    days,
                    by=person,
                    dimension=rng.choice(DIMENSIONS),
                )
            )
        elif pick < 0.85:
            lines.append(
                sig(
                    "calibration",
                    skill,
                    rng.random() < 0.6,
                    days,
                    by=person,
                    note=rng.choice([None, "ok", "slow"]),
                )
            )
        else:
            lines.append(
                sig(
                    "fund",
                    skill,
                    rng.choice((0.1, 0.2, 3, 12.345678)),
                    days,
                    by=person,
                    currency=rng.choice(("token", "eur")),
                )
            )
    return lines


def state(root):
    agg = every_ledger(root)
    scores = [
        (q.skill, q.score, q.components) for q in quality_all(agg, SKILLS, load_weights(root), NOW)
    ]
    return agg.numbers(), scores


def test_compaction_preserves_every_aggregate_and_score(tmp_path):
    rng = random.Random(7)
    for person in ("al", "bo"):
        for host in ("h1", "h2"):
            write(tmp_path, random_lines(rng, person, 400), person=person, host=host)
    with open(tmp_path / "signals/al/h1.jsonl", "a") as handle:
        handle.write("this line is broken\n")
    before = state(tmp_path)
    cutoff = day_number(format_ts(NOW)) - 100
    results = compact_person(tmp_path, "al", cutoff)
    assert [r.rel for r in results] == ["signals/al/h1.jsonl", "signals/al/h2.jsonl"]
    assert all(r.changed and r.after < r.before and r.snapshots for r in results)
    assert state(tmp_path) == before
    # the broken line is kept as it was; bo's ledgers are untouched
    assert "this line is broken\n" in (tmp_path / "signals/al/h1.jsonl").read_text()
    assert not any('"snapshot"' in p.read_text() for p in (tmp_path / "signals/bo").iterdir())
    # compacting again, or later, still changes nothing
    snapshot_text = (tmp_path / "signals/al/h1.jsonl").read_text()
    assert not any(r.changed for r in compact_person(tmp_path, "al", cutoff))
    assert (tmp_path / "signals/al/h1.jsonl").read_text() == snapshot_text
    compact_person(tmp_path, "al", cutoff + 60)
    compact_person(tmp_path, "bo", cutoff + 90)
    assert state(tmp_path) == before


def test_snapshot_lines_keep_notes_and_recent_lines_stay_byte_for_byte(tmp_path):
    old = [
        sig("calibration", TIDY, True, 200, note="first"),
        sig("calibration", TIDY, False, 200, note="second"),
        sig("calibration", TIDY, True, 200),
        sig("vote", TIDY, 1, 300),
        sig("vote", TIDY, -1, 250),
        sig("usage", TIDY, 1, 220),
        sig("usage", TIDY, 1, 220),
    ]
    recent = [sig("usage", TIDY, 1, 1), sig("vote", TIDY, 1, 2)]
    path = write(tmp_path, old + recent)
    tail = "".join(path.read_text().splitlines(keepends=True)[-2:])
    text, snapshots = compact_text(
        path.read_text(), day_number(format_ts(NOW)) - 100, "h", path.parent.name
    )
    lines = [json.loads(line) for line in text.splitlines()]
    assert snapshots == 2 and text.endswith(tail)
    calibration = next(line for line in lines if line["kind"] == "calibration")
    assert (calibration["value"], calibration["total"], calibration["notes"]) == (
        2,
        3,
        ["first", "second"],
    )
    usage = next(line for line in lines if line["kind"] == "usage" and line.get("snapshot"))
    assert usage["value"] == 2 and usage["ts"].endswith("T00:00:00.000Z")
    assert [line["value"] for line in lines if line["kind"] == "vote"] == [-1, 1]


def test_git_union_merge_bringing_compacted_lines_back_changes_nothing(tmp_path):
    lines = random_lines(random.Random(3), "al", 200)
    path = write(tmp_path, lines)
    before = state(tmp_path)
    cutoff = day_number(format_ts(NOW)) - 50
    compact_person(tmp_path, "al", cutoff)
    # a union merge of "compacted here" with "appended elsewhere" keeps both sides of the
    # conflicting hunk: the folded lines come back next to their snapshots
    folded = [line for line in lines if day_number(line["ts"]) < cutoff]
    with open(path, "a") as handle:
        handle.write("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in folded))
    assert len(folded) > 100 and state(tmp_path) == before


def test_signals_compact_cli(tmp_path):
    root = repo(tmp_path)
    write(root, [sig("usage", TIDY, 1, 300), sig("usage", TIDY, 1, 300), sig("usage", TIDY, 1, 1)])
    path = root / "signals/al/h.jsonl"
    original = path.read_text()
    runner = CliRunner()
    dry = runner.invoke(exobrain_main, ["signals", "--compact", "--dry-run", "--repo", str(root)])
    assert dry.exit_code == 0, dry.output
    assert "signals/al/h.jsonl: 3 → 2 lines (1 snapshot)" in dry.output
    assert "would compact 1 of 1" in dry.output and path.read_text() == original
    done = runner.invoke(
        exobrain_main, ["signals", "--compact", "--older-than", "30", "--json", "--repo", str(root)]
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["person"] == "al" and report["files"][0]["after"] == 2
    assert path.read_text() != original
    none = runner.invoke(
        exobrain_main, ["signals", "--compact", "--person", "zed", "--repo", str(root)]
    )
    assert none.exit_code == 0 and "no ledgers for zed" in none.output
    bad = runner.invoke(exobrain_main, ["signals", "skill:tidy", "--compact", "--repo", str(root)])
    assert bad.exit_code == 2 and "drop REF" in bad.output
