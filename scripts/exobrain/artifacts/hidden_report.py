"""What skills-validate and ``exobrain import`` say about hidden characters in a skill folder.

The scanner (:mod:`exobrain.artifacts.hidden`) finds the runs; this module judges them, the
same way for both commands:

* in a **shared** scope (global, seed, a group, a team) a run is an **error**: what lands
  there reaches every member's agent, and nobody reviewing the pull request can see it;
* in a **personal** scope (a person, a host) it is a **warning**: the owner is the only one
  it reaches, and may be the one who put it there;
* a skill with a legitimate use (Persian or Indic text needs the zero-width non-joiner, a
  right-to-left language the bidi marks) lists the code points it means in its SKILL.md, in
  the ``metadata`` map the Agent Skills specification leaves open (strings only)::

      metadata:
        allow-hidden-characters: "U+200C U+200F; Persian examples in references/fa.md"

  code points (``U+200C``) or ranges (``U+E0020-U+E007F``) separated by spaces or commas,
  then optionally ``;`` and a note for the reviewer. A run whose every character is listed
  is not a problem; it is counted in one **info** per skill, so the allowance stays visible.
  An entry that is not a code point or range is an error naming it.

Files too big to read through are a warning (they were not checked). At most
:data:`PER_FILE` runs are listed per file, then one line says how many more there are.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.artifacts.hidden import Hidden, char_name, code_point, scan_folder
from exobrain.findings import ERROR, INFO, WARNING

ALLOW_KEY = "allow-hidden-characters"
PER_FILE = 20
_POINT = r"U\+([0-9A-Fa-f]{4,6})"
_ENTRY = re.compile(rf"{_POINT}(?:(?:-|\.\.){_POINT})?\Z")


@dataclass(frozen=True)
class HiddenFinding:
    """One thing to say about hidden characters: ``file`` is relative to the skill folder,
    ``run`` the run it is about (None for a note about the whole skill or file)."""

    level: str
    file: str
    message: str
    run: Hidden | None = None

    @property
    def line(self) -> int | None:
        return self.run.line if self.run else None

    def as_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"level": self.level, "file": self.file, "message": self.message}
        return shown | (self.run.as_json() if self.run else {})


@dataclass(frozen=True)
class Allowance:
    """What a skill's ``metadata.allow-hidden-characters`` lets through."""

    ranges: tuple[tuple[int, int], ...] = ()
    note: str = ""
    problems: tuple[str, ...] = ()

    def allows(self, run: Hidden) -> bool:
        return bool(self.ranges) and all(
            any(low <= ord(c) <= high for low, high in self.ranges) for c in run.chars
        )


def allowance(meta: dict[str, Any] | None) -> Allowance:
    """The allowance a frontmatter makes (none when it makes none)."""
    metadata = (meta or {}).get("metadata")
    value = metadata.get(ALLOW_KEY) if isinstance(metadata, dict) else None
    if value is None:
        return Allowance()
    if not isinstance(value, str):
        return Allowance(problems=(f"metadata.{ALLOW_KEY} must be a string of code points",))
    listed, _, note = value.partition(";")
    ranges, problems = [], []
    tight = re.sub(r"\s*(-|\.\.)\s*", r"\1", listed.strip())  # "U+A - U+B" is one range
    for item in re.split(r"[\s,]+", tight):
        if not item:
            continue
        match = _ENTRY.match(item)
        low = int(match.group(1), 16) if match else -1
        high = int(match.group(2) or match.group(1), 16) if match else -1
        if not match or low > high or high > 0x10FFFF:
            problems.append(
                f"metadata.{ALLOW_KEY}: cannot read {item!r}; list code points as U+200C "
                f"or ranges as U+E0020-U+E007F, separated by spaces"
            )
            continue
        ranges.append((low, high))
    return Allowance(tuple(ranges), note.strip(), tuple(problems))


def judge_folder(folder: Path, meta: dict[str, Any] | None, *, shared: bool) -> list[HiddenFinding]:
    """Every finding about hidden characters in the skill folder ``folder``, whose SKILL.md
    frontmatter is ``meta`` (None when it does not parse: nothing is allowed then)."""
    allowed = allowance(meta)
    found = [HiddenFinding(ERROR, "SKILL.md", why) for why in allowed.problems]
    scan = scan_folder(folder)
    level = ERROR if shared else WARNING
    let_through: Counter[tuple[str, str]] = Counter()
    for rel, runs in sorted(scan.found.items()):
        problems = []
        for run in runs:
            if allowed.allows(run):
                let_through.update((rel, c) for c in run.chars)
            else:
                problems.append(run)
        for run in problems[:PER_FILE]:
            found.append(HiddenFinding(level, rel, _message(run, shared), run))
        if len(problems) > PER_FILE:
            more = len(problems) - PER_FILE
            found.append(
                HiddenFinding(level, rel, f"and {more} more runs of hidden characters in this file")
            )
    for rel, why in sorted(scan.unscanned.items()):
        found.append(
            HiddenFinding(
                WARNING,
                rel,
                f"not scanned for hidden characters: {why}; split it, or check it by other means",
            )
        )
    if let_through:
        found.append(HiddenFinding(INFO, "SKILL.md", _allowed_message(let_through, allowed)))
    return found


def _message(run: Hidden, shared: bool) -> str:
    who = "every member's agent reads" if shared else "an agent reads"
    return (
        f"hidden text: {run.describe()}: {who} what a reviewer cannot see; remove it, or "
        f"where it is meant list it in SKILL.md (metadata: {ALLOW_KEY}: "
        f'"{" ".join(sorted({code_point(c) for c in run.chars}))}")'
    )


def _allowed_message(counts: Counter[tuple[str, str]], allowed: Allowance) -> str:
    by_char: Counter[str] = Counter()
    files: dict[str, set[str]] = {}
    for (rel, char), n in counts.items():
        by_char[char] += n
        files.setdefault(char, set()).add(rel)
    parts = [
        f"{code_point(c)} {char_name(c)} ×{n} in {', '.join(sorted(files[c]))}"
        for c, n in sorted(by_char.items())
    ]
    note = f" ({allowed.note})" if allowed.note else ""
    return f"hidden characters allowed by metadata.{ALLOW_KEY}{note}: {'; '.join(parts)}"
