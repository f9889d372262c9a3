"""``python -m exobrain.bench NAME [options]``: run one of the project's benchmarks."""

from __future__ import annotations

import argparse
import importlib

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
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m exobrain.bench")
    commands = parser.add_subparsers(dest="name", required=True)
    modules = {}
    for name, module in BENCHMARKS.items():
        modules[name] = importlib.import_module(f"exobrain.bench.{module}")
        sub = commands.add_parser(name, help=modules[name].__doc__.splitlines()[0])
        modules[name].add_arguments(sub)
    args = parser.parse_args()
    modules[args.name].run(args)


if __name__ == "__main__":
    main()
