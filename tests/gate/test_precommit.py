"""The hooks really run under pre-commit: the published ones (.pre-commit-hooks.yaml, installed
by pre-commit itself with `try-repo`) and the repository's own .pre-commit-config.yaml."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT
from tests.support.helpers import build_tree, exobrain, git, skill_md

FORCED = {"owner": "ann", "tier": "always", "force": True}


def hook_repo(tmp_path):
    """A git repository holding this project's package and hook definitions, as published."""
    repo = tmp_path / "hooks"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    shutil.copytree(ROOT / "scripts", repo / "scripts", ignore=ignore)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, repo / name)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "toolkit")
    return repo


def feature_exobrain(tmp_path, proof=True):
    """An exobrain on a feature branch that adds a forced global skill (with or without a test)."""
    root = exobrain(tmp_path / "exo", registries={"global": []}, scopes=["people/ann"])
    git(root, "checkout", "-q", "-b", "feature")
    build_tree(
        root,
        {
            "skills/tidy/SKILL.md": skill_md("tidy"),
            "skills.json": {"skills": [{"name": "tidy", **FORCED}]},
        },
    )
    if proof:
        build_tree(root, {"skills/tidy/tests/test_tidy.sh": "#!/bin/sh\ntidy --check\n"})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add tidy")
    return root


def pre_commit(cwd, *args, tmp_path):
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_COLOR": "never",
    }
    env.pop("EXOBRAIN_SKIP_AUTHORING_REVIEW", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_published_hooks_install_and_run_with_try_repo(tmp_path):
    repo = hook_repo(tmp_path)
    root = feature_exobrain(tmp_path)
    done = pre_commit(root, "try-repo", str(repo), "--all-files", tmp_path=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "authoring-review (a shared skill must earn its reach)" in output
    assert output.count("Passed") == 2
    # the same installed hook fails once an unproven shared skill arrives
    build_tree(
        root,
        {"groups/acme/AGENTS.md": "acme\n", "groups/acme/skills/lint/SKILL.md": skill_md("lint")},
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add lint")
    done = pre_commit(
        root, "try-repo", str(repo), "authoring-review", "--all-files", tmp_path=tmp_path
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1 and "Failed" in output
    assert "lint (groups/acme)" in output and "exit code: 1" in output


def test_repository_config_runs_the_hooks_and_guards_commits(tmp_path):
    root = feature_exobrain(tmp_path)
    shutil.copy2(ROOT / ".pre-commit-config.yaml", root / ".pre-commit-config.yaml")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pre-commit config")
    done = pre_commit(root, "run", "--all-files", tmp_path=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("Passed") == 2
    # installed as a git hook, it judges what is staged
    assert pre_commit(root, "install", tmp_path=tmp_path).returncode == 0
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    build_tree(root, {"skills/fmt/SKILL.md": skill_md("fmt")})
    git(root, "add", "skills/fmt/SKILL.md")
    build_tree(root, {"skills/fmt/fmt.eval.json": '{"prompt": "format", "expect": ["ok"]}'})
    refused = subprocess.run(
        ["git", "commit", "-m", "fmt"], cwd=root, env=env, capture_output=True, text=True
    )
    assert refused.returncode != 0 and "fmt (global)" in refused.stdout + refused.stderr
    assert "fmt.eval.json is on disk but not tracked" in refused.stdout + refused.stderr
    git(root, "add", "skills/fmt/fmt.eval.json")
    accepted = subprocess.run(
        ["git", "commit", "-m", "fmt"], cwd=root, env=env, capture_output=True, text=True
    )
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
