"""Two git branches that append to the same ledger merge without conflict (merge=union), and
the merged aggregate is the aggregate of the union of their lines."""

import subprocess

from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from tests.support.helpers import git
from tests.support.signal_helpers import TIDY, every_ledger, repo

LEDGER = "signals/al/lap.jsonl"


def signal(root, *args):
    result = CliRunner().invoke(exobrain_main, ["signal", *args, "--repo", str(root)])
    assert result.exit_code == 0, result.output


def branches_that_both_append(tmp_path, monkeypatch):
    monkeypatch.setenv("EXOBRAIN_HOST", "lap")
    root = repo(tmp_path)
    signal(root, "vote", "tidy", "up")
    signal(root, "usage", "tidy")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first signals")
    git(root, "checkout", "-q", "-b", "feature")
    signal(root, "usage", "tidy", "--auto", "--agent", "claude")
    signal(root, "rank", "tidy", "clarity", "0.9")
    signal(root, "vote", "lint", "down")
    git(root, "commit", "-q", "-am", "feature signals")
    git(root, "checkout", "-q", "main")
    signal(root, "vote", "tidy", "down")  # the same voter flips on main
    signal(root, "calibration", "tidy", "completed", "--note", "fine")
    signal(root, "fund", "tidy", "12.5")
    signal(root, "usage", "tidy")
    git(root, "commit", "-q", "-am", "main signals")
    return root


def test_branches_merge_without_conflict_and_aggregate_the_union(tmp_path, monkeypatch):
    root = branches_that_both_append(tmp_path, monkeypatch)
    ours = git(root, "show", f"main:{LEDGER}").splitlines()
    theirs = git(root, "show", f"feature:{LEDGER}").splitlines()
    merge = subprocess.run(
        ["git", "merge", "--no-edit", "feature"], cwd=root, capture_output=True, text=True
    )
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert git(root, "status", "--porcelain") == ""
    merged = (root / LEDGER).read_text().splitlines()
    union = ours + [line for line in theirs if line not in ours]
    assert sorted(merged) == sorted(union) and len(merged) == 9
    assert "<<<<<<<" not in (root / LEDGER).read_text()

    expected_root = tmp_path / "union"
    (expected_root / "signals/al").mkdir(parents=True)
    (expected_root / LEDGER).write_text("\n".join(union) + "\n")
    got, want = every_ledger(root), every_ledger(expected_root)
    assert got.numbers() == want.numbers() and got.problems == []
    assert {by: v for by, (_t, v) in got.votes_of(TIDY).items()} == {"al": -1}  # latest wins
    assert sum(got.usage[TIDY].values()) == 3
    assert got.ranks_of(TIDY)[("al", "clarity")][1] == 0.9


def test_without_the_union_rule_the_same_merge_conflicts(tmp_path, monkeypatch):
    root = branches_that_both_append(tmp_path, monkeypatch)
    (root / ".gitattributes").unlink()
    git(root, "commit", "-q", "-am", "drop the union rule")
    merge = subprocess.run(
        ["git", "merge", "--no-edit", "feature"], cwd=root, capture_output=True, text=True
    )
    assert merge.returncode != 0 and "CONFLICT" in merge.stdout
