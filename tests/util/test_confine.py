"""Path confinement and the one link escape rule, on real trees."""

import os

import pytest

from exobrain.util.confine import (
    UnsafePath,
    check_tree,
    leaves,
    resolve_inside,
    special_kind,
    unsafe_entries,
)
from tests.support.helpers import build_tree


@pytest.fixture
def tree(tmp_path):
    root = build_tree(tmp_path / "root", {"a/b/file.txt": "x", "c": {}})
    build_tree(tmp_path / "out", {"secret": "s"})
    return root


def test_plain_and_missing_paths_resolve_as_written(tree):
    real = tree.resolve()
    assert resolve_inside(tree, tree / "a/b/file.txt") == real / "a/b/file.txt"
    assert resolve_inside(tree, tree / "new/deeper/x") == real / "new/deeper/x"
    assert resolve_inside(tree, "a/../c") == real / "c"


def test_links_that_stay_inside_are_followed(tree):
    os.symlink("a/b", tree / "shortcut")
    os.symlink(tree / "c", tree / "absolute")  # absolute, but inside
    assert resolve_inside(tree, tree / "shortcut/file.txt") == tree.resolve() / "a/b/file.txt"
    assert resolve_inside(tree, tree / "absolute/new") == tree.resolve() / "c/new"


def test_a_link_leading_out_is_named_with_its_target(tree, tmp_path):
    os.symlink(tmp_path / "out", tree / "a/away")
    with pytest.raises(UnsafePath) as caught:
        resolve_inside(tree, tree / "a/away/secret")
    assert caught.value.message == (
        f"a/away/secret: a/away is a symbolic link to {tmp_path / 'out'}, "
        f"leading outside {tree}; refusing to go through it"
    )
    os.symlink("../../../out", tree / "a/b/up")
    with pytest.raises(UnsafePath, match=r"a/b/up is a symbolic link to \.\./\.\./\.\./out"):
        resolve_inside(tree, tree / "a/b/up")


def test_a_chain_that_only_looks_inside_is_caught(tree):
    os.symlink(".", tree / "p")
    os.symlink("p/p/p/../../..", tree / "r")
    assert os.path.normpath("p/p/p/../../..") == "."  # harmless as text …
    assert leaves(tree, tree / "r")  # … outside once followed
    assert not leaves(tree, tree / "p")


def test_links_refused_outright_where_folders_must_be_real(tree):
    os.symlink("c", tree / "cache")
    assert resolve_inside(tree, tree / "cache/x") == tree.resolve() / "c/x"
    with pytest.raises(UnsafePath, match="cache is a symbolic link to c, not a real folder"):
        resolve_inside(tree, tree / "cache/x", links=False)


def test_loops_and_paths_not_under_the_root(tree, tmp_path):
    os.symlink("loop2", tree / "loop1")
    os.symlink("loop1", tree / "loop2")
    with pytest.raises(UnsafePath, match="too many levels"):
        resolve_inside(tree, tree / "loop1/x")
    with pytest.raises(UnsafePath, match="not inside"):
        resolve_inside(tree, tmp_path / "out/secret")
    with pytest.raises(UnsafePath, match=r"climbs above"):
        resolve_inside(tree, "../out")


def test_a_root_that_is_itself_a_link_is_the_users_choice(tree, tmp_path):
    alias = tmp_path / "alias"
    os.symlink(tree, alias)
    assert resolve_inside(alias, alias / "a/b") == tree.resolve() / "a/b"


def test_unsafe_entries_and_check_tree(tree, tmp_path):
    os.symlink("b/file.txt", tree / "a/fine")
    os.symlink("/etc/passwd", tree / "a/passwd")
    os.mkfifo(tree / "c/pipe")
    build_tree(tree, {".git/objects/x": "y"})
    os.symlink("/", tree / ".git/ignored")  # version-control folders are not looked into
    assert unsafe_entries(tree) == [
        ("a/passwd", "a symbolic link to '/etc/passwd', leading outside the skill"),
        ("c/pipe", "a FIFO, not a regular file"),
    ]
    with pytest.raises(UnsafePath, match=r"^skill: a/passwd: a symbolic link"):
        check_tree(tree, "skill")
    check_tree(tree / "a/b", "clean")


def test_special_kinds():
    import stat

    assert special_kind(stat.S_IFREG) is None and special_kind(stat.S_IFDIR) is None
    assert special_kind(stat.S_IFIFO) == "a FIFO" and special_kind(stat.S_IFSOCK) == "a socket"
