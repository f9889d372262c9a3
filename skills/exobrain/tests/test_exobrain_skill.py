"""Proof for the exobrain skill: everything it tells an agent is true of this repository, and
its orientation script works on a real exobrain."""

import re
from pathlib import Path

import pytest

from exobrain.artifacts.specrules import spec_problems
from exobrain.cli.umbrella import VERBS
from exobrain.instance import docfacts
from exobrain.skillmd import read_skill
from exobrain.testkit import isolated_env, run, small_exobrain
from exobrain.util.versions import is_version

SKILL = Path(__file__).resolve().parents[1]
ROOT = SKILL.parents[1]


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)


def texts():
    return {
        p.relative_to(SKILL).as_posix(): p.read_text(encoding="utf-8")
        for p in [SKILL / "SKILL.md", *sorted((SKILL / "references").glob("*.md"))]
    }


def test_frontmatter_follows_the_agent_skills_rules_and_names_its_triggers():
    doc = read_skill(SKILL / "SKILL.md")
    assert spec_problems(doc.meta, SKILL.name) == []
    assert is_version(doc.meta["version"])
    description = doc.meta["description"].lower()
    for trigger in (
        "use it when",
        "what skills exist",
        "search",
        "opt in",
        "relink",
        "signal",
        "add or share",
    ):
        assert trigger in description, trigger


def test_every_command_verb_and_repository_path_it_names_exists():
    programs = docfacts.console_scripts(ROOT)
    for name, text in texts().items():
        assert docfacts.problems(ROOT, text, programs, set(VERBS)) == [], name
        assert docfacts.commands(text), f"{name} names no command"


def test_the_files_it_points_at_inside_the_skill_exist():
    body = (SKILL / "SKILL.md").read_text(encoding="utf-8")
    local = re.findall(r"`((?:references|scripts)/[\w./-]+\.\w+)", body)
    assert {
        "references/commands.md",
        "references/where-things-live.md",
        "scripts/orient.sh",
    } <= set(local)
    for path in local:
        assert (SKILL / path).is_file(), path


def test_orient_prints_the_connection_the_catalog_and_the_health(tmp_path):
    repo = small_exobrain(tmp_path / "exo", ("hello", "tidy"))
    done = run(["bash", str(SKILL / "scripts" / "orient.sh"), str(repo)], tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "== what reaches you" in out and "guest: global only" in out
    assert "hello" in out and "tidy" in out
    assert "2 declaration(s) in all" in out
    assert "Errors: 0" in out


def test_orient_says_how_to_install_when_the_toolkit_is_missing(tmp_path, monkeypatch):
    repo = small_exobrain(tmp_path / "exo")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    done = run(["bash", str(SKILL / "scripts" / "orient.sh"), str(repo)], tmp_path)
    assert done.returncode == 2
    assert "pip install -e ." in done.stderr
