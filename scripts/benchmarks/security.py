"""Benchmark of issue 15: skills-validate on a 200,000-entry registry, and what hostile inputs
cost (a YAML alias bomb, JSON nested 200,000 deep, a 5,000-digit number, absurd signal values);
and of issue 30's hidden-text scan: skills-validate over 2,000 skills of four 4 KB text files
(8,000 files of prose that is not ASCII, so every one is read and searched), clean and with a
hidden character in each.

Each case runs the installed console script once in a fresh wrapper process and reports its
wall time and peak memory (``getrusage(RUSAGE_CHILDREN).ru_maxrss`` of the wrapper, so of that
command alone) against the targets: 10 s for the large registry, 5 s and 500 MB for a hostile
input. Everything runs with HOME, the caches and the git configuration in a temporary folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import bench_env, console_script

#: Runs one command and prints its wall time and peak memory (run as ``python -c``).
WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
print(json.dumps({"seconds": time.perf_counter() - start, "code": done.returncode,
                  "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "traceback": b"Traceback" in done.stderr}))
"""
BOMB = (
    "---\nname: hello\n"
    + 'description: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(
        f"{k}: &{k} [{', '.join([f'*{p}'] * 9)}]\n"
        for p, k in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + "---\nbody\n"
)
DEEP = "[" * 200_000 + "]" * 200_000
HUGE = '{"skills": [], "n": ' + "9" * 5000 + "}"


def measure(argv: list[str], cwd: Path, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *argv], cwd=cwd, env=env, capture_output=True, text=True
    )
    return json.loads(done.stdout)


def line(label: str, result: dict, seconds: float, megabytes: float | None) -> str:
    over = result["seconds"] > seconds or (megabytes is not None and result["rss_mb"] > megabytes)
    verdict = "OVER target" if over or result["traceback"] else "ok"
    limit = f"≤ {seconds:g} s" + (f", ≤ {megabytes:g} MB" if megabytes else "")
    return (
        f"{label:52} {result['seconds']:6.2f} s  {result['rss_mb']:7.1f} MB  exit "
        f"{result['code']}{'  TRACEBACK' if result['traceback'] else ''}  ({limit}) {verdict}"
    )


def exobrain_at(base: Path, env: dict[str, str], name: str = "exo") -> Path:
    from exobrain.testkit import small_exobrain

    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return small_exobrain(base / name, ("hello", "world"))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def big_registry(root: Path, entries: int, broken: bool) -> None:
    skills = [
        {"name": f"S_{i}" if broken else f"skill-{i}", "owner": "team", "tier": "optional"}
        for i in range(entries)
    ]
    (root / "skills.json").write_text(json.dumps({"skills": skills}, indent=2))


#: About 4 KB of ordinary prose that is not ASCII (dashes, quotes, accents, CJK): what the
#: hidden-text scan must read through without finding anything.
PROSE = "Café résumé — “quoted” text, naïve ünïcödé, ✓ and 日本語 in one sentence. " * 56


def prose_skills(root: Path, count: int, hidden: bool) -> None:
    """``count`` declared skills of four text files each (SKILL.md, a script, two
    references); with ``hidden``, a zero-width space in the middle of every file."""
    text = PROSE[:2000] + ("de\u200blete" if hidden else "delete") + PROSE[2000:] + "\n"
    skills = []
    for i in range(count):
        name = f"prose-{i}"
        folder = root / "skills" / name
        (folder / "scripts").mkdir(parents=True, exist_ok=True)
        (folder / "references").mkdir(exist_ok=True)
        head = f"---\nname: {name}\ndescription: Use {name} for the prose task {i}.\n---\n"
        (folder / "SKILL.md").write_text(head + text)
        (folder / "scripts/run.py").write_text(f"# {text}print('done')\n")
        (folder / "references/guide.md").write_text(text)
        (folder / "references/notes.md").write_text(text)
        skills.append({"name": name, "owner": "team", "tier": "optional"})
    (root / "skills.json").write_text(json.dumps({"skills": skills}, indent=2))


def run(args) -> None:
    from exobrain.testkit import isolated_env

    validate = console_script("skills-validate")
    status, tool = console_script("skills-status"), console_script("exobrain")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = {**bench_env(), **isolated_env(base)}
        root = exobrain_at(base, env)
        original = (root / "skills.json").read_text()
        for broken in (False, True):
            big_registry(root, args.entries, broken)
            what = "broken entries" if broken else "declarations, no folders"
            label = f"skills-validate, {args.entries:,} {what}"
            print(line(label, measure([validate], root, env), 10.0, None))
        prose = exobrain_at(base, env, "prose")
        for hidden in (False, True):
            prose_skills(prose, args.text_skills, hidden)
            what = "a hidden run in each" if hidden else "clean"
            label = f"skills-validate, {args.text_skills:,} x 4 text files, {what}"
            print(line(label, measure([validate], prose, env), 10.0, 500.0))
        (root / "skills.json").write_text(original)
        skill = root / "skills/hello/SKILL.md"
        normal = skill.read_text()
        skill.write_text(BOMB)
        source = base / "bomb"
        source.mkdir()
        (source / "SKILL.md").write_text(BOMB)
        for label, argv in (
            ("alias bomb: skills-validate", [validate]),
            ("alias bomb: skills-status --all", [status, "--all"]),
            ("alias bomb: exobrain list", [tool, "list"]),
            ("alias bomb: exobrain search", [tool, "search", "hello"]),
            (
                "alias bomb: exobrain import",
                [tool, "import", str(source), "--into", "global", "--owner", "team"],
            ),
        ):
            print(line(label, measure(argv, root, env), 5.0, 500.0))
        skill.write_text(normal)
        for name, text in (("deep JSON", DEEP), ("5,000-digit number", HUGE)):
            (root / "skills.json").write_text(text)
            for label, argv in (
                (f"{name}: skills-validate", [validate]),
                (f"{name}: skills-status", [status]),
                (f"{name}: exobrain list", [tool, "list"]),
            ):
                print(line(label, measure(argv, root, env), 5.0, 500.0))
        (root / "skills.json").write_text(original)
        ledger = root / "signals/mallory/h.jsonl"
        ledger.parent.mkdir(parents=True)
        ledger.write_text(
            "".join(
                json.dumps(
                    {
                        "ts": "2026-01-01T00:00:00.000Z",
                        "skill": "skill:hello@global",
                        "kind": "fund",
                        "value": 1e308,
                        "currency": "token",
                        "by": "mallory" if i % 2 else f"sock{i}",
                    }
                )
                + "\n"
                for i in range(args.ledger_lines)
            )
        )
        for label, argv in (
            ("1e308 signal values: exobrain quality", [tool, "quality"]),
            ("1e308 signal values: exobrain sweep", [tool, "sweep", "--dry-run"]),
        ):
            print(line(label, measure(argv, root, env), 5.0, 500.0))


def add_arguments(parser) -> None:
    parser.add_argument("--entries", type=int, default=200_000, help="Registry entries.")
    parser.add_argument(
        "--text-skills",
        type=int,
        default=2000,
        help="Skills of four 4 KB text files each, for the hidden-text scan.",
    )
    parser.add_argument(
        "--ledger-lines", type=int, default=10_000, help="Hostile ledger lines (half foreign)."
    )
