"""Skills as artifacts: semantic versions and the supersession graph.

Pure functions: the callers read SKILL.md files and registries and hand the data in.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from exobrain.errors import UsageError

_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
BUMPS = ("major", "minor", "patch")


def parse_version(text: str) -> tuple[int, int, int]:
    """``"1.2.3"`` → ``(1, 2, 3)``; anything else is a usage error."""
    match = _SEMVER.match(str(text).strip())
    if not match:
        raise UsageError(f"version {text!r} is not a semantic version MAJOR.MINOR.PATCH",
                         hint="write e.g. version: 1.0.0 in the SKILL.md frontmatter")
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def is_version(text: object) -> bool:
    return isinstance(text, str) and bool(_SEMVER.match(text))


def bump(version: str, part: str) -> str:
    """The next version: ``bump("1.2.3", "minor") == "1.3.0"``."""
    major, minor, patch = parse_version(version)
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        return f"{major}.{minor}.{patch + 1}"
    raise UsageError(f"--bump must be one of {', '.join(BUMPS)}")


Node = tuple[str, ...]


def find_cycles(edges: Mapping[Node, Iterable[Node]]) -> list[list[Node]]:
    """Every cycle in a directed graph (each reported once, starting at its smallest node)."""
    cycles: list[list[Node]] = []
    seen_cycles: set[tuple[Node, ...]] = set()
    state: dict[Node, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: Node, stack: list[Node]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):]
                start = cycle.index(min(cycle))
                key = tuple(cycle[start:] + cycle[:start])
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    cycles.append(list(key))
            elif state.get(nxt) is None:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    return cycles


def successors(supersedes: Mapping[Node, Iterable[Node]]) -> dict[Node, Node]:
    """Invert NEW → [OLD…] into OLD → NEW (the smallest NEW when several claim one OLD)."""
    result: dict[Node, Node] = {}
    for new in sorted(supersedes):
        for old in supersedes[new]:
            if old != new and old not in result:
                result[old] = new
    return result
