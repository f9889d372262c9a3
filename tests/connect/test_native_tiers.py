"""``connect-agent claude --native-tiers``: the optional and unlisted skills linked too, their
tiers written as Claude Code's own ``skillOverrides`` in the local settings file, owning exactly
the entries it wrote: a relink changes nothing, the user's entries are never touched, and
``--no-native-tiers`` removes what it added (issue 34)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.connect.nativetiers import with_native
from tests.support.helpers import build_tree, exobrain, git, skill_md

SETTINGS = ".claude/settings.local.json"
YOURS = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "skillOverrides": {"my-own": "off"},
}


@pytest.fixture
def root(tmp_path):
    def entry(name, tier):
        return {"name": name, "owner": "o", "tier": tier, "force": True}

    return exobrain(
        tmp_path / "repo",
        registries={
            "global": [
                entry("tidy", "always"),
                entry("brew-tea", "optional"),
                entry("secret-sauce", "unlisted"),
            ]
        },
        scopes=["people/dana"],
        skills={
            f"global/{n}": skill_md(n, f"Use {n} when the user asks to {n}.")
            for n in ("tidy", "brew-tea", "secret-sauce")
        },
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )


def run(root, *args, code=0):
    result = CliRunner().invoke(connect_cmd, ["claude", *args, "--repo", str(root)])
    assert result.exit_code == code, result.output
    return result


def links(root: Path) -> list[str]:
    folder = root / ".claude/skills"
    return sorted(p.name for p in folder.iterdir() if p.is_symlink()) if folder.is_dir() else []


def overrides(root: Path) -> dict:
    return json.loads((root / SETTINGS).read_text()).get("skillOverrides", {})


def test_the_tiers_go_into_claudes_skill_overrides_and_come_out_again(root):
    build_tree(root, {SETTINGS: YOURS})
    original = (root / SETTINGS).read_text()
    run(root)
    assert links(root) == ["tidy"]
    assert (root / SETTINGS).read_text() == original  # without the option: not touched

    done = run(root, "--native-tiers")
    assert links(root) == ["brew-tea", "secret-sauce", "tidy"]
    data = json.loads((root / SETTINGS).read_text())
    assert data["permissions"] == YOURS["permissions"]  # the rest of the file as it was
    assert data["skillOverrides"] == {
        "my-own": "off",
        "brew-tea": "name-only",
        "secret-sauce": "user-invocable-only",
    }
    assert "updated entry .claude/settings.local.json" in done.output
    # the optional skill is still in the index, with its summary and path
    index = (root / ".claude/optional-skills.md").read_text()
    assert "| brew-tea | skills/brew-tea/SKILL.md | Use brew-tea when" in index
    assert "secret-sauce" not in index
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["native_tiers"] == ["claude"]

    # a relink (what the git hooks run) keeps it, and changes nothing
    before = (root / SETTINGS).read_text()
    again = run(root, "--relink")
    assert (root / SETTINGS).read_text() == before
    assert "~ updated" not in again.output and "+ " not in again.output
    plan = json.loads(run(root, "--relink", "--dry-run", "--json").output)["plan"]
    assert {a["op"] for a in plan} == {"keep"}, [a for a in plan if a["op"] != "keep"]

    # turned off: exactly what it added goes, the user's entries and keys stay
    off = run(root, "--no-native-tiers")
    assert links(root) == ["tidy"]
    assert json.loads((root / SETTINGS).read_text()) == YOURS
    assert "native_tiers" not in json.loads((root / ".exobrain.json").read_text())
    assert "updated entry" in off.output


def test_an_entry_the_user_changed_is_theirs(root):
    run(root, "--native-tiers")
    data = json.loads((root / SETTINGS).read_text())
    data["skillOverrides"]["brew-tea"] = "on"  # as Claude Code's /skills screen writes it
    (root / SETTINGS).write_text(json.dumps(data, indent=2))
    done = run(root, "--relink")
    assert overrides(root)["brew-tea"] == "on"
    assert "skillOverrides.brew-tea is 'on' in settings.local.json, set by you: kept" in " ".join(
        done.output.split()
    )
    run(root, "--no-native-tiers")
    assert overrides(root) == {"brew-tea": "on"}  # ours removed, the user's kept


def test_an_entry_the_user_had_before_is_never_overwritten(root):
    build_tree(root, {SETTINGS: {"skillOverrides": {"brew-tea": "off"}}})
    run(root, "--native-tiers")
    assert overrides(root) == {"brew-tea": "off", "secret-sauce": "user-invocable-only"}
    run(root, "--no-native-tiers")
    assert json.loads((root / SETTINGS).read_text()) == {"skillOverrides": {"brew-tea": "off"}}


def test_a_settings_file_it_created_goes_with_its_entries_and_stays_out_of_git(root):
    assert not (root / SETTINGS).exists()
    run(root, "--native-tiers")
    assert overrides(root) == {"brew-tea": "name-only", "secret-sauce": "user-invocable-only"}
    exclude = (root / ".git/info/exclude").read_text()
    assert "/.claude/settings.local.json" in exclude.splitlines()
    status = git(root, "status", "--porcelain", "--untracked-files=all")
    assert "settings.local.json" not in status
    run(root, "--no-native-tiers")
    assert not (root / SETTINGS).exists()


def test_a_settings_file_that_is_not_json_is_left_alone(root):
    build_tree(root, {SETTINGS: "{ // a comment\n}\n"})
    done = run(root, "--native-tiers")
    assert (root / SETTINGS).read_text() == "{ // a comment\n}\n"
    assert "! skipped" in done.output and "settings.local.json" in done.output


def test_at_user_level_the_entries_go_into_claudes_user_settings(root, isolated_home):
    user_settings = isolated_home / ".claude/settings.json"
    build_tree(isolated_home / ".claude", {"settings.json": {"theme": "dark"}})
    run(root, "--user", "--native-tiers")
    data = json.loads(user_settings.read_text())
    assert data == {
        "theme": "dark",
        "skillOverrides": {"brew-tea": "name-only", "secret-sauce": "user-invocable-only"},
    }
    assert json.loads((root / ".exobrain.json").read_text())["user_native_tiers"] == ["claude"]
    assert not (root / SETTINGS).exists()
    run(root, "--user", "--no-native-tiers")
    assert json.loads(user_settings.read_text()) == {"theme": "dark"}


def test_the_option_is_for_claude_only(root):
    result = CliRunner().invoke(connect_cmd, ["codex", "--native-tiers", "--repo", str(root)])
    assert result.exit_code == 2
    assert "--native-tiers is for claude" in result.output
    assert "enabled = false only turns a skill off" in result.output


def test_the_stored_option_per_level():
    raw = {"agents": ["claude"]}
    on = with_native(raw, "claude", False, True)
    assert on["native_tiers"] == ["claude"] and "user_native_tiers" not in on
    assert with_native(on, "claude", False, None) == on
    assert with_native(on, "claude", False, False) == raw
    assert with_native(on, "claude", True, True)["user_native_tiers"] == ["claude"]
