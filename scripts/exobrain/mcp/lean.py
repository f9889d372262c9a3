"""The server half of the ``mcp`` package, imported without the rest.

``import mcp.server.lowlevel`` first runs ``mcp/__init__.py``, which imports the client (and
through it the whole server package), and ``mcp/server/__init__.py``, which imports the
high-level ``MCPServer`` with its resource, prompt and tool managers: 116 modules where a
low-level stdio server needs 60, about 40 % of the package's import time, and the import is
most of the time to the first answer an agent waits for at every session start. So those two
package modules are registered bare (their folders, without running their ``__init__``) before
the server modules are imported.

Only when nothing has imported ``mcp`` yet (the tests and the benchmark import its client
first: then the package is left as it is). Should a release of the package need one of those
``__init__`` modules for its server modules, the bare ones are dropped and the package is
imported whole, as usual.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

BARE = ("mcp", "mcp.server")
SERVER_MODULES = ("mcp.server.lowlevel",)  # (the stdio transport is exobrain.mcp.wire)


def import_server_modules() -> None:
    """Import :data:`SERVER_MODULES`, skipping the package ``__init__`` modules when they
    were not imported yet; a missing package raises ModuleNotFoundError as usual."""
    if "mcp" not in sys.modules and importlib.util.find_spec("mcp") is not None:
        try:
            for name in BARE:
                spec = importlib.util.find_spec(name)
                if spec is None or spec.submodule_search_locations is None:
                    raise ImportError(f"{name} is not a package")
                module = importlib.util.module_from_spec(spec)  # not executed: no __init__
                sys.modules[name] = module
                parent, _, child = name.rpartition(".")
                if parent:
                    setattr(sys.modules[parent], child, module)
            for name in SERVER_MODULES:
                importlib.import_module(name)
            return
        except ImportError:
            for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
                del sys.modules[name]
    for name in SERVER_MODULES:
        importlib.import_module(name)
