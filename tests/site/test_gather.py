"""``exobrain site`` on a real exobrain: which skills it shows, the facts it gathers, the CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from click.testing import CliRunner

from exobrain.cli.site import command
from exobrain.site.gather import gather
from exobrain.site.linkcheck import check_site
from exobrain.workspace import open_workspace
from tests.support.site_repo import PERSONAL, SHARED


def _by_name(data: dict) -> dict[str, dict]:
    return {s["name"]: s for s in data["skills"]}


def test_default_shows_the_shared_scopes_only(repo: Path) -> None:
    data = gather(open_workspace(repo))
    assert sorted(_by_name(data)) == SHARED
    assert "people/alice" not in {s["name"] for s in data["scopes"]}
    ligand = _by_name(data)["ligand-dock"]
    # alice's override lives in her registry: not published by default
    assert [d["scope"] for d in ligand["declarations"]] == ["groups/science"]


def test_all_scopes_adds_personal_scopes(repo: Path) -> None:
    data = gather(open_workspace(repo), everything=True)
    assert sorted(_by_name(data)) == sorted([*SHARED, PERSONAL])
    ligand = _by_name(data)["ligand-dock"]
    assert [(d["scope"], d["kind"], d["tier"]) for d in ligand["declarations"]] == [
        ("groups/science", "declaration", "optional"),
        ("people/alice", "override", "always"),
    ]


def test_facts_of_a_skill(repo: Path) -> None:
    skills = _by_name(gather(open_workspace(repo)))
    pdf = skills["pdf-tools"]
    assert (pdf["home"], pdf["owner"], pdf["tier"], pdf["version"]) == (
        "global",
        "alex",
        "always",
        "1.0.0",
    )
    assert pdf["tags"] == ["documents", "ops"] and pdf["triggers"] == ["extract text from a pdf"]
    assert pdf["body"].startswith("# PDF tools")
    assert pdf["last_change"] == "2026-01-01"  # the suite's fixed commit date
    script = repo / "skills/pdf-tools/scripts/extract.py"
    assert {
        "path": "scripts/extract.py",
        "size": script.stat().st_size,
        "sha256": hashlib.sha256(script.read_bytes()).hexdigest(),
    } in pdf["files"]
    assert pdf["lock"]["state"] == "locked" and pdf["lock"]["locked version"] == "1.0.0"
    assert skills["release-notes"]["lock"]["state"] == "drifted"
    assert "SKILL.md" in skills["release-notes"]["lock"]["changes"]
    assert skills["skill-creator"]["lock"]["state"] == "external"
    assert [(d["scope"], d["kind"], d["tier"]) for d in pdf["declarations"]] == [
        ("global", "declaration", "always"),
        ("teams/platform", "override", "off"),
    ]
    assert pdf["declarations"][0]["note"] == "forced"
    # signals: two up votes, two uses in the last 90 days, a quality score
    assert pdf["signals"]["summary"]["votes up"] == 2 and sum(pdf["usage"]) == 2
    assert sum(w["uses"] for w in pdf["signals"]["timeline"]) == 2
    assert 0 < pdf["quality"] <= 1
    assert skills["changelog-writer"]["signals"]["summary"]["votes down"] == 1
    # links resolved to NAME@HOME: a bare name finds the visible skill of that name
    assert skills["release-notes"]["links"] == [
        {"type": "supersedes", "target": "changelog-writer@teams/platform"}
    ]
    assert skills["ligand-dock"]["links"] == [{"type": "uses_skill", "target": "pdf-tools@global"}]


def test_cli_writes_the_site_and_lists_it(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    result = CliRunner().invoke(command, ["-o", str(out), "--json", "--repo", str(repo)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["skills"] == len(SHARED)
    assert "skills/global/pdf-tools.html" in report["files"]
    assert sorted(report["files"]) == sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file() and p.name != ".exobrain-site"
    )
    links = check_site(out)
    assert links.problems == []
    assert links.pages == len([f for f in report["files"] if f.endswith(".html")])
    # the links both ways, as links
    pdf = (out / "skills/global/pdf-tools.html").read_text()
    assert 'href="../../skills/groups.science/ligand-dock.html"' in pdf  # used by
    assert "skills-promote pdf-tools --from global --to optional" in pdf
    external = (out / "skills/external.anthropic/skill-creator.html").read_text()
    assert "skills-promote skill-creator --from external --owner anthropic" in external
    # a rebuild replaces the earlier one; a folder of other files is refused, exit 2
    again = CliRunner().invoke(command, ["-o", str(out), "--repo", str(repo), "--all-scopes"])
    assert again.exit_code == 0 and (out / "skills/people.alice/alice-notes.html").is_file()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine/notes.txt").write_text("keep")
    refused = CliRunner().invoke(command, ["-o", str(tmp_path / "mine"), "--repo", str(repo)])
    assert refused.exit_code == 2 and "not empty" in refused.output
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]
