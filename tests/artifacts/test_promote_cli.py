import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.promote import main as promote
from exobrain.cli.status import main as status
from tests.support.helpers import exobrain, skill_md

HOUSE_ACME = """{
  "$schema": "../../skills.schema.json",
  "skills": [
    { "name": "tidy", "owner": "acme", "tier": "always" },
    { "name": "lint", "owner": "carol", "tier": "optional", "notes": "ask carol" }
  ]
}
"""
CREATOR = {
    "name": "skill-creator",
    "owner": "anthropic",
    "tier": "optional",
    "source": {
        "repo": "https://example.com/skills.git",
        "path": "skills/skill-creator",
        "ref": "main",
    },
}


def sample(tmp_path, connection=None, alice=None):
    """global: forced 'hello' + external 'skill-creator'; groups/acme: non-forced 'tidy'."""
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "hello", "owner": "bob", "tier": "optional", "force": True},
                CREATOR,
            ],
            **({"people/alice": alice} if alice is not None else {}),
        },
        scopes=["groups/acme", "people/alice", "people/alice/hosts/laptop", "people/bob"],
        skills={
            "global/hello": None,
            "groups/acme/tidy": skill_md("tidy"),
            "groups/acme/lint": None,
        },
        connection=connection,
    )
    (root / "groups/acme/skills.json").write_text(HOUSE_ACME)
    return root


def run(root, *args):
    result = CliRunner().invoke(promote, ["--repo", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def resolved(root):
    out = CliRunner().invoke(status, ["--repo", str(root), "--json"]).stdout
    return {
        (s["name"], "external" if s["external"] else s["scope"]): (s["tier"], s["declared_by"])
        for s in json.loads(out)["skills"]
    }


def tree(root):
    """Every path under root (.git included) with a hash of its bytes."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            found[os.path.relpath(path, root)] = (
                hashlib.sha256(Path(path).read_bytes()).hexdigest()
                if os.path.isfile(path) and not os.path.islink(path)
                else None
            )
    return found


ALICE = {"connected_scopes": ["people/alice"], "agents": ["claude", "codex"]}


def test_override_of_a_non_forced_group_skill_turns_it_on_for_the_person(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["groups/acme", "people/alice"]})
    assert resolved(root)[("tidy", "groups/acme")] == ("off", "-")
    code, out, err = run(root, "tidy", "--from", "groups/acme", "--to", "always")
    assert code == 0, err
    assert out.splitlines() == [
        "people/alice/skills.json: override tidy from groups/acme: (none) → always",
        "for you: tidy off → always",
        "next: connect-agent AGENT --relink",
    ]
    assert resolved(root)[("tidy", "groups/acme")] == ("always", "people/alice")
    assert json.loads((root / "people/alice/skills.json").read_text()) == {
        "$schema": "../../skills.schema.json",
        "skills": [{"name": "tidy", "from": "groups/acme", "tier": "always"}],
    }


def test_off_shadows_a_forced_global_skill(tmp_path):
    root = sample(tmp_path, ALICE)
    assert resolved(root)[("hello", "global")] == ("optional", "global")
    code, out, _ = run(root, "hello", "--from", "global", "--to", "off")
    assert code == 0 and "for you: hello optional → off" in out
    assert resolved(root)[("hello", "global")] == ("off", "people/alice")
    assert out.splitlines()[-2:] == [
        "next: connect-agent claude --relink",
        "next: connect-agent codex --relink",
    ]


def test_force_makes_a_group_declaration_reach_a_non_owner_and_clearing_restores(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["groups/acme", "people/bob"]})
    assert resolved(root)[("tidy", "groups/acme")] == ("off", "-")
    code, out, _ = run(root, "tidy", "--in", "groups/acme", "--force")
    assert code == 0
    assert out.splitlines()[:3] == [
        "groups/acme/skills.json: declaration tidy (owner acme, tier always): "
        "force false → force true",
        "for you: tidy off → always",
        "note: tidy now reaches everyone whose chain includes groups/acme",
    ]
    assert resolved(root)[("tidy", "groups/acme")] == ("always", "groups/acme")
    assert (
        '    { "name": "tidy", "owner": "acme", "tier": "always", "force": true },\n'
        in (root / "groups/acme/skills.json").read_text()
    )
    code, out, _ = run(root, "tidy", "--in", "groups/acme", "--force=false")
    assert code == 0 and "force true → force false" in out
    assert (root / "groups/acme/skills.json").read_text() == HOUSE_ACME  # key removed
    assert resolved(root)[("tidy", "groups/acme")] == ("off", "-")
    code, out, _ = run(root, "tidy", "--in", "groups/acme", "--force=false")
    assert code == 0 and "already force false (no change)" in out and "next:" not in out


def test_external_override_with_owner(tmp_path):
    root = sample(tmp_path, ALICE)
    code, out, _ = run(
        root,
        "skill-creator",
        "--from",
        "external",
        "--owner",
        "anthropic",
        "--to",
        "always",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["action"] == "added" and data["written"] is True
    assert list(data["after"]) == ["name", "from", "owner", "tier"]
    assert data["effect"] == {
        "skill": "skill-creator",
        "before": "off",
        "after": "always",
        "in_chain": True,
    }
    assert data["next"] == ["connect-agent claude --relink", "connect-agent codex --relink"]
    assert resolved(root)[("skill-creator", "external")] == ("always", "people/alice")
    code, _, err = run(
        root, "skill-creator", "--from", "external", "--owner", "openai", "--to", "always"
    )
    assert code == 2 and "with owner 'openai'" in err and "declared with owner anthropic" in err


def test_existing_override_is_updated_in_place_not_duplicated(tmp_path):
    root = sample(
        tmp_path,
        ALICE,
        alice=[
            {"name": "mine", "owner": "alice", "tier": "always"},
            {"name": "tidy", "from": "groups/acme", "tier": "optional", "notes": "trying it"},
        ],
    )
    code, out, _ = run(root, "tidy", "--from", "groups/acme", "--to", "always")
    assert code == 0 and "optional → always" in out
    entries = json.loads((root / "people/alice/skills.json").read_text())["skills"]
    assert entries == [
        {"name": "mine", "owner": "alice", "tier": "always"},
        {"name": "tidy", "from": "groups/acme", "tier": "always", "notes": "trying it"},
    ]


@pytest.mark.parametrize(
    "text",
    [
        HOUSE_ACME.replace("../../", ""),
        json.dumps(
            {
                "$schema": "skills.schema.json",
                "skills": [{"name": "mine", "owner": "alice", "tier": "always"}],
            },
            indent=4,
        )
        + "\n",
        '{"skills":[{"name":"mine","owner":"alice","tier":"always"}]}',
        HOUSE_ACME.replace("\n", "\r\n"),
    ],
)
def test_promote_then_remove_gives_back_the_same_bytes(tmp_path, text):
    root = sample(tmp_path, ALICE)
    path = root / "people/alice/skills.json"
    path.write_bytes(text.encode())
    for args in (
        ["tidy", "--from", "groups/acme", "--to", "optional"],
        ["skill-creator", "--from", "external", "--owner", "anthropic", "--to", "off"],
    ):
        assert run(root, *args)[0] == 0
        assert path.read_bytes() != text.encode()
        code, out, _ = run(root, *args[:-2], "--remove")
        assert code == 0 and "→ (removed)" in out
        assert path.read_bytes() == text.encode()


def test_dry_run_prints_the_change_and_writes_nothing(tmp_path):
    root = sample(tmp_path, ALICE)
    before = tree(root)
    code, out, _ = run(root, "tidy", "--from", "groups/acme", "--to", "always", "--dry-run")
    assert code == 0 and "(dry run: not written)" in out and "next:" not in out
    code, out, _ = run(root, "tidy", "--in", "groups/acme", "--force", "--dry-run", "--json")
    assert code == 0 and json.loads(out)["written"] is False
    assert tree(root) == before


def test_remove_of_a_missing_override_is_refused(tmp_path):
    root = sample(tmp_path, ALICE)
    before = tree(root)
    code, _, err = run(root, "tidy", "--from", "groups/acme", "--remove")
    assert code == 2 and "people/alice/skills.json holds no override tidy from groups/acme" in err
    assert tree(root) == before


def test_remove_works_for_an_override_whose_declaration_is_gone(tmp_path):
    root = sample(
        tmp_path, ALICE, alice=[{"name": "gone", "from": "groups/acme", "tier": "always"}]
    )
    code, out, _ = run(root, "gone", "--from", "groups/acme", "--remove")
    assert code == 0 and "→ (removed)" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["nope", "--from", "groups/acme", "--to", "always"],
            "no skill 'nope' is declared in groups/acme",
        ),
        (
            ["lint", "--from", "global", "--to", "always"],
            "no skill 'lint' is declared in skills.json",
        ),
        (["tidy", "--from", "groups/nope", "--to", "always"], "--from groups/nope: no such scope"),
        (
            ["tidy", "--from", "groups/acme", "--to", "always", "--into", "groups/nope"],
            "--into groups/nope: no such scope",
        ),
        (["tidy", "--from", "groups/acme", "--to", "always", "--into", "skills"], "no such scope"),
        (
            ["skill-creator", "--from", "external", "--to", "always"],
            "--from external needs --owner",
        ),
        (
            ["tidy", "--from", "groups/acme", "--owner", "acme", "--to", "always"],
            "--owner goes with --from external only",
        ),
        (["skill-creator", "--from", "global", "--to", "always"], "is an external skill"),
        (["tidy", "--from", "groups/acme", "--to", "sometimes"], "Invalid value for '--to'"),
        (["tidy", "--from", "groups/../groups/acme", "--to", "always"], "without '.' or '..'"),
        (["tidy", "--from", "groups/acme", "--to", "always", "--into", "people/../.."], "'..'"),
        (["tidy", "--from", "groups/ac__me", "--to", "always"], "must not contain '__'"),
        (["tidy", "--from", "groups/acme", "--to", "always", "--into", "people/al__ice"], "'__'"),
        (
            ["tidy", "--in", "groups/acme/", "--force", "--into", "people/alice"],
            "does not take --into",
        ),
        (["tidy", "--in", "people/alice", "--force"], "people/alice/skills.json does not exist"),
        (["tidy", "--in", "global", "--force"], "skills.json declares no skill 'tidy'"),
        (["tidy", "--in", "groups/acme", "--force=maybe"], "Invalid value for '--force'"),
        (["tidy", "--force"], "--force and --in go together"),
        (["tidy", "--from", "groups/acme"], "--to TIER is required"),
        (["tidy", "--from", "groups/acme", "--to", "off", "--remove"], "drop --to"),
        (["tidy", "--to", "off"], "--from HOME is required"),
        (["tidy", "--list"], "--list takes no skill name"),
        (["--list", "--from", "global"], "--list does not take --from"),
        ([], "name the skill"),
    ],
)
def test_errors_exit_2_with_a_message_and_leave_every_file_alone(tmp_path, args, message):
    root = sample(tmp_path, ALICE)
    before = tree(root)
    code, out, err = run(root, *args)
    assert code == 2 and message in err, err
    assert "Traceback" not in err and out == ""
    assert tree(root) == before


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"skills": [\n  { "name": "x", "from": "global" }\n]}\n', ":2 #0 x: tier is required"),
        ('{"skills": [\n  { "name": "x", "from": "global", "tier": "always", }\n]}\n', ":2:"),
        ('{"$schema": 1, "skills": []}', "$schema must be the relative path"),
    ],
)
def test_broken_target_file_is_refused_and_left_byte_identical(tmp_path, content, message):
    root = sample(tmp_path, ALICE)
    (root / "people/alice/skills.json").write_text(content)
    before = tree(root)
    code, _, err = run(root, "tidy", "--from", "groups/acme", "--to", "always")
    assert code == 2 and "people/alice/skills.json" in err and message in err
    assert "refusing to rewrite it" in err
    assert tree(root) == before


def test_into_defaults_to_the_person_scope_else_the_deepest_and_guest_must_name_it(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice/hosts/laptop"]})
    assert run(root, "tidy", "--from", "groups/acme", "--to", "always")[0] == 0
    assert (root / "people/alice/skills.json").is_file()
    (root / ".exobrain.json").write_text('{"connected_scopes": ["groups/acme"]}')
    code, out, _ = run(root, "hello", "--from", "global", "--to", "off")
    assert code == 0 and out.startswith("groups/acme/skills.json: override hello from global")
    (root / ".exobrain.json").write_text('{"connected_scopes": []}')
    before = tree(root)
    code, _, err = run(root, "hello", "--from", "global", "--to", "off")
    assert code == 2 and "guest" in err and "--into SCOPE" in err
    assert tree(root) == before
    code, out, _ = run(root, "hello", "--from", "global", "--to", "off", "--into", "people/bob")
    assert code == 0 and "for you: no change (people/bob is not in your connected chain)" in out


def test_list_shows_the_registry(tmp_path):
    root = sample(
        tmp_path, ALICE, alice=[{"name": "tidy", "from": "groups/acme", "tier": "always"}]
    )
    code, out, _ = run(root, "--list", "--into", "groups/acme")
    assert code == 0 and out.splitlines() == [
        "groups/acme/skills.json: 2 entries",
        "#  NAME  KIND         FROM  OWNER  TIER      FORCE  AGENTS",
        "0  tidy  declaration  -     acme   always    no     -",
        "1  lint  declaration  -     carol  optional  no     -",
    ]
    code, out, _ = run(root, "--list", "--json")
    assert code == 0 and json.loads(out) == {
        "scope": "people/alice",
        "file": "people/alice/skills.json",
        "exists": True,
        "entries": [{"name": "tidy", "from": "groups/acme", "tier": "always"}],
        "findings": [],
    }
    code, out, _ = run(root, "--list", "--into", "people/bob")
    assert code == 0 and out.strip() == "people/bob/skills.json: no such file yet (no entries)"
    (root / "people/bob/skills.json").write_text("{")
    code, out, err = run(root, "--list", "--into", "people/bob")
    assert code == 2 and "people/bob/skills.json" in err and "invalid JSON" in err


def test_console_script_runs(tmp_path):
    import subprocess

    root = sample(tmp_path, ALICE)
    done = subprocess.run(
        ["skills-promote", "tidy", "--from", "groups/acme", "--to", "optional"],
        cwd=root / "people",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "(none) → optional" in done.stdout
    assert "\x1b[" not in done.stdout


def test_lifecycle_notes_and_force_needs_owner_when_a_name_is_declared_twice(tmp_path):
    root = sample(tmp_path, ALICE)
    (root / "groups/acme/skills.json").write_text(
        HOUSE_ACME.replace(
            '"ask carol" }',
            '"ask carol" },\n    { "name": "old", "owner": "acme", "tier": "always", '
            '"lifecycle": "archived" },\n    { "name": "tidy", "owner": "kim", "tier": "optional", '
            '"source": { "repo": "https://example.com/t.git", "path": "tidy", "ref": "v1" } }',
        )
    )
    code, out, _ = run(root, "old", "--from", "groups/acme", "--to", "always")
    assert code == 0 and "for you: old stays off" in out
    assert "note: old is archived: it resolves off whatever the tier" in out
    before = tree(root)
    code, _, err = run(root, "tidy", "--in", "groups/acme", "--force")
    assert code == 2 and "declares tidy 2 times (owners acme, kim)" in err and "--owner" in err
    assert tree(root) == before
    code, out, _ = run(root, "tidy", "--in", "groups/acme", "--force", "--owner", "kim", "--json")
    data = json.loads(out)
    assert code == 0 and data["after"]["force"] is True and data["after"]["owner"] == "kim"
    assert list(data["after"]) == ["name", "owner", "tier", "force", "source"]


def test_broken_home_registry_is_reported_and_other_broken_files_do_not_block(tmp_path):
    root = sample(tmp_path, ALICE)
    (root / "people/bob/skills.json").write_text("{ not json")
    assert run(root, "tidy", "--from", "groups/acme", "--to", "always")[0] == 0
    (root / "groups/acme/skills.json").write_text('{"skills": [{"name": "tidy"}]}')
    before = tree(root)
    code, _, err = run(root, "tidy", "--from", "groups/acme", "--to", "optional")
    assert code == 2 and "groups/acme/skills.json: cannot look tidy up: tier is required" in err
    assert tree(root) == before
