"""Which files of a modified install changed: from the cached clone, or "cannot say"."""

from exobrain.fetch.drift import SHOWN, changed_files, describe
from exobrain.fetch.repocache import RepoCache
from exobrain.util.git import Git


def test_without_the_cache_only_a_change_can_be_said(tmp_path):
    cache = RepoCache(Git(), tmp_path / "cache", "https://example.com/skills.git")
    assert changed_files(cache, "0" * 40, "skills/pdf", tmp_path) is None
    assert describe(None) == (
        "the content differs from the install record (the cache cannot say which file)"
    )


def test_a_long_list_is_cut():
    found = [f"changed: f{i}" for i in range(SHOWN + 3)]
    assert describe(found).endswith("changed: f4 and 3 more")
    assert describe(["added: x"]) == "added: x"
