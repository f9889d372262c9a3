"""exobrain export: standard bundles checked by the Agent Skills reference validator
(skills-ref), .skill archives, Claude Code plugins, refusals, and the import/export round trip."""

import json
import os
import zipfile

import skills_ref
import yaml
from click.testing import CliRunner

from exobrain.artifacts.checks import STANDARD_FIELDS
from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from exobrain.interop.formats.fields import PROVENANCE
from exobrain.skillmd import read_skill
from exobrain.util.dirhash import hash_digests
from tests.support.bundles import claude_skill, lock_of, snapshot, target_repo
from tests.support.helpers import build_tree

SURVEY = """---
name: survey
description: Plans and runs a literature survey. Use when the user asks for a survey of a field.
version: 1.3.0
license: Apache-2.0
compatibility: Needs network access
allowed-tools:
  - Read
  - WebFetch(domain:example.org)
model: opus
triggers:
  - the user asks for a literature survey
tags: [research, literature]
personas: [scientist]
inputs: {type: object, properties: {topic: {type: string}}}
outputs: {type: object}
dependencies: {tools: [web], skills: ["skill:helper@global"]}
examples: [{input: CRISPR, output: a survey}]
requires_substrate_access: false
links:
  derives_from: [{ref: "skill:helper@global", version: 1.0.0, hash: "h1:abc"}]
  uses_skill: ["skill:helper@global"]
metadata: {owner-team: research, note: "true"}
schema_version: 1
source: native
---
# Survey

1. Search.
2. Summarise.
"""


def run(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def repo(tmp_path):
    root = target_repo(tmp_path)
    build_tree(
        root,
        {
            "skills/survey": {
                "SKILL.md": SURVEY,
                "scripts": {"search.py": "print('search')\n"},
                "references": {"guide.md": "# Guide\n"},
                ".DS_Store": b"junk",
                "__pycache__": {"x.pyc": b"junk"},
            },
            "skills/helper/SKILL.md": (
                "---\nname: helper\ndescription: Helps.\nversion: 1.0.0\n---\nH\n"
            ),
            "skills.json": {
                "skills": [
                    {"name": "survey", "owner": "al", "tier": "optional"},
                    {"name": "helper", "owner": "al", "tier": "optional"},
                ]
            },
        },
    )
    os.chmod(root / "skills/survey/scripts/search.py", 0o755)
    os.symlink("references/guide.md", root / "skills/survey/latest.md")
    for name in ("survey", "helper"):
        assert run(root, "register", str(root / "skills" / name))[0] == 0
    return root


def frontmatter(path):
    return yaml.safe_load((path / "SKILL.md").read_text().split("---")[1])


def test_export_is_a_standard_bundle_that_passes_the_reference_validator(tmp_path):
    root = repo(tmp_path)
    code, out = run(
        root, "export", "survey", "--format", "agentskills-io", "-o", str(tmp_path / "out")
    )
    assert code == 0 and "exported skill:survey@global (into metadata:" in out
    folder = tmp_path / "out/survey"
    assert skills_ref.validate(folder) == []
    meta = frontmatter(folder)
    assert set(meta) <= set(STANDARD_FIELDS)
    assert meta["allowed-tools"] == "Read WebFetch(domain:example.org)"
    assert all(isinstance(v, str) for v in meta["metadata"].values())
    assert meta["metadata"]["version"] == "1.3.0" and meta["metadata"]["owner-team"] == "research"
    assert json.loads(meta["metadata"]["tags"]) == ["research", "literature"]
    assert meta["metadata"]["model"] == "opus" and meta["metadata"]["schema_version"] == "1"
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir())
    assert files == ["SKILL.md", "latest.md", "references/guide.md", "scripts/search.py"]
    assert os.readlink(folder / "latest.md") == "references/guide.md"
    assert (folder / "scripts/search.py").stat().st_mode & 0o100
    body = (root / "skills/survey/SKILL.md").read_text().split("---\n", 2)[2]
    assert (folder / "SKILL.md").read_text().endswith("---\n" + body)


def test_strip_drops_native_fields(tmp_path):
    root = repo(tmp_path)
    assert (
        run(
            root,
            "export",
            "survey",
            "--format",
            "agentskills-io",
            "--strip",
            "-o",
            str(tmp_path / "out"),
        )[0]
        == 0
    )
    meta = frontmatter(tmp_path / "out/survey")
    assert meta["metadata"] == {"owner-team": "research", "note": "true", "version": "1.3.0"}
    assert skills_ref.validate(tmp_path / "out/survey") == []


def test_zip_is_a_skill_archive_rooted_at_the_skill_folder(tmp_path):
    root = repo(tmp_path)
    archive = tmp_path / "survey.skill"
    assert (
        run(
            root,
            "export",
            "skill:survey@global",
            "--format",
            "agentskills-io",
            "--zip",
            str(archive),
        )[0]
        == 0
    )
    with zipfile.ZipFile(archive) as handle:
        names = handle.namelist()
        assert names == [
            "survey/SKILL.md",
            "survey/latest.md",
            "survey/references/guide.md",
            "survey/scripts/search.py",
        ]
        handle.extractall(
            tmp_path / "unzipped", members=[n for n in names if n != "survey/latest.md"]
        )
    assert skills_ref.validate(tmp_path / "unzipped/survey") == []
    first = archive.read_bytes()
    archive.unlink()
    assert (
        run(root, "export", "survey", "--format", "agentskills-io", "--zip", str(archive))[0] == 0
    )
    assert archive.read_bytes() == first  # reproducible


def _comparable(meta):
    return {k: v for k, v in meta.items() if k not in PROVENANCE}


def test_round_trip_gives_back_instructions_files_and_native_fields(tmp_path):
    root = repo(tmp_path)
    for how, target in (("-o", tmp_path / "out"), ("--zip", tmp_path / "survey.zip")):
        assert run(root, "export", "survey", "--format", "agentskills-io", how, str(target))[0] == 0
    original = read_skill(root / "skills/survey/SKILL.md")
    origin_files = lock_of(root, ".")["survey"]["files"]
    for source, scope in (
        (tmp_path / "out/survey", "groups/lab"),
        (tmp_path / "survey.zip", "people/al"),
    ):
        code, out = run(root, "import", str(source), "--into", scope)
        assert code == 0 and "repaired" not in out, out
        copy = read_skill(root / scope / "skills/survey/SKILL.md")
        assert copy.body == original.body
        assert _comparable(copy.meta) == _comparable(original.meta)
        assert copy.meta["source"] == "imported" and copy.meta["source_format"] == "agentskills_io"
        files = lock_of(root, scope)["survey"]["files"]
        assert set(files) == set(origin_files)
        unchanged = {p: d for p, d in files.items() if p != "SKILL.md"}
        assert unchanged == {p: d for p, d in origin_files.items() if p != "SKILL.md"}
        assert hash_digests(unchanged) == hash_digests(
            {p: d for p, d in origin_files.items() if p != "SKILL.md"}
        )
    assert CliRunner().invoke(validate, ["--repo", str(root)]).exit_code == 0


def test_claude_skill_round_trip_keeps_agent_fields(tmp_path):
    root = target_repo(tmp_path)
    assert run(root, "import", str(claude_skill(tmp_path / "src")))[0] == 0
    assert (
        run(root, "export", "review", "--format", "agentskills-io", "-o", str(tmp_path / "o"))[0]
        == 0
    )
    assert skills_ref.validate(tmp_path / "o/review") == []
    code, out = run(root, "import", str(tmp_path / "o/review"), "--into", "groups/lab")
    assert code == 0 and "agentskills-io export" in out
    first = read_skill(root / "people/al/skills/review/SKILL.md").meta
    again = read_skill(root / "groups/lab/skills/review/SKILL.md").meta
    assert _comparable(first) == _comparable(again)


def test_claude_plugin_holds_a_manifest_and_skills(tmp_path):
    root = repo(tmp_path)
    plugin = tmp_path / "plugin"
    code, out = run(
        root,
        "export",
        "--all",
        "global",
        "--format",
        "claude-plugin",
        "-o",
        str(plugin),
        "--name",
        "lab-skills",
    )
    assert code == 0 and "2 skill(s)" in out
    manifest = json.loads((plugin / ".claude-plugin/plugin.json").read_text())
    assert manifest["name"] == "lab-skills"
    assert sorted(p.name for p in (plugin / "skills").iterdir()) == ["helper", "survey"]
    meta = frontmatter(plugin / "skills/survey")
    assert meta["model"] == "opus" and meta["allowed-tools"] == [
        "Read",
        "WebFetch(domain:example.org)",
    ]
    assert "tags" not in meta and json.loads(meta["metadata"]["tags"]) == ["research", "literature"]
    # the plugin imports back as Claude Code skills
    code, out = run(root, "import", str(plugin), "--all", "--into", "groups/lab")
    assert code == 0 and "claude" in out.splitlines()[0]
    assert _comparable(read_skill(root / "groups/lab/skills/survey/SKILL.md").meta) == _comparable(
        read_skill(root / "skills/survey/SKILL.md").meta
    )


def test_export_refuses_incompatible_skills_and_writes_nothing(tmp_path):
    root = repo(tmp_path)
    build_tree(
        root,
        {
            "skills/bad/SKILL.md": "---\nname: Bad_Name\ndescription: x\n---\nB\n",
            "skills/noversion/SKILL.md": "---\nname: noversion\ndescription: y\n---\nN\n",
            "skills/clash/SKILL.md": "---\nname: clash\ndescription: z\nversion: 1.0.0\n"
            "tags: [a]\nmetadata: {tags: b}\n---\nC\n",
        },
    )
    build_tree(
        root,
        {
            "skills.json": {
                "skills": [
                    {"name": n, "owner": "al", "tier": "optional"}
                    for n in ("survey", "helper", "bad", "noversion", "clash")
                ]
            }
        },
    )
    before = snapshot(tmp_path)
    code, out = run(
        root,
        "export",
        "survey",
        "bad",
        "noversion",
        "clash",
        "--format",
        "agentskills-io",
        "-o",
        str(tmp_path / "out"),
    )
    assert code == 1 and "nothing exported" in out
    assert "skill:bad@global fails agentskills_io_compat_check" in out
    assert "may hold only lowercase letters" in out and "does not match its folder" in out
    assert "skill:noversion@global fails" in out and "no valid version" in out
    assert "tags would move into metadata, which already has a 'tags' entry" in out
    assert "survey" not in out.split("nothing exported")[1]
    assert snapshot(tmp_path) == before
    assert (
        run(
            root,
            "export",
            "clash",
            "--format",
            "agentskills-io",
            "--strip",
            "-o",
            str(tmp_path / "out"),
        )[0]
        == 0
    )


def test_export_never_overwrites_and_checks_its_arguments(tmp_path):
    root = repo(tmp_path)
    build_tree(tmp_path, {"out/survey/keep.txt": "mine\n", "taken.skill": "mine\n"})
    code, out = run(
        root, "export", "survey", "--format", "agentskills-io", "-o", str(tmp_path / "out")
    )
    assert code == 2 and "already exists" in out
    assert (tmp_path / "out/survey/keep.txt").read_text() == "mine\n"
    code, out = run(
        root,
        "export",
        "survey",
        "--format",
        "agentskills-io",
        "--zip",
        str(tmp_path / "taken.skill"),
    )
    assert code == 2 and (tmp_path / "taken.skill").read_text() == "mine\n"
    assert run(root, "export", "survey", "--format", "agentskills-io")[0] == 2
    assert run(root, "export", "--format", "agentskills-io", "-o", str(tmp_path / "x"))[0] == 2
    code, out = run(
        root, "export", "survey", "--format", "claude-plugin", "--zip", str(tmp_path / "p.zip")
    )
    assert code == 2 and "writes a folder" in out
    code, out = run(
        root, "export", "nosuch", "--format", "agentskills-io", "-o", str(tmp_path / "x")
    )
    assert code == 2 and "no skill named 'nosuch'" in out
    code, out = run(
        root,
        "export",
        "survey",
        "--format",
        "agentskills-io",
        "-o",
        str(tmp_path / "dry"),
        "--dry-run",
    )
    assert (
        code == 0 and "would export skill:survey@global" in out and not (tmp_path / "dry").exists()
    )


def test_console_script_round_trip(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = repo(tmp_path)
    script = str(Path(sys.executable).parent / "exobrain")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    archive = tmp_path / "survey.skill"
    done = subprocess.run(
        [script, "export", "survey", "--format", "agentskills-io", "--zip", str(archive)],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    done = subprocess.run(
        [script, "import", str(archive), "--into", "groups/lab", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["skills"][0]["ref"] == "skill:survey@groups/lab"
    done = subprocess.run(
        [script, "import", "--update", "survey", "--into", "groups/lab"],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0 and "up to date" in done.stdout
