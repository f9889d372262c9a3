"""skills-validate in a blob-less sparse clone says what a full checkout says about the
registries, declarations and overrides outside the cone (read from git's objects, and from
the cache of them on a second run), and still looks at what lies on the disk there."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.validate import main as validate_cmd
from exobrain.workspace import open_workspace
from tests.support.helpers import git, skill_md
from tests.support.sparse import full_clone, origin, sparse_clone

CONNECT = ["claude", "--person", "p0001", "--group", "g001", "--host", "h1", "--sparse"]
#: What the checks of SKILL.md files say (they are read only where the checkout holds them).
FILE_CODES = {"unsafe-file", "skill-frontmatter", "bash-era-form"}


def findings(root: Path) -> tuple[int, list[tuple[str, str, str | None, str]]]:
    done = CliRunner().invoke(validate_cmd, ["--json", "--repo", str(root)])
    report = json.loads(done.stdout)
    rows = [(f["code"], f["file"], f.get("entry"), f["message"]) for f in report["findings"]]
    return done.exit_code, sorted(r for r in rows if r[0] not in FILE_CODES)


def _edit(work: Path, rel: str, edit) -> None:
    path = work / rel
    data = json.loads(path.read_text(encoding="utf-8"))
    data["skills"] = edit(data["skills"])
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


@pytest.fixture
def broken(tmp_path) -> tuple[Path, Path]:
    """An origin with registries broken outside p0001's cone, and a full clone of it."""
    bare = origin(tmp_path)
    work = full_clone(bare, tmp_path / "work")
    first = json.loads((work / "people/p0003/skills.json").read_text())["skills"][0]["name"]
    _edit(
        work,
        "people/p0003/skills.json",
        lambda skills: [
            *skills,
            {"name": "ghost", "owner": "p0003", "tier": "optional"},  # no folder
            {"name": first, "owner": "p0003", "tier": "always"},  # declared twice
            {"name": "nowhere", "from": "groups/g002", "tier": "off"},  # dangling override
        ],
    )
    _edit(work, "people/p0002/hosts/h0/skills.json", lambda skills: [*skills, {"name": "Bad"}])
    stray = work / "people/p0002/skills/stray"
    stray.mkdir(parents=True)
    (stray / "SKILL.md").write_text(
        skill_md("stray", "A skill folder that no registry declares."), encoding="utf-8"
    )
    job = {"name": "tidy", "schedule": "0 3 * * *", "command": "true"}
    jobs = [{**job, "skill": "skill:stray@people/p0002"}, {**job, "name": "x", "skill": "nope"}]
    (work / "crons.json").write_text(json.dumps({"jobs": jobs}), encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "break registries outside the cone")
    git(work, "push", "-q", "origin", "HEAD:main")
    return bare, work


def test_sparse_validate_reports_what_a_full_checkout_does(broken, tmp_path):
    bare, work = broken
    root = sparse_clone(bare, tmp_path / "clone")
    CliRunner().invoke(connect_cmd, [*CONNECT, "--repo", str(root)])
    expected = findings(work)
    codes = {code for code, *_ in expected[1]}
    assert {"missing-skill", "skill_name_unique", "dangling-override"} <= codes
    assert {"registry-schema", "undeclared"} <= codes
    # a job may name an undeclared folder outside the cone (git's tree holds it), not "nope"
    unknown = [entry for code, _, entry, _ in expected[1] if code == "crons-unknown-skill"]
    assert unknown == ["#1 x"]  # jobs are numbered from 0
    assert findings(root) == expected  # read from git's objects
    assert findings(root) == expected  # and again from the cache of them


def test_files_on_disk_outside_the_cone_are_still_looked_at(broken, tmp_path):
    bare, _ = broken
    root = sparse_clone(bare, tmp_path / "clone")
    CliRunner().invoke(connect_cmd, [*CONNECT, "--repo", str(root)])
    folder = root / "people/p0003/hosts/h0"  # left out by the cone, made here by hand
    folder.mkdir(parents=True)
    (folder / "schedule.json").write_text('{"jobs": []}', encoding="utf-8")
    ws = open_workspace(root)
    ws.scan()
    assert not ws.sparse.without_folder("people/p0003/hosts/h0")
    assert ws.sparse.without_folder("people/p0003/hosts/h1") and ws.sparse.without_folder(
        "people/p0002"
    )
    assert not ws.sparse.without_folder("people/p0001")  # in the cone
    done = CliRunner().invoke(validate_cmd, ["--json", "--repo", str(root)])
    files = {f["file"] for f in json.loads(done.stdout)["findings"] if f["code"] == "bash-era-form"}
    assert files == {"people/p0003/hosts/h0/schedule.json"}
