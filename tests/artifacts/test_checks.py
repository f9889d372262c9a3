import json

from click.testing import CliRunner

from exobrain.cli.validate import main as validate
from tests.support.helpers import exobrain

SRC = {"repo": "https://example.com/r.git", "path": "x", "ref": "v1"}


def findings(root):
    result = CliRunner().invoke(validate, ["--repo", str(root), "--json"])
    data = json.loads(result.stdout)
    return result.exit_code, [(f["code"], f["level"], f["message"]) for f in data["findings"]]


def md(name, extra=""):
    return f"---\nname: {name}\ndescription: Use {name} for things.\n{extra}---\nbody\n"


def test_link_name_collision_between_external_owner_and_scope(tmp_path):
    root = exobrain(
        tmp_path / "x",
        scopes=["groups/g"],
        registries={
            "global": [{"name": "t", "owner": "groups__g", "tier": "optional", "source": SRC}],
            "groups/g": [{"name": "t", "owner": "o", "tier": "optional"}],
        },
        skills={"groups/g/t": md("t")},
    )
    code, found = findings(root)
    assert code == 1
    assert any(c == "skill_name_unique" and "'t.groups__g'" in m for c, _, m in found)


def test_collision_ignored_when_agent_filters_keep_them_apart(tmp_path):
    root = exobrain(
        tmp_path / "x",
        scopes=["groups/g"],
        registries={
            "global": [
                {
                    "name": "t",
                    "owner": "groups__g",
                    "tier": "optional",
                    "source": SRC,
                    "agent": "claude",
                }
            ],
            "groups/g": [{"name": "t", "owner": "o", "tier": "optional", "skipAgents": ["claude"]}],
        },
        skills={"groups/g/t": md("t")},
    )
    assert findings(root)[0] == 0


def test_dependencies_and_links_must_resolve_tools_are_info(tmp_path):
    extra = (
        "dependencies:\n  skills: [skill:b, skill:nope]\n  tools: [alphafold]\n"
        "links:\n  uses_skill: [skill:b@groups/zzz]\n"
    )
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "a", "owner": "o", "tier": "optional"},
                {"name": "b", "owner": "o", "tier": "optional"},
            ]
        },
        skills={"global/a": md("a", extra), "global/b": md("b")},
    )
    code, found = findings(root)
    errors = sorted(
        m for c, lvl, m in found if c == "skill_dependencies_resolve" and lvl == "error"
    )
    assert code == 1 and len(errors) == 2
    assert "skill:nope" in errors[0] and "skill:b@groups/zzz" in errors[1]
    assert any(lvl == "info" and "alphafold" in m for c, lvl, m in found)


def test_derives_from_cycle_is_an_error_and_native_fields_need_nothing(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "a", "owner": "o", "tier": "optional"},
                {"name": "b", "owner": "o", "tier": "optional"},
            ]
        },
        skills={
            "global/a": md("a", "links:\n  derives_from: [skill:b]\n"),
            "global/b": md("b", "version: 1.0.0\nlinks:\n  supersedes: [skill:a]\n"),
        },
    )
    code, found = findings(root)
    assert code == 1
    assert [m for c, _, m in found if c == "links_acyclic"] == [
        "supersedes/derives_from links form a cycle: a@global → b@global → a@global; "
        "remove one of the links"
    ]
    # links are native fields: export moves them into metadata by itself, nothing to say
    assert not any(c == "agentskills_io_compat_check" for c, _, _ in found)


def test_compat_check_speaks_only_when_export_would_refuse(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={"global": [{"name": "a", "owner": "o", "tier": "optional"}]},
        skills={
            "global/a": md(
                "a", "version: 1.0.0\ntags: [x]\nmetadata:\n  tags: y\n  version: 0.9.0\n"
            )
        },
    )
    code, found = findings(root)
    infos = sorted(m for c, lvl, m in found if c == "agentskills_io_compat_check")
    assert code == 0 and infos == [
        "export would refuse it: metadata.version '0.9.0' differs from version '1.0.0'; remove one",
        "export would refuse it: tags would move into metadata, which already has a 'tags' "
        "entry; rename one (or export with --strip)",
    ]


def test_link_name_collision_between_two_scopes_of_the_same_text(tmp_path):
    # people/a/hosts/b and people/a__hosts__b both link "t" as t.people__a__hosts__b
    root = exobrain(
        tmp_path / "x",
        scopes=["people/a", "people/a/hosts/b", "people/a__hosts__b"],
        registries={
            "people/a/hosts/b": [{"name": "t", "owner": "o", "tier": "optional"}],
            "people/a__hosts__b": [{"name": "t", "owner": "o", "tier": "optional"}],
        },
        skills={"people/a/hosts/b/t": md("t"), "people/a__hosts__b/t": md("t")},
    )
    code, found = findings(root)
    assert code == 1
    assert any(c == "skill_name_unique" and "'t.people__a__hosts__b'" in m for c, _, m in found)


def test_scopes_whose_texts_differ_link_apart(tmp_path):
    root = exobrain(
        tmp_path / "x",
        scopes=["people/a_b", "people/a", "people/a/hosts/b_"],
        registries={
            s: [{"name": "t", "owner": "o", "tier": "optional"}]
            for s in ("people/a_b", "people/a", "people/a/hosts/b_")
        },
        skills={f"{s}/t": md("t") for s in ("people/a_b", "people/a", "people/a/hosts/b_")},
    )
    assert not [f for f in findings(root)[1] if f[0] == "skill_name_unique"]
