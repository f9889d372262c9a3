"""The site never deletes what it did not write (issue 30, item 4).

``exobrain site -o DIR`` used to replace DIR whenever it held a ``.exobrain-site`` file: a
gh-pages checkout lost its ``.git/`` and ``CNAME`` on the next build, and any folder with an
empty marker was wiped. Now the marker is a manifest of the files the build wrote; these
attacks check that a rebuild touches only those, that a marker claiming anything else is
refused before anything changes, and that the sandbox outside the exobrain is untouched.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from exobrain.site.manifest import MARKER
from tests.support.hostile import invoke


def _site(root: Path, out: Path, *extra: str) -> tuple[int, str, dict]:
    """Build with --json; exit code, stderr and the parsed report (empty on failure)."""
    result = invoke(root, ["exobrain", "site", "-o", str(out), "--json", *extra])
    return result.code, result.err, json.loads(result.out) if result.code == 0 else {}


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], check=True, capture_output=True, text=True
    ).stdout


def _pages_checkout(folder: Path) -> str:
    """A gh-pages checkout: a git repository with a CNAME committed; its commit id."""
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "init", "-q", "-b", "gh-pages")
    (folder / "CNAME").write_text("skills.example.org\n")
    _git(folder, "add", "CNAME")
    _git(folder, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "cname")
    return _git(folder, "rev-parse", "HEAD").strip()


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_a_pages_checkout_keeps_git_and_cname_over_two_rebuilds(sandbox):
    out = sandbox.scratch / "pages"
    code, err, first = _site(sandbox.root, out)
    assert code == 0, err
    head = _pages_checkout(out)  # the user turns the built folder into a gh-pages checkout
    git_files = _tree(out / ".git")
    for _ in range(2):
        code, err, report = _site(sandbox.root, out)
        assert code == 0, err
        assert {k["path"]: k["why"] for k in report["kept"]} == {
            ".git/": "not written by exobrain site",
            "CNAME": "not written by exobrain site",
        }
        assert report["removed"] == [] and report["files"] == first["files"]
    assert (out / "CNAME").read_text() == "skills.example.org\n"
    assert _tree(out / ".git") == git_files
    assert _git(out, "rev-parse", "HEAD").strip() == head
    assert _git(out, "status", "--porcelain", "CNAME") == ""
    text = invoke(sandbox.root, ["exobrain", "site", "-o", str(out)])
    assert text.code == 0 and "kept 2 it did not write: .git/, CNAME" in text.out, text.text


def test_force_builds_into_an_existing_checkout_and_deletes_nothing(sandbox):
    out = sandbox.scratch / "pages"
    head = _pages_checkout(out)
    (out / "old.html").write_text("a page of the user's\n")
    refused = invoke(sandbox.root, ["exobrain", "site", "-o", str(out)])
    assert refused.code == 2 and "--force" in refused.err and MARKER in refused.err
    assert sorted(p.name for p in out.iterdir()) == [".git", "CNAME", "old.html"]
    code, err, report = _site(sandbox.root, out, "--force")
    assert code == 0, err
    assert (out / "old.html").read_text() == "a page of the user's\n"
    assert (out / "CNAME").is_file() and _git(out, "rev-parse", "HEAD").strip() == head
    assert {k["path"] for k in report["kept"]} == {".git/", "CNAME", "old.html"}
    code, err, again = _site(sandbox.root, out)  # the manifest now exists: no --force needed
    assert code == 0 and again["removed"] == [] and (out / "old.html").is_file(), err


def test_an_empty_marker_does_not_make_a_folder_ours(sandbox):
    out = sandbox.scratch / "photos"
    out.mkdir()
    (out / MARKER).write_text("")
    (out / "holiday.jpg").write_bytes(b"\xff\xd8 a photo")
    (out / "album").mkdir()
    (out / "album/index.html").write_text("my album\n")
    before = _tree(out)
    result = invoke(sandbox.root, ["exobrain", "site", "-o", str(out)])
    assert result.code == 2, result.text
    assert f"{out / MARKER}: not a manifest of exobrain site" in result.err
    assert "nothing was changed" in result.err and "--force" in result.err
    assert _tree(out) == before


def _forged(out: Path, claims: dict[str, str]) -> dict[str, bytes]:
    """A folder with files of the user's and a manifest of ours claiming ``claims``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text("the user's own page\n")
    (out / MARKER).write_text(
        json.dumps({"manifest_version": 1, "generator": "exobrain site", "files": claims})
    )
    return _tree(out)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_manifest_claiming_files_outside_the_folder_is_refused(sandbox):
    notes = sandbox.victim / "notes.md"  # the sandbox fixture also checks its bytes
    outside = sandbox.scratch / "outside.txt"
    outside.write_text("beside the site\n")
    claims = {
        "../outside.txt": _sha(outside),
        str(notes): _sha(notes),
        "/etc/hostname": "0" * 64,
        "via/notes.md": _sha(notes),
        ".git/config": _sha(notes),
    }
    for k, (rel, digest) in enumerate(claims.items()):
        out = sandbox.scratch / f"site-{k}"
        before = _forged(out, {rel: digest})
        if rel.startswith("via/"):
            (out / "via").symlink_to(sandbox.victim)
        result = invoke(sandbox.root, ["exobrain", "site", "-o", str(out)])
        assert result.code == 2, (rel, result.text)
        assert f"{out / MARKER}: lists" in result.err
        assert "not a file exobrain site wrote" in result.err
        assert "--force" in result.err and "nothing was changed" in result.err
        assert _tree(out) == before, rel
        assert notes.read_text() == "mine\n" and outside.read_text() == "beside the site\n"
        # --force ignores what the manifest claims: the site is written, nothing deleted
        code, err, report = _site(sandbox.root, out, "--force")
        assert code == 0, err
        assert report["removed"] == []
        assert notes.read_text() == "mine\n" and outside.read_text() == "beside the site\n"


def test_a_skill_removed_between_builds_loses_its_page_and_only_that(sandbox):
    out = sandbox.scratch / "site"
    code, err, first = _site(sandbox.root, out)
    assert code == 0, err
    page = "skills/global/world.html"
    assert page in first["files"]
    (out / "skills/global/notes.txt").write_text("the user's, beside the pages\n")
    registry = sandbox.root / "skills.json"
    data = json.loads(registry.read_text())
    data["skills"] = [e for e in data["skills"] if e["name"] != "world"]
    registry.write_text(json.dumps(data))
    code, err, second = _site(sandbox.root, out)
    assert code == 0, err
    assert page in second["removed"] and page not in second["files"]
    assert not (out / page).exists()
    assert (out / "skills/global/notes.txt").read_text() == "the user's, beside the pages\n"
    assert {k["path"] for k in second["kept"]} == {"skills/global/notes.txt"}
    manifest = json.loads((out / MARKER).read_text())
    assert sorted(manifest["files"]) == second["files"]
    assert all(_sha(out / rel) == digest for rel, digest in manifest["files"].items())


def test_a_page_edited_since_the_build_is_kept_when_it_is_no_longer_written(sandbox):
    out = sandbox.scratch / "site"
    assert _site(sandbox.root, out)[0] == 0
    page = "skills/groups.acme/tidy.html"  # the only page in its folder
    (out / page).write_text("annotated by hand\n")
    registry = sandbox.root / "groups/acme/skills.json"
    data = json.loads(registry.read_text())
    data["skills"] = []
    registry.write_text(json.dumps(data))
    code, err, report = _site(sandbox.root, out)
    assert code == 0, err
    assert (out / page).read_text() == "annotated by hand\n"
    assert page not in report["removed"]
    assert ".well-known/agent-skills/tidy/SKILL.md" in report["removed"]  # unchanged: removed
    assert report["kept"] == [
        {"path": page, "why": "changed since exobrain site wrote it: not removed"}
    ]  # named once: not its folder as well


def test_a_new_file_over_one_the_build_did_not_write_needs_force(sandbox):
    out = sandbox.scratch / "site"
    code, err, _ = _site(sandbox.root, out)
    assert code == 0, err
    manifest = json.loads((out / MARKER).read_text())
    del manifest["files"]["scopes.html"]  # as if an older build had not written it
    (out / MARKER).write_text(json.dumps(manifest))
    (out / "scopes.html").write_text("the user's own scopes page\n")
    result = invoke(sandbox.root, ["exobrain", "site", "-o", str(out)])
    assert result.code == 2 and "would overwrite 1 files it did not write: scopes.html" in (
        result.err
    ), result.text
    assert (out / "scopes.html").read_text() == "the user's own scopes page\n"
    code, err, _ = _site(sandbox.root, out, "--force")
    assert code == 0 and (out / "scopes.html").read_text() != "the user's own scopes page\n"


def test_a_manifest_claiming_a_cname_with_its_real_digest_is_refused(sandbox):
    """Issue 40: whoever can commit to a gh-pages checkout can edit its manifest; listing the
    host's own files (``CNAME``, ``.htaccess``, an ``assets/logo.png`` of the web root) with
    their real digests made the next build delete them as files it no longer writes. Only
    what a build writes can be claimed."""
    for rel, text in (
        ("CNAME", "skills.example.org\n"),
        (".htaccess", "Options -Indexes\n"),
        ("assets/logo.png", "png\n"),
    ):
        out = sandbox.scratch / f"pages-{rel.replace('/', '-')}"
        code, err, _ = _site(sandbox.root, out)
        assert code == 0, err
        (out / rel).write_text(text)
        manifest = json.loads((out / MARKER).read_text())
        manifest["files"][rel] = _sha(out / rel)
        (out / MARKER).write_text(json.dumps(manifest))
        before = _tree(out)
        result = invoke(sandbox.root, ["exobrain", "site", "-o", str(out)])
        assert result.code == 2, (rel, result.text)
        assert f"lists '{rel}' (a path the builder never writes)" in result.err
        assert _tree(out) == before and (out / rel).read_text() == text
