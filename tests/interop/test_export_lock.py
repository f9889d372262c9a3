"""exobrain export --lock skills-lock: the pins of external skills as vercel's skills-lock.json.

The upstream is a local repository that the isolated git configuration serves under
``https://github.com/team/`` and ``https://git.example.test/team/`` (``insteadOf``), so the
declarations use real remote URLs and nothing leaves the machine. The lock is read back three
ways: compared with the file the real tool wrote for the same skills (the fixture), restored
with the tool's own restore logic reimplemented below (clone at the lock's ref, compare commit
and hash), and, when the tool is on this machine, restored by ``skills experimental_install``
itself. Set ``EXOBRAIN_TEST_SKILLS_CLI`` to its ``bin/cli.mjs`` (or put ``skills`` on PATH).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.fetch import main as fetch_cli
from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.interop.formats import skills_lock
from tests.interop.test_skills_lock import FIXTURE, SAMPLE
from tests.support.helpers import build_tree, exobrain, git, skill_md
from tests.support.upstream import Upstream, external

GITHUB = "https://github.com/team/skills.git"
OTHER = "https://git.example.test/team/skills.git"


@pytest.fixture
def up(tmp_path):
    """The sample repository of the fixture, tag v1 at its head, served under both URLs."""
    upstream = Upstream(tmp_path, SAMPLE, name="skills")
    (upstream.work / "skills/beta/link.md").symlink_to("Zeta.md")
    upstream.commit({}, "a link")
    upstream.tag("v1")
    for prefix in ("https://github.com/team/", "https://git.example.test/team/"):
        git(tmp_path, "config", "--global", "--add", f"url.{tmp_path.as_uri()}/.insteadOf", prefix)
    return upstream


def brain(tmp_path, entries, agents=("claude",), scopes=()):
    registries = entries if isinstance(entries, dict) else {"global": entries}
    return exobrain(
        tmp_path / "brain",
        registries,
        scopes=list(scopes),
        connection={"agents": list(agents), "external_skills": {"allow_local": True}},
    )


def export(root, *args):
    result = CliRunner().invoke(exobrain_cli, ["export", "--repo", str(root), "--lock", *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_lock_is_the_file_the_real_tool_wrote(tmp_path, up):
    root = brain(tmp_path, [external("alpha", GITHUB, ref="v1"), external("beta", OTHER)])
    out = tmp_path / "project" / "skills-lock.json"
    code, stdout, stderr = export(root, "skills-lock", "-o", str(out))
    assert code == 0, stderr
    assert out.read_text() == FIXTURE.read_text()
    assert (
        f"pinned beta to v1 = {up.head()[:12]} from {OTHER} skills/beta (declared main)" in stdout
    )
    assert stdout.splitlines()[-1] == f"2 skill(s) → {out} (skills-lock)"


def restore_target(entry):
    """Where ``skills experimental_install`` clones an entry from, at which ref, and the skill
    folder in the clone: its buildLocalUpdateSource, then the parts of parseSource it meets."""
    folder = entry.skill_path.removesuffix("SKILL.md").rstrip("/")
    if entry.source_type == "github":  # "owner/repo/<folder>#ref", a GitHub shorthand
        text = f"{entry.source}/{folder}#{entry.ref}" if folder else f"{entry.source}#{entry.ref}"
        base, _, ref = text.partition("#")
        owner, repo, *sub = base.split("/")
        return f"https://github.com/{owner}/{repo}.git", ref, "/".join(sub)
    source = entry.source_url or entry.source
    assert source.endswith(".git") or source.startswith("git@")  # no folder appended
    url, _, ref = f"{source}#{entry.ref}".partition("#")
    return url, ref, None  # the whole clone is searched for a skill of that name


def test_the_lock_restores_the_same_commits_by_the_tools_restore_logic(tmp_path, up):
    first = up.head()
    up.commit({"skills/alpha/SKILL.md": skill_md("alpha", "Version two.")})
    up.tag("v2", annotated=True)
    entries = [
        external("alpha", GITHUB, ref=first),  # a commit id: named by tag v1
        external("beta", OTHER, ref="main"),  # a branch: named by v2, at its head
    ]
    root = brain(tmp_path, entries)
    out = tmp_path / "skills-lock.json"
    code, stdout, stderr = export(root, "skills-lock", "-o", str(out), "--json")
    assert code == 0, stderr
    report = {s["name"]: s for s in json.loads(stdout)["skills"]}
    assert (report["alpha"]["ref"], report["alpha"]["commit"]) == ("v1", first)
    assert (report["beta"]["ref"], report["beta"]["commit"]) == ("v2", up.head())
    parsed = skills_lock.parse(out.read_text())
    assert parsed.problems == [] and len(parsed.entries) == 2
    for entry in parsed.entries:
        url, ref, sub = restore_target(entry)
        clone = tmp_path / f"clone-{entry.name}"
        git(tmp_path, "clone", "-q", "--depth", "1", "--branch", ref, url, str(clone))
        assert git(clone, "rev-parse", "HEAD").strip() == report[entry.name]["commit"]
        folder = clone / (sub or f"skills/{entry.name}")
        assert f"name: {entry.name}\n" in (folder / "SKILL.md").read_text()
        files = [
            (p.relative_to(folder).as_posix(), p.read_bytes())
            for p in folder.rglob("*")
            if p.is_file() and not p.is_symlink() and "node_modules" not in p.parts
        ]
        assert skills_lock.folder_hash(files) == entry.computed_hash


def test_the_installed_commit_is_pinned_not_the_branch_head(tmp_path, up):
    installed = up.head()
    root = brain(tmp_path, [external("beta", OTHER)])
    fetched = CliRunner().invoke(fetch_cli, ["--repo", str(root)])
    assert fetched.exit_code == 0, fetched.stdout + fetched.stderr
    up.commit({"skills/beta/Zeta.md": "# Zeta, later\n"})
    up.tag("v2")
    code, stdout, stderr = export(root, "skills-lock", "-o", str(tmp_path / "l.json"), "--json")
    assert code == 0, stderr
    [skill] = json.loads(stdout)["skills"]
    assert (skill["ref"], skill["commit"], skill["installed"]) == ("v1", installed, True)


def test_a_scope_exports_what_it_declares(tmp_path, up):
    entries = {
        "global": [external("alpha", GITHUB, ref="v1")],
        "groups/acme": [external("beta", OTHER, ref="v1", owner="acme")],
    }
    root = brain(tmp_path, entries, agents=(), scopes=["groups/acme"])
    out = tmp_path / "acme.json"
    code, _, stderr = export(root, "skills-lock", "--scope", "groups/acme", "-o", str(out))
    assert code == 0, stderr
    assert [e.name for e in skills_lock.parse(out.read_text()).entries] == ["beta"]


def test_an_unpinnable_skill_refuses_the_export_and_says_how_to_fix_it(tmp_path, up):
    untagged = up.commit({"skills/alpha/SKILL.md": skill_md("alpha", "Untagged.")})
    entries = [
        external("alpha", GITHUB, ref=untagged),
        external("beta", "https://git.example.test/team/skills", ref="v1"),
        external("gamma", OTHER, ref="v1", path="skills/missing"),
    ]
    root = brain(tmp_path, entries)
    out = tmp_path / "skills-lock.json"
    code, _, stderr = export(root, "skills-lock", "-o", str(out))
    assert code == 1 and not out.exists()
    assert f"skills.json:3 #0 alpha: no tag of {GITHUB} names commit {untagged[:12]}" in stderr
    assert "tag the commit (git tag NAME COMMIT, then push the tag)" in stderr
    assert "source.repo https://git.example.test/team/skills does not end in .git" in stderr
    assert "skills.json:25 #2 gamma: skills/missing is not a folder" in stderr
    assert "Traceback" not in stderr


def test_refusals_at_the_command_line(tmp_path, up):
    root = brain(tmp_path, [external("alpha", GITHUB, ref="v1")])
    taken = build_tree(tmp_path, {"taken.json": "mine\n"}) / "taken.json"
    code, _, stderr = export(root, "skills-lock", "-o", str(taken))
    assert code == 2 and "already exists; export never overwrites" in stderr
    assert taken.read_text() == "mine\n"
    code, _, stderr = export(root, "skills-lock", "skill:alpha")
    assert code == 2 and "--lock takes only --scope, --agent, -o FILE and --dry-run" in stderr
    code, _, stderr = export(root, "nonsense")
    assert code == 2 and "nonsense" in stderr
    guest = exobrain(tmp_path / "guest", {"global": [external("alpha", GITHUB, ref="v1")]})
    code, _, stderr = export(guest, "skills-lock")
    assert code == 2 and "no agent is connected" in stderr
    result = CliRunner().invoke(exobrain_cli, ["export", "--repo", str(root), "--scope", "global"])
    assert result.exit_code == 2 and "--format FORMAT (skills) or --lock FORMAT" in result.stderr


def test_dry_run_writes_nothing(tmp_path, up):
    root = brain(tmp_path, [external("alpha", GITHUB, ref="v1")])
    out = tmp_path / "skills-lock.json"
    code, stdout, _ = export(root, "skills-lock", "-o", str(out), "--dry-run")
    assert code == 0 and "would pin alpha to v1" in stdout and not out.exists()


def _skills_cli():
    explicit = os.environ.get("EXOBRAIN_TEST_SKILLS_CLI")
    if explicit and Path(explicit).is_file():
        return ["node", explicit]
    found = shutil.which("skills")
    return [found] if found else None


@pytest.mark.skipif(
    shutil.which("node") is None or _skills_cli() is None,
    reason="vercel's skills CLI is not installed (EXOBRAIN_TEST_SKILLS_CLI or skills on PATH)",
)
def test_the_real_tool_restores_the_exported_lock(tmp_path, up):
    first = up.head()
    up.commit({"skills/alpha/SKILL.md": skill_md("alpha", "Version two.")})
    up.tag("v2")
    root = brain(tmp_path, [external("alpha", GITHUB, ref=first), external("beta", OTHER)])
    project = tmp_path / "colleague"
    project.mkdir()
    code, _, stderr = export(root, "skills-lock", "-o", str(project / "skills-lock.json"))
    assert code == 0, stderr
    ours = (project / "skills-lock.json").read_text()
    offline = tmp_path / "offline.cjs"  # the tool asks GitHub's API about the repository
    offline.write_text("globalThis.fetch = async () => { throw new Error('offline'); };\n")
    env = {
        **os.environ,
        "NODE_OPTIONS": f"--require {offline}",
        "DO_NOT_TRACK": "1",
        "DISABLE_TELEMETRY": "1",
    }
    done = subprocess.run(
        [*_skills_cli(), "experimental_install"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    restored = project / ".agents" / "skills"
    assert "Version two" not in (restored / "alpha" / "SKILL.md").read_text()
    assert (restored / "alpha" / "SKILL.md").read_text() == SAMPLE["skills/alpha/SKILL.md"]
    assert (restored / "beta" / "scripts" / "run.sh").read_text() == "echo beta\n"
    assert (project / "skills-lock.json").read_text() == ours  # the tool's own hashes agree


def test_skills_of_one_repository_share_one_listing_of_its_refs(tmp_path, up):
    first = up.head()
    up.commit({"skills/beta/Zeta.md": "# Zeta, later\n"})
    up.tag("v2")
    # the commit id comes first: its tag lookup must not hide the branch the next one names
    root = brain(tmp_path, [external("alpha", OTHER, ref=first), external("beta", OTHER)])
    code, stdout, stderr = export(root, "skills-lock", "-o", str(tmp_path / "l.json"), "--json")
    assert code == 0, stderr
    pins = {s["name"]: (s["ref"], s["commit"]) for s in json.loads(stdout)["skills"]}
    assert pins == {"alpha": ("v1", first), "beta": ("v2", up.head())}


def test_a_tag_moved_since_the_install_is_not_trusted(tmp_path, up):
    installed = up.head()
    root = brain(tmp_path, [external("beta", OTHER, ref="v1")])
    fetched = CliRunner().invoke(fetch_cli, ["--repo", str(root)])
    assert fetched.exit_code == 0, fetched.stdout + fetched.stderr
    up.commit({"skills/beta/Zeta.md": "# Zeta, later\n"})
    git(up.work, "tag", "-f", "v1")
    git(up.work, "push", "-q", "-f", "origin", "refs/tags/v1")
    code, _, stderr = export(root, "skills-lock", "-o", str(tmp_path / "l.json"))
    assert code == 1
    assert f"no tag of {OTHER} names tag v1 (at {installed[:12]})" in stderr


def test_a_skill_name_the_lock_cannot_hold_is_refused(tmp_path, up):
    up.commit({"skills/alpha/SKILL.md": skill_md('"alpha\\e[2J"', "A hostile name.")})
    up.tag("v2")
    root = brain(tmp_path, [external("alpha", OTHER, ref="v2")])
    out = tmp_path / "l.json"
    code, _, stderr = export(root, "skills-lock", "-o", str(out))
    assert code == 1 and not out.exists()
    assert "#0 alpha: the skill name must be non-empty printable text" in stderr
    assert "\x1b" not in stderr


def test_a_skill_over_the_size_cap_is_refused(tmp_path, up):
    root = brain(tmp_path, [external("beta", OTHER, ref="v1")])
    settings = {"agents": ["claude"], "external_skills": {"allow_local": True, "max_bytes": 120}}
    build_tree(root, {".exobrain.json": settings})
    code, _, stderr = export(root, "skills-lock", "-o", str(tmp_path / "l.json"))
    assert code == 1 and "the skill is 128 bytes, over the 120 byte size cap" in stderr
