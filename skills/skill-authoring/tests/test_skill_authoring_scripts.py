"""Proof for the skill-authoring skill: its description linter tells a working trigger from a
label, the shipped skills pass it, and ab_record.py keeps a correct tally."""

import json
import sys
from pathlib import Path

import pytest

from exobrain.artifacts.specrules import spec_problems
from exobrain.skillmd import read_skill
from exobrain.testkit import isolated_env, run

SKILL = Path(__file__).resolve().parents[1]
CHECK = SKILL / "scripts" / "check_description.py"
RECORD = SKILL / "scripts" / "ab_record.py"
GLOBAL_SKILLS = SKILL.parent


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)


def write_skill(folder: Path, description: str, body: str = "Steps.\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {folder.name}\ndescription: {description}\n---\n{body}", encoding="utf-8"
    )
    return folder


def lint(*paths):
    return run([sys.executable, str(CHECK), *map(str, paths)], Path.cwd())


def test_frontmatter_is_valid():
    doc = read_skill(SKILL / "SKILL.md")
    assert spec_problems(doc.meta, SKILL.name) == []


def test_a_trigger_rich_description_passes(tmp_path):
    skill = write_skill(
        tmp_path / "release-notes",
        "Formats release notes from merged pull requests. Use it when the user "
        "asks for release notes, wants a changelog, or says what changed since "
        "the last tag.",
    )
    done = lint(skill)
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().endswith("ok")


@pytest.mark.parametrize(
    "description, expected",
    [
        ("Helps with git.", "too short"),
        (
            "Formats release notes from merged pull requests into the house changelog style.",
            "no trigger clause",
        ),
    ],
)
def test_a_label_is_an_error(tmp_path, description, expected):
    done = lint(write_skill(tmp_path / "notes", description))
    assert done.returncode == 1
    assert expected in done.stdout


def test_warnings_do_not_fail_but_missing_files_and_wrong_names_do(tmp_path):
    skill = write_skill(
        tmp_path / "notes",
        "This skill writes notes. Use it when the user asks for notes.",
        "Read `references/format.md` first.\n",
    )
    done = lint(skill)
    assert done.returncode == 1
    assert "starts with filler" in done.stdout
    assert "fewer than 3 phrasings" in done.stdout
    assert "references/format.md, which does not exist" in done.stdout
    (skill / "references").mkdir()
    (skill / "references" / "format.md").write_text("# format\n")
    assert lint(skill).returncode == 0
    renamed = tmp_path / "other"
    skill.rename(renamed)
    assert "differs from the folder" in lint(renamed).stdout


def test_the_skills_shipped_with_it_pass_the_linter():
    shipped = [GLOBAL_SKILLS / name for name in ("exobrain", "exobrain-tests", "skill-authoring")]
    done = lint(*shipped)
    assert done.returncode == 0, done.stdout


def test_unreadable_input_exits_2(tmp_path):
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "SKILL.md").write_text("no frontmatter\n")
    assert lint(tmp_path / "broken").returncode == 2


def test_ab_record_appends_runs_and_keeps_the_tally(tmp_path):
    skill = write_skill(tmp_path / "release-notes", "Use it when the user asks for notes.")
    (tmp_path / "with.md").write_text("x" * 5000)
    first = run(
        [
            sys.executable,
            str(RECORD),
            str(skill),
            "--prompt",
            "changelog for v2",
            "--winner",
            "with",
            "--with-output",
            str(tmp_path / "with.md"),
            "--note",
            "grouped by area",
        ],
        tmp_path,
    )
    assert first.returncode == 0, first.stderr
    assert "earns its tokens" in first.stdout
    for winner in ("tie", "without"):
        assert (
            run(
                [sys.executable, str(RECORD), str(skill), "--prompt", "p", "--winner", winner],
                tmp_path,
            ).returncode
            == 0
        )
    data = json.loads((skill / "ab-results.json").read_text())
    assert data["summary"] == {"runs": 3, "with": 1, "without": 1, "tie": 1}
    assert len(data["runs"][0]["with_output"]) == 2000
    assert data["runs"][0]["note"] == "grouped by area"
    last = run(
        [sys.executable, str(RECORD), str(skill), "--prompt", "p", "--winner", "with"], tmp_path
    )
    assert "mostly ties" not in last.stdout and "earns its tokens" in last.stdout


def test_ab_record_refuses_a_folder_without_skill_md(tmp_path):
    done = run(
        [sys.executable, str(RECORD), str(tmp_path), "--prompt", "p", "--winner", "tie"], tmp_path
    )
    assert done.returncode == 2 and "no SKILL.md" in done.stderr
