"""exobrain signal / signals / quality from the command line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from tests.support.signal_helpers import LINT, TIDY, repo, sig, write


def run(root, *args):
    return CliRunner().invoke(exobrain_main, [*args, "--repo", str(root)])


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "lap")
    return repo(tmp_path)


@pytest.mark.parametrize(
    "args, message",
    [
        (["vote", "tidy", "2"], "vote must be up (1) or down (-1), not '2'"),
        (["rank", "tidy", "clarity", "1.5"], "rank value must be from 0 to 1, not 1.5"),
        (["rank", "tidy", "style", "0.5"], "unknown rank dimension 'style'"),
        (["vote", "nope", "up"], "no skill named 'nope' is declared"),
        (["fund", "tidy", "-5"], "fund amount must be greater than 0, not -5"),
        (["fund", "tidy", "ten"], "fund amount must be a number, not 'ten'"),
        (["calibration", "tidy", "perhaps"], "calibration outcome must be true"),
        (["vote", "skill:tidy@groups/acme", "up"], "no skill 'tidy' is declared at groups/acme"),
        (["usage", "tidy", "--agent", "robot"], "unknown agent 'robot'"),
        (["usage", "tidy", "--host", "a/b"], "host 'a/b' must be"),
    ],
)
def test_invalid_signals_are_refused_and_nothing_is_written(root, args, message):
    result = run(root, "signal", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (root / "signals").exists()


def test_each_kind_is_recorded_in_the_persons_host_ledger(root):
    for args in (
        ["vote", "tidy", "up"],
        ["vote", "tidy", "-1"],
        ["rank", "lint", "scope", "0.4"],
        ["usage", "skill:lint@groups/acme", "--auto", "--agent", "codex"],
        ["calibration", "tidy", "failed", "--note", "missed a file"],
        ["fund", "tidy", "25", "--currency", "eur"],
    ):
        result = run(root, "signal", *args)
        assert result.exit_code == 0, result.output
        assert "signals/al/lap.jsonl" in result.output
    lines = [json.loads(line) for line in (root / "signals/al/lap.jsonl").read_text().splitlines()]
    assert [(line["kind"], line["skill"], line["value"]) for line in lines] == [
        ("vote", TIDY, 1),
        ("vote", TIDY, -1),
        ("rank", LINT, 0.4),
        ("usage", LINT, 1),
        ("calibration", TIDY, False),
        ("fund", TIDY, 25.0),
    ]
    assert lines[3]["auto"] is True and lines[3]["agent"] == "codex"
    assert all(line["by"] == "al" and line["host"] == "lap" for line in lines)
    assert "merge=union" in (root / ".gitattributes").read_text()


def test_signal_json_prints_the_line(root):
    result = run(root, "signal", "usage", "tidy", "--json")
    data = json.loads(result.output)
    assert data["skill"] == TIDY and data["file"] == "signals/al/lap.jsonl"


def test_signals_lists_lines_and_the_aggregate(root):
    write(
        root,
        [
            sig("vote", TIDY, 1, 3),
            sig("vote", TIDY, -1, 2),
            sig("usage", TIDY, 1, 1),
            sig("usage", LINT, 1, 1),
            sig("calibration", TIDY, True, 1, note="ok"),
            sig("rank", TIDY, 0.5, 1, dimension="accuracy"),
        ],
        host="lap",
    )
    with open(root / "signals/al/lap.jsonl", "a") as handle:
        handle.write('{"skill": "skill:tidy@global", "kind": "vote", "value": 9}\n')
    result = run(root, "signals", "tidy")
    assert result.exit_code == 0, result.output
    assert "skill:tidy@global: 5 signal line(s)" in result.output
    assert "completed: ok" in result.output
    assert (
        "aggregate: votes +0 -1 (latest per voter); ranks accuracy 0.50 (1); uses 1; "
        "calibration 1/1 completed; fund none"
    ) in result.output
    assert "signals/al/lap.jsonl:7: skipped:" in result.output
    data = json.loads(run(root, "signals", "tidy", "--json").stdout)
    assert [s["kind"] for s in data["signals"]] == ["vote", "vote", "usage", "calibration", "rank"]
    assert data["aggregate"]["votes"] == {"up": 0, "down": 1, "voters": 1}
    assert run(root, "signals").exit_code == 2


def test_quality_one_skill_and_all(root):
    write(root, [sig("vote", TIDY, 1, 1), sig("usage", TIDY, 1, 1), sig("vote", LINT, -1, 1)])
    one = run(root, "quality", "tidy")
    assert one.exit_code == 0, one.output
    assert one.output.startswith("skill:tidy@global  quality 0.")
    for component in ("votes", "ranks", "calibration", "usage", "fund"):
        assert component in one.output
    data = json.loads(run(root, "quality", "tidy", "--json").stdout)
    assert set(data["components"]) == {"votes", "ranks", "calibration", "usage", "fund"}
    assert 0 <= data["score"] <= 1 and data["evidence"]["votes"]["up"] == 1
    everything = json.loads(run(root, "quality", "--json").stdout)
    assert next(s["skill"] for s in everything["skills"]) == TIDY
    assert len(everything["skills"]) == 3 and everything["undeclared_refs"] == 0
    top = run(root, "quality", "--limit", "1")
    assert "1 skill(s)" in top.output and TIDY in top.output


def test_bad_weights_file_is_exit_2(root):
    (root / "signals").mkdir(exist_ok=True)
    (root / "signals/weights.json").write_text("{not json")
    result = run(root, "quality")
    assert result.exit_code == 2 and "signals/weights.json:1:2: invalid JSON" in result.output


def test_console_script_round_trip(root):
    script = Path(sys.executable).parent / "exobrain"
    subprocess.run(
        [script, "signal", "vote", "tidy", "up"], cwd=root, check=True, capture_output=True
    )
    done = subprocess.run(
        [script, "signal", "vote", "tidy", "3"], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.startswith("error: vote must be")
    assert len((root / "signals/al/lap.jsonl").read_text().splitlines()) == 1
