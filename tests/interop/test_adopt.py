"""exobrain adopt on a machine prepared with the records vercel's skills CLI and gh skill wrote:
every skill comes in with its source, ref and commit, and the rest of the toolkit takes it
from there (skills-status, connect-agent, fetch-external-skills --check)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from exobrain.cli.connect import main as connect
from exobrain.cli.fetch import main as fetch
from exobrain.cli.status import main as status
from exobrain.cli.umbrella import main as umbrella
from exobrain.cli.validate import main as validate
from exobrain.util.fileio import load_json
from tests.interop.adopt_machine import (
    GITHUB_URL,
    SSH_URL,
    brain,
    install_project,
    snapshot,
    upstream,
)
from tests.support.helpers import git


def adopt(root, *args):
    result = CliRunner().invoke(umbrella, ["adopt", "--repo", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def test_every_installed_skill_comes_in_with_source_ref_and_commit(tmp_path):
    up = upstream(tmp_path)
    tagged = git(up.work, "rev-parse", "v1.0^{commit}").strip()
    up.commit({"README.md": "# acme skills\n"})  # main moves on; the tag stays
    assert up.head() != tagged
    root = brain(tmp_path)
    install_project(root, up, tmp_path)
    theirs = snapshot(root / ".claude", root / ".agents", root / ".github")
    their_lock = (root / "skills-lock.json").read_bytes()

    code, out, err = adopt(root, "--into", "people/alice", "--yes")
    assert (code, err) == (0, ""), out
    assert "adopted 4 skill(s) into people/alice" in out

    entries = {e["name"]: e for e in load_json(root / "people/alice/skills.json")["skills"]}
    assert entries["pdf-tools"]["source"] == {
        "repo": GITHUB_URL,
        "path": "skills/pdf-tools",
        "ref": tagged,
    }
    assert f"v1.0 at {tagged}" in entries["pdf-tools"]["notes"]
    assert entries["release-notes"]["source"] == {
        "repo": SSH_URL,
        "path": "skills/release-notes",
        "ref": up.head(),
    }
    assert "the default branch at" in entries["release-notes"]["notes"]
    assert entries["commit-style"]["source"] == {
        "repo": GITHUB_URL,
        "path": "skills/commit-style",
        "ref": tagged,
    }
    assert f"refs/tags/v1.0 at {tagged}" in entries["commit-style"]["notes"]
    assert all(entries[n]["owner"] == "alice" and entries[n]["tier"] == "always" for n in entries)
    # the local install has no repository: an imported copy recording where it came from
    assert "source" not in entries["notes-helper"]
    copy = root / "people/alice/skills/notes-helper/SKILL.md"
    assert "source: imported" in copy.read_text()
    upstream_record = load_json(root / "people/alice/skills.lock.json")["skills"]["notes-helper"][
        "upstream"
    ]
    assert upstream_record["kind"] == "folder"
    assert upstream_record["url"] == "local"  # this machine's folder: not in the lock
    assert upstream_record["adopted"]["tool"] == "skills (vercel)"
    assert upstream_record["adopted"]["forked"] is False

    # only the scope was written: beside the other tools' files (there before), people/alice
    changed = {line[3:].split("/")[0] for line in git(root, "status", "--porcelain").splitlines()}
    assert changed == {".claude", ".agents", ".github", "skills-lock.json", "people"}
    assert {p.split("/")[0] for p in git(root, "diff", "--name-only").split()} <= {"people"}
    # nothing the other tools own was changed
    assert snapshot(root / ".claude", root / ".agents", root / ".github") == theirs
    assert (root / "skills-lock.json").read_bytes() == their_lock

    runner = CliRunner()
    validated = runner.invoke(validate, ["--repo", str(root)])
    assert validated.exit_code == 0, validated.output
    listed = runner.invoke(status, ["--repo", str(root), "--json", "--agent", "claude"])
    assert listed.exit_code == 0, listed.output
    rows = {r["name"]: r for r in json.loads(listed.stdout)["skills"]}
    for name in ("pdf-tools", "release-notes", "commit-style", "notes-helper"):
        assert rows[name]["tier"] == "always", rows[name]

    linked = runner.invoke(connect, ["claude", "--repo", str(root)])
    assert linked.exit_code == 0, linked.output
    for name in ("pdf-tools", "release-notes", "commit-style"):
        # the plain name where theirs does not hold it, else told apart beside theirs
        folder = root / ".claude/skills" / name
        if not (folder / ".exobrain-source.json").is_file():
            folder = root / f".claude/skills/{name}.alice"
            assert f"{name}: .claude/skills/{name} was not installed by exobrain" in linked.output
        install = load_json(folder / ".exobrain-source.json")
        assert install["commit"] in (tagged, up.head())
    assert (root / ".claude/skills/notes-helper.people__alice").is_symlink()
    checked = runner.invoke(fetch, ["--repo", str(root), "--agent", "claude", "--check"])
    assert checked.exit_code == 0, checked.output
    # still nothing of theirs touched: their folders sit beside the toolkit's links
    assert (root / ".claude/skills/pdf-tools/SKILL.md").read_bytes() == theirs[
        str(root / ".claude/skills/pdf-tools/SKILL.md")
    ]

    again, out, _ = adopt(root, "--into", "people/alice", "--yes")
    assert again == 0 and out.count("adopted before, nothing to do") == 4
