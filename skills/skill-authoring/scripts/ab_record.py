#!/usr/bin/env python3
"""Record one with-skill vs without-skill comparison in the skill's ab-results.json.

Usage:
  ab_record.py SKILL_DIR --prompt TEXT --winner with|without|tie
               [--note TEXT] [--model NAME] [--with-output FILE] [--without-output FILE]

Appends a run (outputs are kept as excerpts of at most 2000 characters), recomputes the
summary, writes the file atomically and prints the tally. Exit 2 on bad input.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
from pathlib import Path

RESULTS = "ab-results.json"
WINNERS = ("with", "without", "tie")
EXCERPT = 2000


def summary(runs: list[dict]) -> dict:
    counts = {w: sum(1 for r in runs if r.get("winner") == w) for w in WINNERS}
    return {"runs": len(runs), **counts}


def verdict(tally: dict) -> str:
    if tally["runs"] == 0:
        return "no runs yet"
    if tally["with"] > tally["without"] and tally["with"] * 2 >= tally["runs"]:
        return "the skill earns its tokens so far"
    if tally["with"] > tally["without"]:
        return "the skill helps, but mostly ties: sharpen it"
    return "the skill does not beat its absence: sharpen it or drop it"


def load(path: Path, skill: str) -> dict:
    if not path.exists():
        return {"skill": skill, "runs": [], "summary": summary([])}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise ValueError(f"{path}: expected an object with a 'runs' list")
    return data


def write(path: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def excerpt(file: str | None) -> str | None:
    if file is None:
        return None
    return Path(file).read_text(encoding="utf-8", errors="replace")[:EXCERPT]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="ab_record.py", description=__doc__.splitlines()[0])
    parser.add_argument("skill_dir", type=Path)
    parser.add_argument("--prompt", required=True)
    parser.add_argument("--winner", required=True, choices=WINNERS)
    parser.add_argument("--note", default="")
    parser.add_argument("--model", default="")
    parser.add_argument("--with-output", dest="with_output")
    parser.add_argument("--without-output", dest="without_output")
    args = parser.parse_args(argv)
    folder = args.skill_dir
    if not (folder / "SKILL.md").is_file():
        print(f"{folder}: not a skill folder (no SKILL.md)", file=sys.stderr)
        return 2
    path = folder / RESULTS
    try:
        data = load(path, folder.name)
        run = {
            "date": datetime.date.today().isoformat(),
            "prompt": args.prompt,
            "winner": args.winner,
        }
        for key, value in (
            ("model", args.model),
            ("note", args.note),
            ("with_output", excerpt(args.with_output)),
            ("without_output", excerpt(args.without_output)),
        ):
            if value:
                run[key] = value
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data["runs"].append(run)
    data["summary"] = summary(data["runs"])
    write(path, data)
    tally = data["summary"]
    print(
        f"{path}: {tally['runs']} run(s): with {tally['with']}, without {tally['without']}, "
        f"tie {tally['tie']} — {verdict(tally)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
