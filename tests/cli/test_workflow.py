"""The GitHub Actions pull-request workflow: its commands, run as GitHub would run them on the
merge commit of a pull request checked out with full history."""

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support import ROOT
from tests.support.helpers import build_tree, exobrain, git, skill_md

WORKFLOW = ROOT / ".github" / "workflows" / "skills-review.yml"


def load_workflow():
    return yaml.safe_load(WORKFLOW.read_text())


def test_workflow_shape():
    flow = load_workflow()
    assert "pull_request" in flow[True]  # YAML 1.1 reads the key "on" as True
    steps = flow["jobs"]["skills-review"]["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    scripts = {line.split()[0] for s in steps if "run" in s for line in s["run"].splitlines()}
    declared = (ROOT / "pyproject.toml").read_text()
    for command in scripts - {"python"}:  # a console script of the toolkit's
        assert f'\n{command} = "exobrain_launcher:' in declared, command


def pull_request_checkout(tmp_path, proof: bool) -> Path:
    """origin with main and a contributor branch; the runner's checkout of the PR merge commit."""
    work = exobrain(tmp_path / "work", registries={"global": []}, scopes=["groups/acme"])
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    git(work, "remote", "add", "origin", str(origin))
    git(work, "checkout", "-q", "-b", "add-lint")
    build_tree(
        work,
        {
            "groups/acme/skills/lint/SKILL.md": skill_md("lint"),
            "groups/acme/skills.json": {
                "skills": [{"name": "lint", "owner": "ann", "tier": "optional"}]
            },
        },
    )
    if proof:
        runs = [{"prompt": "lint this diff", "winner": "with"}]
        build_tree(work, {"groups/acme/skills/lint/ab-results.json": {"runs": runs}})
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "add lint")
    git(work, "checkout", "-q", "main")  # meanwhile main moves on
    build_tree(work, {"README.md": "team exobrain\n"})
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "readme")
    git(work, "push", "-q", "origin", "main", "add-lint")
    # what GitHub does: a test merge of the PR head into the base, at refs/pull/1/merge
    git(work, "checkout", "-q", "--detach", "main")
    git(work, "merge", "-q", "--no-ff", "-m", "Merge add-lint", "add-lint")
    git(work, "push", "-q", "origin", "HEAD:refs/pull/1/merge")
    # what actions/checkout does with fetch-depth: 0
    runner = tmp_path / "runner"
    git(tmp_path, "clone", "-q", str(origin), str(runner))
    git(runner, "fetch", "-q", "origin", "refs/pull/1/merge")
    git(runner, "checkout", "-q", "--detach", "FETCH_HEAD")
    return runner


def run_steps(runner: Path) -> list[tuple[str, int, str]]:
    """Run the workflow's own `run:` lines (after the install step) in the runner checkout."""
    results = []
    for step in load_workflow()["jobs"]["skills-review"]["steps"]:
        if "run" not in step or "pip install" in step["run"]:
            continue
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        }
        for key, value in step.get("env", {}).items():
            env[key] = value.replace("${{ github.base_ref }}", "main")
        env.pop("EXOBRAIN_SKIP_AUTHORING_REVIEW", None)
        done = subprocess.run(
            ["bash", "-eo", "pipefail", "-c", step["run"]],
            cwd=runner,
            env=env,
            capture_output=True,
            text=True,
        )
        results.append((step["name"], done.returncode, done.stdout + done.stderr))
    return results


def test_pull_request_without_proof_fails_the_workflow(tmp_path):
    results = run_steps(pull_request_checkout(tmp_path, proof=False))
    assert [(name, code) for name, code, _ in results] == [
        ("skills-validate", 0),
        ("authoring-review", 1),
    ]
    output = results[1][2]
    assert "lint (groups/acme): declared in groups/acme/skills.json" in output
    assert "compared with origin/main" in output


def test_pull_request_with_proof_passes(tmp_path):
    results = run_steps(pull_request_checkout(tmp_path, proof=True))
    assert [code for _, code, _ in results] == [0, 0], results
    assert "1 new shared skill, all proven (compared with origin/main" in results[1][2]
