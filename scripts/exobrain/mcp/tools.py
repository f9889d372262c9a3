"""What the MCP server offers, with no MCP in it: the tools as plain data and functions over the
substrate verbs, so the protocol layer (:mod:`exobrain.mcp.server`) only translates and the
CLI and the server can never disagree. :class:`exobrain.mcp.worker.Exobrain` runs them.

Each handler imports the toolkit it needs when it runs: the server loads this table at start-up
and must answer ``initialize`` and ``tools/list`` without loading search, the encoders or the
signals. :data:`MODULES` names every module the handlers import (a test keeps it complete), so
the warm-up and connect-agent's check of the server import exactly those.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from exobrain.mcp.arguments import (
    COUNT_MAX,
    DIMENSIONS,
    FILTER_MAX,
    NOTE_MAX,
    PREDICATES,
    REF_MAX,
    SORT_MAX,
    TEXT_MAX,
    WORD_MAX,
)

if TYPE_CHECKING:  # the toolkit is imported on the first call, not at start-up
    from exobrain.search.live import Live

Handler = Callable[["Live", dict[str, Any]], dict[str, Any]]
SIGNAL_KINDS = ("usage", "calibration", "vote", "rank")
REF = {
    "type": "string",
    "maxLength": REF_MAX,
    "description": "skill:NAME[@HOME] or knowledge:PATH[@SCOPE]",
}
SKILL_REF = {"type": "string", "maxLength": REF_MAX, "description": "skill:NAME or skill:NAME@HOME"}
TEXT = {"type": "string", "maxLength": TEXT_MAX}
#: Every module a handler, a resource read or the skills extension imports when it runs.
MODULES = (
    "exobrain.errors",
    "exobrain.mcp.listing",
    "exobrain.mcp.resources",
    "exobrain.mcp.skills",
    "exobrain.mcp.view",
    "exobrain.search.discover",
    "exobrain.search.engine",
    "exobrain.search.hits",
    "exobrain.search.live",
    "exobrain.search.substrate",
    "exobrain.signals.record",
    "exobrain.signals.view",
    "exobrain.util.jsonlogic",
)


class Tool(NamedTuple):
    name: str
    description: str
    schema: dict[str, Any]
    handler: Handler


# --- the tools --------------------------------------------------------------------------


def search(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.mcp.view import hidden
    from exobrain.search.engine import Filters
    from exobrain.search.hits import hit_json

    types = tuple(args.get("types") or ("skill",))
    filters = Filters(types=types, everywhere=bool(args.get("all_scopes")))
    ws = live.workspace()
    result = live.search(
        args["query"],
        filters,
        k=args.get("k", 10),
        quality=live.quality(),
        keep=lambda artifact: not hidden(ws, artifact),
    )
    notes = list(result.notes)
    if not result.hits:  # "nothing fits" is an answer an agent can act on
        notes.append(
            f"nothing matched well among {result.considered} visible artifacts "
            f"({len(result.below)} below the relevance floor); do not use a skill for this"
            + ("" if filters.everywhere else ", or search again with all_scopes")
        )
    if live.agent is None:
        notes.append("answered for the connection, agent-neutral (the server has no --agent)")
    return {
        "query": args["query"],
        "agent": live.agent,
        "mode": result.mode,
        "considered": result.considered,
        "notes": notes,
        "hits": [hit_json(h) for h in result.hits],
        "floor": result.floor,
    }


def _discover(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    ws = live.workspace()
    from exobrain.search.discover import discover
    from exobrain.search.engine import signal_quality

    result = discover(
        ws,
        args["task"],
        persona=args.get("persona"),
        k=args.get("k", 5),
        quality=signal_quality(ws),
        agent=live.agent,
        preload=True,  # its answer goes into the agent's context: only what reaches it
    )
    return {
        "task": result.task,
        "agent": live.agent,
        "mode": result.mode,
        "skills": [p.as_json() for p in result.picks],
        "excluded": result.excluded,
        "notes": result.notes,
    }


def _get(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    ws = live.workspace()
    from exobrain.mcp.view import shown
    from exobrain.search.engine import signal_quality
    from exobrain.search.substrate import Substrate

    substrate = Substrate(ws, signal_quality(ws), agent=live.agent)
    return substrate.get(shown(ws, substrate.find(args["ref"]), args["ref"]).ref)


def _list(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    ws = live.workspace()
    from exobrain.search.engine import signal_quality
    from exobrain.search.substrate import Substrate
    from exobrain.util.jsonlogic import parse_rule, parse_sort

    rule = args.get("filter")
    rows = Substrate(ws, signal_quality(ws), agent=live.agent).list(
        tuple(args.get("types") or ("skill", "knowledge")),
        None if rule is None else parse_rule(json.dumps(rule)),
        parse_sort(tuple(args.get("sort") or ())),
        args.get("limit", 50),
    )
    return {"rows": rows}


def _links(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    ws = live.workspace()
    from exobrain.mcp.view import shown
    from exobrain.search.substrate import Substrate

    substrate = Substrate(ws, agent=live.agent)
    found = shown(ws, substrate.find(args["ref"]), args["ref"])
    return substrate.links(found.ref, args.get("predicate"))


def _signals(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    ws = live.workspace()
    from exobrain.signals.view import skill_signals

    return skill_signals(ws, args["ref"])


def _signal(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    ws = live.workspace()
    from exobrain.errors import UsageError
    from exobrain.signals.record import record

    kind = args["kind"]
    extra: dict[str, Any] = {}
    value = args.get("value")
    if kind == "usage":
        value, extra["auto"] = 1, True
    elif kind == "rank":
        extra["dimension"] = args.get("dimension")
    elif kind == "calibration" and args.get("note"):
        extra["note"] = args["note"]
    if value is None:
        raise UsageError(f"a {kind} signal needs a value")
    done = record(ws, kind, args["ref"], value, agent=args.get("_agent"), **extra)
    rel = done.path.relative_to(ws.root).as_posix()
    return {**done.line, "file": rel, **({"warning": done.warning} if done.warning else {})}


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_TYPES = {
    "type": "array",
    "items": {"type": "string", "enum": ["skill", "knowledge"]},
    "maxItems": 2,
}
_COUNT = {"type": "integer", "minimum": 1, "maximum": COUNT_MAX}

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "search",
            "Rank the skills (and knowledge documents) this exobrain lets you see for a text, "
            "by meaning and words times quality.",
            _object(
                {
                    "query": {**TEXT, "description": "What you are looking for."},
                    "k": {**_COUNT, "default": 10},
                    "types": {**_TYPES, "default": ["skill"]},
                    "all_scopes": {
                        "type": "boolean",
                        "description": "Also the shared scopes you are not connected to.",
                    },
                },
                ["query"],
            ),
            search,
        ),
        Tool(
            "discover",
            "The few skills to load for a task: ranked like search, then kept only when their "
            "triggers match the task, the persona fits and their dependencies resolve.",
            _object(
                {
                    "task": {**TEXT, "description": "What you are about to do."},
                    "persona": {"type": "string", "maxLength": WORD_MAX},
                    "k": {**_COUNT, "default": 5},
                },
                ["task"],
            ),
            _discover,
        ),
        Tool(
            "get",
            "One skill or knowledge document in full: frontmatter, instructions (body) and "
            "links. After following a skill, record it with the signal tool (kind usage).",
            _object({"ref": REF}, ["ref"]),
            _get,
        ),
        Tool(
            "list",
            "The skills and knowledge documents you can see, filtered by a JSONLogic rule over "
            "the row (ref, type, name, home, owner, lifecycle, tier, version, quality, "
            "description, content.*) and sorted.",
            _object(
                {
                    "types": _TYPES,
                    "filter": {
                        "type": "object",
                        "description": f"A JSONLogic rule (at most {FILTER_MAX} characters).",
                    },
                    "sort": {
                        "type": "array",
                        "items": {"type": "string", "maxLength": WORD_MAX},
                        "maxItems": SORT_MAX,
                        "description": "FIELD[:desc], e.g. quality:desc",
                    },
                    "limit": {**_COUNT, "default": 50},
                },
                [],
            ),
            _list,
        ),
        Tool(
            "links",
            "A skill's or document's links: those it writes (supersedes, uses_skill, "
            "derives_from, uses_tool, documents_artifact) and those pointing at it.",
            _object(
                {"ref": REF, "predicate": {"type": "string", "enum": list(PREDICATES)}}, ["ref"]
            ),
            _links,
        ),
        Tool(
            "signals",
            "The signals about a skill (votes, ranks, uses, outcomes) and their aggregate.",
            _object({"ref": SKILL_REF}, ["ref"]),
            _signals,
        ),
        Tool(
            "signal",
            "Record a signal about a skill in your ledger: usage (you followed it), "
            "calibration (value true when it reached its outcome, false otherwise; a note), "
            "vote (up or down), rank (dimension clarity|accuracy|scope|novelty, value 0..1). "
            "A use or outcome of a superseded skill counts for its successor.",
            _object(
                {
                    "kind": {"type": "string", "enum": list(SIGNAL_KINDS)},
                    "ref": SKILL_REF,
                    "value": {"type": ["string", "number", "boolean"], "maxLength": WORD_MAX},
                    "dimension": {"type": "string", "enum": list(DIMENSIONS)},
                    "note": {"type": "string", "maxLength": NOTE_MAX},
                },
                ["kind", "ref"],
            ),
            _signal,
        ),
    )
}
