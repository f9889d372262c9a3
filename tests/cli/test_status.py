import json

from click.testing import CliRunner

from exobrain.cli.status import main as status
from tests.support.helpers import exobrain, skill_md

FORCED = {"name": "hello", "owner": "bob", "tier": "optional", "force": True}


def run(root, *args):
    result = CliRunner().invoke(status, ["--repo", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def sample(tmp_path, connection=None):
    return exobrain(
        tmp_path / "x",
        registries={
            "global": [FORCED, {"name": "secret", "owner": "bob", "tier": "always"}],
            "groups/acme": [{"name": "tidy", "owner": "acme", "tier": "always"}],
            "people/alice": [
                {"name": "tidy", "from": "groups/acme", "tier": "always"},
                {"name": "mine", "owner": "alice", "tier": "unlisted"},
            ],
            "seed": [{"name": "seed-tests", "owner": "seed", "tier": "optional", "force": True}],
        },
        scopes=["groups/acme", "people/alice", "people/bob", "seed"],
        skills={
            "global/hello": skill_md("hello", "Say <hello> & wave | politely."),
            "global/secret": None,
            "groups/acme/tidy": None,
            "people/alice/mine": None,
            "seed/seed-tests": None,
        },
        connection=connection,
    )


def test_guest_sees_forced_global_only(tmp_path):
    root = sample(tmp_path)
    code, out, _ = run(root)
    assert code == 0
    assert out.splitlines()[0] == "guest: global only"
    assert "always: 0  optional: 2  unlisted: 0  off: 1" in out  # hello, seed-tests; secret off


def test_connected_person_sees_override_and_own_skill(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    _code, out, _ = run(root, "--json")
    data = json.loads(out)
    got = {(s["name"], s["scope"]): (s["tier"], s["declared_by"]) for s in data["skills"]}
    assert got[("tidy", "groups/acme")] == ("always", "people/alice")
    assert got[("mine", "people/alice")] == ("unlisted", "people/alice")
    assert got[("secret", "global")] == ("off", "-")
    assert data["chain"] == ["global", "seed", "people/alice"] and data["self_ids"] == ["alice"]


def test_tier_filter_and_plain_tsv(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    code, out, _ = run(root, "--tier", "always", "--plain")
    assert code == 0
    assert [line.split("\t")[:4] for line in out.splitlines()] == [
        ["tidy", "groups/acme", "acme", "always"]
    ]


def test_all_lists_every_declaration_without_seed(tmp_path):
    root = sample(tmp_path)
    _, out, _ = run(root, "--all", "--json")
    rows = {(s["name"], s["scope"]): s for s in json.loads(out)["skills"]}
    assert set(rows) == {
        ("hello", "global"),
        ("secret", "global"),
        ("tidy", "groups/acme"),
        ("mine", "people/alice"),
    }
    assert rows[("hello", "global")]["force"] is True
    assert rows[("hello", "global")]["description"] == "Say <hello> & wave | politely."
    _code, out, _ = run(root, "--all")
    assert "FORCED" in out.splitlines()[1] and "seed-tests" not in out


def test_prompt_format_escapes_and_lists_always_only(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    (root / ".exobrain.json").write_text(json.dumps({"connected_scopes": ["people/alice"]}))
    exobrain(
        root,
        registries={
            "people/alice": [
                {"name": "tidy", "from": "groups/acme", "tier": "always"},
                {"name": "hello", "from": "global", "tier": "always"},
            ]
        },
        commit=False,
    )
    code, out, _ = run(root, "--format", "prompt")
    assert code == 0
    assert out.startswith("<available_skills>\n<skill>\n<name>\nhello\n</name>")
    assert "Say &lt;hello&gt; &amp; wave | politely." in out
    assert f"<location>\n{root / 'skills/hello/SKILL.md'}\n</location>" in out
    assert "<name>\ntidy\n</name>" in out and "mine" not in out


def test_agent_filter(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [
                {
                    "name": "only-claude",
                    "owner": "x",
                    "tier": "always",
                    "force": True,
                    "agent": "claude",
                }
            ]
        },
        skills={"global/only-claude": None},
    )
    assert "off (not for codex)" in run(root, "--agent", "codex")[1]
    assert "always" in run(root, "--agent", "claude")[1]


def test_missing_connected_scope_warns_and_skips_only_itself(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice", "people/nobody"]})
    code, out, err = run(root)
    assert code == 0 and "people/nobody" in err and "does not exist" in err  # a warning
    assert "tidy" in out  # the rest still resolves


def test_console_script_is_plain_when_not_a_terminal(tmp_path):
    import subprocess

    root = sample(tmp_path)
    out = subprocess.run(
        ["skills-status", "--all"], cwd=root / "people", capture_output=True, text=True, check=True
    ).stdout
    assert "\x1b[" not in out and "┃" not in out and "hello" in out


def test_others_plain_declarations_are_counted_not_listed(tmp_path):
    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    _code, out, _ = run(root)
    assert "secret" not in out
    assert "off: 1  (1 off by default not shown: --tier off lists them)" in out
    assert "secret" in run(root, "--tier", "off")[1]


def test_status_start_up_imports_no_git_jsonschema_or_rich(tmp_path):
    import subprocess
    import sys

    root = sample(tmp_path, {"connected_scopes": ["people/alice"]})
    probe = (
        "import sys\nfrom exobrain.cli.status import main\n"
        "try:\n    main(['--repo', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('git', 'jsonschema', 'rich', 'yaml') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(root)], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_unknown_agent_is_a_usage_error(tmp_path):
    root = sample(tmp_path)
    code, _, err = run(root, "--agent", "vim")
    assert code == 2 and "unknown agent 'vim'" in err and "claude" in err
