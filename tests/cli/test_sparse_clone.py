"""A big exobrain's way of working: a blob-less, sparse clone of a generated repository
(``git clone --filter=blob:none --sparse``) that holds only what the connection needs.

What needs only the chain works with only the chain on disk; what needs the whole repository
reads the rest from git's objects (fetching the blobs the clone lacks) and never answers with
less without saying so; the cone follows the connection and the registries after a pull."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from click.testing import CliRunner

from exobrain.catalog.rows import catalog_rows
from exobrain.cli.connect import main as connect_cmd
from exobrain.cli.status import main as status_cmd
from exobrain.cli.umbrella import main as exobrain_cmd
from exobrain.cli.validate import main as validate_cmd
from exobrain.sparse.committed import close_all
from exobrain.workspace import open_workspace
from tests.support.helpers import git
from tests.support.sparse import CONE, SHAPE, cone, full_clone, origin, push_change, sparse_clone

CONNECT = ["claude", "--person", "p0001", "--group", "g001", "--host", "h1", "--sparse"]


def invoke(command, root: Path, *args: str, env: dict[str, str] | None = None):
    result = CliRunner().invoke(command, [*args, "--repo", str(root)], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def connected(tmp_path: Path) -> tuple[Path, Path]:
    """A sparse clone connected as p0001 on h1 in g001, and its origin."""
    bare = origin(tmp_path)
    root = sparse_clone(bare, tmp_path / "clone")
    done = invoke(connect_cmd, root, *CONNECT)
    assert done.exit_code == 0, done.output
    return root, bare


def test_connect_and_status_need_only_the_chain(tmp_path):
    bare = origin(tmp_path)
    root = sparse_clone(bare, tmp_path / "clone")
    assert not (root / "people").exists()  # a fresh sparse clone: the root's files only
    done = invoke(connect_cmd, root, *CONNECT)
    assert done.exit_code == 0, done.output
    assert "sparse checkout: 5 folder(s) added" in done.output
    assert cone(root) == CONE
    assert json.loads((root / ".exobrain.json").read_text())["sparse"] is True
    assert not (root / "people/p0002").exists() and not (root / "groups/g002").exists()
    assert not (root / "people/p0001/hosts/h0/skills").exists()  # the other host stays out
    links = root / ".claude/skills"
    assert (links / "group-001-skill-0/SKILL.md").is_file()
    assert (links / "p0001-h1-skill-0/SKILL.md").is_file()
    data = json.loads(invoke(status_cmd, root, "--json").output)
    assert data["chain"] == ["global", "groups/g001", "people/p0001", "people/p0001/hosts/h1"]
    tiers = {(s["name"], s["scope"]): s["tier"] for s in data["skills"]}
    assert tiers[("group-001-skill-1", "groups/g001")] == "always"  # the person's opt-in
    assert tiers[("global-skill-0000", "global")] == "off"
    assert all(s["description"] for s in data["skills"] if s["tier"] != "off")
    again = invoke(connect_cmd, root, "claude", "--relink")
    assert again.exit_code == 0 and "0 linked" in again.output and "sparse" not in again.output


def test_catalog_lists_every_declaration_from_git(tmp_path):
    root, _ = connected(tmp_path)
    first = invoke(status_cmd, root, "--all", "--json")
    assert first.exit_code == 0, first.output
    rows = json.loads(first.stdout)["skills"]
    assert len(rows) == SHAPE.total_skills
    outside = {r["name"]: r for r in rows}["p0003-h0-skill-1"]
    assert outside["scope"] == "people/p0003/hosts/h0" and "p0003 host h0" in outside["description"]
    assert not (root / "people/p0003").exists()  # read from git's objects, not checked out
    assert list((root / ".exobrain-cache/tree").glob("units-*.json"))
    assert invoke(status_cmd, root, "--all", "--json").stdout == first.stdout  # the memo


def test_reading_a_big_repository_from_git_reports_its_progress(tmp_path):
    root, _ = connected(tmp_path)
    ws = open_workspace(root)
    reports: list[tuple[str, int, int]] = []
    ws.sparse.progress = lambda stage, done, total: reports.append((stage, done, total))
    try:
        rows = catalog_rows(ws)
    finally:
        close_all()
    assert len(rows) == SHAPE.total_skills
    # the folders are listed first; each read is preceded by the fetch of what the clone lacks
    order = [
        stage for i, (stage, _, _) in enumerate(reports) if i == 0 or reports[i - 1][0] != stage
    ]
    assert order == ["git-list", "git-fetch", "git-registries", "git-fetch", "git-skills"]
    for stage in ("git-list", "git-registries", "git-skills"):
        counts = [(done, total) for s, done, total in reports if s == stage]
        assert [d for d, _ in counts] == sorted(d for d, _ in counts)
        assert counts[-1][0] == counts[-1][1] > 0
    fetched = [(done, total) for s, done, total in reports if s == "git-fetch"]
    assert fetched[0][0] == 0 and all(0 <= done <= total for done, total in fetched)
    assert sum(1 for done, total in fetched if done == total) == 2  # both fetches completed
    read_skills = [total for s, _, total in reports if s == "git-skills"]
    assert read_skills[-1] == SHAPE.total_skills - 10  # every SKILL.md but the cone's 10


def test_the_catalog_memo_follows_a_pull(tmp_path):
    root, bare = connected(tmp_path)
    before = invoke(status_cmd, root, "--all", "--plain").stdout
    push_change(
        full_clone(bare, tmp_path / "work"),
        "people/p0003/skills.json",
        lambda entries: [*entries, {"name": "newcomer", "owner": "p0003", "tier": "optional"}],
    )
    assert invoke(status_cmd, root, "--all", "--plain").stdout == before
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    after = invoke(status_cmd, root, "--all", "--plain").stdout
    assert "newcomer\tpeople/p0003" in after and "newcomer" not in before


def test_validate_reports_no_false_missing_skill(tmp_path):
    root, bare = connected(tmp_path)
    clean = invoke(validate_cmd, root)
    assert clean.exit_code == 0, clean.output
    assert "missing-skill" not in clean.output
    assert "lie outside the sparse checkout" in clean.stderr
    work = full_clone(bare, tmp_path / "work")
    push_change(
        work,
        "people/p0003/skills.json",
        lambda entries: [*entries, {"name": "ghost", "owner": "p0003", "tier": "optional"}],
    )
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    found = invoke(validate_cmd, root, "--json")
    missing = [f for f in json.loads(found.stdout)["findings"] if f["code"] == "missing-skill"]
    assert [(f["file"], f["entry"]) for f in missing] == [("people/p0003/skills.json", "#4 ghost")]


def test_knowledge_outside_the_cone_is_copied_from_git_without_its_links(tmp_path):
    root, bare = connected(tmp_path)
    work = full_clone(bare, tmp_path / "work")
    notes = work / "people/p0003/knowledge"
    (notes / "deep").mkdir(parents=True)
    (notes / "runbook.md").write_text("# Runbook\nRestart the queue.\n")
    (notes / "deep/more.md").write_text("more\n")
    (notes / "elsewhere.md").symlink_to("../../p0002/skills.json")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "knowledge of p0003")
    git(work, "push", "-q", "origin", "HEAD:main")
    git(root, "pull", "-q", "--no-rebase", "origin", "main")
    ws = open_workspace(root)
    try:
        ws.scan()  # p0003 is read from git from now on
        copies = ws.sparse.knowledge_copies("people/p0003", "knowledge")
    finally:
        close_all()
    assert sorted(copies) == ["deep/more.md", "runbook.md"]  # the link is left out
    assert copies["runbook.md"].read_text() == "# Runbook\nRestart the queue.\n"
    assert not (root / "people/p0003").exists()  # copied into the cache, not checked out


def test_search_all_scopes_sees_every_scope(tmp_path):
    root, _ = connected(tmp_path)

    def homes(*extra: str) -> set[str]:
        # --all: what is visible, the hits under the relevance floor included
        args = ["search", "group g002 topic", "--lexical", "--json", "-k", "50", "--all", *extra]
        done = invoke(exobrain_cmd, root, *args)
        assert done.exit_code in (0, 1), done.output  # 1: nothing above the floor
        data = json.loads(done.stdout)
        return {hit["home"] for hit in data["hits"] + data["below_floor"]}

    everywhere = homes("--all-scopes")
    assert "groups/g002" in everywhere and "groups/g000" in everywhere  # outside the cone
    assert "people/p0000" in everywhere  # someone else's scope, read from git as --all lists it
    assert "groups/g002" not in homes()  # the default view is the chain
    assert not (root / "groups/g002").exists()


def test_the_cone_follows_the_registries_after_a_pull(tmp_path):
    root, bare = connected(tmp_path)
    work = full_clone(bare, tmp_path / "work")
    opt_in = {"name": "group-002-skill-0", "from": "groups/g002", "tier": "always"}
    push_change(work, "people/p0001/skills.json", lambda entries: [*entries, opt_in])
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["git", "pull", "-q", "--no-rebase", "origin", "main"], cwd=root, env=env)
    assert "groups/g002/skills/group-002-skill-0" in cone(root)  # the post-merge hook's relink
    link = root / ".claude/skills/group-002-skill-0"
    assert (link / "SKILL.md").is_file()
    assert not (root / "groups/g002/skills/group-002-skill-1").exists()


def test_the_cone_follows_a_change_of_connection(tmp_path):
    root, _ = connected(tmp_path)
    done = invoke(connect_cmd, root, *CONNECT, "--group", "g002")
    assert done.exit_code == 0, done.output
    assert "groups/g002/skills" in cone(root)
    assert (root / ".claude/skills/group-002-skill-0").is_dir()
    done = invoke(connect_cmd, root, "claude", "--person", "p0002", "--host", "h0")
    assert done.exit_code == 0, done.output
    assert cone(root) == [
        "groups/g002/skills/group-002-skill-1",  # p0002 opts into it from outside the chain
        "people/p0002/hosts/h0/skills",
        "people/p0002/skills",
        "signals/p0002",
        "skills",
    ]
    assert not (root / "people/p0001").exists()


def test_exobrain_sparse_shows_and_applies_the_cone(tmp_path):
    bare = origin(tmp_path)
    root = sparse_clone(bare, tmp_path / "clone")
    (root / ".exobrain.json").write_text(
        json.dumps({"connected_scopes": ["groups/g001", "people/p0001/hosts/h1"]})
    )
    shown = invoke(exobrain_cmd, root, "sparse", "--json")
    assert json.loads(shown.stdout)["folders"] == CONE and not (root / "groups").exists()
    applied = invoke(exobrain_cmd, root, "sparse", "--apply")
    assert applied.exit_code == 0 and "5 folder(s) added" in applied.output
    assert cone(root) == CONE and (root / "groups/g001/skills.json").is_file()
    assert "already this cone" in invoke(exobrain_cmd, root, "sparse").output


def test_offline_says_in_one_line_what_it_could_not_read(tmp_path):
    bare = origin(tmp_path)
    root = sparse_clone(bare, tmp_path / "clone")
    done = invoke(status_cmd, root, "--all", "--json", env={"EXOBRAIN_OFFLINE": "1"})
    assert done.exit_code == 0, done.output
    warnings = [line for line in done.stderr.splitlines() if "not-read" in line]
    assert len(warnings) == 1 and "could not be read from git" in warnings[0]
    assert "EXOBRAIN_OFFLINE" in warnings[0]
    assert len(json.loads(done.stdout)["skills"]) == SHAPE.global_skills  # only the root's


def test_links_outside_the_cone_are_named_not_dangling(tmp_path):
    bare = origin(tmp_path)
    root = sparse_clone(bare, tmp_path / "clone")
    done = invoke(connect_cmd, root, "claude", "--person", "p0001", "--host", "h1")
    assert done.exit_code == 1
    assert "is outside the sparse checkout; connect-agent claude --sparse brings it in" in (
        done.output
    )
    assert not (root / ".claude/skills/p0001-h1-skill-0").exists()


def _blob_ids(root: Path) -> list[str]:
    """Every registry and SKILL.md blob of HEAD (what the catalog of a fresh clone lacks)."""
    listing = git(root, "ls-tree", "-r", "--full-tree", "HEAD")
    return [
        line.split()[2]
        for line in listing.splitlines()
        if line.endswith(("/skills.json", "/SKILL.md"))
    ]


def test_missing_blobs_are_fetched_in_batches_at_once(tmp_path, monkeypatch):
    import exobrain.util.partialclone as batching
    from exobrain.util.git import Git
    from exobrain.util.repository import Repository

    monkeypatch.setattr(batching, "FETCH_BATCH", 5)
    monkeypatch.setattr(batching, "FETCH_PARALLEL", 3)
    fetches: list[int] = []
    running, most, lock = [0], [0], threading.Lock()
    run = Git.run

    def counting(self, args, **kwargs):
        if args[0] != "fetch":
            return run(self, args, **kwargs)
        with lock:
            fetches.append(len(kwargs.get("stdin", b"").splitlines()))
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)  # long enough for the other workers to start theirs
        try:
            return run(self, args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(Git, "run", counting)
    root = sparse_clone(origin(tmp_path), tmp_path / "clone")
    wanted = _blob_ids(root)
    repo = Repository(root)
    found = repo.blobs(wanted)
    assert set(found) == set(wanted) and not repo.unread
    assert len(fetches) >= 3 and max(fetches) <= 5 and sum(fetches) == len(set(wanted))
    assert most[0] == 3  # three batches at once
    assert Repository(root).blobs(wanted).keys() == found.keys()  # local now: no fetch
    assert sum(fetches) == len(set(wanted))


def test_a_failed_batch_names_its_objects_and_stops_the_rest(tmp_path, monkeypatch):
    import subprocess as sp

    import exobrain.util.partialclone as batching
    from exobrain.util.git import Git
    from exobrain.util.repository import Repository

    monkeypatch.setattr(batching, "FETCH_BATCH", 5)
    monkeypatch.setattr(batching, "FETCH_PARALLEL", 1)  # in order: the second batch fails
    fetches: list[set[str]] = []
    run = Git.run

    def second_fails(self, args, **kwargs):
        if args[0] == "fetch":
            fetches.append(set(kwargs["stdin"].decode().split()))
            if len(fetches) == 2:
                return sp.CompletedProcess(args, 128, b"", b"fatal: the remote hung up")
        return run(self, args, **kwargs)

    monkeypatch.setattr(Git, "run", second_fails)
    root = sparse_clone(origin(tmp_path), tmp_path / "clone")
    wanted = list(dict.fromkeys(_blob_ids(root)))
    repo = Repository(root)
    found = repo.blobs(wanted)
    assert len(fetches) == 2  # the batches after the failure were not tried
    assert set(found) == fetches[0] and 0 < len(fetches[0]) <= 5
    assert set(repo.unread) == set(wanted) - fetches[0]
    assert set(repo.unread.values()) == {"fetching files from origin failed: the remote hung up"}
