"""exobrain harvest: states, facts and --pick, against real instances rendered from a seed."""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from exobrain.instance.create import create_instance
from exobrain.instance.harvest import cache_dir, compare, is_url
from exobrain.model import Identity
from tests.support import ROOT
from tests.support.helpers import build_tree, git, skill_md


def cli(*args):
    return CliRunner().invoke(exobrain_main, list(args), catch_exceptions=False)


def commit(root: Path, message: str = "change") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def seed(tmp_path):
    """A seed we may write to: a rendered copy of the framework plus seed/."""
    root = create_instance(ROOT, tmp_path / "seed").root
    build_tree(root, {"seed/AGENTS.md": "# seed\n"})
    commit(root, "a seed")
    return root


def harvest_json(seed: Path, *instances: str) -> tuple[int, dict[str, dict]]:
    result = cli("harvest", *instances, "--json", "--repo", str(seed))
    data = json.loads(result.output)
    assert data["exit_code"] == result.exit_code
    return result.exit_code, {i["instance"]: i for i in data["instances"]}


def facts(report: dict) -> list[tuple[str, str]]:
    return [(f["kind"], f["path"]) for f in report["facts"]]


def with_tidy(root: Path, person: str = "ann", **extra: str) -> Path:
    build_tree(
        root,
        {
            f"people/{person}/skills/tidy/SKILL.md": skill_md("tidy", **extra),
            f"people/{person}/skills.json": {
                "skills": [{"name": "tidy", "owner": person, "tier": "always"}]
            },
        },
    )
    commit(root, "tidy")
    return root


def test_two_instances_and_a_missing_path_report_exactly_those_facts(seed, tmp_path):
    """Issue 7, must show: one instance with a new skill, one with a changed framework file,
    one path missing."""
    with_tidy(create_instance(seed, tmp_path / "one", person="ann").root)
    two = create_instance(seed, tmp_path / "two").root
    with open(two / "knowledge" / "exobrain" / "skills.md", "a") as handle:
        handle.write("\nA line the instance added.\n")
    commit(two)
    build_tree(seed, {".exobrain.json": {"instances": ["../one", "../two", "../gone"]}})
    code, reports = harvest_json(seed)
    assert code == 1  # one instance could not be read
    assert reports["../one"]["state"] == "ok"
    assert facts(reports["../one"]) == [("only-there", "people/ann/skills/tidy/")]
    assert reports["../one"]["facts"][0]["skill"] == "tidy"
    assert reports["../two"]["state"] == "ok"
    assert facts(reports["../two"]) == [("differs", "knowledge/exobrain/skills.md")]
    assert reports["../gone"]["state"] == "absent"
    assert reports["../gone"]["facts"] == []
    text = cli("harvest", "--repo", str(seed)).output.splitlines()
    assert text[0].startswith("../one: ok at ")
    assert text[1] == "  only-there people/ann/skills/tidy/"
    assert text[2].startswith("../two: ok at ")
    assert text[3] == "  differs knowledge/exobrain/skills.md"
    assert text[4].startswith("../gone: absent (no such folder: ")
    assert text[5] == "3 instance(s): 2 ok, 1 absent; 1 differs, 1 only-there"


def test_behind_missing_and_files_only_there(seed, tmp_path):
    instance = create_instance(seed, tmp_path / "inst").root
    with open(seed / "README.md", "a") as handle:
        handle.write("\nThe seed moved on.\n")
    commit(seed, "seed change")
    (instance / "tests" / "cli" / "test_docs.py").unlink()
    build_tree(
        instance,
        {
            "scripts/exobrain/extra.py": "X = 1\n",
            "skills/exobrain/references/extra.md": "more\n",
            "skills/brand-new/SKILL.md": skill_md("brand-new"),
            "people/bob/notes.md": "not harvested\n",
        },
    )
    with open(instance / "pyproject.toml", "a") as handle:
        handle.write("# the instance's own line\n")
    commit(instance)
    code, reports = harvest_json(seed, str(instance))
    assert code == 0
    assert facts(reports[str(instance)]) == [
        ("behind", "README.md"),
        ("differs", "pyproject.toml"),
        ("missing", "tests/cli/test_docs.py"),
        ("only-there", "scripts/exobrain/extra.py"),
        ("only-there", "skills/exobrain/references/extra.md"),
        ("only-there", "skills/brand-new/"),
    ]


def test_a_skill_the_seed_has_under_another_scope_is_not_only_there(seed, tmp_path):
    build_tree(
        seed,
        {"groups/acme/AGENTS.md": "acme\n", "groups/acme/skills/tidy/SKILL.md": skill_md("tidy")},
    )
    instance = with_tidy(create_instance(seed, tmp_path / "inst", person="ann").root)
    assert facts(harvest_json(seed, str(instance))[1][str(instance)]) == []


def test_a_dirty_instance_is_reported_and_only_its_commit_compared(seed, tmp_path):
    instance = create_instance(seed, tmp_path / "inst").root
    (instance / "README.md").write_text("uncommitted\n")
    code, reports = harvest_json(seed, str(instance))
    assert code == 0
    assert reports[str(instance)]["state"] == "dirty"
    assert "uncommitted" in reports[str(instance)]["reason"]
    assert reports[str(instance)]["facts"] == []


def test_what_is_not_an_exobrain(seed, tmp_path):
    build_tree(tmp_path, {"plain/readme.md": "x\n", "afile": "x\n"})
    git(tmp_path / "plain", "init", "-q")
    norepo = build_tree(tmp_path / "norepo", {"skills.json": {"skills": []}})
    bare = tmp_path / "nojson"
    build_tree(bare, {"readme.md": "x\n"})
    git(bare, "init", "-q")
    commit(bare)
    inside = create_instance(seed, tmp_path / "inst").root / "scripts"
    code, reports = harvest_json(
        seed, *(str(p) for p in (tmp_path / "plain", tmp_path / "afile", norepo, bare, inside))
    )
    assert code == 1
    reasons = {Path(k).name: (v["state"], v["reason"]) for k, v in reports.items()}
    assert reasons == {
        "plain": ("not an exobrain", "no commit yet"),
        "afile": ("not an exobrain", f"{tmp_path / 'afile'} is a file"),
        "norepo": ("not an exobrain", "not a git repository"),
        "nojson": ("not an exobrain", "no skills.json at its root"),
        "scripts": ("not an exobrain", "a folder inside a git repository, not its root"),
    }


def test_instances_are_never_written(seed, tmp_path):
    instance = with_tidy(create_instance(seed, tmp_path / "inst", person="ann").root)
    (instance / "README.md").write_text("dirty on purpose\n")
    before = {p: p.stat().st_mtime_ns for p in (instance / ".git").rglob("*") if p.is_file()}
    head = git(instance, "rev-parse", "HEAD")
    harvest_json(seed, str(instance))
    cli(
        "harvest",
        "--pick",
        "tidy",
        "--into",
        "global",
        "--instance",
        str(instance),
        "--repo",
        str(seed),
    )
    after = {p: p.stat().st_mtime_ns for p in (instance / ".git").rglob("*") if p.is_file()}
    assert after == before
    assert git(instance, "rev-parse", "HEAD") == head


def test_url_instances_are_fetched_into_the_ignored_cache(seed, tmp_path):
    instance = create_instance(seed, tmp_path / "inst", person="ann").root
    url = instance.as_uri()
    assert is_url(url) and is_url("git@example.com:team/exo.git") and not is_url("../inst")
    code, reports = harvest_json(seed, url)
    assert code == 0 and reports[url]["state"] == "ok" and reports[url]["facts"] == []
    cache = cache_dir(seed, url)
    assert reports[url]["location"] == str(cache) and (cache / "HEAD").is_file()
    assert git(seed, "status", "--porcelain", "--ignored", ".exobrain-cache").startswith("!!")
    with_tidy(instance)  # a new commit upstream is fetched on the next run
    _, reports = harvest_json(seed, url)
    assert facts(reports[url]) == [("only-there", "people/ann/skills/tidy/")]
    moved = tmp_path / "moved"
    instance.rename(moved)  # unreachable now: the copy fetched before is used
    _, reports = harvest_json(seed, url)
    assert reports[url]["state"] == "ok"
    assert reports[url]["warnings"][0].startswith("fetch failed, using the copy fetched before")
    never = (tmp_path / "never").as_uri()
    code, reports = harvest_json(seed, never)
    assert code == 1 and reports[never]["state"] == "absent"
    assert reports[never]["reason"].startswith("cannot fetch")
    code, reports = harvest_json(seed, "http://example.com/x.git")
    assert reports["http://example.com/x.git"]["state"] == "absent"


def test_bad_or_missing_instance_lists_are_refused(seed):
    result = cli("harvest", "--repo", str(seed))
    assert result.exit_code == 2 and '"instances": [' in result.output
    build_tree(seed, {".exobrain.json": {"instances": "../one"}})
    result = cli("harvest", "--repo", str(seed))
    assert result.exit_code == 2
    assert ".exobrain.json: instances must be a list of paths or git URLs" in result.output


def test_compare_is_pure_and_ordered():
    seed = {"a.txt": "1", "scripts/x.py": "2", "skills/s/SKILL.md": "3"}
    theirs = {"a.txt": "9", "scripts/x.py": "2", "scripts/y.py": "4", "other.md": "5"}
    found = compare(
        seed,
        ("s",),
        {"s"},
        theirs,
        {Identity("people/p", "new"), Identity("global", "s")},
        {"a.txt": {"9"}},
    )
    assert [(f.kind, f.path) for f in found] == [
        ("behind", "a.txt"),
        ("missing", "skills/s/SKILL.md"),
        ("only-there", "scripts/y.py"),
        ("only-there", "people/p/skills/new/"),
    ]


def pick(seed, *args):
    return cli("harvest", "--pick", *args, "--repo", str(seed))


def test_pick_copies_declares_and_locks_a_skill(seed, tmp_path):
    instance = create_instance(seed, tmp_path / "inst", person="ann").root
    build_tree(
        instance,
        {
            "people/ann/skills/tidy/scripts/run.sh": "#!/bin/sh\necho tidy\n",
            "people/ann/skills/tidy/evals/basic.eval.json": {"prompt": "tidy"},
        },
    )
    os.chmod(instance / "people/ann/skills/tidy/scripts/run.sh", 0o755)
    with_tidy(instance, version="1.2.0")
    build_tree(seed, {"groups/acme/AGENTS.md": "acme\n"})
    result = pick(seed, "tidy", "--into", "groups/acme", "--instance", str(instance))
    assert result.exit_code == 0, result.output
    assert "proof it brings: groups/acme/skills/tidy/evals/basic.eval.json" in result.output
    folder = seed / "groups" / "acme" / "skills" / "tidy"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "SKILL.md",
        "evals/basic.eval.json",
        "scripts/run.sh",
    ]
    assert os.access(folder / "scripts" / "run.sh", os.X_OK)
    registry = json.loads((seed / "groups" / "acme" / "skills.json").read_text())
    [entry] = registry["skills"]
    assert entry["owner"] == "ann" and entry["tier"] == "optional"
    assert entry["notes"].startswith(f"harvested from {instance} at ")
    lock = json.loads((seed / "groups" / "acme" / "skills.lock.json").read_text())
    assert lock["skills"]["tidy"]["version"] == "1.2.0"
    assert (
        cli("harvest", str(instance), "--repo", str(seed)).output.splitlines()[1]
        == "  same framework as the seed; nothing only there"
    )
    again = pick(seed, "tidy", "--into", "global", "--instance", str(instance))
    assert again.exit_code == 2 and "no instance has a skill 'tidy'" in again.output


def test_pick_refusals_write_nothing(seed, tmp_path):
    one = with_tidy(create_instance(seed, tmp_path / "one", person="ann").root)
    with_tidy(create_instance(seed, tmp_path / "two", person="bob").root, person="bob")
    build_tree(
        seed,
        {".exobrain.json": {"instances": ["../one", "../two"]}, "people/zed/AGENTS.md": "zed\n"},
    )
    before = git(seed, "status", "--porcelain")
    cases = [
        (("tidy", "--into", "global"), "only-there in more than one place"),
        (("tidy", "--into", "people/zed"), "a person scope"),
        (("tidy", "--into", "groups/none"), "not a scope of the seed"),
        (("nothing", "--into", "global"), "no instance has a skill 'nothing'"),
        (("tidy",), "--pick NAME and --into SCOPE go together"),
    ]
    for args, message in cases:
        result = pick(seed, *args)
        assert result.exit_code == 2, args
        assert message in result.output, (args, result.output)
    os.symlink("SKILL.md", one / "people/ann/skills/tidy/link.md")
    commit(one)
    result = pick(seed, "tidy", "--into", "global", "--instance", "../one")
    assert result.exit_code == 2 and "is a link" in result.output
    assert git(seed, "status", "--porcelain") == before
    assert not (seed / "skills" / "tidy").exists()
    result = pick(seed, "tidy", "--into", "global", "--instance", "../two")
    assert result.exit_code == 0, result.output
    assert "it brings no proof" in result.output
    assert "version" not in json.loads((seed / "skills.lock.json").read_text())["skills"].get(
        "tidy", {}
    )
