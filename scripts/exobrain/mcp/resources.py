"""The resources the MCP server offers, with no MCP in it (like :mod:`exobrain.mcp.tools`):
every visible skill and knowledge document is an ``exobrain://`` URI, listed as a row and read
as its markdown.

They belong together because they are one mapping: :func:`uri_of` and :func:`ref_of` turn a
reference into its URI and back, and the listing and the read go through the substrate, so a
resource shows exactly what the tools show (:mod:`exobrain.mcp.view`).
:class:`exobrain.mcp.worker.Exobrain` runs them on its worker, like every call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the toolkit is imported on the first call, not at start-up
    from exobrain.search.live import Live

URI_PREFIX = "exobrain://"


def resource_rows(live: Live) -> list[dict[str, str]]:
    """The rows of ``resources/list``: read by the agent unasked, so only the skills that
    reach it (always, optional) and the chain's documents (:mod:`exobrain.mcp.view`)."""
    from exobrain.mcp.view import hidden, listed
    from exobrain.search.substrate import Substrate

    ws = live.workspace()
    substrate = Substrate(ws, agent=live.agent)
    artifacts = [
        a
        for a in substrate.view.artifacts()
        if a.path is not None and listed(a) and not hidden(ws, a)
    ]
    return [
        {
            "uri": uri_of(row["ref"]),
            "name": row["ref"],
            "title": row["name"],
            "description": " ".join(row["description"].split())[:200],
        }
        for row in substrate.rows(artifacts)
    ]


def read_resource(live: Live, uri: str) -> str:
    """The markdown of the skill or document ``uri`` names, when the agent may read it: the
    chain first, then the shared scopes (what ``get`` reads, and ``skill://`` serves)."""
    from exobrain.errors import UsageError
    from exobrain.mcp.view import shown
    from exobrain.search.substrate import Substrate
    from exobrain.skillmd import SKILL_LIMIT
    from exobrain.util.fileio import read_text

    ws = live.workspace()
    ref = ref_of(uri)
    artifact = shown(ws, Substrate(ws, agent=live.agent).find(ref), ref)
    if artifact.path is None:
        raise UsageError(f"{artifact.ref} is an external skill that is not installed here")
    return read_text(artifact.path, limit=SKILL_LIMIT, what="a skill or knowledge document")


def uri_of(ref: str) -> str:
    """``skill:tidy@groups/acme`` → ``exobrain://skill/tidy@groups/acme``."""
    kind, _, rest = ref.partition(":")
    return f"{URI_PREFIX}{kind}/{rest}"


def ref_of(uri: str) -> str:
    from exobrain.errors import UsageError

    kind, _, rest = uri.removeprefix(URI_PREFIX).partition("/")
    if not uri.startswith(URI_PREFIX) or kind not in ("skill", "knowledge") or not rest:
        raise UsageError(
            f"{uri!r} is not an exobrain resource",
            hint="exobrain://skill/NAME[@HOME] or exobrain://knowledge/PATH[@SCOPE]",
        )
    return f"{kind}:{rest}"
