"""Real bundles (samples committed under tests/fixtures/bundles, see SOURCES.md there): K-Dense's
scientific skills and anthropics/skills. Importing either leaves a repository that validates
strictly; the over-long descriptions are repaired and recorded; an update of an unchanged
upstream writes nothing; the versions follow the marketplace file; export gives back the body."""

import json
import shutil

from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from exobrain.interop.formats.fields import dump
from exobrain.skillmd import read_skill
from exobrain.util.dirhash import file_digests, hash_digests
from tests.support import FIXTURES
from tests.support.bundles import lock_of, snapshot, target_repo
from tests.support.helpers import git, mtimes

KDENSE = FIXTURES / "bundles" / "kdense"
ANTHROPICS = FIXTURES / "bundles" / "anthropics"
KDENSE_SKILLS = {
    "adaptyv",
    "bgpt-paper-search",
    "database-lookup",
    "flowio",
    "imaging-data-commons",
    "rowan",
}


def run_json(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--json", "--repo", str(root)])
    assert result.stdout, result.output
    return result.exit_code, json.loads(result.stdout)


def strict(root):
    result = CliRunner().invoke(validate, ["--repo", str(root), "--strict"])
    return result.exit_code, result.output


def committed(root):
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", "import")
    return root


def test_kdense_sample_imports_whole_and_validates_strictly(tmp_path):
    root = target_repo(tmp_path)
    code, data = run_json(root, "import", str(KDENSE), "--all")
    assert code == 0 and data["format"] == "kdense"
    items = {s["name"]: s for s in data["skills"]}
    assert set(items) == KDENSE_SKILLS and {s["status"] for s in items.values()} == {"imported"}
    # the marketplace's metadata.version is every skill's version
    assert {s["version"] for s in items.values()} == {"2.34.1"}
    own = read_skill(root / "people/al/skills/imaging-data-commons/SKILL.md").meta
    assert own["version"] == "2.34.1" and own["metadata"]["upstream-version"] == "1.4.0"
    # the 1,929-character description is cut within 1,024 at a word; the full text is kept
    lookup = read_skill(root / "people/al/skills/database-lookup/SKILL.md")
    upstream = read_skill(KDENSE / "scientific-skills/database-lookup/SKILL.md")
    description = lookup.meta["description"]
    full = upstream.meta["description"]
    assert len(full) == 1929 and len(description) <= 1024
    assert description.endswith("…") and full.startswith(description[:-1])
    assert full[len(description) - 1] == " "  # cut between words
    assert lookup.meta["metadata"]["full-description"] == full
    assert lookup.body == upstream.body
    repair = (
        f"description was 1929 characters (the standard allows 1024): cut at a word "
        f"boundary to {len(description)}; the full text is kept in metadata.full-description"
    )
    assert items["database-lookup"]["repairs"] == [repair]
    assert lock_of(root, "people/al")["database-lookup"]["upstream"]["repairs"] == [repair]
    # `allowed-tools: Bash` lets an agent run any command: the import reports it and the lock
    # records it as seen, so validation does not flag it again
    assert any("allowed-tools grants every tool" in f for f in items["bgpt-paper-search"]["flags"])
    assert lock_of(root, "people/al")["bgpt-paper-search"]["powers"] == ["tool_wildcards"]
    assert strict(root) == (0, "Errors: 0  Info: 0\n")


def test_anthropics_sample_imports_as_claude_plugin_skills_and_validates(tmp_path):
    root = target_repo(tmp_path)
    code, data = run_json(root, "import", str(ANTHROPICS), "--all")
    assert code == 0 and data["format"] == "claude"
    assert "marketplace.json" in data["detected_by"]
    items = {s["name"]: s for s in data["skills"]}
    assert {n: s["version"] for n, s in items.items()} == {
        "claude-api": "1.0.0",
        "skill-creator": "1.0.0",
    }
    api = read_skill(root / "people/al/skills/claude-api/SKILL.md").meta
    full = read_skill(ANTHROPICS / "skills/claude-api/SKILL.md").meta["description"]
    # 1,068 characters (not bytes: it holds non-ASCII text): cut after the last sentence
    assert len(full) == 1068 and len(full.encode()) == 1078
    assert full.startswith(api["description"]) and api["description"].endswith(").")
    assert api["metadata"]["full-description"] == full
    assert "cut at a sentence boundary" in items["claude-api"]["repairs"][0]
    assert items["skill-creator"]["repairs"] == []
    assert strict(root) == (0, "Errors: 0  Info: 0\n")


def test_update_of_an_unchanged_upstream_writes_nothing(tmp_path):
    root = committed(target_repo(tmp_path))
    assert run_json(root, "import", str(KDENSE), "--all")[0] == 0
    assert run_json(root, "import", str(ANTHROPICS), "--all")[0] == 0
    committed(root)
    before, times = snapshot(root), mtimes(root)
    for name in ("database-lookup", "claude-api", "imaging-data-commons"):
        code, data = run_json(root, "import", "--update", name)
        assert code == 0 and data["skills"][0]["status"] == "up to date"
    assert snapshot(root) == before and mtimes(root) == times


def test_update_re_applies_the_repair_to_a_new_upstream(tmp_path):
    upstream = shutil.copytree(KDENSE, tmp_path / "kdense")
    root = committed(target_repo(tmp_path))
    assert run_json(root, "import", str(upstream), "--skill", "database-lookup")[0] == 0
    committed(root)
    reference = upstream / "scientific-skills/database-lookup/references/addgene.md"
    reference.write_text(reference.read_text() + "\nOne more line.\n")
    code, data = run_json(root, "import", "--update", "database-lookup")
    item = data["skills"][0]
    # the repaired copy is not taken for a local edit: the new upstream comes in, repaired again
    assert code == 0 and item["status"] == "updated"
    assert item["previous"] == "2.34.1" and item["version"] == "2.34.2"
    assert "cut at a word boundary" in item["repairs"][0]
    local = root / "people/al/skills/database-lookup"
    assert (local / "references/addgene.md").read_text().endswith("One more line.\n")
    assert len(read_skill(local / "SKILL.md").meta["description"]) <= 1024
    assert lock_of(root, "people/al")["database-lookup"]["upstream"]["repairs"] == item["repairs"]
    assert strict(root)[0] == 0


def test_export_round_trip_keeps_the_body_byte_identical(tmp_path):
    root = target_repo(tmp_path)
    assert run_json(root, "import", str(ANTHROPICS), "--skill", "claude-api")[0] == 0
    assert run_json(root, "import", str(KDENSE), "--skill", "database-lookup")[0] == 0
    out = tmp_path / "out"
    refs = ("skill:claude-api@people/al", "skill:database-lookup@people/al")
    code, _ = run_json(root, "export", *refs, "--format", "agentskills-io", "-o", str(out))
    assert code == 0
    for name in ("claude-api", "database-lookup"):
        assert run_json(root, "import", str(out / name), "--into", "groups/lab")[0] == 0
        first = read_skill(root / f"people/al/skills/{name}/SKILL.md")
        again = read_skill(root / f"groups/lab/skills/{name}/SKILL.md")
        upstream = (root / f"people/al/skills/{name}/SKILL.md").read_text()
        assert again.body == first.body and upstream.endswith(first.body)
        assert again.meta["description"] == first.meta["description"]
        assert again.meta["metadata"] == first.meta["metadata"]
    assert strict(root)[0] == 0


def test_a_copy_imported_before_the_repair_existed_is_repaired_by_an_update(tmp_path):
    """An import by an earlier version kept the 1,929-character description (validate then
    failed); the upstream has not changed, the copy is untouched: --update repairs it."""
    root = committed(target_repo(tmp_path))
    assert run_json(root, "import", str(KDENSE), "--skill", "database-lookup")[0] == 0
    local = root / "people/al/skills/database-lookup"
    text = (local / "SKILL.md").read_text()
    full = read_skill(KDENSE / "scientific-skills/database-lookup/SKILL.md").meta["description"]
    old = read_skill(local / "SKILL.md")
    meta = {**old.meta, "description": full}
    meta["metadata"] = {k: v for k, v in meta["metadata"].items() if k != "full-description"}
    (local / "SKILL.md").write_text(dump(meta, old.body))
    assert (local / "SKILL.md").read_text() != text
    lock_file = root / "people/al/skills.lock.json"
    lock = json.loads(lock_file.read_text())
    digests = file_digests(local)
    entry = lock["skills"]["database-lookup"]
    entry.update(hash=hash_digests(digests), files=dict(sorted(digests.items())))
    entry["upstream"]["imported"] = entry["hash"]
    del entry["upstream"]["repairs"]
    lock_file.write_text(json.dumps(lock, indent=2))
    committed(root)
    assert strict(root)[0] == 1  # the over-long description
    code, data = run_json(root, "import", "--update", "database-lookup")
    item = data["skills"][0]
    assert code == 0 and item["status"] == "updated" and item["version"] == "2.34.2"
    assert "upstream unchanged: the copy is translated and repaired anew" in item["notes"]
    assert len(read_skill(local / "SKILL.md").meta["description"]) <= 1024
    assert strict(root)[0] == 0
    assert run_json(root, "import", "--update", "database-lookup")[1]["skills"][0]["status"] == (
        "up to date"
    )
