"""Imports and updates follow only sources a committer cannot aim at a member's files (issue
40, item 6).

A lock is committed, so its ``upstream`` records are anyone's to write. One naming a folder,
an archive or a repository on the disk made every member's ``import --update --all`` (and the
weekly crons.json job that runs it) copy that place of *their* machine, ``creds.env`` and all,
into a shared scope. Now a local source is never named by the lock (only the machine that
imported from it remembers where it was), a record's paths must stay inside their source, and
the machine path no longer reaches the committed ``source_url`` either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from exobrain.util.dirhash import file_digests, hash_digests
from tests.support.helpers import build_tree, git, skill_md
from tests.support.hostile import invoke

SCOPE = "groups/acme"
NOTES = f"{SCOPE}/skills/notes"


def private_skill(folder: Path) -> Path:
    """A member's own skill folder outside the repository, with a secret beside it."""
    return build_tree(
        folder,
        {"SKILL.md": skill_md("notes", "Use notes for notes."), "creds.env": "TOKEN=hunter2\n"},
    )


def forged(root: Path, record: dict[str, Any]) -> None:
    """The committed ``notes`` of the shared scope, its lock entry naming ``record`` as the
    upstream it was imported from (and its copy untouched since, so an update would take
    whatever that upstream holds)."""
    build_tree(root, {f"{NOTES}/SKILL.md": skill_md("notes", version="1.0.0")})
    assert invoke(root, ["exobrain", "register", str(root / NOTES)]).code == 0
    lock_file = root / SCOPE / "skills.lock.json"
    lock = json.loads(lock_file.read_text())
    local = hash_digests(file_digests(root / NOTES))
    defaults = {"base": "", "path": "", "ref": None, "commit": None, "format": "agentskills"}
    lock["skills"]["notes"]["upstream"] = {
        **defaults,
        "hash": "h1:not-what-it-holds-now=",
        "imported": local,
        **record,
    }
    lock_file.write_text(json.dumps(lock, indent=2) + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "notes, imported")


def update_all(root: Path, *args: str) -> dict[str, Any]:
    result = invoke(root, ["exobrain", "import", "--update", "--all", "--json", *args])
    return json.loads(result.out)


def item(batch: dict[str, Any], ref: str = f"skill:notes@{SCOPE}") -> dict[str, Any]:
    return next(s for s in batch["skills"] if s["ref"] == ref)


def test_a_committed_folder_upstream_is_not_followed(sandbox):
    secret = private_skill(sandbox.scratch / "my-notes")
    forged(sandbox.root, {"kind": "folder", "url": str(secret)})
    batch = update_all(sandbox.root)
    assert not (sandbox.root / NOTES / "creds.env").exists()
    notes = item(batch)
    assert notes["status"] == "skipped"
    assert "imported from a local source" in notes["problem"]
    assert (
        notes["hint"]
        == "update it from that source yourself: exobrain import --update notes SOURCE"
    )


def test_a_committed_local_repository_upstream_is_not_followed(sandbox):
    secret = private_skill(sandbox.scratch / "my-notes")
    git(secret, "init", "-q", "-b", "main")
    git(secret, "add", "-A")
    git(secret, "commit", "-q", "-m", "mine")
    forged(sandbox.root, {"kind": "git", "url": secret.as_uri(), "ref": "main"})
    batch = update_all(sandbox.root, "--allow-local")  # this member reads local repositories
    assert not (sandbox.root / NOTES / "creds.env").exists()
    assert "imported from a local source" in item(batch)["problem"]


def test_a_record_path_may_not_leave_its_source(sandbox):
    """Even the machine that imported ``notes`` from its own folder follows the lock's path
    only inside that folder."""
    root = sandbox.root
    upstream = build_tree(sandbox.scratch / "shared/notes", {"SKILL.md": skill_md("notes")})
    private_skill(sandbox.scratch / "shared/private")
    imported = invoke(root, ["exobrain", "import", str(upstream), "--into", SCOPE])
    assert imported.code == 0, imported.text
    lock_file = root / SCOPE / "skills.lock.json"
    lock = json.loads(lock_file.read_text())
    lock["skills"]["notes"]["upstream"].update(url=str(upstream), path="../private")
    lock_file.write_text(json.dumps(lock))
    batch = update_all(root)
    assert not (root / NOTES / "creds.env").exists()
    assert "upstream path '../private' is not a path inside its source" in item(batch)["problem"]


def test_a_local_import_names_no_machine_path_and_updates_only_where_it_was_made(
    sandbox, monkeypatch
):
    root = sandbox.root
    upstream = build_tree(sandbox.scratch / "notes", {"SKILL.md": skill_md("notes")})
    imported = invoke(root, ["exobrain", "import", str(upstream), "--into", SCOPE])
    assert imported.code == 0 and "a local source, which the lock does not name" in imported.out
    committed = [root / SCOPE / "skills.lock.json", root / NOTES / "SKILL.md"]
    assert all(str(sandbox.scratch) not in path.read_text() for path in committed)
    lock = json.loads(committed[0].read_text())["skills"]["notes"]["upstream"]
    assert (lock["kind"], lock["url"]) == ("folder", "local")
    assert "source_url: local:notes" in committed[1].read_text()
    (upstream / "SKILL.md").write_text(skill_md("notes", body="Better.\n"))
    updated = invoke(root, ["exobrain", "import", "--update", "notes"])
    assert updated.code == 0 and "updated  skill:notes@groups/acme" in updated.out, updated.text
    # another machine (its own state folder): nothing tells it where the folder was
    monkeypatch.setenv("XDG_STATE_HOME", str(sandbox.scratch / "other-state"))
    (upstream / "SKILL.md").write_text(skill_md("notes", body="Best.\n"))
    refused = invoke(root, ["exobrain", "import", "--update", "notes"])
    assert refused.code == 1 and "imported from a local source" in refused.text
    assert "exobrain import --update notes SOURCE" in refused.text
    given = invoke(root, ["exobrain", "import", "--update", "notes", str(upstream)])
    assert given.code == 0 and "updated" in given.out, given.text
    assert invoke(root, ["exobrain", "import", "--update", "notes"]).code == 0  # remembered
