"""Work that grows with the input, not with its square (issue 30, item 7).

* ``skills-validate`` on declarations whose folders do not exist: naming each one's entry
  searched the registry from its start, so 20,000 took 18 s and 200,000 never finished. The
  times are measured by ``python scripts/benchmarks declarations``; here the shape is checked
  without a clock, by counting the Python lines the check executes at two sizes.
* ``exobrain lock`` with one SKILL.md over the 1 MB cap refused to lock every other skill.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from exobrain.gate.validate import validate
from exobrain.workspace import open_workspace
from tests.support.helpers import build_tree, exobrain, skill_md
from tests.support.hostile import invoke


def missing_declarations(root: Path, count: int) -> Path:
    entries = [{"name": f"skill-{i}", "owner": "team", "tier": "optional"} for i in range(count)]
    return exobrain(root, registries={"global": entries})


def executed_lines(root: Path) -> tuple[int, int]:
    """(Python lines executed by skills-validate's checks on ``root``, errors found)."""
    ws = open_workspace(root)
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        findings = validate(ws)
    finally:
        sys.settrace(before)
    return count, sum(1 for f in findings if f.code == "missing-skill")


def test_validate_does_linear_work_in_declarations_without_folders(tmp_path):
    small, small_errors = executed_lines(missing_declarations(tmp_path / "small", 1500))
    large, large_errors = executed_lines(missing_declarations(tmp_path / "large", 3000))
    assert (small_errors, large_errors) == (1500, 3000)
    # twice the declarations: about twice the work (four times when it was quadratic)
    assert large / small < 2.5, (small, large)


def test_each_missing_folder_names_its_own_entry_among_broken_ones(tmp_path):
    entries: list[dict[str, Any]] = [
        {"name": "Bad_Name", "owner": "team", "tier": "optional"},
        {"name": "first", "owner": "team", "tier": "optional"},
        {"name": "also bad", "owner": "team", "tier": "optional"},
        {"name": "present", "owner": "team", "tier": "optional"},
        {"name": "second", "owner": "team", "tier": "optional"},
    ]
    root = exobrain(
        tmp_path / "exo", registries={"global": entries}, skills={"global/present": None}
    )
    result = invoke(root, ["skills-validate", "--json"])
    missing = [f for f in json.loads(result.out)["findings"] if f["code"] == "missing-skill"]
    assert [(f["entry"], f["line"]) for f in missing] == [
        ("#1 first", 8),
        ("#4 second", 23),
    ], missing
    assert all("skills/" in f["message"] and "does not exist" in f["message"] for f in missing)


def versioned(name: str, body: str = "Instructions.\n") -> str:
    return skill_md(name, body=body, version="1.0.0")


def test_lock_locks_every_skill_but_the_oversized_one_and_names_it(sandbox):
    root = sandbox.root
    build_tree(
        root,
        {
            "skills/hello/SKILL.md": versioned("hello"),
            "skills/world/SKILL.md": versioned("world", body="x" * (1 << 20) + "\n"),
            "groups/acme/skills/tidy/SKILL.md": versioned("tidy"),
        },
    )
    size = (root / "skills/world/SKILL.md").stat().st_size
    result = invoke(root, ["exobrain", "lock"])
    assert result.code == 1, result.text
    assert (
        f"skill:world@global: skills/world/SKILL.md: {size:,} bytes, over the 1 MB cap for a "
        "SKILL.md; not locked (fix: split or shorten the file)" in result.out
    ), result.text
    assert "locked skill:hello@global" in result.out
    assert "locked skill:tidy@groups/acme" in result.out
    global_lock = json.loads((root / "skills.lock.json").read_text())["skills"]
    group_lock = json.loads((root / "groups/acme/skills.lock.json").read_text())["skills"]
    assert sorted(global_lock) == ["hello"] and sorted(group_lock) == ["tidy"]
    checked = invoke(root, ["exobrain", "lock", "--check", "--json"])
    assert checked.code == 1 and json.loads(checked.out)["refused"] == ["skill:world@global"]
    assert (root / "skills/world/SKILL.md").stat().st_size > 1 << 20  # the file is kept as is
