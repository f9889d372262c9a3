"""The caps on every MCP tool argument, and the check that holds a call to its tool's schema.

An agent's arguments are untrusted text that reaches one worker thread: a 5 MB query once
kept it busy for a minute, and every other call of the session waited behind it. So each
tool's input schema (:mod:`exobrain.mcp.tools`) names what an argument may be — its type,
the most characters or items it may hold, the values it may take, the range of a count —
and :func:`check_arguments` holds every call to it before anything runs, so an argument over
its cap is refused at once with the argument, its cap and what it was (a tool error the
agent can act on). The check reads only the small subset of JSON Schema the tables use.

Nothing of the toolkit is imported here: the server loads this with its tool table at
start-up. The few values the signal and link rules own are repeated below, and a test keeps
them equal to their sources.
"""

from __future__ import annotations

import json
import math
from typing import Any

from exobrain.errors import UsageError
from exobrain.util.boundedjson import MAX_DEPTH, within_depth

#: A search query or a task: a sentence or a paragraph, never a document.
TEXT_MAX = 1000
#: A reference ``skill:NAME@HOME`` or ``knowledge:PATH@SCOPE``: a name of 64 characters at
#: most, a home or a path far shorter than this.
REF_MAX = 512
#: A ``skill://`` URI (the skills extension's): a home, a name and a file's path in the skill.
URI_MAX = 2048
#: A persona, a sort field, a signal's value: a word or two.
WORD_MAX = 100
#: How many hits, rows or skills a call may ask for.
COUNT_MAX = 1000
#: How many sort fields a list call may give.
SORT_MAX = 8
#: A JSONLogic filter, as JSON text.
FILTER_MAX = 10_000
#: A calibration note: as long as a comment may be (``signals.comments.MAX_COMMENT``).
NOTE_MAX = 2000
#: The rank dimensions (``signals.ledger.DIMENSIONS``) and link predicates
#: (``search.substrate.PREDICATES``).
DIMENSIONS = ("clarity", "accuracy", "scope", "novelty")
PREDICATES = ("uses_tool", "uses_skill", "derives_from", "documents_artifact", "supersedes")

_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}
_NAMES = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
}


def check_arguments(tool: str, schema: dict[str, Any], arguments: Any) -> None:
    """Refuse (UsageError) a call whose arguments its tool's ``schema`` does not allow:
    an unknown argument, a missing one, or one of the wrong type or over its cap."""
    if not isinstance(arguments, dict):
        raise UsageError(f"{tool}: the arguments must be an object")
    properties: dict[str, Any] = schema["properties"]
    unknown = [key for key in arguments if key not in properties]
    if unknown:
        raise UsageError(
            f"{tool}: unknown argument {unknown[0][:WORD_MAX]!r}",
            hint=f"{tool} takes {', '.join(properties)}",
        )
    missing = [key for key in schema.get("required", ()) if key not in arguments]
    if missing:
        raise UsageError(f"{tool}: the argument {missing[0]} is required")
    for key, value in arguments.items():
        problem = value_problem(properties[key], value)
        if problem is not None:
            raise UsageError(f"{tool}: {key} {problem}")


def value_problem(spec: dict[str, Any], value: Any) -> str | None:
    """Why ``value`` does not fit the argument ``spec``, or None."""
    kinds = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    if not any(_is(kind, value) for kind in kinds):
        return f"must be {' or '.join(_NAMES[k] for k in kinds)}, not {_shown(value)}"
    if isinstance(value, str):
        if len(value) > spec.get("maxLength", len(value)):
            return f"is {len(value)} characters long, at most {spec['maxLength']}"
    elif isinstance(value, int) and not isinstance(value, bool) and "minimum" in spec:
        if not spec["minimum"] <= value <= spec["maximum"]:
            return (
                f"must be a whole number from {spec['minimum']} to {spec['maximum']}, "
                f"not {_shown(value)}"
            )
    elif isinstance(value, list):
        if len(value) > spec.get("maxItems", len(value)):
            return f"holds {len(value)} items, at most {spec['maxItems']}"
        for item in value:
            problem = value_problem(spec["items"], item)
            if problem is not None:
                return f"holds an item that does not fit: {problem}"
    elif isinstance(value, dict):
        if not within_depth(value, MAX_DEPTH):
            return f"is nested deeper than {MAX_DEPTH} levels"
        size = len(json.dumps(value, ensure_ascii=False))
        if size > FILTER_MAX:
            return f"is {size} characters of JSON, at most {FILTER_MAX}"
    if "enum" in spec and value not in spec["enum"]:
        return f"{_shown(value)}: use one of {', '.join(map(str, spec['enum']))}"
    return None


def _is(kind: str, value: Any) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    if isinstance(value, float) and not math.isfinite(value):
        return False  # (JSON has no such numbers: a client that sends them sends no number)
    return isinstance(value, _TYPES[kind])


def _shown(value: Any) -> str:
    """A value as a message quotes it: cut short, so an argument over its cap is not
    echoed back whole."""
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "…"
