#!/usr/bin/env python3
"""Lint a SKILL.md: frontmatter rules, a description that works as a trigger, and the files
the body points at.

Usage: check_description.py PATH [PATH...]   (a SKILL.md or its folder)
Prints one line per finding ("error" or "warning"); exit 0 without errors, 1 with errors,
2 when a file cannot be read.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
TRIGGER = re.compile(
    r"\b(use (it|this|this skill )?(when|whenever|if|for|after|before)|"
    r"when(ever)? the user|if the user|the user (asks|wants|says|mentions))",
    re.IGNORECASE,
)
FIRST_PERSON = re.compile(r"(^|[.!?]\s+)(I|I'm|I'll|I will|We|We'll)\s")
#: A file of the skill's own folder named in the body (a path ending in a file name).
LOCAL_PATH = re.compile(r"`((?:references|scripts|assets|evals|tests)/[\w./-]*\w\.\w+)`")
MIN_CHARS, SOFT_MAX, HARD_MAX, BODY_LINES = 60, 700, 1024, 500
MIN_PHRASINGS = 3


def split(text: str, path: Path) -> tuple[dict, str]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise ValueError(f"{path}: no frontmatter (the file must start with '---')")
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            meta = yaml.safe_load("\n".join(lines[1:index])) or {}
            if not isinstance(meta, dict):
                raise ValueError(f"{path}: the frontmatter is not a mapping")
            return meta, "\n".join(lines[index + 1 :])
    raise ValueError(f"{path}: the frontmatter is not closed")


def phrasings(description: str) -> int:
    """How many alternatives the trigger part lists (separated by commas, 'or', 'and')."""
    match = TRIGGER.search(description)
    if not match:
        return 0
    tail = description[match.end() :]
    return len([p for p in re.split(r",|;|\bor\b|\band\b", tail) if p.strip()])


def check(path: Path) -> list[tuple[str, str]]:
    """(level, message) findings for one SKILL.md."""
    meta, body = split(path.read_text(encoding="utf-8"), path)
    found: list[tuple[str, str]] = []
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > 64:
        found.append(("error", "name must be 1-64 lowercase letters, digits and single hyphens"))
    elif name != path.parent.name:
        found.append(("error", f"name {name!r} differs from the folder {path.parent.name!r}"))
    if not isinstance(description, str) or not description.strip():
        return [*found, ("error", "description is missing")]
    size = len(description)
    if size > HARD_MAX:
        found.append(("error", f"description has {size} characters (at most {HARD_MAX})"))
    elif size > SOFT_MAX:
        found.append(
            (
                "warning",
                f"description has {size} characters; it is in every "
                f"session's context, so aim for under {SOFT_MAX}",
            )
        )
    if size < MIN_CHARS:
        found.append(
            (
                "error",
                f"description has {size} characters: too short to say what it "
                f"does and when to use it",
            )
        )
    if not TRIGGER.search(description):
        found.append(
            ("error", "description has no trigger clause (e.g. 'Use it when the user asks …')")
        )
    elif phrasings(description) < MIN_PHRASINGS:
        found.append(
            (
                "warning",
                f"the trigger lists fewer than {MIN_PHRASINGS} phrasings or "
                f"situations; name the words users actually say",
            )
        )
    if FIRST_PERSON.search(description):
        found.append(("warning", "description speaks in the first person; describe the skill"))
    if description.lower().startswith(("this skill", "a skill")):
        found.append(("warning", "description starts with filler; lead with what it does"))
    if body.count("\n") > BODY_LINES:
        found.append(
            ("warning", f"body has more than {BODY_LINES} lines; move detail into references/")
        )
    for relative in sorted(set(LOCAL_PATH.findall(body))):
        if not (path.parent / relative.rstrip("/")).exists():
            found.append(("error", f"the body points at {relative}, which does not exist"))
    return found


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    errors = 0
    for arg in argv:
        path = Path(arg)
        path = path / "SKILL.md" if path.is_dir() else path
        try:
            findings = check(path)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            print(f"{path}: cannot check: {exc}", file=sys.stderr)
            return 2
        for level, message in findings:
            print(f"{path}: {level}: {message}")
        errors += sum(1 for level, _ in findings if level == "error")
        if not findings:
            print(f"{path}: ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
