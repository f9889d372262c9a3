"""``skills/list``: every skill that reaches the agent, or — with a ``query`` — those of them
that fit it, best first.

The query is the filtering the Skills extension's issue 99 ("query/filter on skills/list for
large catalogs", modelcontextprotocol/ext-skills) asks for, shaped as SEP-1821 proposes for
``tools/list``: an optional ``query`` string in the request, and a setting in the capabilities
saying the server takes one (``"filtering": true`` in the extension's settings,
:data:`exobrain.mcp.skills.SETTINGS`). A client that does not know it sends no query and
gets the whole listing, as before; one that does gets the listed skills ranked for the
query by the ranker of ``exobrain search`` — the same index, encoders, weights and quality
signals — cut by the same relevance floor, at most :data:`QUERY_LIMIT` of them. When nothing
clears the floor the listing is empty and ``_meta`` says so ("nothing fits" is an answer:
the exobrain holds no skill for that), with how many skills were ranked.

The set is the listing's own (:mod:`exobrain.mcp.view`: what reaches the agent), never more:
a query narrows a listing, it does not reach what the listing keeps out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from exobrain.mcp.arguments import TEXT_MAX
from exobrain.mcp.skills import CACHE, Served, entry, served

if TYPE_CHECKING:
    from exobrain.search.live import Live

#: The most skills a listing with a query holds (``exobrain search``'s default).
QUERY_LIMIT = 10
QUERY_KEY = "exobrain/query"


def listing(live: Live, cursor: Any = None, query: Any = None) -> tuple[dict[str, Any], list[str]]:
    """The ``skills/list`` result (one page: no cursor is ever handed out) and, for the
    server's log, why each listed skill that could not be carried was left out."""
    from exobrain.errors import ExobrainError, UsageError

    if cursor is not None:
        raise UsageError(
            "skills/list: unknown cursor; this server answers in one page and never gives a "
            "nextCursor",
            hint="call skills/list without params.cursor",
        )
    root = live.workspace().root
    meta: dict[str, Any] = {}
    if query is None:
        chosen = [skill for skill in served(live) if skill.listed]
    else:
        chosen, meta = ranked(live, _checked(query))
    entries, skipped = [], []
    for skill in chosen:
        try:
            entries.append(entry(skill, root))
        except ExobrainError as exc:
            skipped.append(str(exc))
    result: dict[str, Any] = {"skills": entries, **CACHE}
    if meta:
        result["_meta"] = {QUERY_KEY: meta}
    return result, skipped


def ranked(live: Live, query: str) -> tuple[list[Served], dict[str, Any]]:
    """The listed skills that fit ``query``, best first, and what the ranking said."""
    from exobrain.mcp.view import hidden
    from exobrain.search.engine import Filters

    ws = live.workspace()
    listed = {skill.artifact.ref: skill for skill in served(live) if skill.listed}
    result = live.search(
        query,
        Filters(types=("skill",)),
        k=QUERY_LIMIT,
        quality=live.quality(),
        keep=lambda a: a.ref in listed and not hidden(ws, a),
    )
    chosen = [listed[hit.artifact.ref] for hit in result.hits]
    notes = list(result.notes)
    if not chosen:
        notes.append(
            f"nothing fits: no listed skill among {result.considered} matched well "
            f"({len(result.below)} below the relevance floor)"
        )
    return chosen, {
        "query": query,
        "mode": result.mode,
        "considered": result.considered,
        "floor": result.floor,
        "scores": {hit.artifact.ref: round(hit.score, 6) for hit in result.hits},
        "notes": notes,
    }


def _checked(query: Any) -> str:
    from exobrain.errors import UsageError

    if not isinstance(query, str) or not query.strip():
        raise UsageError(
            "skills/list: params.query must be a non-empty string, what the skills should fit",
            hint="send a task or a few words, or no query for the whole listing",
        )
    if len(query) > TEXT_MAX:
        raise UsageError(
            f"skills/list: params.query has {len(query)} characters, over the {TEXT_MAX} cap"
        )
    return query
