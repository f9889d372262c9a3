import base64
import os
import shutil
import subprocess

import pytest

from exobrain.util.dirhash import content_hash, file_digests, hash_digests
from tests.support.helpers import build_tree

# Computed outside Python with coreutils, for {a.txt: "hello\n", sub/b.md: "world"}:
#   sha256sum a.txt sub/b.md | sha256sum | cut -d' ' -f1 | xxd -r -p | base64
KNOWN = "h1:rkyVbWS/FfHu9xL+qcGk2hTFOkdFu7uroKR8m3kX7WA="


def test_known_vector(tmp_path):
    build_tree(tmp_path, {"a.txt": "hello\n", "sub": {"b.md": "world"}})
    assert content_hash(tmp_path) == KNOWN


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="needs coreutils sha256sum")
def test_matches_sha256sum_over_sorted_files(tmp_path):
    build_tree(
        tmp_path,
        {
            "SKILL.md": "---\nname: x\n---\n",
            "b/ü.txt": "ü",
            "a-b": b"\x00\x01",
            "a/z.py": "print()\n",
        },
    )
    files = sorted(["SKILL.md", "b/ü.txt", "a-b", "a/z.py"])
    listing = subprocess.run(
        ["sha256sum", "--", *files], cwd=tmp_path, capture_output=True, check=True
    ).stdout
    digest = subprocess.run(
        ["sha256sum"], input=listing, capture_output=True, check=True
    ).stdout.split()[0]
    expected = "h1:" + base64.b64encode(bytes.fromhex(digest.decode())).decode()
    assert content_hash(tmp_path) == expected


def test_junk_and_the_install_record_do_not_count(tmp_path):
    build_tree(tmp_path, {"a.txt": "hello\n", "sub": {"b.md": "world"}})
    build_tree(
        tmp_path,
        {
            ".git/HEAD": "ref\n",
            "__pycache__/m.cpython-311.pyc": b"\x00",
            "sub/.DS_Store": b"\x00",
            "x.pyc": b"\x00",
            ".pytest_cache/v": "1",
            ".exobrain-source.json": "{}",
        },
    )
    assert content_hash(tmp_path) == KNOWN


def test_any_content_or_name_change_changes_the_hash(tmp_path):
    build_tree(tmp_path, {"a.txt": "hello\n", "sub": {"b.md": "world"}})
    (tmp_path / "sub/b.md").write_text("world!")
    changed = content_hash(tmp_path)
    assert changed != KNOWN
    (tmp_path / "sub/b.md").rename(tmp_path / "sub/c.md")
    assert content_hash(tmp_path) not in (KNOWN, changed)


def test_symlinks_are_hashed_by_target_not_followed(tmp_path):
    build_tree(tmp_path / "skill", {"a.txt": "hello\n"})
    (tmp_path / "outside").mkdir()
    os.symlink("../outside", tmp_path / "skill/out")
    os.symlink("a.txt", tmp_path / "skill/alias")
    digests = file_digests(tmp_path / "skill")
    assert sorted(digests) == ["a.txt", "alias", "out"]
    before = hash_digests(digests)
    (tmp_path / "outside/new.txt").write_text("x")
    assert content_hash(tmp_path / "skill") == before
