"""The discovery index (issue 33, item 3): ``.well-known/agent-skills/index.json`` follows the
Agent Skills discovery draft 0.2.0, every URL in it is a file of the built site, and its
digests are the ones ``exobrain lock`` recorded."""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import zipfile
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from exobrain.artifacts.lockfile import read_lock
from exobrain.cli.site import command
from exobrain.site.build import build_site
from exobrain.util.dirhash import hash_digests
from tests.support import ROOT
from tests.support.helpers import skill_md

SCHEMA = ROOT / "tests/fixtures/agent-skills-discovery/index-0.2.0.schema.json"
INDEX = ".well-known/agent-skills/index.json"


@pytest.fixture(scope="module")
def built(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The real exobrain's site, built with the CLI; its folder and --json report."""
    out = tmp_path_factory.mktemp("discovery") / "site"
    result = CliRunner().invoke(command, ["-o", str(out), "--json", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def _index(out: Path) -> dict:
    return json.loads((out / INDEX).read_text(encoding="utf-8"))


def _served(out: Path, url: str) -> Path:
    """The file a relative URL of the index names, resolved as a client would (RFC 3986)."""
    assert "://" not in url and not url.startswith("/"), url
    return out / posixpath.normpath(posixpath.join(posixpath.dirname(INDEX), url))


def test_the_index_validates_against_the_drafts_schema(built: tuple[Path, dict]) -> None:
    out, report = built
    index = _index(out)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(index)
    names = [e["name"] for e in index["skills"]]
    # the external skill is not fetched into this checkout: nothing of it to serve
    assert names == [
        "changelog-writer",
        "hostile-content",
        "ligand-dock",
        "pdf-tools",
        "release-notes",
    ]
    assert report["discovery"]["skills"] == names
    assert report["discovery"]["left_out"] == [
        {"skill": "skill-creator@external/anthropic", "why": "its folder is not in this checkout"}
    ]
    types = {e["name"]: e["type"] for e in index["skills"]}
    assert types["pdf-tools"] == "archive" and types["ligand-dock"] == "skill-md"
    hostile = next(e for e in index["skills"] if e["name"] == "hostile-content")
    assert hostile["description"] == "Tries to run script <script>window.__pwned=20</script>."
    assert INDEX in report["files"]


def test_every_url_is_a_file_of_the_site_with_that_digest(built: tuple[Path, dict]) -> None:
    out, report = built
    for entry in _index(out)["skills"]:
        path = _served(out, entry["url"])
        assert path.is_file(), entry
        assert path.relative_to(out).as_posix() in report["files"]
        assert entry["digest"] == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
        if entry["type"] == "archive":
            with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as archive:
                names = archive.namelist()
            assert "SKILL.md" in names and not any(n.startswith(("/", "..")) for n in names)
        else:
            assert path.name == "SKILL.md"


def test_the_digests_are_the_locks(built: tuple[Path, dict], repo: Path) -> None:
    out, _ = built
    entries = {e["name"]: e for e in _index(out)["skills"]}
    homes = {
        "changelog-writer": "teams/platform",
        "hostile-content": "teams/platform",
        "ligand-dock": "groups/science",
        "pdf-tools": "global",
    }
    for name, home in homes.items():
        locked = read_lock(repo, home)["skills"][name]
        entry = entries[name]
        if entry["type"] == "skill-md":
            assert entry["digest"] == "sha256:" + locked["files"]["SKILL.md"], name
        else:  # the archive holds exactly the locked files, each with the lock's digest
            data = _served(out, entry["url"]).read_bytes()
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = {
                    n: hashlib.sha256(archive.read(n)).hexdigest() for n in archive.namelist()
                }
            assert members == locked["files"], name
            assert hash_digests(members) == locked["hash"]
    # edited since its lock: the index describes what the site serves, not the stale lock
    drifted = entries["release-notes"]
    locked = read_lock(repo, "teams/platform")["skills"]["release-notes"]["files"]["SKILL.md"]
    current = repo / "teams/platform/skills/release-notes/SKILL.md"
    assert drifted["digest"] == "sha256:" + hashlib.sha256(current.read_bytes()).hexdigest()
    assert drifted["digest"] != "sha256:" + locked


def test_an_unchanged_skill_keeps_its_digest_on_a_rebuild(
    built: tuple[Path, dict], repo: Path, tmp_path: Path
) -> None:
    out, _ = built
    again = tmp_path / "again"
    result = CliRunner().invoke(command, ["-o", str(again), "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    line = f"discovery index {INDEX}: 5 skills; left out 1: skill-creator@external/anthropic"
    assert line in result.output
    assert (again / INDEX).read_bytes() == (out / INDEX).read_bytes()
    zipped = ".well-known/agent-skills/pdf-tools.zip"
    assert (again / zipped).read_bytes() == (out / zipped).read_bytes()


def test_skills_the_draft_cannot_describe_are_left_out_with_the_reason(tmp_path: Path) -> None:
    def folder(name: str, text: str, **extra: str) -> str:
        path = tmp_path / "skills" / name
        path.mkdir(parents=True)
        (path / "SKILL.md").write_text(text)
        for rel, content in extra.items():
            (path / rel).write_text(content)
        return str(path)

    outside = tmp_path / "secret.txt"
    outside.write_text("not the skill's\n")
    leaky = folder("leaky", skill_md("leaky", "Leaks."))
    (Path(leaky) / "notes.md").symlink_to(outside)
    skills = [
        {"name": "good", "home": "g", "description": "Fine.", "folder": folder("good", "x")},
        {"name": "Bad_Name", "home": "g", "description": "Bad.", "folder": folder("b", "x")},
        {"name": "twice", "home": "g", "description": "One.", "folder": folder("t1", "x")},
        {"name": "twice", "home": "h", "description": "Two.", "folder": folder("t2", "x")},
        {"name": "mute", "home": "g", "description": "", "folder": folder("mute", "x")},
        {"name": "long", "home": "g", "description": "w" * 1025, "folder": folder("l", "x")},
        {"name": "leaky", "home": "g", "description": "Leaks.", "folder": leaky},
        {"name": "empty", "home": "g", "description": "No file.", "folder": folder("e", "x")},
        {"name": "nowhere", "home": "g", "description": "Not here."},
    ]
    (tmp_path / "skills/e/SKILL.md").rename(tmp_path / "skills/e/README.md")
    found = build_site({"skills": skills}, tmp_path / "site").discovery
    index = _index(tmp_path / "site")
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(index)
    assert [e["name"] for e in index["skills"]] == ["good"]
    why = found.left_out
    assert "not an Agent Skills name" in why["Bad_Name@g"]
    assert (
        why["twice@g"]
        == why["twice@h"]
        == ("2 published skills share its name; the index names a skill once")
    )
    assert why["mute@g"] == "it has no description"
    assert why["long@g"] == "its description is over 1024 characters"
    assert "leads outside the skill folder" in why["leaky@g"]
    assert "no SKILL.md" in why["empty@g"]
    assert why["nowhere@g"] == "its folder is not in this checkout"
    assert not any("secret" in p.name for p in (tmp_path / "site").rglob("*"))
