"""What the MCP server offers, with no MCP in it: the tools as plain data and functions over the
substrate verbs, and the :class:`Exobrain` that runs them and the resource reads
(:mod:`exobrain.mcp.resources`), so the protocol layer (:mod:`exobrain.mcp.server`) only
translates and the CLI and the server can never disagree.

Every call sees exactly what the connection sees: the chain, never another person's scope or
private ``local/`` folder. The workspace, the views, the search index and the encoders stay
loaded between calls (:mod:`exobrain.search.live`), checked at each call against the files
they were read from, so an edit made while the agent works shows in its next call.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

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
    check_arguments,
)
from exobrain.mcp.resources import read_resource, resource_rows

if TYPE_CHECKING:  # the toolkit is imported on the first call, not at start-up
    from exobrain.search.live import Live

Handler = Callable[["Live", dict[str, Any]], dict[str, Any]]
T = TypeVar("T")
SIGNAL_KINDS = ("usage", "calibration", "vote", "rank")
REF = {
    "type": "string",
    "maxLength": REF_MAX,
    "description": "skill:NAME[@HOME] or knowledge:PATH[@SCOPE]",
}
SKILL_REF = {"type": "string", "maxLength": REF_MAX, "description": "skill:NAME or skill:NAME@HOME"}
TEXT = {"type": "string", "maxLength": TEXT_MAX}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]
    handler: Handler


class Exobrain:
    """One exobrain as an agent reaches it: its root (None: the enclosing repository of the
    working folder) and the agent that is calling, which usage lines name.

    Every call runs on one worker thread, one at a time: they share the open workspace and
    search index (a SQLite connection belongs to the thread that opened it) and the encoders."""

    def __init__(self, repo: Path | None = None, agent: str | None = None) -> None:
        self.repo = repo
        self.agent = agent
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._live: Live | None = None
        self._warming = False

    def _run(self, func: Callable[[], Any]) -> Future[Any]:
        if self._worker is None:  # a daemon: a warm-up never holds up the exit
            self._worker = threading.Thread(target=self._work, name="exobrain", daemon=True)
            self._worker.start()
        done: Future[Any] = Future()
        self._jobs.put((func, done))
        return done

    def _work(self) -> None:
        while True:
            func, done = self._jobs.get()
            try:
                done.set_result(func())
            except BaseException as exc:
                done.set_exception(exc)

    def warm_up(self) -> None:
        """Load the toolkit, the workspace, the search index and the encoders on the worker
        (once), so the agent's first search does not wait for them. Started after the session
        is set up, never before the first answer; a failure is left for the real call."""
        if not self._warming:
            self._warming = True
            self._run(self._warm)

    def _warm(self) -> None:
        try:
            _search(self.live(), {"query": "warm up the index and encoders", "k": 1})
        except Exception:
            pass

    def live(self) -> Live:
        """The workspace and search index kept between calls (fresh at each: see
        :mod:`exobrain.search.live`)."""
        if self._live is None:
            from exobrain.search.live import Live

            self._live = Live(self.repo, agent=self.agent)
        return self._live

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool; domain errors propagate (the server turns them into tool errors).
        The arguments are held to the tool's schema first, on the caller's thread, so one
        over its cap is refused at once and never queues behind the worker."""
        from exobrain.errors import UsageError

        tool = TOOLS.get(name)
        if tool is None:
            raise UsageError(
                f"unknown tool {name[:WORD_MAX]!r}", hint=f"use one of {', '.join(TOOLS)}"
            )
        check_arguments(name, tool.schema, arguments)
        arguments = {**arguments, "_agent": self.agent}
        result: dict[str, Any] = self._run(lambda: tool.handler(self.live(), arguments)).result()
        return result

    def on_worker(self, func: Callable[[Live], T]) -> T:
        """``func`` of the live workspace, run on the worker like every call (the resources
        and the skills extension go through here); its exceptions propagate."""
        result: T = self._run(lambda: func(self.live())).result()
        return result

    def resources(self) -> list[dict[str, str]]:
        """The skills that reach the agent (always, optional) and the visible knowledge
        documents with a file here, as resource rows; any visible one is read by its URI."""
        return self.on_worker(resource_rows)

    def read(self, uri: str) -> str:
        """The markdown of the visible artifact ``uri`` names (SKILL.md for a skill)."""
        return self.on_worker(lambda live: read_resource(live, uri))


# --- the tools --------------------------------------------------------------------------


def _search(live: Live, args: dict[str, Any]) -> dict[str, Any]:
    from exobrain.search.engine import Filters
    from exobrain.search.hits import hit_json

    types = tuple(args.get("types") or ("skill",))
    filters = Filters(types=types, everywhere=bool(args.get("all_scopes")))
    result = live.search(args["query"], filters, k=args.get("k", 10), quality=live.quality())
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
    from exobrain.search.engine import signal_quality
    from exobrain.search.substrate import Substrate

    return Substrate(ws, signal_quality(ws), agent=live.agent).get(args["ref"])


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
    from exobrain.search.substrate import Substrate

    return Substrate(ws, agent=live.agent).links(args["ref"], args.get("predicate"))


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
            _search,
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
