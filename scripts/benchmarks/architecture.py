"""The shape of the import graph: modules per package, the longest chain, circles, and imports
that run against the layers written in ``pyproject.toml`` (``[tool.importlinter]``).

Not a timing: a measurement of the architecture, kept beside the benchmarks so the figures a
closing note quotes come from the project's own script. Needs grimp (installed with
import-linter by the test extra).
"""

from __future__ import annotations

import argparse
import json
import tomllib
from collections import Counter
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def layers() -> list[list[str]]:
    """The layers of the first layers contract, top first, each a list of packages/modules."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    spec = next(c for c in contracts if c["type"] == "layers")["layers"]
    return [[part.strip() for part in line.replace(":", "|").split("|")] for line in spec]


def layer_of(module: str, table: list[list[str]]) -> int | None:
    """The index of the layer holding ``module`` (0 is the top), None when unlisted."""
    for index, names in enumerate(table):
        if any(module == name or module.startswith(name + ".") for name in names):
            return index
    return None


def family(module: str) -> str:
    """``exobrain.search.index`` → ``exobrain.search``; core modules are ``exobrain (core)``."""
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and (ROOT / "scripts" / "exobrain" / parts[1]).is_dir()):
        return ".".join(parts[:2])
    return "exobrain (core)"


def measure() -> dict:
    import grimp

    graph = grimp.build_graph("exobrain", cache_dir=None)
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    table = layers()
    against = [
        (a, b)
        for a, targets in edges.items()
        for b in targets
        if (la := layer_of(a, table)) is not None
        and (lb := layer_of(b, table)) is not None
        and la > lb
    ]
    cycles = strongly_connected(edges)

    @cache
    def longest(module: str) -> tuple[str, ...]:
        best: tuple[str, ...] = ()
        for target in edges[module]:
            if any(module in c and target in c for c in cycles):
                continue  # a circle has no longest path; it is counted separately
            chain = longest(target)
            if len(chain) > len(best):
                best = chain
        return (module, *best)

    chain = max((longest(m) for m in modules), key=len)
    top = [m for m in modules if family(m) == "exobrain (core)" and m != "exobrain"]
    catalog_importers = sorted(
        a
        for a, targets in edges.items()
        if not _within(a, "exobrain.catalog") and not _within(a, "exobrain.cli")
        for b in targets
        if _within(b, "exobrain.catalog")
    )
    return {
        "modules": len(modules),
        "package_top": len(top),
        "floors": len(table),
        "catalog_importers": sorted(set(catalog_importers)),
        "imports": sum(map(len, edges.values())),
        "modules_per_package": dict(sorted(Counter(family(m) for m in modules).items())),
        "longest_chain": list(chain),
        "longest_chain_length": len(chain),
        "circles": [sorted(c) for c in cycles],
        "against_layers": against,
    }


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def strongly_connected(edges: dict[str, list[str]]) -> list[set[str]]:
    """Tarjan's algorithm: every set of two or more modules that import each other in a ring."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in edges:
        if node not in index:
            visit(node)
    return found


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def run(args: argparse.Namespace) -> None:
    facts = measure()
    if args.json:
        print(json.dumps(facts, indent=2))
        return
    print(f"{facts['modules']} modules, {facts['imports']} imports between them")
    print(f"modules at the package top: {facts['package_top']}; floors (layers): {facts['floors']}")
    for package, count in facts["modules_per_package"].items():
        print(f"  {package:<24} {count:>3} modules")
    print(f"longest import chain: {facts['longest_chain_length']} modules")
    print("  " + " -> ".join(m.removeprefix("exobrain.") for m in facts["longest_chain"]))
    print(f"circles: {len(facts['circles'])}")
    for circle in facts["circles"]:
        print("  " + " <-> ".join(circle))
    print(f"families importing the catalog: {len(facts['catalog_importers'])}")
    for importer in facts["catalog_importers"]:
        print(f"  {importer}")
    print(f"imports against the layers: {len(facts['against_layers'])}")
    for importer, imported in facts["against_layers"]:
        print(f"  {importer} -> {imported}")
