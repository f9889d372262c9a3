"""Benchmark of issue 6: authoring-review on a large exobrain with a busy feature branch.

The synthetic exobrain (``synthetic.generate``) is committed on ``main``; the feature branch then
stages 20 new global skills (half with a test), 10 renames of global skills with a reworded
SKILL.md, 5 moves of person skills into a group and one forbidden lifecycle change — the state
pre-commit sees. authoring-review runs on every commit, so it should answer well under a second.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from benchmarks.synthetic import Shape, add_shape_arguments, generate, shape_from
from benchmarks.timing import console_script, report, time_command

TARGET_SECONDS = 1.0


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _entries(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["skills"]


def _save(path: Path, entries: list[dict]) -> None:
    _write(path, json.dumps({"skills": entries}, indent=2) + "\n")


def feature_branch(root: Path, shape: Shape) -> None:
    """Stage the feature branch's changes on top of the committed synthetic exobrain."""
    _git(root, "checkout", "-q", "-b", "feature")
    entries = _entries(root / "skills.json")
    for k in range(20):
        name = f"fresh-{k:02d}"
        _write(
            root / "skills" / name / "SKILL.md",
            f"---\nname: {name}\ndescription: Use {name} for fresh work {k}.\n---\nSteps.\n",
        )
        if k % 2 == 0:
            _write(root / "skills" / name / "test_fresh.sh", "#!/bin/sh\n")
        entries.append({"name": name, "owner": "p0000", "tier": "optional"})
    for k in range(min(10, shape.global_skills)):
        old, new = f"global-skill-{k:04d}", f"renamed-skill-{k:04d}"
        _git(root, "mv", f"skills/{old}", f"skills/{new}")
        skill = root / "skills" / new / "SKILL.md"
        skill.write_text(
            skill.read_text(encoding="utf-8").replace(f"name: {old}", f"name: {new}"),
            encoding="utf-8",
        )
        entries = [dict(e, name=new) if e["name"] == old else e for e in entries]
    if shape.global_skills > 10:
        entries[10]["lifecycle"] = "draft"  # active → draft: a forbidden change to report
    _save(root / "skills.json", entries)
    if shape.groups:
        group = root / "groups" / "g000"
        moved = _entries(group / "skills.json")
        for p in range(min(5, shape.people)):
            name = f"p{p:04d}-skill-0"
            _git(root, "mv", f"people/p{p:04d}/skills/{name}", f"groups/g000/skills/{name}")
            moved.append({"name": name, "owner": f"p{p:04d}", "tier": "optional"})
        _save(group / "skills.json", moved)
    _git(root, "add", "-A")


def run(args) -> None:
    shape = shape_from(args)
    script = console_script("authoring-review")
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        feature_branch(root, shape)
        _git(root, "repack", "-a", "-d", "-q")  # a real repository's objects are packed
        files = subprocess.run(
            ["git", "ls-files"], cwd=root, capture_output=True, text=True
        ).stdout.count("\n")
        verdict = json.loads(
            subprocess.run([script, "--json"], cwd=root, capture_output=True, text=True).stdout
        )
        print(
            f"synthetic exobrain: {shape.total_skills} skills, {files} tracked files; "
            f"staged: {len(verdict['new_shared_skills'])} new shared skills, "
            f"{len(verdict['lifecycle_problems'])} lifecycle problem(s)"
        )
        stats = time_command([script], root, args.runs, check_codes=(0, 2))
        print(report("authoring-review (staged feature branch)", stats, TARGET_SECONDS))


def add_arguments(parser) -> None:
    add_shape_arguments(parser, runs=11)
