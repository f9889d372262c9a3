"""The linker's plan/apply and the index renderers, on real folders."""

import os

import pytest

from exobrain.connect.blocks import BEGIN, END, splice_block
from exobrain.connect.indexes import (
    GENERATED_MARK,
    IndexRow,
    index_row,
    index_table,
    optional_index,
)
from exobrain.connect.linker import (
    CREATE,
    KEEP,
    REMOVE,
    REPLACE,
    SKIP,
    apply,
    plan_block,
    plan_file,
    plan_links,
)
from exobrain.connect.ownedlinks import legacy_links, owned_now
from exobrain.errors import InputFileError, OperationFailed
from tests.support.helpers import build_tree


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    build_tree(
        root,
        {
            "skills/a/SKILL.md": "a",
            "skills/b/SKILL.md": "b",
            "groups/g/skills/a/SKILL.md": "ga",
            "tools/t/x": "t",
        },
    )
    return root.resolve()


def ops(actions):
    return {a.name: a.op for a in actions}


def plan(skills, wanted, repo, owned=None, **options):
    """plan_links for a project-level folder, with the links the record says are ours."""
    return plan_links(skills, wanted, repo, place=repo, owned=owned or {}, **options)


def test_plan_then_apply_then_nothing_to_do(repo):
    skills = repo / ".agent/skills"
    wanted = {"a": repo / "skills/a", "a.groups__g": repo / "groups/g/skills/a"}
    actions = plan(skills, wanted, repo)
    assert ops(actions) == {"a": CREATE, "a.groups__g": CREATE}
    assert apply(actions) == 2
    assert os.readlink(skills / "a.groups__g") == "../../groups/g/skills/a"
    assert ops(plan(skills, wanted, repo)) == {"a": KEEP, "a.groups__g": KEEP}
    assert owned_now(skills, {}, actions) == {
        "a": "../../skills/a",
        "a.groups__g": "../../groups/g/skills/a",
    }


def test_wrong_link_replaced_stale_removed_foreign_kept(repo):
    skills = repo / ".agent/skills"
    skills.mkdir(parents=True)
    os.symlink(repo / "skills/b", skills / "a")  # ours, wrong target
    os.symlink("../../skills/b", skills / "b")  # ours, no longer wanted
    os.symlink("../../groups/g/skills/a", skills / "shared")  # not in the record: not ours
    os.symlink(repo / "skills/gone", skills / "dangling")  # ours, skill deleted
    owned = {p.name: os.readlink(p) for p in skills.iterdir() if p.name != "shared"}
    actions = plan(skills, {"a": repo / "skills/a"}, repo, owned)
    assert ops(actions) == {"a": REPLACE, "b": REMOVE, "dangling": REMOVE}
    apply(actions)
    assert sorted(os.listdir(skills)) == ["a", "shared"]
    assert os.path.realpath(skills / "a") == str(repo / "skills/a")
    assert sorted(owned_now(skills, owned, actions)) == ["a"]


def test_a_broken_registry_removes_nothing(repo):
    skills = repo / ".agent/skills"
    skills.mkdir(parents=True)
    os.symlink("../../skills/b", skills / "b")
    owned = {"b": "../../skills/b"}
    assert ops(plan(skills, {}, repo, owned, keep_unwanted=True)) == {}
    assert ops(plan(skills, {}, repo, owned)) == {"b": REMOVE}


def test_links_not_in_the_record_are_never_ours(repo, tmp_path):
    skills = repo / ".agent/skills"
    skills.mkdir(parents=True)
    os.symlink("../../skills/b", skills / "my-alias")  # the user's, into a repository skill
    os.symlink("../../skills/a", skills / "a")  # exactly ours, but made by the user
    os.symlink(repo / "skills/b", skills / "b")  # recorded with another text: changed since
    actions = plan(skills, {}, repo, {"b": "../../skills/b"})
    assert ops(actions) == {}


def test_legacy_links_are_adopted_by_exact_name_and_direct_target(repo, tmp_path):
    skills = repo / ".agent/skills"
    skills.mkdir(parents=True)
    os.symlink("../../skills/a", skills / "a")  # what an earlier version made
    os.symlink(repo / "groups/g/skills/a", skills / "a.groups__g")  # absolute, also ours
    os.symlink("../../skills/b", skills / "bob-link")  # a user's name
    alias = tmp_path / "alias"
    os.symlink(repo, alias)
    os.symlink(alias / "skills/b", skills / "b")  # resolves into the repository indirectly
    os.symlink("../../tools/t", skills / "t")  # not a skill folder
    assert legacy_links(skills, repo) == {
        "a": "../../skills/a",
        "a.groups__g": str(repo / "groups/g/skills/a"),
    }


def test_what_is_not_ours_is_skipped_or_ignored(repo, tmp_path):
    skills = repo / ".agent/skills"
    build_tree(skills, {"a/SKILL.md": "real folder", "mine.txt": "file"})
    os.symlink(tmp_path, skills / "b")  # foreign, at a wanted name
    os.symlink(repo / "tools/t", skills / "tool")  # into the repo, not a skill
    os.symlink(repo / ".claude/skills/a", skills / "agentish")  # into an agent folder
    actions = plan(skills, {"a": repo / "skills/a", "b": repo / "skills/b"}, repo)
    assert ops(actions) == {"a": SKIP, "b": SKIP}
    assert [a.reason for a in actions] == [
        "real path exists",
        f"foreign symlink exists (→ {tmp_path})",
    ]
    assert apply(actions) == 0
    assert sorted(os.listdir(skills)) == ["a", "agentish", "b", "mine.txt", "tool"]


def test_missing_skill_folder_is_a_problem_and_its_old_link_goes(repo):
    skills = repo / ".agent/skills"
    skills.mkdir(parents=True)
    os.symlink(repo / "skills/nope", skills / "nope")
    actions = plan(
        skills, {"nope": repo / "skills/nope"}, repo, {"nope": str(repo / "skills/nope")}
    )
    assert [(a.op, a.problem) for a in actions] == [(SKIP, True), (REMOVE, False)]
    assert "skill folder skills/nope is missing" in actions[0].reason


@pytest.mark.parametrize("kind", ["file", "dangling", "link-to-file"])
def test_skills_folder_must_be_a_folder(repo, kind):
    skills = repo / ".agent/skills"
    skills.parent.mkdir()
    if kind == "file":
        skills.write_text("x")
    elif kind == "dangling":
        os.symlink(repo / "nowhere", skills)
    else:
        os.symlink(repo / "skills/a/SKILL.md", skills)
    with pytest.raises(InputFileError, match="skills folder is"):
        plan(skills, {"a": repo / "skills/a"}, repo)


def test_generated_files_only_ours_change(tmp_path):
    path = tmp_path / "index.md"
    ours = GENERATED_MARK + "\nv1\n"
    assert plan_file(path, root=tmp_path, content=None) is None
    assert plan_file(path, root=tmp_path, content=ours).op == CREATE
    path.write_text(ours)
    assert plan_file(path, root=tmp_path, content=ours).op == KEEP
    assert plan_file(path, root=tmp_path, content=GENERATED_MARK + "\nv2\n").op == REPLACE
    assert plan_file(path, root=tmp_path, content=None).op == REMOVE
    path.write_text("the user's\n")
    assert (
        plan_file(path, root=tmp_path, content=ours).op == SKIP
        and plan_file(path, root=tmp_path, content=None).op == SKIP
    )
    path.write_bytes(b"\xff\xfe")
    assert plan_file(path, root=tmp_path, content=ours).op == SKIP


def test_blocks_in_shared_files(tmp_path):
    path = tmp_path / "USER.md"
    assert plan_block(path, root=tmp_path, body=None) is None
    action = plan_block(path, root=tmp_path, body="x")
    assert action.op == CREATE and action.content == f"{BEGIN}\nx\n{END}\n"
    path.write_text(f"mine\n{BEGIN}\nno end\n")
    action = plan_block(path, root=tmp_path, body="x")
    assert action.op == SKIP and "no <!-- END exobrain --> follows" in action.reason


def test_splice_block_round_trips():
    user = "# Me\n\nHello.\n"
    added = splice_block(user, "a")
    assert added == f"# Me\n\nHello.\n\n{BEGIN}\na\n{END}\n"
    assert splice_block(added, "b") == f"# Me\n\nHello.\n\n{BEGIN}\nb\n{END}\n"
    assert splice_block(added, None) == user
    twice = added + f"\n{BEGIN}\nold\n{END}\n"
    assert splice_block(twice, "c").count(BEGIN) == 1
    assert splice_block(f"{BEGIN}\na\n{END}\n", None) is None
    assert splice_block(None, None) is None and splice_block(user, None) == user
    middle = f"top\n{BEGIN}\na\n{END}\nbottom\n"
    assert splice_block(middle, "z") == f"top\n{BEGIN}\nz\n{END}\nbottom\n"


def test_index_rendering():
    rows = [index_row("zeta", "p/z|x", "Pipes | here\nand  lines"), IndexRow("alpha", "p/a", "A")]
    assert index_table(rows) == [
        "| Name | Path | Summary |",
        "|---|---|---|",
        "| alpha | p/a | A |",
        "| zeta | p/z\\|x | Pipes \\| here and lines |",
    ]
    assert optional_index([]) is None
    long = index_row("l", "p", "word " * 100)
    assert len(long.summary) <= 160 and long.summary.endswith("…")


def test_apply_checks_writability_before_any_change(tmp_path, repo):
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where a folder should be")
    first = plan_file(tmp_path / "ok/index.md", GENERATED_MARK + "\n", root=tmp_path)
    second = plan_file(blocker / "index.md", GENERATED_MARK + "\n", root=tmp_path)
    with pytest.raises(OperationFailed, match="is not a folder"):
        apply([first, second])
    assert not (tmp_path / "ok").exists()
