"""exobrain import: bundles with broken skills, Claude Code skills, archives, dry runs,
failures that write nothing, and --update in each of its three cases."""

import json
import zipfile

import yaml
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from exobrain.skillmd import read_skill
from exobrain.util.dirhash import content_hash
from tests.support.bundles import (
    CLAUDE_REVIEW,
    LONG_DESCRIPTION,
    claude_skill,
    kdense_bundle,
    lock_of,
    snapshot,
    target_repo,
)
from tests.support.helpers import build_tree, git


def run(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def run_json(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--json", "--repo", str(root)])
    return result.exit_code, json.loads(result.stdout)


def test_kdense_bundle_imports_the_good_skills_and_reports_each_broken_one(tmp_path):
    bundle = kdense_bundle(tmp_path / "bundle")
    root = target_repo(tmp_path)
    code, data = run_json(root, "import", str(bundle), "--all")
    assert code == 1  # some skills were skipped
    assert data["format"] == "kdense" and "scientific-skills" in data["detected_by"]
    by_name = {s["upstream"].rsplit("/", 1)[-1]: s for s in data["skills"]}
    assert {n for n, s in by_name.items() if s["status"] == "imported"} == {
        "rdkit",
        "pubmed-database",
        "weird_folder",
        "long-desc",
    }
    skipped = {n: s["problem"] for n, s in by_name.items() if s["status"] == "skipped"}
    assert "invalid YAML" in skipped["broken-yaml"]
    assert "no description" in skipped["no-description"]
    assert "not UTF-8" in skipped["latin1"]
    assert (
        "passwd: a symbolic link to '../../../../etc/passwd', leading outside"
        in (skipped["escaping-link"])
    )
    for name in ("broken-yaml", "no-description", "latin1", "escaping-link"):
        assert not (root / "people/al/skills" / name).exists()
    # the registry declares exactly what was imported, owned by the connected person
    entries = json.loads((root / "people/al/skills.json").read_text())["skills"]
    assert sorted(e["name"] for e in entries) == [
        "long-desc",
        "pubmed-database",
        "rdkit",
        "weird-name",
    ]
    assert all(e["owner"] == "al" and e["tier"] == "optional" for e in entries)
    # translation: the plugin's version wins over the skill's own (kept in metadata), authors
    # and tags kept, junk not copied
    rdkit = read_skill(root / "people/al/skills/rdkit/SKILL.md")
    assert rdkit.meta["version"] == "2.0.0" and rdkit.meta["metadata"] == {
        "skill-author": "K-Dense Inc.",
        "upstream-version": "1.4",
    }
    assert rdkit.meta["tags"] == ["science"] and rdkit.meta["allowed-tools"] == [
        "Read",
        "Write",
        "Bash",
    ]
    assert (rdkit.meta["source"], rdkit.meta["source_format"]) == ("imported", "kdense")
    assert rdkit.meta["schema_version"] == 1
    assert rdkit.meta["source_url"] == "local:bundle/scientific-skills/rdkit"  # no place
    assert rdkit.body == "# RDKit\n\nParse SMILES with `Chem.MolFromSmiles`.\n"
    folder = root / "people/al/skills/rdkit"
    assert (
        not (folder / "__pycache__").exists() and (folder / "scripts/run.py").stat().st_mode & 0o100
    )
    pubmed = by_name["pubmed-database"]
    assert any("quoted the value of description" in r for r in pubmed["repairs"])
    assert any("unknown top-level key 'category'" in r for r in pubmed["repairs"])
    assert any("metadata.authors was a list" in r for r in pubmed["repairs"])
    meta = read_skill(root / "people/al/skills/pubmed-database/SKILL.md").meta
    assert meta["description"].startswith("Search PubMed: find")
    assert meta["tags"] == ["literature", "biomedical"] and meta["version"] == "2.0.0"
    assert meta["metadata"] == {
        "skill-author": "K-Dense Inc.",
        "authors": "Ann, Bob",
        "category": "databases",
    }
    weird = by_name["weird_folder"]
    assert weird["name"] == "weird-name"
    assert any("not a valid skill name" in r for r in weird["repairs"])
    assert any("does not match its folder" in r for r in weird["repairs"])
    assert read_skill(root / "people/al/skills/weird-name/SKILL.md").meta["metadata"] == {
        "original-name": "Weird Name!"
    }
    long_meta = read_skill(root / "people/al/skills/long-desc/SKILL.md").meta
    assert by_name["long-desc"]["repairs"] == [
        f"description was {len(LONG_DESCRIPTION.strip())} characters (the standard allows "
        f"1024): cut at a sentence boundary to {len(long_meta['description'])}; the full "
        f"text is kept in metadata.full-description"
    ]
    assert long_meta["metadata"]["full-description"] == LONG_DESCRIPTION.strip()
    # the lock records the upstream of each skill
    lock = lock_of(root, "people/al")
    upstream = lock["rdkit"]["upstream"]
    assert upstream["kind"] == "folder" and upstream["url"] == "local"  # kept off the lock
    assert upstream["path"] == "scientific-skills/rdkit" and upstream["format"] == "kdense"
    assert upstream["hash"] == content_hash(bundle / "scientific-skills/rdkit")
    assert upstream["imported"] == lock["rdkit"]["hash"] == content_hash(folder)
    assert set(lock["rdkit"]["files"]) == {"SKILL.md", "references/api.md", "scripts/run.py"}
    assert lock["long-desc"]["upstream"]["repairs"] == by_name["long-desc"]["repairs"]
    # everything imported validates, strictly
    result = CliRunner().invoke(validate, ["--repo", str(root), "--strict"])
    assert result.exit_code == 0, result.output


def test_text_output_lists_repairs_and_problems(tmp_path):
    bundle = kdense_bundle(tmp_path / "bundle")
    root = target_repo(tmp_path)
    code, out = run(
        root, "import", str(bundle), "--skill", "pubmed-database", "--skill", "no-description"
    )
    assert code == 1
    assert "imported skill:pubmed-database@people/al 2.0.0" in out
    assert "repaired: quoted the value of description" in out
    assert "skipped  no-description" in out and "1 of 2 skills imported" in out


def test_a_bundle_needs_all_or_skill_and_unknown_skills_are_refused(tmp_path):
    bundle = kdense_bundle(tmp_path / "bundle")
    root = target_repo(tmp_path)
    before = snapshot(root)
    code, out = run(root, "import", str(bundle))
    assert code == 2 and "holds 8 skills" in out and "--all" in out
    code, out = run(root, "import", str(bundle), "--skill", "nope")
    assert code == 2 and "no skill named nope" in out
    code, out = run(root, "import", str(bundle), "--all", "--name", "x")
    assert code == 2 and "--name renames one skill" in out
    assert snapshot(root) == before


def test_claude_code_skill_keeps_its_fields(tmp_path):
    source = claude_skill(tmp_path / "src")
    root = target_repo(tmp_path)
    code, data = run_json(root, "import", str(source), "--into", "groups/lab", "--tier", "always")
    assert code == 0 and data["format"] == "claude"
    meta = read_skill(root / "groups/lab/skills/review/SKILL.md").meta
    original = yaml.safe_load(CLAUDE_REVIEW.split("---")[1])
    for key in (
        "allowed-tools",
        "model",
        "disable-model-invocation",
        "user-invocable",
        "argument-hint",
        "context",
        "agent",
        "hooks",
        "paths",
        "when_to_use",
    ):
        assert meta[key] == original[key], key
    assert meta["source_format"] == "claude_skill" and meta["version"] == "0.1.0"
    assert (root / "groups/lab/skills/review/checklist.md").read_text() == "- tests\n- docs\n"
    entries = json.loads((root / "groups/lab/skills.json").read_text())["skills"]
    assert entries == [{"name": "review", "owner": "al", "tier": "always"}]


def test_forced_agentskills_format_moves_claude_fields_under_metadata(tmp_path):
    source = claude_skill(tmp_path / "src")
    root = target_repo(tmp_path)
    code, _data = run_json(root, "import", str(source), "--format", "agentskills")
    assert code == 0
    meta = read_skill(root / "people/al/skills/review/SKILL.md").meta
    assert "model" not in meta and meta["metadata"]["model"] == "sonnet"
    assert json.loads(meta["metadata"]["hooks"])["PreToolUse"][0]["matcher"] == "Bash"
    assert meta["allowed-tools"] == ["Read", "Bash(git diff:*)"]  # a standard field: kept
    assert meta["source_format"] == "agentskills_io"


def test_zip_and_skill_archives(tmp_path):
    source = claude_skill(tmp_path / "src")
    archive = tmp_path / "review.skill"
    with zipfile.ZipFile(archive, "w") as handle:
        for path in sorted(source.rglob("*")):
            handle.write(path, f"review/{path.relative_to(source).as_posix()}")
    root = target_repo(tmp_path)
    code, data = run_json(root, "import", str(archive), "--name", "review-zip")
    assert code == 0 and data["skills"][0]["status"] == "imported"
    meta = read_skill(root / "people/al/skills/review-zip/SKILL.md").meta
    assert meta["name"] == "review-zip" and meta["source_url"] == "local:review.skill/review"
    upstream = lock_of(root, "people/al")["review-zip"]["upstream"]
    assert upstream["kind"] == "archive" and upstream["path"] == "review"
    # a bundle zip with several skills, and a zip whose root is the SKILL.md itself
    bundle_zip = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle_zip, "w") as handle:
        handle.writestr("skills/a/SKILL.md", "---\nname: a\ndescription: The a skill.\n---\nA\n")
        handle.writestr("skills/b/SKILL.md", "---\nname: b\ndescription: The b skill.\n---\nB\n")
    assert run(root, "import", str(bundle_zip), "--all")[0] == 0
    assert (root / "people/al/skills/a/SKILL.md").exists()
    flat = tmp_path / "flat.zip"
    with zipfile.ZipFile(flat, "w") as handle:
        handle.writestr("SKILL.md", "---\nname: flat\ndescription: A flat one.\n---\nF\n")
    assert run(root, "import", str(flat))[0] == 0
    assert (root / "people/al/skills/flat/SKILL.md").exists()


def test_hostile_archives_are_refused(tmp_path):
    root = target_repo(tmp_path)
    before = snapshot(root)
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as handle:
        handle.writestr("../escape/SKILL.md", "---\nname: escape\ndescription: x\n---\n")
    code, out = run(root, "import", str(evil))
    assert code == 2 and "outside the extraction folder" in out
    assert not (tmp_path / "escape").exists() and snapshot(root) == before


def test_dry_run_writes_nothing(tmp_path):
    bundle = kdense_bundle(tmp_path / "bundle")
    root = target_repo(tmp_path)
    before = snapshot(root)
    code, data = run_json(root, "import", str(bundle), "--all", "--dry-run")
    assert code == 1 and data["dry_run"]
    assert sum(s["status"] == "would import" for s in data["skills"]) == 4
    assert snapshot(root) == before


def test_failure_writes_nothing(tmp_path):
    bundle = kdense_bundle(tmp_path / "bundle")
    root = target_repo(tmp_path)
    build_tree(root, {"people/al/skills.json": '{"skills": [ {"name": "x",'})
    before = snapshot(root)
    for extra in ((), ("--dry-run",)):
        code, out = run(root, "import", str(bundle), "--all", *extra)
        assert code == 2 and "people/al/skills.json" in out and "nothing was changed" in out
    assert snapshot(root) == before
    # a name that is taken is refused for that skill only
    root2 = target_repo(tmp_path / "second")
    build_tree(root2, {"people/al/skills/rdkit/SKILL.md": "mine\n"})
    code, data = run_json(
        root2, "import", str(bundle), "--skill", "rdkit", "--skill", "pubmed-database"
    )
    assert code == 1
    assert [s["status"] for s in data["skills"]] == ["imported", "skipped"]
    assert "already exists" in data["skills"][1]["problem"]
    assert (root2 / "people/al/skills/rdkit/SKILL.md").read_text() == "mine\n"


def test_guest_needs_owner_and_scope(tmp_path):
    source = claude_skill(tmp_path / "src")
    root = target_repo(tmp_path)
    (root / ".exobrain.json").unlink()
    code, out = run(root, "import", str(source))
    assert code == 2 and "--into" in out
    code, out = run(root, "import", str(source), "--into", "groups/lab")
    assert code == 2 and "--owner" in out
    assert run(root, "import", str(source), "--into", "groups/lab", "--owner", "bo")[0] == 0


def _upstream_skill(tmp_path):
    source = build_tree(
        tmp_path / "up" / "tidy",
        {
            "SKILL.md": (
                "---\nname: tidy\ndescription: Tidies things.\nmetadata:\n  version: 1.0.0\n"
                "---\nTidy up.\n"
            ),
            "helper.py": "print(1)\n",
        },
    )
    root = target_repo(tmp_path)
    assert run(root, "import", str(source))[0] == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "import tidy")
    return source, root


def test_update_unchanged_upstream_does_nothing(tmp_path):
    _source, root = _upstream_skill(tmp_path)
    before = snapshot(root)
    code, data = run_json(root, "import", "--update", "tidy")
    assert code == 0 and data["skills"][0]["status"] == "up to date"
    assert snapshot(root) == before


def test_update_changed_upstream_updates_and_bumps(tmp_path):
    source, root = _upstream_skill(tmp_path)
    (source / "helper.py").write_text("print(2)\n")
    before = snapshot(root)
    code, data = run_json(root, "import", "--update", "tidy", "--dry-run")
    assert code == 0 and data["skills"][0]["status"] == "would update"
    assert snapshot(root) == before
    code, out = run(root, "import", "--update", "skill:tidy@people/al")
    assert code == 0 and "updated  skill:tidy@people/al 1.0.0 → 1.0.1" in out
    folder = root / "people/al/skills/tidy"
    assert (folder / "helper.py").read_text() == "print(2)\n"
    assert read_skill(folder / "SKILL.md").meta["version"] == "1.0.1"
    lock = lock_of(root, "people/al")["tidy"]
    assert lock["version"] == "1.0.1" and lock["hash"] == content_hash(folder)
    assert lock["upstream"]["hash"] == content_hash(source)
    assert lock["upstream"]["imported"] == lock["hash"]
    assert CliRunner().invoke(validate, ["--repo", str(root)]).exit_code == 0
    # an upstream release with a higher version is taken as it is
    (source / "SKILL.md").write_text((source / "SKILL.md").read_text().replace("1.0.0", "2.0.0"))
    code, data = run_json(root, "import", "--update", "tidy")
    assert data["skills"][0]["version"] == "2.0.0" and data["skills"][0]["previous"] == "1.0.1"
    assert not list((root / "people/al/skills").glob(".tidy*"))  # no staging leftovers


def test_update_refuses_when_both_sides_changed(tmp_path):
    source, root = _upstream_skill(tmp_path)
    (source / "helper.py").write_text("print(2)\n")
    (root / "people/al/skills/tidy/helper.py").write_text("print('local')\n")
    before = snapshot(root)
    code, out = run(root, "import", "--update", "tidy")
    assert code == 1 and "so did the local copy" in out
    assert "exobrain fork skill:tidy@people/al --into people/al" in out
    assert snapshot(root) == before
    # a local edit alone, upstream unchanged: nothing to take, nothing touched
    (source / "helper.py").write_text("print(1)\n")
    code, data = run_json(root, "import", "--update", "tidy")
    assert code == 0 and data["skills"][0]["status"] == "up to date"
    assert snapshot(root) == before


def test_update_of_a_skill_that_was_not_imported(tmp_path):
    source, root = _upstream_skill(tmp_path)
    code, out = run(root, "import", "--update", "nothing-here")
    assert code == 2 and "no skill named 'nothing-here'" in out
    build_tree(
        root,
        {"people/al/skills/native/SKILL.md": "---\nname: native\ndescription: Mine.\n---\nx\n"},
    )
    assert run(root, "register", str(root / "people/al/skills/native"))[0] == 0
    code, out = run(root, "import", "--update", "native")
    assert code == 2 and "was not imported" in out
    code, out = run(root, "import", str(source), "--update", "tidy", "--tier", "always")
    assert code == 2 and "--update takes only NAME [SOURCE]" in out and "drop --tier" in out


def test_update_when_the_upstream_is_gone_keeps_the_local_copy(tmp_path):
    source, root = _upstream_skill(tmp_path)
    (source / "helper.py").unlink()
    (source / "SKILL.md").unlink()
    source.rmdir()
    before = snapshot(root)
    code, out = run(root, "import", "--update", "tidy")
    assert code == 1 and "does not exist on this machine" in out and "local copy is kept" in out
    assert snapshot(root) == before


def test_a_skill_naming_an_unknown_skill_is_skipped_unless_the_batch_brings_it(tmp_path):
    uses = "links:\n  uses_skill: [skill:helper]\n"
    bundle = build_tree(
        tmp_path / "bundle",
        {
            "main/SKILL.md": (
                f"---\nname: main\ndescription: Uses the helper all day.\n{uses}---\nGo.\n"
            ),
            "helper/SKILL.md": "---\nname: helper\ndescription: Helps the main skill\n---\nHelp.\n",
        },
    )
    root = target_repo(tmp_path)
    code, data = run_json(root, "import", str(bundle), "--skill", "main")
    assert code == 1 and data["skills"][0]["problem"] == (
        "links.uses_skill: skill:helper names no skill declared here (skills-validate would "
        "fail); import that skill first, or with this one"
    )
    assert not (root / "people/al/skills/main").exists()
    assert run_json(root, "import", str(bundle), "--all")[0] == 0
    assert CliRunner().invoke(validate, ["--repo", str(root), "--strict"]).exit_code == 0


def test_the_version_comes_from_the_marketplace_then_the_plugin_then_the_skill(tmp_path):
    root = target_repo(tmp_path)

    def bundle(name, release=None, plugin_version=None):
        plugin = {"name": "p", "source": "./", "skills": [f"./skills/{name}"]}
        if plugin_version:
            plugin["version"] = plugin_version
        market = {"name": "m", "owner": {"name": "o"}, "plugins": [plugin]}
        if release:
            market["metadata"] = {"version": release}
        skill = f"---\nname: {name}\ndescription: Use {name}.\nversion: 1.0.0\n---\nBody.\n"
        return build_tree(
            tmp_path / name,
            {
                ".claude-plugin/marketplace.json": json.dumps(market),
                f"skills/{name}/SKILL.md": skill,
            },
        )

    cases = {"all-three": ("3.0.0", "2.0.0"), "plugin-and-skill": (None, "2.0.0")}
    cases["skill-only"] = (None, None)
    for name, (release, plugin_version) in cases.items():
        code, out = run(root, "import", str(bundle(name, release, plugin_version)))
        assert code == 0, out
    versions = {name: read_skill(root / f"people/al/skills/{name}/SKILL.md").meta for name in cases}
    assert {n: m["version"] for n, m in versions.items()} == {
        "all-three": "3.0.0",
        "plugin-and-skill": "2.0.0",
        "skill-only": "1.0.0",
    }
    # the skill's own version, when it loses, is kept
    assert versions["all-three"]["metadata"]["upstream-version"] == "1.0.0"
    assert "upstream-version" not in versions["skill-only"].get("metadata", {})
