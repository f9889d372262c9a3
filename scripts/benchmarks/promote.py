"""Benchmark of issue 5: skills-promote and the registry editor on a large registry.

Measures, on ``--groups`` groups declaring ``--skills`` skills each and a person registry of
``--overrides`` house-style entries: one locked edit of that registry (upsert + write, then
remove + write), a full promote/remove round trip through the library (workspace, checks,
resolution before and after), the console script end to end, and two processes promoting
into the same file at once.
"""

from __future__ import annotations

import json
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.timing import console_script, time_command
from benchmarks.timing import report as report_command

RACE = 20  # promotes per process in the race


def build(root: Path, groups: int, skills: int, overrides: int) -> None:
    """Write the synthetic exobrain: scopes, declarations and alice's overrides."""
    for g in range(groups):
        folder = root / "groups" / f"g{g}"
        folder.mkdir(parents=True)
        (folder / "AGENTS.md").write_text(f"# g{g}\n")
        lines = [
            json.dumps(
                {"name": f"s{g}-{s}", "owner": f"o{g}", "tier": "optional"}, separators=(", ", ": ")
            )
            .replace("{", "{ ")
            .replace("}", " }")
            for s in range(skills)
        ]
        (folder / "skills.json").write_text(
            '{\n  "$schema": "../../skills.schema.json",\n  "skills": [\n    '
            + ",\n    ".join(lines)
            + "\n  ]\n}\n"
        )
    bench = root / "groups" / "bench"  # skills no override mentions yet
    bench.mkdir()
    (bench / "AGENTS.md").write_text("# bench\n")
    fresh = ["fresh"] + [f"r{p}-{i}" for p in "ab" for i in range(RACE)]
    (bench / "skills.json").write_text(
        json.dumps(
            {"skills": [{"name": n, "owner": "bench", "tier": "optional"} for n in fresh]}, indent=2
        )
    )
    alice = root / "people" / "alice"
    alice.mkdir(parents=True)
    (alice / "AGENTS.md").write_text("# alice\n")
    entries = [
        f'{{ "name": "s{i % groups}-{i // groups % skills}", "from": "groups/g{i % groups}", '
        f'"tier": "always" }}'
        for i in range(overrides)
    ]
    (alice / "skills.json").write_text(
        '{\n  "$schema": "../../skills.schema.json",\n  "skills": [\n    '
        + ",\n    ".join(entries)
        + "\n  ]\n}\n"
    )
    (root / ".exobrain.json").write_text(
        json.dumps({"connected_scopes": ["people/alice", "groups/g0"], "agents": ["claude"]})
    )


def timed(func, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return times


def report(label: str, times: list[float]) -> None:
    print(
        f"{label:42} median {statistics.median(times) * 1000:8.1f} ms   "
        f"min {min(times) * 1000:8.1f} ms   (n={len(times)})"
    )


def _race_worker(root: str, prefix: str, count: int, start) -> None:
    from exobrain.artifacts.promote import promote
    from exobrain.workspace import open_workspace

    start.wait()
    for i in range(count):
        promote(open_workspace(Path(root)), f"r{prefix}-{i}", "groups/bench", "unlisted")


def add_arguments(parser) -> None:
    parser.add_argument("--groups", type=int, default=50)
    parser.add_argument("--skills", type=int, default=40, help="declarations per group")
    parser.add_argument(
        "--overrides", type=int, default=1000, help="entries in the person registry being edited"
    )
    parser.add_argument("--repeat", type=int, default=20)


def run(args) -> None:
    from exobrain.artifacts.promote import promote, unpromote
    from exobrain.registry.editor import edit_registry
    from exobrain.workspace import open_workspace

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, args.groups, args.skills, args.overrides)
        original = (root / "people/alice/skills.json").read_bytes()
        print(
            f"{args.groups} groups x {args.skills} skills, people/alice/skills.json with "
            f"{args.overrides} entries ({len(original)} bytes)"
        )

        def edit_cycle() -> None:
            with edit_registry(root, "people/alice") as edit:
                edit.upsert({"name": "new", "from": "global", "tier": "off"}, name="new")
            with edit_registry(root, "people/alice") as edit:
                edit.remove(name="new")

        report("editor: upsert+write, remove+write", timed(edit_cycle, args.repeat))

        def library_cycle() -> None:
            promote(open_workspace(root), "fresh", "groups/bench", "optional")
            unpromote(open_workspace(root), "fresh", "groups/bench")

        report("library: promote + remove round trip", timed(library_cycle, args.repeat))
        assert (root / "people/alice/skills.json").read_bytes() == original

        script = console_script("skills-promote")
        argv = [
            script,
            "fresh",
            "--from",
            "groups/bench",
            "--to",
            "always",
            "--dry-run",
            "--repo",
            str(root),
        ]
        print(
            report_command(
                "console script: skills-promote --dry-run",
                time_command(argv, root, max(3, args.repeat // 4)),
            )
        )

        count = RACE
        ctx = multiprocessing.get_context("fork")
        start = ctx.Barrier(2)
        procs = [ctx.Process(target=_race_worker, args=(str(root), p, count, start)) for p in "ab"]
        began = time.perf_counter()
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join()
        elapsed = time.perf_counter() - began
        data = json.loads((root / "people/alice/skills.json").read_text())
        label = f"race: 2 processes x {count} promotes"
        print(
            f"{label:42} "
            f"total {elapsed * 1000:8.1f} ms   entries {len(data['skills'])} "
            f"(expected {args.overrides + 2 * count})"
        )
