"""Issue 17: what the README and the docs promise, run as printed — the "start a group for
your team" recipe (knowledge/exobrain/scopes.md) on a fresh clone with the installed console
scripts, what the quick start's catalog prints, and what exit 1 means."""

import json
import os
import subprocess
import sys
from pathlib import Path

from exobrain.workspace import open_workspace
from tests.support import ROOT
from tests.support.helpers import git

BIN = Path(sys.executable).parent
README = (ROOT / "README.md").read_text()
WORDS = " ".join(README.split())  # the README's text with its line breaks as spaces
SCOPES_DOC = (ROOT / "knowledge" / "exobrain" / "scopes.md").read_text()


def recipe(heading: str) -> list[str]:
    """The command lines of the first bash block under ``heading`` in scopes.md."""
    block = SCOPES_DOC.split(heading, 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line for line in block.strip().splitlines() if line.strip()]


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-e", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


def test_start_a_group_for_your_team_works_as_printed(tmp_path):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(ROOT), str(clone))
    lines = recipe("### Start a group for your team")
    assert lines[0] == "exobrain scope new groups/acme"
    for line in lines:
        done = shell(line, clone)
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    assert git(clone, "status", "--porcelain", "--", "groups", "people") == ""  # committed
    connection = json.loads((clone / ".exobrain.json").read_text())
    assert connection["connected_scopes"] == ["groups/acme", "people/dana/hosts/lap1"]
    assert connection["person"] == "dana"
    listed = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:-1]}
    for scope, kind in (
        ("groups/acme", "group"),
        ("people/dana", "person"),
        ("people/dana/hosts/lap1", "host"),
    ):
        assert listed[scope][1:] == [kind, "0", "yes"], done.stdout
    for check in ("skills-validate", "exobrain lock --check"):
        done = shell(check, clone)
        assert done.returncode == 0, f"{check}\n{done.stdout}{done.stderr}"


def test_the_quick_start_catalog_is_what_the_readme_says():
    """Every declaration of the repository's scopes; the seed's own tools (when this is the
    seed) are left to plain skills-status, as the README says."""
    assert "listed by plain `skills-status`" in WORDS
    done = shell("skills-status --all --json", ROOT)
    assert done.returncode == 0, done.stderr
    listed = {(row["name"], row["registry"]) for row in json.loads(done.stdout)["skills"]}
    ws = open_workspace(ROOT)
    declared = {
        (e.name, e.scope)
        for r in ws.all_registries(include_seed=False)
        for e in r.entries
        if not e.is_override
    }
    assert listed == declared and declared
    if (ROOT / "seed" / "AGENTS.md").is_file():
        seed = {e.name for e in ws.registry("seed").entries if not e.is_override}
        plain = json.loads(shell("skills-status --json", ROOT).stdout)
        assert seed and seed <= {row["name"] for row in plain["skills"]}


def test_exit_1_means_findings_for_every_check():
    """The README's exit codes, for the commands that check: 1 on findings."""
    assert "Exit codes: 0 fine, 1 findings" in WORDS
    for script in ("skills-validate", "authoring-review", "exobrain lock", "exobrain selftest"):
        done = shell(f"{script} --help", ROOT)
        last = " ".join(done.stdout.strip().split("\n\n")[-1].split())
        assert last.startswith("Exit codes: 0 ") and "; 1 " in last, (script, last)
    review = shell("authoring-review --help", ROOT).stdout
    assert "1 a new shared skill lacks proof" in " ".join(review.split())
