"""The external-skills fetcher on real local bare repositories (no network)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from exobrain.agents import get_agent
from exobrain.fetch.fetcher import sync_external
from exobrain.fetch.installs import read_record
from exobrain.util.dirhash import content_hash
from exobrain.util.git import Git
from exobrain.util.staging import TMP_PREFIX
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, exobrain, git, skill_md
from tests.support.upstream import GitLog, Upstream, external, git_wrapper, two_skills

CLAUDE = get_agent("claude")


@pytest.fixture
def gitlog(tmp_path, monkeypatch):
    log = GitLog(tmp_path / "git.log")
    monkeypatch.setenv("PATH", git_wrapper(tmp_path / "bin", log.path))
    return log


@pytest.fixture
def up(tmp_path):
    return Upstream(tmp_path, two_skills())


def brain(tmp_path, entries, connection=None, scope_entries=None):
    """A real exobrain whose global registry declares ``entries``."""
    root = tmp_path / "brain"
    registries = {"global": entries, **(scope_entries or {})}
    if root.exists():
        for scope, items in registries.items():
            folder = root if scope == "global" else root / scope
            build_tree(folder, {"skills.json": {"skills": items}})
        return root
    return exobrain(
        root,
        registries,
        scopes=list(scope_entries or {}),
        connection=connection or {"agents": ["claude"]},
    )


def sync(root, agent=CLAUDE, **kw):
    kw.setdefault("allow_local", True)
    ws = open_workspace(root)
    return sync_external(ws, agent.folders(root), **kw)


def actions(report):
    return {e.link_name: e.action for e in report.events}


def only_checks(log, caches):
    """git ran only to read the fetched trees from each cache (one object reader per cache
    repository, whatever the number of installs): no remote, no fetch."""
    verbs = []
    for words in log.lines():
        at = 0
        while words[at] == "-c":  # the toolkit's safe config pairs come first
            at += 2
        verbs.append(words[at])
    return verbs == ["cat-file"] * caches


def cache_repos():
    return sorted((Path(os.environ["XDG_CACHE_HOME"]) / "exobrain" / "git").glob("*.git"))


def test_pinned_sha_is_fetched_once_then_never_asks_git_again(tmp_path, up, gitlog):
    root = brain(tmp_path, [external("pdf", up.url, ref=up.head())])
    first = sync(root)
    installed = root / ".claude/skills/pdf"
    assert actions(first) == {"pdf": "fetched"} and not first.failed
    assert (installed / "SKILL.md").read_text() == skill_md("pdf", "Use for PDF files.")
    assert (installed / "scripts/fill.py").is_file() and not (installed / "other").exists()
    record = read_record(installed)
    assert (record.commit, record.ref_kind, record.path) == (up.head(), "commit", "skills/pdf")
    assert record.hash == content_hash(installed)
    up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Changed upstream.")})
    gitlog.clear()
    second = sync(root)
    assert actions(second) == {"pdf": "unchanged"}
    assert second.network_calls == 0 and only_checks(gitlog, 1)  # no remote: the files checked


def test_tag_is_fetched_once_even_when_the_branch_moves(tmp_path, up, gitlog):
    up.tag("v1", annotated=True)
    tagged = up.head()
    root = brain(tmp_path, [external("pdf", up.url, ref="v1")])
    assert actions(sync(root)) == {"pdf": "fetched"}
    assert read_record(root / ".claude/skills/pdf").commit == tagged
    up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Changed upstream.")})
    gitlog.clear()
    again = sync(root)
    assert actions(again) == {"pdf": "unchanged"} and only_checks(gitlog, 1)


def test_branch_is_refetched_only_after_upstream_moves(tmp_path, up, gitlog):
    root = brain(tmp_path, [external("pdf", up.url)])
    old = up.head()
    assert actions(sync(root)) == {"pdf": "fetched"}
    gitlog.clear()
    quiet = sync(root)
    assert actions(quiet) == {"pdf": "unchanged"}
    assert gitlog.count("ls-remote") == 1 and gitlog.count("fetch", "clone") == 0
    assert quiet.network_calls == 1
    new = up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Version two.")})
    gitlog.clear()
    moved = sync(root)
    event = moved.events[0]
    assert (event.action, event.from_commit, event.to_commit) == ("updated", old, new)
    assert "Version two." in (root / ".claude/skills/pdf/SKILL.md").read_text()
    assert gitlog.count("fetch") >= 1
    assert "updated " + old[:7] + "→" + new[:7] in event.line()


def test_two_skills_from_one_repository_share_one_cache_clone(tmp_path, up, gitlog):
    root = brain(tmp_path, [external("pdf", up.url), external("doc", up.url, tier="optional")])
    report = sync(root)
    assert actions(report) == {"pdf": "fetched", "doc": "fetched"}
    assert (root / ".claude/skills-optional/doc/SKILL.md").is_file()
    assert len(cache_repos()) == 1
    assert gitlog.count("ls-remote") == 1 and gitlog.count("clone") == 0
    cache = cache_repos()[0]
    blobs = git(cache, "cat-file", "--batch-all-objects", "--batch-check").split("\n")
    assert not any(line.endswith(" 50000") for line in blobs)  # other/big.txt never came


def test_unreachable_remote_keeps_the_installed_copy(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url), external("doc", up.url, tier="optional")])
    sync(root)
    before = content_hash(root / ".claude/skills/pdf")
    up.bare.rename(tmp_path / "gone.git")
    report = sync(root)
    assert report.failed and actions(report) == {
        "pdf": "failed",
        "doc": "failed",
    }
    assert "cannot reach" in report.events[0].message
    assert "kept the installed copy at" in report.events[0].message
    assert content_hash(root / ".claude/skills/pdf") == before


def test_off_override_removes_the_install(tmp_path, up):
    root = brain(
        tmp_path,
        [external("pdf", up.url)],
        {"connected_scopes": ["people/alice"], "agents": ["claude"]},
        {"people/alice": []},
    )
    sync(root)
    brain(
        tmp_path,
        [external("pdf", up.url)],
        scope_entries={
            "people/alice": [
                {"name": "pdf", "from": "external", "owner": "anthropic", "tier": "off"}
            ]
        },
    )
    report = sync(root)
    assert actions(report) == {"pdf": "removed"}
    assert not (root / ".claude/skills/pdf").exists()
    assert "- removed from .claude/skills" in report.events[0].line()


def test_tier_change_moves_between_the_two_folders_without_fetching(tmp_path, up, gitlog):
    root = brain(tmp_path, [external("pdf", up.url, ref=up.head())])
    sync(root)
    brain(tmp_path, [external("pdf", up.url, ref=up.head(), tier="unlisted")])
    gitlog.clear()
    report = sync(root)
    assert actions(report) == {"pdf": "moved"} and only_checks(gitlog, 1)
    assert not (root / ".claude/skills/pdf").exists()
    assert read_record(root / ".claude/skills-optional/pdf") is not None
    brain(tmp_path, [external("pdf", up.url, ref=up.head(), tier="always")])
    assert actions(sync(root)) == {"pdf": "moved"}
    assert (root / ".claude/skills/pdf/SKILL.md").is_file()
    assert not (root / ".claude/skills-optional/pdf").exists()


def test_removed_declaration_is_cleaned_up_when_no_external_skill_remains(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url), external("doc", up.url, tier="optional")])
    sync(root)
    brain(tmp_path, [])
    report = sync(root)
    assert sorted(actions(report).values()) == ["removed", "removed"]
    assert list((root / ".claude/skills").iterdir()) == []
    assert list((root / ".claude/skills-optional").iterdir()) == []


def test_agent_filter_removes_for_the_filtered_agent(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    sync(root)
    brain(tmp_path, [external("pdf", up.url, skipAgents=["claude"])])
    assert actions(sync(root)) == {"pdf": "removed"}


def test_a_folder_we_did_not_create_is_never_touched(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    mine = build_tree(root / ".claude/skills/pdf", {"SKILL.md": "my own\n"})
    build_tree(root / ".claude/skills/notes.bob", {"SKILL.md": "mine too\n"})
    report = sync(root)  # the plain name is taken: installed told apart, said so, theirs kept
    assert actions(report) == {"pdf.anthropic": "fetched"} and not report.failed
    assert "installed as pdf.anthropic" in report.warnings[0]
    assert (root / ".claude/skills/pdf.anthropic/SKILL.md").is_file()
    assert (mine / "SKILL.md").read_text() == "my own\n"
    shutil.rmtree(mine)  # once theirs is gone, the next run moves ours to the plain name
    assert actions(sync(root)) == {"pdf": "moved"}
    assert (root / ".claude/skills/pdf/SKILL.md").is_file()
    assert not (root / ".claude/skills/pdf.anthropic").exists()
    assert (root / ".claude/skills/notes.bob/SKILL.md").is_file()  # not ours: never pruned


def test_an_install_of_the_bash_implementation_is_replaced_once(tmp_path, up):
    """The bash fetcher left <name>.<owner>/ with a one-line .source-ref and no record: the
    first fetch of that skill replaces it with a recorded install."""
    root = brain(tmp_path, [external("pdf", up.url, tier="optional")])
    old = build_tree(
        root / ".claude/skills-optional/pdf.anthropic",
        {"SKILL.md": "old\n", ".source-ref": "main\n"},
    )
    assert actions(sync(root, check=True)) == {"pdf": "would-fetch"}
    assert (old / ".source-ref").is_file()
    report = sync(root)
    event = report.events[0]
    assert (event.action, event.message) == (
        "fetched",
        "replaces the bash implementation's install (pdf.anthropic)",
    )
    assert not old.exists()  # it now goes under the plain name
    assert read_record(old.parent / "pdf").commit == up.head()
    assert actions(sync(root)) == {"pdf": "unchanged"}


def test_a_bash_install_of_a_skill_no_longer_wanted_is_left_alone(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    gone = build_tree(
        root / ".claude/skills-optional/doc.anthropic",
        {"SKILL.md": "x\n", ".source-ref": "v1\n"},
    )
    sync(root)
    assert (gone / ".source-ref").is_file()


def test_shared_folder_keeps_what_another_connected_agent_wants(tmp_path, up):
    codex, agents = get_agent("codex"), get_agent("agents")
    root = brain(
        tmp_path, [external("pdf", up.url, agent="codex")], {"agents": ["codex", "agents"]}
    )
    assert actions(sync(root, codex)) == {"pdf": "fetched"}
    assert sync(root, agents).events == []  # agents does not want it, codex still does
    assert (root / ".agents/skills/pdf/SKILL.md").is_file()
    brain(tmp_path, [])
    assert actions(sync(root, agents)) == {"pdf": "removed"}


def test_local_modification_is_reported_and_left_alone_unless_forced(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    sync(root)
    edited = root / ".claude/skills/pdf/SKILL.md"
    edited.write_text("my edit\n")
    up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Version two.")})
    report = sync(root)
    assert actions(report) == {"pdf": "modified"} and not report.failed
    assert "--force" in report.events[0].message and edited.read_text() == "my edit\n"
    brain(tmp_path, [])
    assert actions(sync(root)) == {"pdf": "modified"} and edited.exists()
    brain(tmp_path, [external("pdf", up.url)])
    assert actions(sync(root, force=True)) == {"pdf": "updated"}
    assert "Version two." in edited.read_text()


def test_check_reports_without_changing_anything(tmp_path, up, gitlog):
    root = brain(tmp_path, [external("pdf", up.url)])
    fresh = sync(root, check=True)
    assert actions(fresh) == {"pdf": "would-fetch"} and fresh.pending
    assert not (root / ".claude").exists() and cache_repos() == []
    sync(root)
    assert not sync(root, check=True).pending
    up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Version two.")})
    before = content_hash(root / ".claude/skills/pdf")
    gitlog.clear()
    later = sync(root, check=True)
    assert actions(later) == {"pdf": "would-update"} and later.pending
    assert gitlog.count("fetch") == 0
    assert content_hash(root / ".claude/skills/pdf") == before


def test_escaping_symlink_is_refused(tmp_path):
    up = Upstream(tmp_path, {"skills/evil/SKILL.md": skill_md("evil")})
    os.symlink("../../../../etc/passwd", up.work / "skills/evil/passwords")
    os.symlink("inner.md", up.work / "skills/evil/ok-link")
    up.commit({"skills/evil/inner.md": "fine\n"})
    root = brain(tmp_path, [external("evil", up.url)])
    report = sync(root)
    assert report.failed
    assert "'passwords' is a symbolic link to '../../../../etc/passwd', leading outside" in (
        report.events[0].message
    )
    assert not (root / ".claude/skills/evil").exists()
    assert list((root / ".claude/skills").iterdir()) == []  # the temp folder is gone too


def test_symlink_inside_the_skill_is_kept(tmp_path):
    up = Upstream(tmp_path, {"skills/ok/SKILL.md": skill_md("ok"), "skills/ok/a.md": "a\n"})
    os.symlink("a.md", up.work / "skills/ok/b.md")
    up.commit({})
    root = brain(tmp_path, [external("ok", up.url)])
    assert not sync(root).failed
    link = root / ".claude/skills/ok/b.md"
    assert link.is_symlink() and link.read_text() == "a\n"


@pytest.mark.parametrize(
    "source, message",
    [
        ({"repo": "ext::sh%S-c%Stouch%S/tmp/pwned"}, "<transport>::<address>"),
        ({"repo": "http://example.com/x.git"}, "not an accepted URL"),
        ({"repo": "/srv/skills.git"}, "local sources are off by default"),
        ({"path": "skills//pdf"}, "relative path inside the repository"),
        ({"ref": "main..other"}, "not a valid branch, tag or full commit id"),
    ],
)
def test_unsafe_sources_are_refused_with_the_registry_location(tmp_path, up, source, message):
    entry = external("pdf", up.url)
    entry["source"].update(source)
    root = brain(tmp_path, [entry])
    report = sync(root, allow_local="repo" not in source)
    assert report.failed and message in report.events[0].message
    assert report.events[0].message.startswith("skills.json:")
    assert "#0 pdf" in report.events[0].message and report.network_calls == 0


def test_skill_without_skill_md_or_over_the_size_cap_is_refused(tmp_path, up):
    root = brain(tmp_path, [external("other", up.url, path="other")])
    report = sync(root)
    assert "no SKILL.md in" in report.events[0].message
    build_tree(
        root, {".exobrain.json": {"agents": ["claude"], "external_skills": {"max_bytes": 20}}}
    )
    brain(tmp_path, [external("pdf", up.url)])
    capped = sync(root)
    assert capped.failed and "size cap" in capped.events[0].message
    assert not (root / ".claude/skills/pdf").exists()


def test_unknown_ref_and_missing_path_say_what_to_fix(tmp_path, up):
    root = brain(
        tmp_path,
        [external("pdf", up.url, ref="nope"), external("doc", up.url, path="skills/missing")],
    )
    report = sync(root)
    messages = {e.link_name: e.message for e in report.events}
    assert "has no branch or tag 'nope'" in messages["pdf"]
    assert "skills/missing is not a folder" in messages["doc"]


def test_server_that_refuses_tree_filters_still_works(tmp_path, up):
    git(up.bare, "config", "uploadpackfilter.allow", "false")
    git(up.bare, "config", "uploadpackfilter.blob:none.allow", "true")
    root = brain(tmp_path, [external("pdf", up.url), external("doc", up.url)])
    report = sync(root)
    assert actions(report) == {"pdf": "fetched", "doc": "fetched"}
    cache = cache_repos()[0]
    assert git(cache, "config", "--get-all", "exobrain.rejectedFilter").split() == [
        "tree",
        "blob:limit",
    ]


CRASH = """
import sys
from exobrain.fetch import fetcher
from exobrain.util import staging
from exobrain.agents import get_agent
from exobrain.workspace import open_workspace
def crash(new, target, **options):
    import os
    os._exit(137)
staging.move_in = crash
agent = get_agent("claude")
ws = open_workspace(__import__("pathlib").Path(sys.argv[1]))
fetcher.sync_external(ws, agent.folders(ws.root), allow_local=True)
"""


def test_crash_between_materialise_and_swap_keeps_the_previous_install(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    sync(root)
    installed = root / ".claude/skills/pdf"
    before = content_hash(installed)
    up.commit({"skills/pdf/SKILL.md": skill_md("pdf", "Version two.")})
    done = subprocess.run([sys.executable, "-c", CRASH, str(root)], capture_output=True)
    assert done.returncode == 137
    assert content_hash(installed) == before and read_record(installed).hash == before
    leftovers = [p for p in installed.parent.iterdir() if p.name.startswith(TMP_PREFIX)]
    assert len(leftovers) == 1 and (leftovers[0] / "SKILL.md").is_file()
    assert actions(sync(root)) == {"pdf": "updated"}
    assert sorted(p.name for p in installed.parent.iterdir()) == ["pdf"]


def test_install_record_fields(tmp_path, up):
    root = brain(tmp_path, [external("pdf", up.url)])
    sync(root)
    data = json.loads((root / ".claude/skills/pdf/.exobrain-source.json").read_text())
    assert {"repo", "path", "ref", "commit", "hash", "fetched_at"} <= set(data)
    assert data["hash"].startswith("h1:") and data["fetched_at"].endswith("+00:00")


def test_git_runs_without_hooks_prompts_or_foreign_transports():
    runner = Git(allow_file=False)
    argv, env = runner.argv(["fetch"]), runner.env()
    assert "core.hooksPath=/dev/null" in argv
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["GIT_ALLOW_PROTOCOL"] == "https:ssh"
    assert Git(allow_file=True).env()["GIT_ALLOW_PROTOCOL"] == "https:ssh:file"


def test_remote_operations_have_a_time_limit(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("GIT_SSH_COMMAND", "sleep 30;")  # git appends host and command
    monkeypatch.setenv("EXOBRAIN_GIT_TIMEOUT", "1")
    root = brain(tmp_path, [external("pdf", "ssh://git.example.invalid/skills.git")])
    started = time.monotonic()
    report = sync(root)
    assert time.monotonic() - started < 10
    assert report.failed and "timed out after 1s" in report.events[0].message


def test_pinning_the_installed_commit_only_rewrites_the_record(tmp_path, up, gitlog):
    root = brain(tmp_path, [external("pdf", up.url)])
    sync(root)
    brain(tmp_path, [external("pdf", up.url, ref=up.head())])
    gitlog.clear()
    assert actions(sync(root)) == {"pdf": "unchanged"}
    assert only_checks(gitlog, 1)
    record = read_record(root / ".claude/skills/pdf")
    assert (record.ref, record.ref_kind) == (up.head(), "commit")


@pytest.mark.parametrize(
    "umask, folder, plain, runnable",
    [(0o002, 0o775, 0o664, 0o775), (0o022, 0o755, 0o644, 0o755), (0o077, 0o700, 0o600, 0o700)],
)
def test_installs_follow_the_umask_like_a_git_checkout(tmp_path, umask, folder, plain, runnable):
    """Issue 17: a fetched skill is readable by whom the user's umask lets read, as a git
    checkout would be (it was installed 0700 before)."""
    up = Upstream(tmp_path, {"skills/pdf/SKILL.md": skill_md("pdf"), "skills/pdf/run.sh": "x"})
    os.chmod(up.work / "skills/pdf/run.sh", 0o755)
    up.commit({"skills/pdf/notes/a.md": "a\n"})
    root = brain(tmp_path, [external("pdf", up.url)])
    previous = os.umask(umask)
    try:
        assert actions(sync(root)) == {"pdf": "fetched"}
    finally:
        os.umask(previous)
    install = root / ".claude/skills/pdf"
    modes = {
        p.relative_to(install).as_posix(): p.stat().st_mode & 0o777
        for p in [install, *install.rglob("*")]
    }
    assert modes == {
        ".": folder,
        "notes": folder,
        "SKILL.md": plain,
        "notes/a.md": plain,
        ".exobrain-source.json": plain,
        "run.sh": runnable,
    }
