import json
import shutil

import pytest
import skills_ref
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from exobrain.skillmd import read_skill
from exobrain.util.dirhash import file_digests, hash_digests
from tests.support.helpers import build_tree, exobrain, git

SKILL = (
    "---\nname: tool\ndescription: Use tool for tooling.\n# a comment that must survive\n"
    "version: 1.0.0\n---\nBody text.\n"
)


def run(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def repo(tmp_path, connection=None):
    root = exobrain(
        tmp_path / "x",
        scopes=["people/al", "groups/g"],
        registries={"global": [{"name": "tool", "owner": "al", "tier": "always", "force": True}]},
        skills={"global/tool": SKILL},
        connection=connection or {"connected_scopes": ["people/al"]},
    )
    build_tree(root, {"skills/tool/helper.py": "print('hi')\n"})
    return root


def test_hash_stable_across_orderings_and_checkouts_changed_by_any_byte(tmp_path):
    a = build_tree(tmp_path / "a", {"z.txt": "1", "sub": {"b.txt": "2", "a.txt": "3"}})
    b = tmp_path / "b"
    b.mkdir()
    for name, text in (("sub/a.txt", "3"), ("z.txt", "1"), ("sub/b.txt", "2")):
        build_tree(b, {name: text})  # created in another order
    assert hash_digests(file_digests(a)) == hash_digests(file_digests(b))
    root = repo(tmp_path)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "x")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    folder_hash = hash_digests(file_digests(root / "skills/tool"))
    assert hash_digests(file_digests(clone / "skills/tool")) == folder_hash
    for rel in ("SKILL.md", "helper.py"):
        path = clone / "skills/tool" / rel
        data = bytearray(path.read_bytes())
        data[-2] ^= 1
        path.write_bytes(bytes(data))
        assert hash_digests(file_digests(clone / "skills/tool")) != folder_hash
        shutil.copy(root / "skills/tool" / rel, path)
    (clone / "skills/tool/__pycache__").mkdir()
    (clone / "skills/tool/__pycache__/x.pyc").write_bytes(b"junk")
    assert hash_digests(file_digests(clone / "skills/tool")) == folder_hash


def test_unbumped_helper_edit_fails_validate_and_bump_fixes_it(tmp_path):
    root = repo(tmp_path)
    assert run(root, "register", str(root / "skills/tool"))[0] == 0
    lock = json.loads((root / "skills.lock.json").read_text())["skills"]["tool"]
    assert lock["version"] == "1.0.0" and set(lock["files"]) == {"SKILL.md", "helper.py"}
    (root / "skills/tool/helper.py").write_text("print('changed')\n")
    result = CliRunner().invoke(validate, ["--repo", str(root), "--json"])
    bad = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "version_bumped"]
    assert result.exit_code == 1 and len(bad) == 1 and "changed helper.py" in bad[0]["message"]
    code, out = run(root, "register", str(root / "skills/tool"))
    assert code == 2 and "bump it" in out
    code, out = run(root, "register", str(root / "skills/tool"), "--bump", "patch")
    assert code == 0 and "1.0.1 (bumped from 1.0.0)" in out
    # the bump moves the toolkit's fields into metadata; the comment survives
    assert (root / "skills/tool/SKILL.md").read_text() == (
        "---\nname: tool\ndescription: Use tool for tooling.\n# a comment that must survive\n"
        'metadata:\n  version: 1.0.1\n  schema_version: "1"\n  source: native\n---\nBody text.\n'
    )
    assert CliRunner().invoke(validate, ["--repo", str(root)]).exit_code == 0
    assert run(root, "lock", "--check")[0] == 0


def test_version_going_backwards_is_an_error(tmp_path):
    root = repo(tmp_path)
    run(root, "register", str(root / "skills/tool"))
    (root / "skills/tool/SKILL.md").write_text(SKILL.replace("1.0.0", "0.9.0"))
    result = CliRunner().invoke(validate, ["--repo", str(root)])
    assert result.exit_code == 1 and "lower than the locked 1.0.0" in result.stdout


def test_register_declares_new_skill_for_the_connected_person(tmp_path):
    root = repo(tmp_path)
    build_tree(
        root,
        {
            "people/al/skills/mine/SKILL.md": (
                "---\nname: mine\ndescription: Use mine for mine.\n---\n"
            )
        },
    )
    code, out = run(root, "register", str(root / "people/al/skills/mine"), "--tier", "always")
    assert code == 0 and "0.1.0" in out
    registry = json.loads((root / "people/al/skills.json").read_text())
    assert registry["$schema"] == "../../skills.schema.json"
    assert registry["skills"] == [{"name": "mine", "owner": "al", "tier": "always"}]
    assert "version: 0.1.0" in (root / "people/al/skills/mine/SKILL.md").read_text()


def test_register_refuses_invalid_skill_and_writes_nothing(tmp_path):
    root = repo(tmp_path)
    build_tree(
        root,
        {
            "people/al/skills/bad/SKILL.md": (
                "---\nname: bad\ndescription: Bad one.\nversion: one\ntriggers: 3\n---\n"
            )
        },
    )
    code, out = run(root, "register", str(root / "people/al/skills/bad"))
    assert code == 2 and "version" in out and "triggers" in out
    assert not (root / "people/al/skills.json").exists()
    assert not (root / "people/al/skills.lock.json").exists()


@pytest.mark.parametrize(
    "start,to,ok",
    [
        ("draft", "active", True),
        ("active", "deprecated", True),
        ("deprecated", "archived", True),
        ("draft", "archived", True),
        ("active", "archived", True),
        ("draft", "deprecated", False),
        ("active", "draft", False),
        ("deprecated", "active", False),
        ("archived", "active", False),
        ("archived", "deprecated", False),
    ],
)
def test_lifecycle_transitions(tmp_path, start, to, ok):
    root = repo(tmp_path)
    registry = root / "skills.json"
    data = json.loads(registry.read_text())
    if start != "active":
        data["skills"][0]["lifecycle"] = start
    registry.write_text(json.dumps(data))
    before = registry.read_bytes()
    code, out = run(root, "lifecycle", "tool", "--to", to)
    if ok:
        assert code == 0 and f"{start} → {to}" in out
        stored = json.loads(registry.read_text())["skills"][0].get("lifecycle", "active")
        assert stored == to
    else:
        # draft is no target at all (refused by the option), the rest by the transition rules
        expected = "is not one of" if to == "draft" else "is not allowed"
        assert code == 2 and expected in out
        assert registry.read_bytes() == before


def test_supersede_writes_link_and_refuses_cycles(tmp_path):
    root = repo(tmp_path)
    build_tree(
        root, {"skills/tool2/SKILL.md": "---\nname: tool2\ndescription: Better tool.\n---\nB\n"}
    )
    data = json.loads((root / "skills.json").read_text())
    data["skills"].append({"name": "tool2", "owner": "al", "tier": "optional"})
    (root / "skills.json").write_text(json.dumps(data))
    code, out = run(root, "supersede", "tool2", "tool")
    assert code == 0 and "now supersedes skill:tool@global" in out
    text = (root / "skills/tool2/SKILL.md").read_text()
    # the link is folded into metadata, where the Agent Skills specification allows it
    assert text == (
        "---\nname: tool2\ndescription: Better tool.\nmetadata:\n"
        '  links: \'{"supersedes": ["skill:tool@global"]}\'\n'
        "  exobrain-fields: links\n---\nB\n"
    )
    assert read_skill(root / "skills/tool2/SKILL.md").meta["links"] == {
        "supersedes": ["skill:tool@global"]
    }
    before = (root / "skills/tool/SKILL.md").read_bytes()
    code, out = run(root, "supersede", "tool", "tool2")
    assert code == 2 and "cycle" in out and (root / "skills/tool/SKILL.md").read_bytes() == before
    code, out = run(root, "show", "tool", "--json")
    assert json.loads(out.split("\n", 0)[0] if False else out)["linked_from"] == {
        "supersedes": ["skill:tool2@global"]
    }


def test_fork_makes_a_valid_draft_and_leaves_the_original(tmp_path):
    root = repo(tmp_path)
    run(root, "register", str(root / "skills/tool"))
    original = {p.name: p.read_bytes() for p in (root / "skills/tool").iterdir()}
    code, out = run(root, "fork", "tool", "--into", "people/al", "--name", "my-tool")
    assert code == 0 and "draft 0.1.0, owner al" in out
    fork_md = (root / "people/al/skills/my-tool/SKILL.md").read_text()
    assert "name: my-tool" in fork_md and "version: 0.1.0" in fork_md and "Body text." in fork_md
    derived = read_skill(root / "people/al/skills/my-tool/SKILL.md").meta["links"]["derives_from"]
    assert derived[0]["ref"] == "skill:tool@global" and derived[0]["version"] == "1.0.0"
    assert derived[0]["hash"].startswith("h1:")
    assert skills_ref.validate(root / "people/al/skills/my-tool") == []  # as agents read it
    assert (root / "people/al/skills/my-tool/helper.py").exists()
    assert json.loads((root / "people/al/skills.json").read_text())["skills"] == [
        {"name": "my-tool", "owner": "al", "tier": "optional", "lifecycle": "draft"}
    ]
    assert {p.name: p.read_bytes() for p in (root / "skills/tool").iterdir()} == original
    result = CliRunner().invoke(validate, ["--repo", str(root), "--json"])
    assert json.loads(result.stdout)["errors"] == 0
    code, out = run(root, "show", "tool", "--json")
    assert json.loads(out)["linked_from"] == {"derives_from": ["skill:my-tool@people/al"]}
    code, out = run(root, "fork", "tool", "--into", "people/al", "--name", "my-tool")
    assert code == 2 and "already exists" in out


def test_show_reports_declarations_overrides_and_resolution(tmp_path):
    root = repo(tmp_path)
    build_tree(
        root,
        {
            "people/al/skills.json": {
                "skills": [{"name": "tool", "from": "global", "tier": "unlisted"}]
            }
        },
    )
    code, out = run(root, "show", "skill:tool@global", "--json")
    facts = json.loads(out)
    assert code == 0 and facts["version"] == "1.0.0" and facts["path"] == "skills/tool/SKILL.md"
    assert facts["resolved"] == {"tier": "unlisted", "decided_by": "people/al", "note": ""}
    assert [o["registry"] for o in facts["overrides"]] == ["people/al/skills.json"]
    code, out = run(root, "show", "tool")
    assert "for you:     unlisted, decided by people/al" in out
