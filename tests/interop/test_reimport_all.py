"""exobrain import --update --all: every imported skill re-imported at once — one unchanged, one
changed upstream, one edited locally (refused; with --fork-local forked, then updated) —,
dry runs that write nothing, and the weekly crons.json job that runs it."""

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from exobrain.skillmd import read_skill
from tests.support import ROOT
from tests.support.bundles import lock_of, snapshot, target_repo
from tests.support.helpers import build_tree, git, skill_md
from tests.support.upstream import Upstream

REIMPORT = "exobrain import --update --all"


def run(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def run_json(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--json", "--repo", str(root)])
    return result.exit_code, json.loads(result.stdout)


def statuses(data) -> dict[str, str]:
    return {s["name"]: s["status"] for s in data["skills"]}


def assert_clean(root) -> None:
    """The lock is fresh and the repository passes skills-validate --strict."""
    assert run(root, "lock", "--check")[0] == 0, run(root, "lock", "--check")[1]
    result = CliRunner().invoke(validate, ["--strict", "--repo", str(root)])
    assert result.exit_code == 0, result.output


@pytest.fixture
def setup(tmp_path):
    """Three skills imported from a git upstream (same, moved, mine) and one from a folder
    (tidy), committed; then upstream changes moved and mine, and mine is edited locally (and
    registered, as a person would)."""
    up = Upstream(
        tmp_path,
        {
            f"skills/{name}/SKILL.md": skill_md(name, f"Use {name} for {name} work daily.")
            for name in ("same", "moved", "mine")
        },
    )
    folder = build_tree(tmp_path / "up" / "tidy", {"SKILL.md": skill_md("tidy"), "a.py": "1\n"})
    root = target_repo(tmp_path, external_skills={"allow_local": True})
    assert run(root, "import", up.url, "--path", "skills", "--all")[0] == 0
    assert run(root, "import", str(folder))[0] == 0
    up.commit(
        {
            "skills/moved/notes.md": "new upstream notes\n",
            "skills/mine/notes.md": "new upstream notes\n",
        }
    )
    mine = root / "people/al/skills/mine"
    (mine / "local.md").write_text("my local edit\n")
    assert run(root, "register", str(mine), "--bump", "patch")[0] == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "imports and a local edit")
    return root, up


def test_update_all_takes_upstream_and_refuses_local_edits(setup):
    root, _up = setup
    before = snapshot(root)
    code, data = run_json(root, "import", "--update", "--all", "--dry-run")
    assert code == 1 and data["dry_run"] is True and data["all"] is True
    assert statuses(data) == {
        "same": "up to date",
        "moved": "would update",
        "mine": "skipped",
        "tidy": "up to date",
    }
    assert snapshot(root) == before  # a dry run writes nothing
    code, out = run(root, "import", "--update", "--all")
    assert code == 1
    lines = out.splitlines()
    assert "up to date   skill:same@people/al 0.1.0" in lines
    assert "updated      skill:moved@people/al 0.1.0 → 0.1.1" in lines
    assert any(
        line.startswith("skipped      skill:mine@people/al: upstream changed and so did the local")
        for line in lines
    )
    assert "4 imported skill(s): 1 skipped, 2 up to date, 1 updated" in lines
    assert "not updated: skill:mine@people/al (nothing of them was written)" in lines
    assert any(line.startswith("  fix skill:mine@people/al: keep your edits") for line in lines)
    assert (root / "people/al/skills/moved/notes.md").read_text() == "new upstream notes\n"
    mine = root / "people/al/skills/mine"
    assert (mine / "local.md").exists() and not (mine / "notes.md").exists()
    assert lock_of(root, "people/al")["mine"]["version"] == "0.1.1"  # the registered edit's
    assert_clean(root)
    # the JSON is stable: the same keys for every skill, a total, the exit code
    code, data = run_json(root, "import", "--update", "--all")
    assert code == 1 and data["totals"] == {"skipped": 1, "up to date": 3}
    assert {tuple(sorted(s)) for s in data["skills"]} == {
        (
            "flags",
            "forked",
            "hidden",
            "hint",
            "name",
            "notes",
            "previous",
            "problem",
            "ref",
            "repairs",
            "status",
            "upstream",
            "version",
        )
    }
    assert data["exit_code"] == 1 and data["scope"] is None


def test_fork_local_keeps_the_edits_in_a_fork_then_updates(setup):
    root, _up = setup
    before = snapshot(root)
    code, out = run(root, "import", "--update", "--all", "--fork-local", "--dry-run")
    assert code == 0, out
    assert "would update skill:mine@people/al 0.1.1 → 0.1.2; would fork the local edits" in out
    assert snapshot(root) == before
    code, data = run_json(root, "import", "--update", "--all", "--fork-local")
    assert code == 0 and data["totals"] == {"up to date": 2, "updated": 2}
    (mine,) = [s for s in data["skills"] if s["name"] == "mine"]
    assert mine["forked"] == "skill:mine-local@people/al" and mine["version"] == "0.1.2"
    # the fork keeps the local edits, as a native draft deriving from the original
    fork = root / "people/al/skills/mine-local"
    assert (fork / "local.md").read_text() == "my local edit\n"
    meta = read_skill(fork / "SKILL.md").meta
    assert meta["source"] == "native" and meta["version"] == "0.1.0"
    assert meta["links"]["derives_from"][0]["ref"] == "skill:mine@people/al"
    declared = json.loads((root / "people/al/skills.json").read_text())["skills"]
    assert {"name": "mine-local", "owner": "al", "tier": "optional", "lifecycle": "draft"} in [
        {k: e[k] for k in ("name", "owner", "tier", "lifecycle") if k in e} for e in declared
    ]
    # the original follows upstream again
    original = root / "people/al/skills/mine"
    assert (original / "notes.md").read_text() == "new upstream notes\n"
    assert not (original / "local.md").exists()
    assert_clean(root)
    # and a second run has nothing left to do
    code, data = run_json(root, "import", "--update", "--all", "--fork-local")
    assert code == 0 and set(statuses(data).values()) == {"up to date"}


def test_fork_local_for_one_skill_and_a_taken_fork_name(setup):
    root, _up = setup
    build_tree(root, {"people/al/skills/mine-local/SKILL.md": skill_md("mine-local")})
    code, out = run(root, "import", "--update", "mine", "--fork-local")
    assert code == 0, out
    assert "forked: the local edits of skill:mine@people/al into skill:mine-local-2" in out
    assert (root / "people/al/skills/mine-local-2/local.md").exists()


def test_into_limits_the_batch_to_one_scope(setup):
    root, _up = setup
    code, data = run_json(root, "import", "--update", "--all", "--into", "groups/lab")
    assert code == 0 and data["skills"] == [] and data["scope"] == "groups/lab"
    code, out = run(root, "import", "--update", "--all", "--into", "groups/lab")
    assert "0 imported skill(s) in groups/lab: none" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--update"], "--update --all for every one"),
        (["--update", "mine", "--all"], "--update --all for every one"),
        (["--fork-local"], "--fork-local goes with --update"),
        (["somewhere", "--update", "--all"], "drop SOURCE"),
        (["--update", "--all", "--tier", "always"], "drop --tier"),
    ],
)
def test_update_usage_errors(setup, args, message):
    root, _up = setup
    code, out = run(root, "import", *args)
    assert code == 2 and message in out


def test_the_weekly_job_is_listed_and_its_crontab_line_runs(setup):
    """The shipped crons.json schedules the re-import; installed as cron would run it (bare
    PATH, from the repository root), it takes the upstream change."""
    root, _up = setup
    shipped = json.loads((ROOT / "crons.json").read_text())["jobs"]
    (job,) = [j for j in shipped if j["command"] == REIMPORT]
    assert len(job["schedule"].split()) == 5 and job["schedule"].split()[2:4] == ["*", "*"]
    shutil.copy(ROOT / "crons.json", root / "crons.json")
    build_tree(root, {"scripts/exobrain/schemas/crons.schema.json": ""})
    shutil.copy(
        ROOT / "scripts/exobrain/schemas/crons.schema.json",
        root / "scripts/exobrain/schemas/crons.schema.json",
    )
    code, data = run_json(root, "crons")
    assert (
        code == 0
        and {"name": job["name"], "command": REIMPORT}.items()
        <= {k: v for j in data["jobs"] if j["command"] == REIMPORT for k, v in j.items()}.items()
    )
    result = CliRunner().invoke(exobrain_cli, ["crons", "--crontab", "--repo", str(root)])
    (line,) = [li for li in result.stdout.splitlines() if li.endswith("import --update --all")]
    command = line.split(" ", 5)[5].replace("\\%", "%")
    script = shlex.quote(str(Path(sys.executable).parent / "exobrain"))
    assert command.endswith(f"&& {script} import --update --all")
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr  # mine is edited locally: refused, and said so
    assert "updated      skill:moved@people/al 0.1.0 → 0.1.1" in done.stdout
    assert "not updated: skill:mine@people/al" in done.stdout
    assert (root / "people/al/skills/moved/notes.md").exists()
