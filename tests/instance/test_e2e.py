"""Issue 7, must show: an instance rendered from this seed works on its own, end to end, through
the real console scripts; the seed-only skills resolve in the seed and nowhere else.

Harvest's half of the must-show is tests/instance/test_harvest.py::
test_two_instances_and_a_missing_path_report_exactly_those_facts.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from exobrain.workspace import open_workspace
from tests.support import ROOT
from tests.support.helpers import build_tree, git, skill_md

BIN = Path(sys.executable).parent
GLOBAL_SKILLS = sorted(
    e["name"] for e in json.loads((ROOT / "skills.json").read_text())["skills"] if "from" not in e
)
SEED_ONLY = {"seed-tests", "seed-harvest", "create-instance"}


def run(*argv, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    program = str(BIN / argv[0]) if (BIN / argv[0]).exists() else argv[0]
    done = subprocess.run(
        [program, *argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    return done


def upstream(folder: Path) -> None:
    """A local stand-in for https://github.com/anthropics/skills (git is told to use it)."""
    build_tree(folder, {"skills/skill-creator/SKILL.md": skill_md("skill-creator")})
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "upstream")
    with open(os.environ["GIT_CONFIG_GLOBAL"], "a") as config:
        config.write(
            f'[url "{folder.as_uri()}"]\n\tinsteadOf = https://github.com/anthropics/skills\n'
        )


@pytest.mark.slow
def test_an_instance_validates_lists_connects_and_selftests(tmp_path):
    inst = tmp_path / "mine"
    done = run(
        "exobrain",
        "create-instance",
        str(inst),
        "--person",
        "p",
        "--host",
        "h",
        "--repo",
        str(ROOT),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (inst / "seed").exists()

    validate = run("skills-validate", "--strict", cwd=inst)
    assert validate.returncode == 0, validate.stdout
    assert validate.stdout == "Errors: 0  Info: 0\n"

    catalog = run("skills-status", "--all", "--plain", cwd=inst)
    assert catalog.returncode == 0
    assert [line.split("\t")[0] for line in catalog.stdout.splitlines()] == GLOBAL_SKILLS
    assert not SEED_ONLY & set(catalog.stdout.split())

    # a skill of the host scope, always on, so connecting has something to link; and
    # skill-creator's GitHub repository served from a local copy
    build_tree(
        inst,
        {
            "people/p/hosts/h/skills/h-notes/SKILL.md": skill_md("h-notes"),
            "people/p/hosts/h/skills.json": {
                "skills": [{"name": "h-notes", "owner": "p", "tier": "always"}]
            },
            ".exobrain.json": {"external_skills": {"allow_local": True}},
        },
    )
    upstream(tmp_path / "anthropic-skills")
    connect = run("connect-agent", "claude", "--person", "p", "--host", "h", cwd=inst)
    assert connect.returncode == 0, connect.stdout + connect.stderr
    assert "warning" not in connect.stderr, connect.stderr
    links = sorted(p.name for p in (inst / ".claude" / "skills").iterdir())
    assert links == ["h-notes"]
    assert (
        os.readlink(inst / ".claude" / "skills" / links[0])
        == "../../people/p/hosts/h/skills/h-notes"
    )
    fetched = inst / ".claude" / "skills-optional" / "skill-creator"
    assert (fetched / "SKILL.md").is_file() and (fetched / ".exobrain-source.json").is_file()
    index = (inst / ".claude" / "optional-skills.md").read_text()
    for name in ("exobrain", "exobrain-tests", "skill-authoring"):
        assert f"| {name} | skills/{name}/SKILL.md |" in index
    assert "| skill-creator | .claude/skills-optional/skill-creator/SKILL.md |" in index
    connection = json.loads((inst / ".exobrain.json").read_text())
    assert connection["connected_scopes"] == ["people/p/hosts/h"]

    # one test file is enough to show the instance's suite runs its own package; the skills'
    # own tests run in this suite already (testpaths), and their whole run here took a minute
    trusted = run("exobrain", "trust", "--suite", cwd=inst)  # read, then trusted by the user
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    selftest = run("exobrain", "selftest", "--suite", "tests/cli/test_docs.py", cwd=inst)
    assert selftest.returncode == 0, selftest.stdout + selftest.stderr
    for check in (
        "schemas",
        "skills-validate",
        "locks",
        "docs",
        "agents",
        "git-hooks",
        "test-suite",
    ):
        assert f"PASS  {check} " in selftest.stdout, check
    assert "selftest: 7 passed, 0 failed, 0 skipped" in selftest.stdout

    # the instance's own test command, as its README gives it (here on one file)
    env = {**os.environ, "PYTHONPATH": str(inst / "scripts")}
    own = run(
        sys.executable, "-m", "pytest", "-x", "-q", "tests/cli/test_docs.py", cwd=inst, env=env
    )
    assert own.returncode == 0, own.stdout + own.stderr

    assert not SEED_ONLY & {r.name for r in open_workspace(inst).resolve()}
    assert not any((inst / "skills" / name).exists() for name in SEED_ONLY)


@pytest.mark.skipif(
    not (ROOT / "seed" / "AGENTS.md").is_file(), reason="seed-only: an instance has no seed/"
)
def test_the_seed_only_skills_resolve_in_the_seed():
    rows = {r.name: r for r in open_workspace(ROOT).resolve()}
    for name in ("seed-tests", "seed-harvest"):
        assert rows[name].home == "seed" and rows[name].tier == "optional", name
    assert "create-instance" not in rows  # declared nowhere, on purpose
    assert (ROOT / "seed" / "skills" / "create-instance" / "SKILL.md").is_file()
