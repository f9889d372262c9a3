"""``python scripts/benchmarks NAME [options]``: run one of the project's benchmarks.

The benchmarks live beside the package, not inside it, so they never ship in the wheel. Run
from a checkout with the toolkit installed (``pip install -e .``); this file puts ``scripts/``
on the import path so that ``benchmarks`` imports as a package.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a folder: python scripts/benchmarks NAME
    # import the modules here as benchmarks.NAME only: as top-level modules, benchmarks/mcp.py
    # would shadow the mcp package
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.path.insert(0, str(here.parent))

#: benchmark name → module in this package (each has add_arguments(parser) and run(args)).
BENCHMARKS = {
    "artifact": "artifact",
    "registry": "registry",
    "connect": "connect",
    "promote": "promote",
    "signals": "signals",
    "review": "review",
    "fetch": "fetch",
    "formats": "formats",
    "instance": "instance",
    "search": "search",
    "site": "site",
    "mcp": "mcp",
    "eval": "evaluation",
    "security": "security",
    "declarations": "declarations",
    "scale": "scale",
    "architecture": "architecture",
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python scripts/benchmarks")
    commands = parser.add_subparsers(dest="name", required=True)
    modules = {}
    for name, module in BENCHMARKS.items():
        modules[name] = importlib.import_module(f"benchmarks.{module}")
        sub = commands.add_parser(name, help=modules[name].__doc__.splitlines()[0])
        modules[name].add_arguments(sub)
    args = parser.parse_args()
    modules[args.name].run(args)


if __name__ == "__main__":
    main()
