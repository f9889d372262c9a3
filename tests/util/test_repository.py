"""What :class:`~exobrain.util.repository.Repository` asks git in a partial, sparse clone:
which objects are held (without git fetching the others behind our back), and which files
changed between two commits (without expanding a sparse index)."""

from pathlib import Path

from exobrain.util.repository import Repository
from tests.support.helpers import git
from tests.support.sparse import full_clone, origin, sparse_clone


def _clones(tmp_path: Path) -> tuple[Path, Path]:
    bare = origin(tmp_path)
    return sparse_clone(bare, tmp_path / "clone"), full_clone(bare, tmp_path / "work")


def test_held_objects_are_told_apart_without_fetching(tmp_path):
    root, _ = _clones(tmp_path)
    repo = Repository(root, own_env=True)
    on_disk = git(root, "rev-parse", "HEAD:skills.json").strip()
    outside = git(root, "rev-parse", "HEAD:people/p0002/skills.json").strip()
    before = repo.local_objects()
    assert on_disk in before and outside not in before
    assert repo._present([on_disk, outside, "0" * 40]) == {on_disk}
    repo._local = None
    assert repo.local_objects() == before  # nothing was fetched by asking
    repo.close()


def test_changed_paths_between_two_commits(tmp_path):
    root, work = _clones(tmp_path)
    git(root, "sparse-checkout", "set", "--cone", "--sparse-index", "groups/g001")
    old = git(root, "rev-parse", "HEAD").strip()
    (work / "people/p0002/skills.json").write_text('{"skills": []}\n')
    (work / "people/p0003/hosts/h0/skills").mkdir(parents=True, exist_ok=True)
    (work / "people/p0003/hosts/h0/skills/new").mkdir()
    (work / "people/p0003/hosts/h0/skills/new/SKILL.md").write_text("---\nname: new\n---\n")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "change")
    git(work, "push", "-q", "origin", "HEAD:main")
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    repo = Repository(root, own_env=True)
    new = repo.commit_of("HEAD") or ""
    assert repo.changed_paths(old, new) == [
        "people/p0002/skills.json",
        "people/p0003/hosts/h0/skills/new/SKILL.md",
    ]
    assert repo.changed_paths(new, new) == []
    assert repo.changed_paths("1" * 40, new) is None  # a commit the repository lacks
    repo.close()
