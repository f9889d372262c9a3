import json

from click.testing import CliRunner

from exobrain.cli.validate import main as validate
from tests.support import ROOT
from tests.support.helpers import exobrain, skill_md


def run(root, *args):
    result = CliRunner().invoke(validate, ["--repo", str(root), "--json", *args])
    return result.exit_code, json.loads(result.stdout)


def codes(data):
    return sorted((f["code"], f["file"], f["entry"]) for f in data["findings"])


def test_clean_repo_exits_0_with_summary(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={"global": [{"name": "a", "owner": "o", "tier": "always"}]},
        skills={"global/a": None},
    )
    result = CliRunner().invoke(validate, ["--repo", str(root)])
    assert result.exit_code == 0 and result.stdout.strip() == "Errors: 0  Info: 0"


def test_semantic_findings_exit_1(tmp_path):
    root = exobrain(
        tmp_path / "x",
        scopes=["groups/g", "seed"],
        registries={
            "global": [
                {"name": "a", "owner": "o", "tier": "always"},
                {"name": "a", "owner": "p", "tier": "optional"},
                {"name": "gone", "owner": "o", "tier": "always"},
                {"name": "x", "from": "groups/g", "tier": "always"},
                {"name": "e", "from": "external", "owner": "z", "tier": "always"},
                {"name": "t", "from": "groups/g", "tier": "off"},
            ],
            "groups/g": [{"name": "t", "owner": "g", "tier": "optional"}],
        },
        skills={
            "global/a": None,
            "groups/g/t": None,
            "groups/g/orphan": None,
            "seed/create-instance": None,
        },
    )
    code, data = run(root)
    assert code == 1
    assert codes(data) == [
        ("dangling-override", "skills.json", "#3 x"),
        ("dangling-override", "skills.json", "#4 e"),
        ("missing-skill", "skills.json", "#2 gone"),
        ("skill_name_unique", "skills.json", "#1 a"),
        ("undeclared", "groups/g/skills/orphan/SKILL.md", None),
    ]
    assert data["errors"] == 4 and data["info"] == 1
    assert (
        CliRunner().invoke(validate, ["--repo", str(root)]).stdout.splitlines()[-1]
        == "Errors: 4  Info: 1"
    )


def test_info_only_passes_unless_strict(tmp_path):
    root = exobrain(tmp_path / "x", skills={"global/orphan": None})
    assert run(root)[0] == 0 and run(root, "--strict")[0] == 1


def test_quiet_prints_only_errors_and_the_summary(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={"global": [{"name": "gone", "owner": "o", "tier": "always"}]},
        skills={"global/orphan": None},
    )
    result = CliRunner().invoke(validate, ["--repo", str(root), "--quiet"])
    lines = result.stdout.splitlines()
    assert result.exit_code == 1 and len(lines) == 2
    assert lines[0].startswith("ERROR") and "missing-skill" in lines[0]
    assert lines[1] == "Errors: 1  Info: 1"


def test_this_repository_validates_strictly():
    """The shipped skills need nothing done: no finding about fields the toolkit wrote."""
    result = CliRunner().invoke(validate, ["--repo", str(ROOT), "--strict"])
    assert (result.exit_code, result.stdout) == (0, "Errors: 0  Info: 0\n")


def test_skill_md_rules(tmp_path):
    long = "d" * 1025
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": n, "owner": "o", "tier": "optional"} for n in ("a", "b", "c", "d", "e")
            ]
        },
        skills={
            "global/a": skill_md("other"),
            "global/b": skill_md("b", long),
            "global/c": skill_md("c", compatibility="x" * 501),
            "global/d": (
                "---\nname: d\ndescription: Use d when metadata matters.\n"
                "metadata:\n  n: [1]\n---\nDo.\n"
            ),
            "global/e": "---\nname: e\ndescription: ''\n---\nDo.\n",
        },
    )
    code, data = run(root)
    got = sorted((f["file"].split("/")[1], f["code"]) for f in data["findings"])
    assert got == [
        ("a", "skill-name"),
        ("b", "skill-description"),
        ("c", "skill-compatibility"),
        ("d", "skill-metadata"),
        ("e", "skill-description"),
    ]
    assert code == 1


def test_nfkc_name_equal_to_folder_is_fine(tmp_path):
    root = exobrain(tmp_path / "x", skills={"global/ﬁle": skill_md("file")})  # ligature folder
    _code, data = run(root)
    assert [f["code"] for f in data["findings"]] == ["undeclared"]


def test_seed_is_schema_checked_but_not_scanned(tmp_path):
    root = exobrain(
        tmp_path / "x",
        scopes=["seed"],
        registries={"seed": [{"name": "s", "owner": "seed", "tier": "off"}]},
        skills={"seed/create-instance": None},
    )
    code, data = run(root)
    assert code == 2 and codes(data) == [("registry-schema", "seed/skills.json", "#0 s")]
