"""Directed graphs given as ``node → successors`` mappings: finding their cycles.

Used for the links between skills (supersedes, derives_from), which must stay acyclic.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

Node = TypeVar("Node", bound=Hashable)


def find_cycles(edges: Mapping[Node, Iterable[Node]]) -> list[list[Node]]:
    """Every cycle in the graph, each reported once, rotated to start at its smallest node.

    Nodes must be orderable (identities are tuples), so the result is deterministic.
    """
    cycles: list[list[Node]] = []
    seen_cycles: set[tuple[Node, ...]] = set()
    state: dict[Node, int] = {}  # 1 = on the stack, 2 = done

    def visit(node: Node, stack: list[Node]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):  # type: ignore[type-var]
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :]
                start = cycle.index(min(cycle))  # type: ignore[type-var]
                key = tuple(cycle[start:] + cycle[:start])
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    cycles.append(list(key))
            elif state.get(nxt) is None:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):  # type: ignore[type-var]
        if node not in state:
            visit(node, [])
    return cycles
