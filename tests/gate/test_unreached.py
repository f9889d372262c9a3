"""No silent non-reach: a declaration in a person's scope that is not forced and whose owner is
someone else (the docs' external example, ``owner: anthropic``) reaches no one — skills-validate
says so with the fix, and skills-status gives the reason for every off row, showing an
external skill under the scope that declares it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from exobrain.cli.status import main as status
from exobrain.cli.validate import main as validate
from tests.support.helpers import exobrain

SOURCE = {"repo": "https://github.com/anthropics/skills", "path": "skills/pdf", "ref": "main"}


def repo(tmp_path, *extra):
    return exobrain(
        tmp_path / "repo",
        {
            "people/dana": [
                {"name": "pdf", "owner": "anthropic", "tier": "always", "source": SOURCE},
                {"name": "notes", "owner": "dana", "tier": "always"},
                *extra,
            ]
        },
        scopes=["people/dana"],
        skills={"people/dana/notes": None},
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )


def test_validate_names_a_declaration_that_reaches_no_one(tmp_path):
    done = CliRunner().invoke(validate, ["--json", "--repo", str(repo(tmp_path))])
    found = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "unreached"]
    assert len(found) == 1 and found[0]["level"] == "info"
    assert found[0]["file"] == "people/dana/skills.json" and found[0]["entry"] == "#0 pdf"
    assert "an external skill's owner names its upstream" in found[0]["message"]
    assert "skills-promote pdf --in people/dana --force" in found[0]["message"]
    strict = CliRunner().invoke(validate, ["--strict", "--repo", str(repo(tmp_path / "b"))])
    assert strict.exit_code == 1


def test_a_forced_declaration_is_not_reported(tmp_path):
    forced = {"name": "tidy", "owner": "ops", "tier": "always", "force": True}
    root = repo(tmp_path, forced)
    (root / "people/dana/skills/tidy").mkdir(parents=True)
    (root / "people/dana/skills/tidy/SKILL.md").write_text(
        "---\nname: tidy\ndescription: Use tidy to format the code of a repository.\n---\nGo.\n"
    )
    done = CliRunner().invoke(validate, ["--json", "--repo", str(root)])
    names = [f["entry"] for f in json.loads(done.stdout)["findings"] if f["code"] == "unreached"]
    assert names == ["#0 pdf"]


def test_status_gives_the_reason_for_every_off_and_the_declaring_scope(tmp_path):
    root = repo(tmp_path)
    done = CliRunner().invoke(status, ["--json", "--repo", str(root)])
    rows = {r["name"]: r for r in json.loads(done.stdout)["skills"]}
    assert rows["pdf"]["tier"] == "off" and rows["pdf"]["scope"] == "people/dana"
    assert rows["pdf"]["external"] is True
    assert rows["pdf"]["note"] == "not forced, and its owner anthropic is not you (dana)"
    table = CliRunner().invoke(status, ["--tier", "off", "--repo", str(root)]).stdout
    assert "people/dana (external)" in table and "not forced, and its owner" in table
