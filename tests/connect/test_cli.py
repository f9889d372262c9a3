"""connect-agent end to end on real temporary exobrains (HOME and agent folders in tmp_path)."""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.connect.indexes import GENERATED_MARK
from tests.support.helpers import build_tree, exobrain, git, mtimes, skill_md

FORCED = {"owner": "bob", "force": True}


def sample(tmp_path, connection=None):
    """alice and bob in group acme; see each entry's comment for what it proves."""
    return exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {"name": "hello", "tier": "optional", **FORCED},  # forced optional
                {"name": "common", "tier": "always", **FORCED},
                {"name": "shadowed", "tier": "always", **FORCED},  # alice: off
                {"name": "claude-only", "tier": "always", "agent": "claude", **FORCED},
                {"name": "no-codex", "tier": "always", "skipAgents": ["codex"], **FORCED},
                {"name": "dup", "tier": "always", **FORCED},
                {"name": "hidden", "tier": "unlisted", **FORCED},
            ],
            "groups/acme": [
                {"name": "grp", "owner": "acme", "tier": "always", "force": True},
                {"name": "dup", "owner": "acme", "tier": "always", "force": True},
            ],
            "people/alice": [
                {"name": "shadowed", "from": "global", "tier": "off"},
                {"name": "grp", "from": "groups/acme", "tier": "unlisted"},
            ],
            "people/bob": [{"name": "bobs", "owner": "bob", "tier": "always"}],
        },
        scopes=["groups/acme", "people/alice", "people/bob"],
        skills={
            "global/hello": "---\nname: hello\ndescription: >-\n  Say hello | wave.\n"
            "  Second line.\n---\nBody.\n",
            **{
                f"global/{n}": None
                for n in ("common", "shadowed", "claude-only", "no-codex", "dup", "hidden")
            },
            "groups/acme/grp": None,
            "groups/acme/dup": None,
            "people/bob/bobs": None,
        },
        connection=connection,
    )


def run(root, *args):
    result = CliRunner().invoke(connect_cmd, [*args, "--repo", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def links(folder: Path) -> dict[str, str]:
    return (
        {p.name: os.readlink(p) for p in folder.iterdir() if p.is_symlink()}
        if folder.is_dir()
        else {}
    )


def snapshot(*folders: Path) -> dict[str, tuple]:
    """Every path with its kind, link target or content, and mtime."""
    state = {}
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                if p.is_symlink():
                    state[str(p)] = ("link", os.readlink(p), p.lstat().st_mtime_ns)
                elif p.is_file():
                    state[str(p)] = ("file", p.read_bytes(), p.stat().st_mtime_ns)
                else:
                    state[str(p)] = ("dir", p.stat().st_mtime_ns)
    return state


ALICE = {"common", "claude-only", "no-codex", "dup.global", "dup.groups__acme"}


def test_alice_claude_links_index_and_context(tmp_path):
    root = sample(tmp_path)
    result = run(root, "claude", "--person", "alice", "--group", "acme", "--host", "nohost")
    assert result.exit_code == 0, result.output
    got = links(root / ".claude/skills")
    # two same-named skills → two links told apart by home; off/unlisted/not mine absent
    assert set(got) == ALICE
    assert got["dup.groups__acme"] == "../../groups/acme/skills/dup"
    assert got["dup.global"] == "../../skills/dup"
    assert "dup: 2 skills of this name reach claude" in result.output
    assert (root / ".claude/skills/common/SKILL.md").is_file()
    index = (root / ".claude/optional-skills.md").read_text()
    assert index.startswith(GENERATED_MARK)
    assert "| hello | skills/hello/SKILL.md | Say hello \\| wave. Second line. |" in index
    assert "hidden" not in index and "grp" not in index and "shadowed" not in index
    scopes = (root / ".claude/connected-scopes.md").read_text()
    assert scopes.index("@../groups/acme/AGENTS.md") < scopes.index("@../people/alice/AGENTS.md")
    assert (root / ".claude/CLAUDE.md").read_text() == (
        "<!-- BEGIN exobrain -->\n@connected-scopes.md\n@optional-skills.md\n"
        "<!-- END exobrain -->\n"
    )
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored == {
        "connected_scopes": ["groups/acme", "people/alice"],
        "person": "alice",
        "agents": ["claude"],
    }
    assert "+ linked        common → ../../skills/common" in result.output
    assert "no host scope people/alice/hosts/nohost" in result.output
    assert result.output.strip().splitlines()[-1].startswith("done: 5 linked, 0 kept")


def test_agent_filters_apply_per_agent(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["groups/acme", "people/alice"]})
    assert run(root, "codex").exit_code == 0
    assert set(links(root / ".agents/skills")) == {"common", "dup.global", "dup.groups__acme"}


def test_bobs_own_skill_reaches_bob_only(tmp_path):
    root = sample(tmp_path)
    run(root, "claude", "--person", "alice")
    assert "bobs" not in links(root / ".claude/skills")
    run(root, "claude", "--person", "bob")
    got = links(root / ".claude/skills")
    assert got["bobs"] == "../../people/bob/skills/bobs"
    assert "shadowed" in got  # alice's off override is not in bob's chain
    # acme no longer connected: its link is removed, and the global one is plain again
    assert got["dup"] == "../../skills/dup"
    assert "dup.groups__acme" not in got and "dup.global" not in got


def test_second_run_writes_nothing(tmp_path, isolated_home):
    root = sample(tmp_path)
    run(root, "claude", "--person", "alice", "--group", "acme")
    before = mtimes(root), mtimes(isolated_home)
    result = run(root, "claude", "--relink")
    assert result.exit_code == 0
    assert (mtimes(root), mtimes(isolated_home)) == before
    assert (
        "done: 0 linked, 5 kept, 0 replaced, 0 removed, 0 skipped, 0 file(s) changed"
        in result.output
    )
    again = run(root, "claude")  # stored connection, not --relink: same result
    assert (mtimes(root), mtimes(isolated_home)) == before and again.exit_code == 0


def test_changed_index_is_rewritten_unchanged_one_is_not(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    run(root, "claude")
    index, scopes = root / ".claude/optional-skills.md", root / ".claude/connected-scopes.md"
    stamp = scopes.stat().st_mtime_ns
    build_tree(root, {"skills/hello/SKILL.md": skill_md("hello", "A new summary.")})
    result = run(root, "claude", "--relink")
    assert "~ updated       .claude/optional-skills.md" in result.output
    assert "A new summary." in index.read_text() and scopes.stat().st_mtime_ns == stamp


def test_removing_a_declaration_removes_its_link(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    run(root, "claude")
    assert "common" in links(root / ".claude/skills")
    registry = root / "skills.json"
    data = json.loads(registry.read_text())
    data["skills"] = [e for e in data["skills"] if e["name"] != "common"]
    registry.write_text(json.dumps(data))
    result = run(root, "claude", "--relink")
    assert "common" not in links(root / ".claude/skills")
    assert "- removed       common" in result.output


def test_foreign_symlink_and_real_folder_survive_every_run(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    outside = tmp_path / "elsewhere"
    build_tree(outside, {"thing/SKILL.md": "x"})
    skills = root / ".claude/skills"
    build_tree(skills, {"common/SKILL.md": "my own copy", "mine/SKILL.md": "mine"})
    os.symlink(outside / "thing", skills / "dup")  # foreign, at a wanted name
    os.symlink(outside / "thing", skills / "other")  # foreign, unrelated
    os.symlink(root / ".agents/skills/x", skills / "sideways")  # into the repo, not a skill
    for step in range(3):
        result = run(root, "claude")
        assert (skills / "common/SKILL.md").read_text() == "my own copy"
        assert os.readlink(skills / "dup") == str(outside / "thing")
        assert os.readlink(skills / "other") == str(outside / "thing")
        assert (skills / "sideways").is_symlink() and (skills / "mine").is_dir()
        assert result.exit_code == 0
        if step < 2:  # theirs hold the plain names: ours go beside them, told apart, said so
            assert "common: .claude/skills/common is not ours" in result.output
            assert "linked as common.global" in result.output
            assert os.readlink(skills / "common.global") == "../../skills/common"
            assert os.readlink(skills / "dup.global") == "../../skills/dup"
        if step == 1:  # no skill is wanted any more: our links go, theirs stay
            (root / "skills.json").write_text(json.dumps({"skills": []}))
    assert sorted(p.name for p in skills.iterdir()) == [
        "common",
        "dup",
        "mine",
        "other",
        "sideways",
    ]


def test_dry_run_prints_the_plan_and_changes_nothing(tmp_path, isolated_home):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    before = snapshot(root, isolated_home)
    result = run(root, "claude", "--dry-run", "--person", "bob")
    assert result.exit_code == 0
    assert "+ linked        bobs → ../../people/bob/skills/bobs" in result.output
    assert "dry run, nothing changed" in result.output
    assert snapshot(root, isolated_home) == before
    data = json.loads(run(root, "claude", "--dry-run", "--json").output)
    assert data["dry_run"] is True and data["result"]["applied"] is False
    assert {a["name"] for a in data["plan"] if a["kind"] == "link"} == {
        "common",
        "claude-only",
        "no-codex",
        "dup",
    }
    assert snapshot(root, isolated_home) == before


def test_json_reports_plan_and_result(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["groups/acme", "people/alice"]})
    data = json.loads(run(root, "claude", "--json").output)
    assert data["connection"]["chain"] == ["global", "groups/acme", "people/alice"]
    assert data["connection"]["source"] == "stored"
    ops = {(a["kind"], a["name"]): a["op"] for a in data["plan"]}
    assert ops[("link", "common")] == "create" and ops[("file", "optional-skills.md")] == "create"
    assert data["result"] == {"applied": True, "changes": data["result"]["changes"], "exit_code": 0}
    again = json.loads(run(root, "claude", "--json").output)
    assert again["result"]["changes"] == 0
    assert {a["op"] for a in again["plan"]} == {"keep"}


def test_relink_when_never_connected_says_so(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"], "agents": ["codex"]})
    before = snapshot(root)
    result = run(root, "claude", "--relink")
    assert result.exit_code == 0
    assert "claude was never connected here" in result.output and "codex" in result.output
    assert snapshot(root) == before
    assert run(root, "claude", "--relink", "--person", "bob").exit_code == 2


def test_unknown_agent_lists_known_ones(tmp_path):
    root = sample(tmp_path)
    result = run(root, "vim")
    assert result.exit_code == 2
    assert "unknown agent 'vim'" in result.stderr and "claude, codex, openclaw" in result.stderr


def test_generated_index_removed_when_empty_but_users_file_kept(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    run(root, "claude")
    overrides = root / "people/alice/skills.json"
    data = json.loads(overrides.read_text())
    data["skills"].append({"name": "hello", "from": "global", "tier": "off"})
    overrides.write_text(json.dumps(data))
    result = run(root, "claude", "--relink")
    assert not (root / ".claude/optional-skills.md").exists()
    assert "- removed       .claude/optional-skills.md (nothing to list)" in result.output
    assert "@optional-skills.md" not in (root / ".claude/CLAUDE.md").read_text()
    # a file of the user's with the same name: neither overwritten nor removed
    (root / ".gemini").mkdir()
    (root / ".gemini/optional-skills.md").write_text("my notes\n")
    data["skills"].pop()
    overrides.write_text(json.dumps(data))
    result = run(root, "gemini")
    assert (root / ".gemini/optional-skills.md").read_text() == "my notes\n"
    assert "! skipped       .gemini/optional-skills.md: not generated" in result.output
    overrides.write_text(
        json.dumps({"skills": [{"name": "hello", "from": "global", "tier": "off"}]})
    )
    run(root, "gemini", "--relink")
    assert (root / ".gemini/optional-skills.md").read_text() == "my notes\n"


def test_claude_block_keeps_the_users_claude_md(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    build_tree(
        root,
        {
            ".claude/CLAUDE.md": "# My notes\n\nBe brief.\n",
            "people/alice/CLAUDE.md": "alice for claude\n",
        },
    )
    run(root, "claude")
    text = (root / ".claude/CLAUDE.md").read_text()
    assert text.startswith("# My notes\n\nBe brief.\n\n<!-- BEGIN exobrain -->\n")
    assert "@../people/alice/CLAUDE.md" in (root / ".claude/connected-scopes.md").read_text()
    run(root, "claude", "--guest")
    overrides = root / "skills.json"
    data = json.loads(overrides.read_text())
    data["skills"] = [e for e in data["skills"] if e["name"] != "hello"]
    overrides.write_text(json.dumps(data))
    run(root, "claude", "--relink")
    assert (root / ".claude/CLAUDE.md").read_text() == "# My notes\n\nBe brief.\n"
    assert not (root / ".claude/connected-scopes.md").exists()


def test_openclaw_block_created_updated_in_place_never_duplicated(tmp_path, isolated_home):
    root = sample(tmp_path, {"connected_scopes": ["groups/acme", "people/alice"]})
    user_md = isolated_home / ".openclaw/workspace/USER.md"
    build_tree(user_md.parent, {"USER.md": "# About me\nI like tea.\n"})
    run(root, "openclaw")
    text = user_md.read_text()
    assert text.startswith("# About me\nI like tea.\n\n<!-- BEGIN exobrain -->\n")
    assert f"people/alice: {root}/people/alice/AGENTS.md" in text
    assert f"| hello | {root}/skills/hello/SKILL.md |" in text
    assert set(links(isolated_home / ".openclaw/workspace/skills")) == {
        "common",
        "no-codex",
        "dup.global",
        "dup.groups__acme",
    }
    assert os.readlink(isolated_home / ".openclaw/workspace/skills/common") == str(
        root / "skills/common"
    )  # outside the repository: absolute
    user_md.write_text(text + "\nMore about me.\n")
    build_tree(root, {"skills/hello/SKILL.md": skill_md("hello", "Changed.")})
    run(root, "openclaw", "--relink")
    text = user_md.read_text()
    assert text.count("<!-- BEGIN exobrain -->") == 1 and "Changed." in text
    assert text.endswith("<!-- END exobrain -->\n\nMore about me.\n")
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["agents"] == ["openclaw"]


def test_codex_override_inlines_scopes_and_index(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["groups/acme", "people/alice"]})
    build_tree(root, {"AGENTS.md": "# Root rules\n", "groups/acme/AGENTS.md": "# Acme rules\n"})
    run(root, "codex")
    text = (root / "AGENTS.override.md").read_text()
    assert text.startswith(GENERATED_MARK)
    assert text.index("# Root rules") < text.index("# Acme rules") < text.index("# people/alice")
    assert "| hello | skills/hello/SKILL.md |" in text
    run(root, "codex", "--guest")
    assert "# Acme rules" not in (root / "AGENTS.override.md").read_text()
    build_tree(root, {"AGENTS.md": "# Root rules\n" + "x" * 40000})
    result = run(root, "codex", "--person", "alice")
    assert (
        "AGENTS.override.md is over the context budget of codex (28,672 bytes: Codex's "
        "project_doc_max_bytes (32 KiB) less 4 KiB for a folder's AGENTS.md) even without "
        "the optional skills"
    ) in " ".join(result.stderr.split())
    # the index went to the overflow file, which the override points to
    assert "| hello |" in (root / ".codex/optional-skills-more.md").read_text()
    assert ".codex/optional-skills-more.md" in (root / "AGENTS.override.md").read_text()


def test_user_level_folder_and_relink(tmp_path, isolated_home):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    result = run(root, "claude", "--user")
    assert result.exit_code == 0, result.output
    home = isolated_home / ".claude"
    assert os.readlink(home / "skills/common") == str(root / "skills/common")
    assert f"| hello | {root}/skills/hello/SKILL.md |" in (home / "optional-skills.md").read_text()
    assert f"@{root}/people/alice/AGENTS.md" in (home / "connected-scopes.md").read_text()
    assert not (root / ".claude").exists()
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["agents"] == [] and stored["user_agents"] == ["claude"]
    assert "never connected" in run(root, "claude", "--relink").output
    before = mtimes(isolated_home)
    assert run(root, "claude", "--relink", "--user").exit_code == 0
    assert mtimes(isolated_home) == before


def test_shared_folder_is_pruned_over_the_union_of_its_agents(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    run(root, "codex")
    run(root, "agents")
    shared = root / ".agents/skills"
    assert "no-codex" in links(shared)  # wanted by `agents`, not by codex
    result = run(root, "codex", "--relink")
    assert "no-codex" in links(shared) and "- removed" not in result.output
    assert (root / ".agents/optional-skills.md").is_file()  # agents' index beside the folder
    registry = root / "skills.json"
    data = json.loads(registry.read_text())
    data["skills"] = [e for e in data["skills"] if e["name"] != "no-codex"]
    registry.write_text(json.dumps(data))
    run(root, "codex", "--relink")
    assert "no-codex" not in links(shared)  # nobody wants it any more


def test_installed_external_folder_is_left_alone_and_reported_once(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    skills = root / ".claude/skills"
    build_tree(
        skills,
        {
            "common/SKILL.md": "x",
            "common/.exobrain-source.json": "{}",
            "ext.anthropic/SKILL.md": "x",
            "ext.anthropic/.exobrain-source.json": "{}",
        },
    )
    result = run(root, "claude")
    assert result.output.count("common") == 1
    assert "! skipped       common: an external skill installed by the fetcher" in result.output
    assert "ext.anthropic" not in result.output
    assert (skills / "ext.anthropic/SKILL.md").is_file()


def test_forced_global_optional_reaches_a_non_owner_index(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["groups/acme"]})  # no person: not bob
    run(root, "cursor")
    assert "| hello |" in (root / ".cursor/rules/exobrain-skills.mdc").read_text()
    assert set(links(root / ".cursor/skills")) == {
        "common",
        "shadowed",
        "no-codex",
        "dup.global",
        "dup.groups__acme",
        "grp",
    }


def test_flags_never_create_and_a_missing_handle_connects_nothing(tmp_path):
    root = sample(tmp_path)
    result = run(root, "claude", "--person", "zed")
    assert result.exit_code == 1
    assert "nothing connected: --person zed matched no scope" in result.stderr
    assert not (root / "people/zed").exists() and not (root / ".claude").exists()
    assert not (root / ".exobrain.json").exists()
    assert run(root, "claude", "--guest", "--person", "alice").exit_code == 2


def test_host_scope_defaults_to_the_short_hostname(tmp_path, monkeypatch):
    root = sample(tmp_path)
    build_tree(root, {"people/alice/hosts/box/AGENTS.md": "# box\n"})
    monkeypatch.setattr("exobrain.connect.connector.short_hostname", lambda: "box")
    run(root, "claude", "--person", "alice")
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["connected_scopes"] == ["people/alice/hosts/box"]
    run(root, "claude", "--scope", "groups/acme", "--scope", "people/bob")
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["connected_scopes"] == ["groups/acme", "people/bob"] and "person" not in stored


def test_guest_without_connection_and_stored_unknown_keys_kept(tmp_path):
    root = sample(tmp_path)
    result = run(root, "claude")
    assert "connected as guest" in result.output
    assert set(links(root / ".claude/skills")) == {
        "common",
        "shadowed",
        "claude-only",
        "no-codex",
        "dup",
    }
    stored = json.loads((root / ".exobrain.json").read_text())
    stored["theme"] = "dark"
    (root / ".exobrain.json").write_text(json.dumps(stored))
    run(root, "codex")
    assert json.loads((root / ".exobrain.json").read_text())["theme"] == "dark"


def test_external_rows_call_the_fetcher_and_its_failure_is_a_warning(tmp_path):
    from exobrain.connect.connector import connect
    from exobrain.connect.request import Request

    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    registry = root / "people/alice/skills.json"
    data = json.loads(registry.read_text())
    data["skills"].append(
        {
            "name": "ext",
            "owner": "alice",
            "tier": "optional",
            "source": {"repo": "file:///nowhere", "path": "s", "ref": "main"},
        }
    )
    registry.write_text(json.dumps(data))
    calls = []

    def failing_sync(**kwargs):
        calls.append(kwargs)
        raise RuntimeError("remote unreachable")

    report = connect(Request("claude", root, external_sync=failing_sync))
    assert [r.name for r in calls[0]["rows"] if r.is_external] == ["ext"]
    assert calls[0]["folders"].skills == root / ".claude/skills"
    assert report.warnings == ["external skills not updated: remote unreachable"]
    assert report.exit_code == 0 and (root / ".claude/skills/common").is_symlink()
    report = connect(Request("claude", root, dry_run=True, external_sync=failing_sync))
    assert (
        len(calls) == 1 and "1 external skill(s) resolve here, not fetched now" in report.notes[-1]
    )


def test_connect_fetches_external_skills_and_lists_the_optional_ones(tmp_path):
    from tests.support.upstream import Upstream, external, two_skills

    up = Upstream(tmp_path, two_skills())
    root = sample(
        tmp_path, {"connected_scopes": ["people/alice"], "external_skills": {"allow_local": True}}
    )
    registry = root / "skills.json"
    data = json.loads(registry.read_text())
    data["skills"] += [external("pdf", up.url), external("doc", up.url, tier="optional")]
    registry.write_text(json.dumps(data))
    result = run(root, "claude")
    assert result.exit_code == 0, result.output + result.stderr
    assert "↓ external      pdf: fetched" in result.output
    installed = root / ".claude/skills/pdf"
    assert (installed / "SKILL.md").is_file() and not installed.is_symlink()
    assert (
        "| doc | .claude/skills-optional/doc/SKILL.md | Use for documents. |"
        in (root / ".claude/optional-skills.md").read_text()
    )
    again = run(root, "claude", "--relink")
    assert "= external      pdf: already at" in again.output
    assert "skipped       pdf" not in again.output  # the fetcher's, not in the way
    data["skills"] = [e for e in data["skills"] if "source" not in e]
    registry.write_text(json.dumps(data))
    result = run(root, "claude", "--relink")
    assert "- external      pdf: removed" in result.output
    assert not installed.exists()
    assert "| doc |" not in (root / ".claude/optional-skills.md").read_text()


def test_unreachable_external_source_does_not_stop_the_connect(tmp_path):
    root = sample(
        tmp_path, {"connected_scopes": ["people/alice"], "external_skills": {"allow_local": True}}
    )
    registry = root / "skills.json"
    data = json.loads(registry.read_text())
    data["skills"].append(
        {
            "name": "gone",
            "owner": "x",
            "tier": "always",
            "force": True,
            "source": {
                "repo": (tmp_path / "nowhere.git").as_uri(),
                "path": "skills/gone",
                "ref": "main",
            },
        }
    )
    registry.write_text(json.dumps(data))
    result = run(root, "claude")
    assert result.exit_code == 0
    assert "✗ external      gone: failed" in result.output
    everything = result.output + result.stderr
    assert sum("gone" in line for line in everything.splitlines()) == 1  # one line per failure
    assert (root / ".claude/skills/common").is_symlink()


def test_connect_from_a_subfolder_finds_the_repository(tmp_path, monkeypatch):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    monkeypatch.chdir(root / "people/alice")
    result = CliRunner().invoke(connect_cmd, ["claude"])
    assert result.exit_code == 0 and "common" in links(root / ".claude/skills")


def test_worktree_has_its_own_links(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    wt = tmp_path / "wt"
    assert run(wt, "claude", "--person", "bob").exit_code == 0
    assert "bobs" in links(wt / ".claude/skills")
    assert not (root / ".claude").exists()
    assert (root / ".git/hooks/post-merge").is_file()  # worktrees share the hooks folder


@pytest.mark.parametrize(
    "agent,folder,reads,index",
    [
        ("gemini", ".gemini", "GEMINI.md", ".gemini/optional-skills.md"),
        ("opencode", ".opencode", ".opencode/opencode.json", ".opencode/optional-skills.md"),
        (
            "copilot",
            ".github",
            ".github/instructions/exobrain-skills.instructions.md",
            ".github/instructions/exobrain-skills.instructions.md",
        ),
        (
            "cursor",
            ".cursor",
            ".cursor/rules/exobrain-skills.mdc",
            ".cursor/rules/exobrain-skills.mdc",
        ),
    ],
)
def test_each_agent_reads_its_index_where_it_reads_instructions(
    tmp_path, agent, folder, reads, index
):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    build_tree(root, {folder: {"optional-skills.md": f"{GENERATED_MARK}\nan earlier index\n"}})
    assert run(root, agent).exit_code == 0
    assert "common" in links(root / folder / "skills")
    assert "| hello |" in (root / index).read_text()
    surface = (root / reads).read_text()
    if agent == "gemini":  # GEMINI.md imports it (memport's @./ path, relative to the file)
        assert "<!-- BEGIN exobrain -->\n@./.gemini/optional-skills.md\n" in surface
    elif agent == "opencode":  # listed among opencode.json's instructions
        assert json.loads(surface) == {"instructions": [".opencode/optional-skills.md"]}
    else:  # a rule file with the frontmatter that loads it every session
        assert surface.startswith("---\n") and ("alwaysApply: true" in surface) == (
            agent == "cursor"
        )
        assert GENERATED_MARK in surface
        # the index an earlier version wrote where this agent never read it is gone
        assert not (root / folder / "optional-skills.md").exists()
    before = mtimes(root)
    assert run(root, agent, "--relink").exit_code == 0
    assert mtimes(root) == before


def test_a_write_between_plan_and_apply_is_not_lost(tmp_path, monkeypatch):
    import exobrain.connect.connector as connector

    root = sample(tmp_path, {"connected_scopes": ["people/alice"], "agents": []})
    original = connector._prepare

    def racing(ws, agent, choice, request, *, sync):
        report = original(ws, agent, choice, request, sync=sync)
        if sync:  # another connect records its agent after our first plan
            path = root / ".exobrain.json"
            data = json.loads(path.read_text())
            path.write_text(json.dumps({**data, "agents": ["codex"], "theme": "dark"}))
        return report

    monkeypatch.setattr(connector, "_prepare", racing)
    assert run(root, "claude").exit_code == 0
    stored = json.loads((root / ".exobrain.json").read_text())
    assert stored["agents"] == ["codex", "claude"] and stored["theme"] == "dark"
    assert not (root / ".exobrain.json.flock").exists()
