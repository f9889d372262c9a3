"""The pieces under import and export: field encoding, repairs, translation, detection, the
one-pass copy, source classification."""

import os
from pathlib import Path

import pytest

from exobrain.artifacts.frontmatter import encode
from exobrain.errors import InputFileError, UsageError
from exobrain.interop.formats import detect
from exobrain.interop.formats.bundle import discover
from exobrain.interop.formats.fields import read_lenient, slugify
from exobrain.interop.formats.translation import translate
from exobrain.interop.inputs import ARCHIVE, FOLDER, GIT, Opened, classify
from exobrain.skillmd import lifted, unfold
from exobrain.util.confine import unsafe_entries
from exobrain.util.dirhash import file_digests
from exobrain.util.treecopy import copy_tree
from exobrain.util.versions import normalise as normal_version
from tests.support.bundles import kdense_bundle
from tests.support.helpers import build_tree


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "true",
        "[1]",
        "3",
        "",
        'say "hi"',
        True,
        3,
        1.5,
        None,
        ["a", "b"],
        {"k": [1, {"x": None}]},
    ],
)
def test_encode_decode_round_trip(value):
    assert isinstance(encode(value), str)
    assert unfold(encode(value)) == value


def test_slugs_and_versions():
    assert slugify("Weird Name!") == "weird-name"
    assert slugify("Café  Crème__2") == "cafe-creme-2"
    assert slugify("x" * 80) == "x" * 64
    assert [normal_version(v) for v in ("1", "1.2", "v1.2.3", 1.0, "01.2.3")] == [
        "1.0.0",
        "1.2.0",
        "1.2.3",
        "1.0.0",
        "1.2.3",
    ]
    assert normal_version("latest") is None and normal_version(True) is None


def test_unquoted_colons_are_repaired_and_the_rest_is_reported():
    text = "---\nname: x\ndescription: Use when: the user asks\nmetadata:\n  note: a: b\n---\nB\n"
    meta, body, repairs = read_lenient(text, Path("SKILL.md"))
    assert meta["description"] == "Use when: the user asks" and meta["metadata"] == {"note": "a: b"}
    assert body == "B\n" and "description, note" in repairs[0]
    meta, _, repairs = read_lenient("---\nname: [beta] tool\n---\n", Path("SKILL.md"))
    assert meta == {"name": "[beta] tool"} and repairs
    with pytest.raises(InputFileError, match="invalid YAML"):
        read_lenient("---\nname: [unclosed\n  - x: y\n---\n", Path("SKILL.md"))


def test_translation_moves_and_repairs_without_losing_anything():
    raw = {
        "name": "tool",
        "description": "Does things.",
        "version": "2.1",
        "tags": "a, b",
        "homepage": "https://example.org",
        "source": "https://github.com/x/y",
        "links": "not a mapping",
        "metadata": {"n": 3, "flag": True, "list": ["p", "q"]},
    }
    result = translate(
        raw, "tool", keep=frozenset(), source_format="agentskills_io", source_url="/src/tool"
    )
    written = result.meta  # the toolkit's own fields go into metadata, as strings
    assert list(written)[:2] == ["name", "description"] and list(written)[-1] == "metadata"
    assert written["metadata"]["version"] == "2.1.0" and "version" not in written
    meta = lifted(written)
    assert meta["version"] == "2.1.0"
    assert meta["tags"] == ["a", "b"]
    assert meta["metadata"] == {
        "n": "3",
        "flag": "true",
        "list": "p, q",
        "homepage": "https://example.org",
        "upstream-source": "https://github.com/x/y",
        "links": "not a mapping",
    }
    assert (meta["source"], meta["source_format"], meta["source_url"]) == (
        "imported",
        "agentskills_io",
        "/src/tool",
    )
    assert not result.problems and len(result.repairs) == 8
    from exobrain.artifacts.register import native_problems

    assert native_problems(meta) == []


def test_copy_tree_digests_match_dirhash(tmp_path):
    source = build_tree(
        tmp_path / "s",
        {
            "SKILL.md": "old\n",
            "a/b.txt": "b\n",
            ".DS_Store": "x",
            "__pycache__": {"c.pyc": "x"},
            "x.pyc": "x",
        },
    )
    os.symlink("a/b.txt", source / "link")
    target = tmp_path / "t"
    target.mkdir()
    upstream, written = copy_tree(source, target, replace={"SKILL.md": "new\n"})
    assert upstream == file_digests(source) and written == file_digests(target)
    assert (target / "SKILL.md").read_text() == "new\n" and os.readlink(
        target / "link"
    ) == "a/b.txt"
    assert not (target / "__pycache__").exists() and not (target / ".DS_Store").exists()
    os.symlink("../../x", source / "a/up")
    os.symlink("/etc", source / "abs")
    os.symlink("../b.txt", source / "a/sideways")
    assert [rel for rel, _ in unsafe_entries(source)] == ["a/up", "abs"]


def test_detection(tmp_path):
    bundle = discover(kdense_bundle(tmp_path / "k"))
    assert len(bundle.skills) == 8 and bundle.manifests == [".claude-plugin/marketplace.json"]
    assert detect(bundle, [])[0].NAME == "kdense"
    plain = discover(
        build_tree(
            tmp_path / "p",
            {"skills/a/SKILL.md": "x", "deep/er/b/SKILL.md": "y", ".git/c/SKILL.md": "z"},
        )
    )
    assert [s.rel for s in plain.skills] == ["deep/er/b", "skills/a"]
    assert detect(plain, [{"name": "a"}])[0].NAME == "agentskills"
    assert detect(plain, [{"name": "a", "model": "opus"}])[0].NAME == "claude"
    assert detect(plain, [{"allowed-tools": ["Read"]}])[0].NAME == "claude"
    assert detect(plain, [{"metadata": {"skill-author": "K"}}])[0].NAME == "kdense"


def test_source_classification(tmp_path):
    build_tree(tmp_path, {"dir/SKILL.md": "x"})
    assert classify(str(tmp_path / "dir"))[:2] == (FOLDER, str(tmp_path / "dir"))
    assert classify("https://example.org/r.git", path="skills/x", ref="v1") == (
        GIT,
        "https://example.org/r.git",
        "skills/x",
        "v1",
    )
    assert classify("anthropics/skills/skills/pdf@main") == (
        GIT,
        "https://github.com/anthropics/skills",
        "skills/pdf",
        "main",
    )
    assert classify("owner/repo") == (GIT, "https://github.com/owner/repo", "", None)
    with pytest.raises(UsageError, match="not a git URL"):
        classify(str(tmp_path / "missing"))
    with pytest.raises(UsageError, match="--path and --ref are for git"):
        classify(str(tmp_path / "dir"), ref="main")
    with pytest.raises(UsageError, match="not both"):
        classify("o/r/p@main", path="q")
    opened = Opened(GIT, "https://github.com/o/r", tmp_path, "skills", "v2", "abc")
    assert opened.display("pdf") == "https://github.com/o/r/tree/v2/skills/pdf"
    assert Opened(ARCHIVE, "/a.zip", tmp_path).display("x") == "local:a.zip/x"
    assert Opened(GIT, "ssh://h/r", tmp_path, "", "main").display("x") == "ssh://h/r#x@main"
