"""What the MCP server offers, with no MCP in it: the tools and the resources as plain data and
functions over the substrate verbs, so the protocol layer (:mod:`exobrain.mcp.server`) only
translates and the CLI and the server can never disagree.

Every call opens the workspace afresh (the connection and the registries may change while the
agent works; at 8,000 skills that costs a few milliseconds) and sees exactly what the
connection sees: the chain, never another person's scope or private ``local/`` folder. The
search index and the encoders stay loaded in the process between calls.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the toolkit is imported on the first call, not at start-up
    from exobrain.workspace import Workspace

Handler = Callable[["Workspace", dict[str, Any]], dict[str, Any]]
SIGNAL_KINDS = ("usage", "calibration", "vote", "rank")
URI_PREFIX = "exobrain://"
REF = {"type": "string", "description": "skill:NAME[@HOME] or knowledge:PATH[@SCOPE]"}
SKILL_REF = {"type": "string", "description": "skill:NAME or skill:NAME@HOME"}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    handler: Handler


class Exobrain:
    """One exobrain as an agent reaches it: its root (None: the enclosing repository of the
    working folder) and the agent that is calling, which usage lines name."""

    def __init__(self, repo: Path | None = None, agent: str | None = None) -> None:
        self.repo = repo
        self.agent = agent
        self.busy = threading.Lock()  # one call at a time: they share the cache and encoders
        self._warming: threading.Thread | None = None

    def warm_up(self) -> None:
        """Load the toolkit, the search index and the encoders in the background (once), so
        the agent's first search does not wait for them. Started after the session is set
        up, never before the first answer; a failure is left for the real call to report."""
        if self._warming is None:
            self._warming = threading.Thread(target=self._warm, name="warm-up", daemon=True)
            self._warming.start()

    def _warm(self) -> None:
        try:
            self.call("search", {"query": "warm up the index and encoders", "k": 1})
        except Exception:
            pass

    def workspace(self) -> Workspace:
        from exobrain.workspace import open_workspace

        return open_workspace(self.repo)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool; domain errors propagate (the server turns them into tool errors)."""
        from exobrain.errors import UsageError

        tool = TOOLS.get(name)
        if tool is None:
            raise UsageError(f"unknown tool {name!r}", hint=f"use one of {', '.join(TOOLS)}")
        arguments = {**arguments, "_agent": self.agent}
        with self.busy:
            return tool.handler(self.workspace(), arguments)

    def resources(self) -> list[dict[str, str]]:
        """Every visible skill and knowledge document with a file here, as resource rows."""
        from exobrain.search.substrate import Substrate

        with self.busy:
            substrate = Substrate(self.workspace())
            artifacts = [a for a in substrate.view.artifacts() if a.path is not None]
            rows = substrate.rows(artifacts)
        return [
            {
                "uri": uri_of(row["ref"]),
                "name": row["ref"],
                "title": row["name"],
                "description": " ".join(row["description"].split())[:200],
            }
            for row in rows
        ]

    def read(self, uri: str) -> str:
        """The markdown of the visible artifact ``uri`` names (SKILL.md for a skill)."""
        from exobrain.errors import UsageError
        from exobrain.search.corpus import View, open_view
        from exobrain.skillmd import SKILL_LIMIT
        from exobrain.util.fileio import read_text

        view: View = open_view(self.workspace())
        artifact = view.find(ref_of(uri))
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


# --- the tools --------------------------------------------------------------------------


def _search(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.search.engine import Filters, hit_json, search, signal_quality

    types = tuple(args.get("types") or ("skill",))
    filters = Filters(types=_types(types), everywhere=bool(args.get("all_scopes")))
    result = search(ws, str(args["query"]), filters, k=_k(args, 10), quality=signal_quality(ws))
    return {
        "query": args["query"],
        "mode": result.mode,
        "considered": result.considered,
        "notes": result.notes,
        "hits": [hit_json(h) for h in result.hits],
    }


def _discover(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.search.discover import discover
    from exobrain.search.engine import signal_quality

    result = discover(
        ws,
        str(args["task"]),
        persona=args.get("persona"),
        k=_k(args, 5),
        quality=signal_quality(ws),
    )
    return {
        "task": result.task,
        "mode": result.mode,
        "skills": [p.as_json() for p in result.picks],
        "excluded": result.excluded,
        "notes": result.notes,
    }


def _get(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.search.engine import signal_quality
    from exobrain.search.substrate import Substrate

    return Substrate(ws, signal_quality(ws)).get(str(args["ref"]))


def _list(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.search.engine import signal_quality
    from exobrain.search.substrate import Substrate
    from exobrain.util.jsonlogic import parse_rule, parse_sort

    rule = args.get("filter")
    rows = Substrate(ws, signal_quality(ws)).list(
        _types(tuple(args.get("types") or ("skill", "knowledge"))),
        None if rule is None else parse_rule(json.dumps(rule)),
        parse_sort(tuple(args.get("sort") or ())),
        _k(args, 50, "limit"),
    )
    return {"rows": rows}


def _links(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.search.substrate import Substrate

    return Substrate(ws).links(str(args["ref"]), args.get("predicate"))


def _signals(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.signals.view import skill_signals

    return skill_signals(ws, str(args["ref"]))


def _signal(ws: Workspace, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.errors import UsageError
    from exobrain.signals.record import record

    kind = args.get("kind")
    if kind not in SIGNAL_KINDS:
        raise UsageError(f"kind {kind!r}: use one of {', '.join(SIGNAL_KINDS)}")
    extra: dict[str, Any] = {}
    value = args.get("value")
    if kind == "usage":
        value, extra["auto"] = 1, True
    elif kind == "rank":
        extra["dimension"] = args.get("dimension")
    elif kind == "calibration" and args.get("note"):
        extra["note"] = str(args["note"])
    if value is None:
        raise UsageError(f"a {kind} signal needs a value")
    done = record(ws, kind, str(args["ref"]), value, agent=args.get("_agent"), **extra)
    rel = done.path.relative_to(ws.root).as_posix()
    return {**done.line, "file": rel, **({"warning": done.warning} if done.warning else {})}


def _types(types: tuple[str, ...]) -> tuple[str, ...]:
    from exobrain.errors import UsageError
    from exobrain.search.corpus import TYPES

    unknown = [t for t in types if t not in TYPES]
    if unknown or not types:
        raise UsageError(f"types {list(types)}: use one or more of {', '.join(TYPES)}")
    return types


def _k(args: dict[str, Any], default: int, key: str = "k") -> int:
    from exobrain.errors import UsageError

    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        raise UsageError(f"{key} must be a whole number from 1 to 1000, not {value!r}")
    return value


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_TYPES = {"type": "array", "items": {"type": "string", "enum": ["skill", "knowledge"]}}

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "search",
            "Rank the skills (and knowledge documents) this exobrain lets you see for a text, "
            "by meaning and words times quality.",
            _object(
                {
                    "query": {"type": "string", "description": "What you are looking for."},
                    "k": {"type": "integer", "minimum": 1, "default": 10},
                    "types": {**_TYPES, "default": ["skill"]},
                    "all_scopes": {
                        "type": "boolean",
                        "description": "Also the shared scopes you are not connected to.",
                    },
                },
                ["query"],
            ),
            _search,
        ),
        Tool(
            "discover",
            "The few skills to load for a task: ranked like search, then kept only when their "
            "triggers match the task, the persona fits and their dependencies resolve.",
            _object(
                {
                    "task": {"type": "string", "description": "What you are about to do."},
                    "persona": {"type": "string"},
                    "k": {"type": "integer", "minimum": 1, "default": 5},
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
                    "filter": {"type": "object", "description": "A JSONLogic rule."},
                    "sort": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "FIELD[:desc], e.g. quality:desc",
                    },
                    "limit": {"type": "integer", "minimum": 1, "default": 50},
                },
                [],
            ),
            _list,
        ),
        Tool(
            "links",
            "A skill's or document's links: those it writes (supersedes, uses_skill, "
            "derives_from, uses_tool, documents_artifact) and those pointing at it.",
            _object({"ref": REF, "predicate": {"type": "string"}}, ["ref"]),
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
                    "value": {"type": ["string", "number", "boolean"]},
                    "dimension": {"type": "string"},
                    "note": {"type": "string"},
                },
                ["kind", "ref"],
            ),
            _signal,
        ),
    )
}
