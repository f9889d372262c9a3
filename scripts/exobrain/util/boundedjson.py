"""JSON with limits: what one hostile file can make a reader do is bounded.

Python's ``json`` takes ``NaN`` and ``Infinity`` (not JSON), turns ``1e999`` into infinity,
raises ``ValueError`` on an integer of more than 4,300 digits and ``RecursionError`` on deep
nesting — each of them a traceback, or a number that breaks arithmetic far from the file it
came from. Every reader of a file someone else may have written goes through :func:`loads`,
which refuses all of that with :class:`JsonLimitError` (a ``ValueError``, so the readers'
handlers for invalid JSON cover it). The depth limit also protects what runs on the data
afterwards (schema checks, ``repr``, re-serialising), which recurses too.
"""

from __future__ import annotations

import json
import math
from itertools import chain, compress
from typing import Any

#: Containers inside containers: far beyond any file of ours (a registry is 4 deep).
MAX_DEPTH = 64
#: Characters of one number literal: 64 digits are beyond any count, amount or time we read.
MAX_NUMBER_CHARS = 64
_CONTAINERS = frozenset({dict, list})


class JsonLimitError(ValueError):
    """The text is JSON Python could read, but beyond what a reader of ours accepts."""


def _int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonLimitError(f"a number of {len(text)} digits (at most {MAX_NUMBER_CHARS})")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise JsonLimitError(f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    value = float(text)
    if not math.isfinite(value):
        raise JsonLimitError(f"the number {text} is too large to be finite")
    return value


def _constant(text: str) -> Any:
    raise JsonLimitError(f"{text} is not a JSON number")


def loads(text: str | bytes) -> Any:
    """``json.loads`` with the limits above; :class:`JsonLimitError` names the one broken."""
    try:
        data = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except RecursionError:
        raise JsonLimitError(f"nested deeper than {MAX_DEPTH} levels") from None
    # each container opens with a bracket, so a text of few brackets cannot nest deeply:
    # the walk is skipped for it (a registry of a few entries; 300,000 of them at 100k people)
    few = (
        text.count("[") + text.count("{")
        if isinstance(text, str)
        else text.count(b"[") + text.count(b"{")
    ) <= MAX_DEPTH
    if not few and not within_depth(data, MAX_DEPTH):
        raise JsonLimitError(f"nested deeper than {MAX_DEPTH} levels")
    return data


def within_depth(data: Any, limit: int) -> bool:
    """True when no container in ``data`` (as ``json.loads`` builds it: dicts and lists)
    sits more than ``limit`` levels deep. Walked one level at a time, without recursion, and
    with the per-value work done by C loops (``map``, ``compress``): a cache file of a million
    values is walked in a third of the time its parse takes."""
    level = [data] if type(data) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return False
        values = list(chain.from_iterable([c.values() if type(c) is dict else c for c in level]))
        level = list(compress(values, map(_CONTAINERS.__contains__, map(type, values))))
    return True
