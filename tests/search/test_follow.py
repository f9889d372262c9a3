"""exobrain events --follow: commits and new ledger lines as they come, each once."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

from exobrain.search.follow import Follower
from exobrain.signals.ledger import dump_line, make_signal
from exobrain.workspace import open_workspace
from tests.search.test_substrate import root  # noqa: F401  (six skills, a guide)
from tests.support.helpers import git


def append(repo, line: dict, person: str = "guest", host: str = "box") -> None:
    path = repo / "signals" / person / f"{host}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(dump_line(line))


def use(ref: str, by: str = "guest", **extra) -> dict:
    return make_signal("usage", ref, 1, by=by, host="box", agent="claude", auto=True, **extra)


def test_new_lines_then_their_commit_are_announced_once(root):  # noqa: F811
    follower = Follower(open_workspace(root))
    assert follower.poll() == []
    append(root, use("skill:dock-ligands@global", via="skill:old-docking@global"))
    append(root, make_signal("vote", "skill:prep-receptor@global", 1, by="guest", host="box"))
    append(root, use("skill:dock-ligands@global", by="mallory"))  # not mallory's ledger
    # mallory's own ledger, but mallory is no person of the repository: a stranger's line
    append(root, use("skill:dock-ligands@global", by="mallory"), person="mallory")
    invoked, voted = follower.poll()
    assert invoked["type"] == "skill.invoked" and invoked["agent"] == "claude"
    assert (invoked["ref"], invoked["via"]) == (
        "skill:dock-ligands@global",
        "skill:old-docking@global",
    )
    assert (voted["type"], voted["kind"]) == ("signal", "vote")
    assert follower.poll() == []
    (root / "skills.json").write_text(
        (root / "skills.json")
        .read_text()
        .replace('"bio-only"', '"bio-only", "lifecycle": "deprecated"')
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "ledger and a lifecycle change")
    assert [(e["type"], e["ref"]) for e in follower.poll()] == [
        ("skill.lifecycle", "skill:bio-only@global")
    ]


def test_follow_prints_json_lines_and_stops_cleanly_on_ctrl_c(root):  # noqa: F811
    process = subprocess.Popen(
        [sys.executable, "-c", "from exobrain.cli.umbrella import main; main()", "events",
         "--follow", "--json", "--interval", "0.1", "--repo", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # lines before its start are its baseline, not news
            append(root, use("skill:dock-ligands@global"))
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if ready:
                break
        line = process.stdout.readline()
        assert json.loads(line)["type"] == "skill.invoked"
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "Traceback" not in err
