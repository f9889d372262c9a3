"""What the MCP server shows its agent: one rule for every method that names a skill or a
document, so no answer lists what another refuses or serves what another hides.

The server answers for one connection and one agent (``--agent``; none: agent-neutral). For
that agent, every method answers from the same set — the skills and knowledge documents of
the connection's chain and, when a call reaches past it (a reference or a URI naming another
scope, ``search`` with ``all_scopes``), those of the shared scopes outside it — less two
kinds, which are not there at all, on any method:

* a skill whose declaration keeps it from the agent (``agent``, ``skipAgents``): it is not
  that agent's to use;
* anything of a personal scope (a person's or a host's) outside the chain: the server
  runs inside an agent's session, and its answers go into a model's context, so another
  person's skills and notes are never in them (one opted into from such a scope by an
  override of the chain is the chain's own, and is there).

Within that set, what the agent reads *unasked* — ``resources/list``, ``skills/list``,
``discover`` — holds only what reaches it (:data:`exobrain.reach.Reach.LISTED`: always and
optional); what it asks for — ``search``, ``list``, ``get``, ``links``, ``resources/read``
of an ``exobrain://`` or a ``skill://`` URI, ``skills/get`` — may name or read any of it,
each skill with its reach (``by name`` for an unlisted one, ``barred`` for one set off, and
so on), so a skill ``search`` lists is one ``get`` and both URIs read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from exobrain.errors import UsageError
from exobrain.reach import Reach
from exobrain.scopes import PERSONAL_TYPES
from exobrain.search.corpus import not_for_agent

if TYPE_CHECKING:
    from exobrain.search.artifact import Artifact
    from exobrain.workspace import Workspace


def hidden(ws: Workspace, artifact: Artifact) -> bool:
    """Whether ``artifact`` is left out of every answer (see the module)."""
    if not_for_agent(artifact):
        return True
    if artifact.type == "skill":
        outside = artifact.reach is Reach.OUTSIDE
    else:
        outside = artifact.scope not in ws.chain.paths
    return outside and personal(ws, artifact.scope)


def personal(ws: Workspace, scope: str) -> bool:
    """Whether the scope at path ``scope`` is a person's or a host's."""
    parts = scope.split("/")
    return len(parts) >= 2 and ws.config.type_of(parts[-2]) in PERSONAL_TYPES


def listed(artifact: Artifact) -> bool:
    """Whether the agent may read ``artifact`` unasked: a document, or a skill that reaches
    it (always, optional)."""
    return artifact.type != "skill" or artifact.reach is Reach.LISTED


def shown(ws: Workspace, artifact: Artifact, reference: str) -> Artifact:
    """``artifact``, found for ``reference``, when the agent may read it; else the error a
    reference to nothing gives (an invisible artifact reads like one that does not exist)."""
    if hidden(ws, artifact):
        raise UsageError(
            f"no visible artifact {reference[:200]!r}",
            hint="it does not exist or lives in a scope you are not connected to; the list "
            "tool shows what you can see",
        )
    return artifact
