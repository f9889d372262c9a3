"""authoring-review on real temporary git repositories with a base branch."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.review import main as review_cli
from tests.support.helpers import build_tree, exobrain, git, skill_md

FORCED = {"owner": "ann", "tier": "always", "force": True}
EVAL = '{"prompt": "tidy this file", "expect": ["imports sorted"]}'
AB_RESULTS = json.dumps(
    {
        "skill": "tidy",
        "runs": [{"prompt": "tidy this", "winner": "with", "note": "sorted imports"}],
        "summary": {"runs": 1, "with": 1, "without": 0, "tie": 0},
    }
)


def base_repo(tmp_path, registries=None, skills=None, scopes=("groups/acme", "people/ann")):
    """An exobrain committed on main, checked out on a feature branch."""
    root = exobrain(
        tmp_path / "exo",
        registries=registries or {"global": []},
        skills=skills or {},
        scopes=list(scopes),
    )
    git(root, "checkout", "-q", "-b", "feature")
    return root


def set_registry(root, scope, entries):
    folder = root if scope == "global" else root / scope
    build_tree(folder, {"skills.json": {"skills": entries}})


def add_skill(root, home, name, text=None, **files):
    folder = (root if home == "global" else root / home) / "skills" / name
    build_tree(folder, {"SKILL.md": text or skill_md(name), **files})
    return folder


def commit(root, message="change"):
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def run(root, *args, env=None):
    result = CliRunner().invoke(review_cli, ["--repo", str(root), *args], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def run_json(root, *args):
    result = run(root, "--json", *args)
    return result.exit_code, json.loads(result.stdout)


def new_names(data):
    return [(s["scope"], s["name"], s["proven"]) for s in data["new_shared_skills"]]


def new_forced_global(tmp_path):
    root = base_repo(tmp_path)
    add_skill(root, "global", "tidy")
    set_registry(root, "global", [{"name": "tidy", **FORCED}])
    commit(root)
    return root


def test_new_forced_global_skill_without_proof_exits_1_naming_it(tmp_path):
    root = new_forced_global(tmp_path)
    result = run(root)
    assert result.exit_code == 1
    assert "tidy (global): declared in skills.json, not at the base" in result.stdout
    assert "skills/tidy/" in result.stdout and "EXOBRAIN_SKIP_AUTHORING_REVIEW=1" in result.stdout
    code, data = run_json(root)
    assert code == 1 and new_names(data) == [("global", "tidy", False)]
    assert data["base"]["ref"] == "main" and data["base"]["merge_base"] is True
    assert "skills/tidy/" in data["new_shared_skills"][0]["needs"]


def test_committed_test_file_is_proof(tmp_path):
    root = new_forced_global(tmp_path)
    build_tree(root, {"skills/tidy/tests/test_tidy.sh": "#!/bin/sh\ntidy --check\n"})
    commit(root, "prove tidy")
    result = run(root)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [result.stdout.strip()]  # one line
    assert result.stdout.startswith("authoring-review: ok — 1 new shared skill, all proven")
    _code, data = run_json(root)
    assert data["new_shared_skills"][0]["proof"] == ["skills/tidy/tests/test_tidy.sh"]


def test_staged_proof_counts_untracked_proof_does_not(tmp_path):
    root = new_forced_global(tmp_path)
    build_tree(root, {"skills/tidy/evals/basic.json": EVAL})
    result = run(root)
    assert result.exit_code == 1
    assert "skills/tidy/evals/basic.json is on disk but not tracked by git" in result.stdout
    git(root, "add", "skills/tidy/evals/basic.json")  # staged, not committed: what a commit holds
    assert run(root).exit_code == 0


@pytest.mark.parametrize(
    "proof, content",
    [
        ("tests/cases.yaml", "- input: a\n  expect: b\n"),
        ("test_tidy.py", "def test_it():\n    assert tidy('a') == 'a'\n"),
        ("scripts/tidy_test.sh", "tidy --check\n"),
        ("web/tidy.test.js", "expect(tidy('a')).toBe('a')\n"),
        ("test_new_skill.sh", "tidy --check sample.txt\n"),  # a test in any language
        ("tidy_test.go", "func TestTidy(t *testing.T) {}\n"),
        ("evals/one.json", EVAL),
        ("smoke.eval.json", EVAL),
        ("ab-results.json", AB_RESULTS),
    ],
)
def test_each_kind_of_proof(tmp_path, proof, content):
    root = new_forced_global(tmp_path)
    build_tree(root, {f"skills/tidy/{proof}": content})
    commit(root)
    assert run(root).exit_code == 0


@pytest.mark.parametrize(
    "found, content, why",
    [
        ("latest.txt", "notes\n", "latest.txt: the name is not a test, eval or A/B result"),
        ("scripts/selftest.py", "print(1)\n", "the name is not a test, eval or A/B result"),
        ("test_tidy.py", " \n", "test_tidy.py: an empty test proves nothing"),
        ("tests/run.sh", "", "tests/run.sh: an empty test proves nothing"),
        ("evals/one.json", "{not json", "evals/one.json: does not parse as JSON"),
        ("smoke.eval.json", "{}", "smoke.eval.json: an empty eval proves nothing"),
        ("ab-results.json", '{"wins": 9}', "ab-results.json: not the documented shape"),
        ("ab-results.json", '{"runs": []}', "ab-results.json: no runs recorded yet"),
        (
            "ab-results.json",
            '{"runs": [{"prompt": "p", "winner": "maybe"}]}',
            'runs[0] needs a "prompt" and a "winner"',
        ),
        (
            "ab-results.json",
            '{"runs": [{"prompt": "p", "winner": "with"}], "summary": {"runs": 3}}',
            "summary does not agree with the runs",
        ),
    ],
)
def test_what_only_looks_like_proof_is_named_with_the_reason(tmp_path, found, content, why):
    root = new_forced_global(tmp_path)
    build_tree(root, {f"skills/tidy/{found}": content})
    commit(root)
    result = run(root)
    assert result.exit_code == 1
    assert f"    not proof: skills/tidy/{found}: " in result.stdout
    assert why in result.stdout
    _code, data = run_json(root)
    assert data["new_shared_skills"][0]["proof"] == []
    assert any(why in line for line in data["new_shared_skills"][0]["not_proof"])


def test_proof_must_be_inside_the_skills_own_folder(tmp_path):
    root = new_forced_global(tmp_path)
    add_skill(root, "global", "other", **{"test_other.py": "assert other()\n"})
    build_tree(
        root, {"tests/test_tidy.py": "assert tidy()\n", "skills/tidy/notes.md": "evals soon"}
    )
    set_registry(root, "global", [{"name": "tidy", **FORCED}, {"name": "other", **FORCED}])
    commit(root)
    code, data = run_json(root)
    assert code == 1 and new_names(data) == [("global", "other", True), ("global", "tidy", False)]


def test_new_person_scope_skill_passes(tmp_path):
    root = base_repo(tmp_path)
    add_skill(root, "people/ann", "mine")
    set_registry(root, "people/ann", [{"name": "mine", **FORCED}])
    commit(root)
    result = run(root)
    assert result.exit_code == 0
    assert result.stdout.strip().endswith(
        f"no new shared skills (compared with main at {git(root, 'rev-parse', 'main')[:10]})"
    )


def test_rename_in_same_registry_keeps_standing(tmp_path):
    sibling = "helper script\n" * 20
    root = base_repo(
        tmp_path,
        registries={"global": [{"name": "tidy", **FORCED}]},
        skills={"global/tidy": skill_md("tidy", "Tidy the repo.")},
    )
    build_tree(root, {"skills/tidy/helper.sh": sibling, "skills/tidy/reference.md": sibling})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "siblings")
    git(root, "branch", "-f", "main")  # the siblings are part of the base
    git(root, "mv", "skills/tidy", "skills/neaten")
    (root / "skills/neaten/SKILL.md").write_text(
        skill_md(
            "neaten",
            "Completely reworded: neaten files, folders and notes.",
            body="A new body that shares nothing with the old one.\n",
        )
    )
    set_registry(root, "global", [{"name": "neaten", **FORCED}])
    commit(root, "rename tidy to neaten")
    code, data = run_json(root)
    assert code == 0 and data["new_shared_skills"] == []


def test_rename_keeping_the_old_name_declared_is_new(tmp_path):
    root = base_repo(
        tmp_path, registries={"global": [{"name": "tidy", **FORCED}]}, skills={"global/tidy": None}
    )
    add_skill(root, "global", "tidy-two")
    set_registry(root, "global", [{"name": "tidy", **FORCED}, {"name": "tidy-two", **FORCED}])
    commit(root)
    code, data = run_json(root)
    assert code == 1 and new_names(data) == [("global", "tidy-two", False)]


def test_move_from_person_scope_into_group_is_new(tmp_path):
    root = base_repo(
        tmp_path,
        registries={"people/ann": [{"name": "lint", "owner": "ann", "tier": "always"}]},
        skills={"people/ann/lint": None},
    )
    build_tree(root, {"people/ann/skills/lint/run.sh": "echo lint\n" * 10})
    commit(root)
    git(root, "branch", "-f", "main")
    (root / "groups/acme/skills").mkdir()
    git(root, "mv", "people/ann/skills/lint", "groups/acme/skills/lint")
    set_registry(root, "people/ann", [])
    set_registry(root, "groups/acme", [{"name": "lint", "owner": "ann", "tier": "optional"}])
    commit(root, "share lint")
    result = run(root)
    assert result.exit_code == 1
    assert (
        "lint (groups/acme): moved from people/ann/skills/lint (person scope): a widening of reach"
    ) in result.stdout


def test_crons_job_naming_the_skill_is_proof(tmp_path):
    root = new_forced_global(tmp_path)
    build_tree(
        root,
        {
            "crons.json": {
                "jobs": [
                    {
                        "name": "nightly-tidy",
                        "schedule": "0 3 * * *",
                        "command": "tidy --all",
                        "skill": "tidy",
                    }
                ]
            }
        },
    )
    commit(root)
    code, data = run_json(root)
    assert code == 3  # proven; the job's command is new, for a reviewer to read
    assert data["new_shared_skills"][0]["proof"] == ["crons.json job 'nightly-tidy'"]
    assert data["cron_commands_to_review"] == [
        {"job": "nightly-tidy", "command": "tidy --all", "change": "new"}
    ]


def test_crons_job_with_bad_schedule_or_other_home_is_no_proof(tmp_path):
    root = new_forced_global(tmp_path)
    build_tree(
        root,
        {
            "crons.json": {
                "jobs": [
                    {"name": "a", "schedule": "0 25 * * *", "command": "x", "skill": "tidy"},
                    {
                        "name": "b",
                        "schedule": "0 3 * * *",
                        "command": "x",
                        "skill": "tidy@groups/acme",
                    },
                ]
            }
        },
    )
    commit(root)
    assert run(root).exit_code == 1
    build_tree(
        root,
        {
            "crons.json": {
                "jobs": [
                    {
                        "name": "b",
                        "schedule": "0 3 * * *",
                        "command": "x",
                        "skill": "skill:tidy@global",
                    }
                ]
            }
        },
    )
    commit(root)
    assert run(root).exit_code == 3  # proven now; job b's command is new to the base
    assert run(root, "--review-ok").exit_code == 0


def test_archived_to_active_is_reported(tmp_path):
    root = base_repo(
        tmp_path,
        registries={
            "global": [
                {"name": "old", **FORCED, "lifecycle": "archived"},
                {"name": "fine", **FORCED, "lifecycle": "draft"},
            ],
            "people/ann": [
                {"name": "mine", "owner": "ann", "tier": "always", "lifecycle": "deprecated"}
            ],
        },
        skills={"global/old": None, "global/fine": None, "people/ann/mine": None},
    )
    set_registry(
        root,
        "global",
        [{"name": "old", **FORCED}, {"name": "fine", **FORCED, "lifecycle": "active"}],
    )
    set_registry(
        root,
        "people/ann",
        [{"name": "mine", "owner": "ann", "tier": "always", "lifecycle": "draft"}],
    )
    commit(root)
    result = run(root)
    assert result.exit_code == 1
    assert "old (global): archived → active is not allowed: archived is final" in result.stdout
    assert (
        "mine (people/ann): deprecated → draft is not allowed: from deprecated a skill may "
        "only go to archived"
    ) in result.stdout
    assert "fine" not in result.stdout
    _code, data = run_json(root)
    assert [(c["name"], c["from"], c["to"]) for c in data["lifecycle_problems"]] == [
        ("old", "archived", "active"),
        ("mine", "deprecated", "draft"),
    ]


def test_lifecycle_is_followed_across_a_rename(tmp_path):
    root = base_repo(
        tmp_path,
        registries={"global": [{"name": "old", **FORCED, "lifecycle": "archived"}]},
        skills={"global/old": None},
    )
    build_tree(root, {"skills/old/data.txt": "same content\n" * 30})
    commit(root)
    git(root, "branch", "-f", "main")
    git(root, "mv", "skills/old", "skills/revived")
    (root / "skills/revived/SKILL.md").write_text(skill_md("revived"))
    set_registry(root, "global", [{"name": "revived", **FORCED}])
    commit(root)
    code, data = run_json(root)
    assert code == 1 and data["new_shared_skills"] == []
    assert data["lifecycle_problems"][0]["name"] == "revived"


def test_exempt_external_override_and_unchanged(tmp_path):
    root = base_repo(
        tmp_path,
        registries={"global": [{"name": "kept", **FORCED}]},
        skills={"global/kept": None, "groups/acme/acme-only": None},
    )
    set_registry(
        root,
        "global",
        [
            {"name": "kept", **FORCED},
            {
                "name": "creator",
                "owner": "anthropic",
                "tier": "optional",
                "source": {
                    "repo": "https://example.com/skills.git",
                    "path": "creator",
                    "ref": "main",
                },
            },
            {"name": "acme-only", "from": "groups/acme", "tier": "always"},
        ],
    )
    commit(root)
    code, data = run_json(root)
    assert code == 0 and data["new_shared_skills"] == []


def test_skill_md_added_without_declaration_is_new_in_every_shared_scope(tmp_path):
    root = base_repo(
        tmp_path, scopes=("groups/acme", "teams/red", "seed", "people/ann", "people/ann/hosts/box")
    )
    for home in ("groups/acme", "teams/red", "seed", "people/ann", "people/ann/hosts/box"):
        add_skill(root, home, "s-" + home.rsplit("/", 1)[-1])
    commit(root)
    code, data = run_json(root)
    assert code == 1
    assert new_names(data) == [
        ("groups/acme", "s-acme", False),
        ("seed", "s-seed", False),
        ("teams/red", "s-red", False),
    ]
    assert (
        data["new_shared_skills"][0]["reason"]
        == "groups/acme/skills/s-acme/SKILL.md added since the base"
    )


def test_declaring_an_existing_folder_is_new(tmp_path):
    root = base_repo(tmp_path, skills={"global/dormant": None})
    set_registry(root, "global", [{"name": "dormant", "owner": "ann", "tier": "optional"}])
    commit(root)
    code, data = run_json(root)
    assert code == 1 and new_names(data) == [("global", "dormant", False)]


def test_person_scope_turned_shared_by_scopes_json_is_new(tmp_path):
    root = base_repo(
        tmp_path,
        registries={"people/ann": [{"name": "mine", **FORCED}]},
        skills={"people/ann/mine": None},
    )
    build_tree(
        root,
        {
            "scopes.json": {
                "collections": [
                    {"folder": "groups", "type": "group"},
                    {"folder": "people", "type": "group"},
                ]
            }
        },
    )
    commit(root)
    result = run(root)
    assert result.exit_code == 1
    assert (
        "mine (people/ann): people/ann was a person scope at the base and is shared now"
        in result.stdout
    )


def test_default_base_order_and_explicit_base(tmp_path):
    root = new_forced_global(tmp_path)
    git(root, "branch", "-m", "main", "master")
    assert run_json(root)[1]["base"]["ref"] == "master"
    git(root, "update-ref", "refs/remotes/origin/main", "feature")
    code, data = run_json(root)  # origin/main wins over master; it already holds tidy
    assert code == 0 and data["base"]["ref"] == "origin/main"
    code, data = run_json(root, "--base", "master")
    assert code == 1 and data["base"]["ref"] == "master"


def test_base_is_the_merge_base(tmp_path):
    root = new_forced_global(tmp_path)
    git(root, "checkout", "-q", "main")
    add_skill(root, "global", "later-on-main")
    commit(root)
    git(root, "checkout", "-q", "feature")
    code, data = run_json(root)
    assert code == 1 and new_names(data) == [("global", "tidy", False)]
    assert data["base"]["commit"] != git(root, "rev-parse", "main").strip()


def test_no_base_passes_and_says_so(tmp_path):
    root = exobrain(tmp_path / "exo")
    git(root, "branch", "-m", "main", "trunk")
    result = run(root)
    assert result.exit_code == 0 and "no base to compare with" in result.stdout
    assert len(result.stdout.splitlines()) == 1
    code, data = run_json(root)
    assert code == 0 and data["base"] is None and data["new_shared_skills"] == []


def test_unknown_base_is_a_usage_error(tmp_path):
    root = new_forced_global(tmp_path)
    result = run(root, "--base", "nope")
    assert result.exit_code == 2 and "--base nope: no such branch, tag or commit" in result.stderr
    assert run(root, "--base", "--upload-pack=x").exit_code == 2


def test_skip_variable_is_printed(tmp_path):
    root = new_forced_global(tmp_path)
    result = run(root, env={"EXOBRAIN_SKIP_AUTHORING_REVIEW": "1"})
    assert result.exit_code == 0
    assert result.stdout.strip() == (
        "authoring-review: skipped because EXOBRAIN_SKIP_AUTHORING_REVIEW=1; nothing was checked"
    )
    assert run(root, env={"EXOBRAIN_SKIP_AUTHORING_REVIEW": "0"}).exit_code == 1
    data = json.loads(run(root, "--json", env={"EXOBRAIN_SKIP_AUTHORING_REVIEW": "yes"}).stdout)
    assert data["skipped"] is True


def test_broken_staged_registry_is_bad_input(tmp_path):
    root = new_forced_global(tmp_path)
    (root / "skills.json").write_text('{"skills": [\n  {"name": "tidy",}\n]}\n')
    git(root, "add", "skills.json")
    result = run(root)
    assert result.exit_code == 2
    assert "error: skills.json:2:" in result.stderr and "git add" in result.stderr


def test_broken_base_registry_is_read_as_empty_with_a_warning(tmp_path):
    root = base_repo(tmp_path)
    (root / "skills.json").write_text("{broken")
    commit(root)
    git(root, "branch", "-f", "main")
    add_skill(root, "global", "tidy", **{"tests/test_it.sh": "tidy --check\n"})
    set_registry(root, "global", [{"name": "tidy", **FORCED}])
    commit(root)
    result = run(root)
    assert result.exit_code == 0 and "warning: base skills.json unreadable" in result.stderr


def test_merge_conflict_in_index_is_reported(tmp_path):
    root = new_forced_global(tmp_path)
    git(root, "checkout", "-q", "main")
    set_registry(root, "global", [{"name": "x", "owner": "o", "tier": "optional"}])
    commit(root)
    subprocess.run(["git", "merge", "-q", "feature"], cwd=root, capture_output=True)
    result = run(root)
    assert result.exit_code == 2 and "skills.json has unresolved merge conflicts" in result.stderr


def test_not_a_git_repository(tmp_path):
    (tmp_path / "plain").mkdir()
    result = run(tmp_path / "plain")
    assert result.exit_code == 2 and "not inside a git repository" in result.stderr


def test_exobrain_in_a_subfolder_of_a_git_repository(tmp_path):
    outer = tmp_path / "outer"
    exobrain(outer / "brain", registries={"global": []}, commit=False)
    subprocess.run(["rm", "-rf", str(outer / "brain" / ".git")], check=True)
    build_tree(outer, {"README.md": "outer\n"})
    git(outer, "init", "-q", "-b", "main")
    commit(outer)
    git(outer, "checkout", "-q", "-b", "feature")
    brain = outer / "brain"
    add_skill(brain, "global", "tidy")
    set_registry(brain, "global", [{"name": "tidy", **FORCED}])
    commit(outer)
    code, data = run_json(brain)
    assert code == 1 and new_names(data) == [("global", "tidy", False)]
    build_tree(brain, {"skills/tidy/test_tidy.py": "assert tidy()\n"})
    commit(outer)
    assert run(brain).exit_code == 0


def console(name):
    return str(Path(sys.executable).parent / name)


def test_console_script_from_a_subfolder(tmp_path):
    root = new_forced_global(tmp_path)
    sub = root / "skills" / "tidy"
    done = subprocess.run([console("authoring-review")], cwd=sub, capture_output=True, text=True)
    assert done.returncode == 1 and "tidy (global)" in done.stdout
    build_tree(root, {"skills/tidy/test_tidy.py": "assert tidy()\n"})
    commit(root)
    done = subprocess.run([console("authoring-review")], cwd=sub, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("authoring-review: ok"), done.stderr


def test_linked_worktree(tmp_path):
    root = new_forced_global(tmp_path)
    git(root, "checkout", "-q", "main")
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", str(linked), "feature")
    assert (linked / ".git").is_file()
    code, data = run_json(linked)
    assert code == 1 and new_names(data) == [("global", "tidy", False)]
    build_tree(linked, {"skills/tidy/evals/case.json": EVAL})
    git(linked, "add", "-A")
    done = subprocess.run(
        [console("authoring-review"), "--json"],
        cwd=linked / "skills",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["new_shared_skills"][0]["proof"] == [
        "skills/tidy/evals/case.json"
    ]
    assert run(root).exit_code == 0  # the main checkout (on main) has nothing new


def test_help_names_the_rule(tmp_path):
    result = CliRunner().invoke(review_cli, ["--help"])
    assert result.exit_code == 0 and "EXOBRAIN_SKIP_AUTHORING_REVIEW" in result.output


def test_import_stays_lazy():
    code = (
        "import sys, exobrain.cli.review, exobrain.cli.crons; "
        "print(any(m in sys.modules for m in ('git', 'jsonschema', 'rich')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ}
    )
    assert done.stdout.strip() == "False"


def test_pure_helpers():
    from exobrain.gate.proof import kind_of
    from exobrain.gate.snapshot import scopes_from_files, skill_location
    from exobrain.scopes import ScopeConfig

    files = frozenset(
        {
            "groups/a/AGENTS.md",
            "people/p/AGENTS.md",
            "people/p/hosts/h/AGENTS.md",
            "people/q/hosts/h/AGENTS.md",
            "seed/AGENTS.md",
            "misc/x/AGENTS.md",
            "groups/.hidden/AGENTS.md",
        }
    )
    scopes = scopes_from_files(files, ScopeConfig())
    assert scopes == {
        "global": "global",
        "seed": "seed",
        "groups/a": "group",
        "people/p": "person",
        "people/p/hosts/h": "host",
    }
    assert skill_location("skills/x/SKILL.md", scopes) == ("global", "x", "SKILL.md")
    assert skill_location("groups/a/skills/x/skills/y/f", scopes) == ("groups/a", "x", "skills/y/f")
    assert skill_location("people/p/hosts/h/skills/z/a/b", scopes) == (
        "people/p/hosts/h",
        "z",
        "a/b",
    )
    assert skill_location("misc/x/skills/y/SKILL.md", scopes) is None
    assert skill_location("myskills/y/SKILL.md", scopes) is None
    assert skill_location("skills/loose-file", scopes) is None
    assert [
        kind_of(p)
        for p in (
            "test_a.py",
            "tests/run.sh",
            "a_test.go",
            "a.test.ts",
            "evals/x.json",
            "a.eval.json",
            "ab-results.json",
            "SKILL.md",
            "notes/evals.md",
            "eval.json",
            "latest.txt",
            "test_cases.yaml",
            "evals/notes.md",
        )
    ] == [
        "test",
        "test",
        "test",
        "test",
        "eval",
        "eval",
        "A/B result",
        None,  # SKILL.md
        None,  # notes/evals.md
        None,  # eval.json
        None,  # latest.txt
        "test",  # test_cases.yaml: test_* in any language
        None,  # evals/notes.md
    ]


def test_move_between_shared_scopes_is_new_too(tmp_path):
    root = base_repo(
        tmp_path, registries={"global": [{"name": "tidy", **FORCED}]}, skills={"global/tidy": None}
    )
    build_tree(root, {"skills/tidy/run.sh": "echo tidy\n" * 10})
    commit(root)
    git(root, "branch", "-f", "main")
    (root / "groups/acme/skills").mkdir()
    git(root, "mv", "skills/tidy", "groups/acme/skills/tidy")
    set_registry(root, "global", [])
    set_registry(root, "groups/acme", [{"name": "tidy", **FORCED}])
    commit(root)
    code, data = run_json(root)
    assert code == 1
    assert (
        data["new_shared_skills"][0]["reason"]
        == "moved from skills/tidy (global scope): new in this registry"
    )
