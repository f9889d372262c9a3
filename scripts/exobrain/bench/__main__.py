"""``python -m exobrain.bench [NAME [ARGS…]]``: list the benchmarks or run one."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import exobrain.bench as package


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in names:
        print("usage: python -m exobrain.bench NAME [--help]\n\nbenchmarks:")
        for name in names:
            doc = (importlib.import_module(f"exobrain.bench.{name}").__doc__ or "").strip()
            print(f"  {name:12} {doc.splitlines()[0] if doc else ''}")
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    return importlib.import_module(f"exobrain.bench.{argv[0]}").run(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
