"""``python -m exobrain.mcp [--repo ROOT] [--agent NAME]``: what agents' MCP configurations run.

Plain ``argparse`` rather than click: this is the command an agent starts on every session, and
its start-up is the time to its first answer.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m exobrain.mcp", description=__doc__)
    parser.add_argument("--repo", type=Path, help="The exobrain (default: the enclosing one).")
    parser.add_argument("--agent", help="The agent that runs the server (named in usage lines).")
    args = parser.parse_args(argv)
    from exobrain.mcp.server import serve
    from exobrain.mcp.worker import Exobrain

    serve(Exobrain(args.repo, args.agent))


if __name__ == "__main__":
    main()
