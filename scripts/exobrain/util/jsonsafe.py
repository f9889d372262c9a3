"""Data read from YAML, made fit for JSON and for a terminal.

PyYAML's safe loader builds more than JSON holds: dates and datetimes (an unquoted
``created: 2020-01-01``), bytes (``!!binary``), sets (``!!set``), pairs (``!!omap``), the
floats ``.nan`` and ``.inf``, and mapping keys of any of those kinds. ``json.dumps`` raises on
each of them (or writes ``NaN``, which no JSON reader takes), so every reader that prints or
serialises a SKILL.md's frontmatter passes it through :func:`json_safe` first, and one odd
value in one skill never takes ``show``, ``list``, ``search`` or the site down.
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

#: How a float JSON cannot hold is shown: as YAML spells it, so the author recognises it.
_NON_FINITE = {math.inf: ".inf", -math.inf: "-.inf"}


def json_safe(value: Any) -> Any:
    """``value`` with only JSON's types left: a date or datetime becomes its ISO text, bytes
    the note ``<N bytes>`` (binary data is not something to print; its size says what is
    there), a set a sorted list, a tuple a list, ``.nan``/``.inf`` their YAML spelling and
    every mapping key text. Meant for data whose nesting a bounded reader already capped
    (frontmatter: 64 levels), so it recurses."""
    if isinstance(value, dict):
        return {_key(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, (set, frozenset)):
        members = [json_safe(v) for v in value]
        return sorted(members, key=lambda m: json.dumps(m, sort_keys=True))
    return _scalar(value)


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        return _NON_FINITE.get(value, value)
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value)} bytes>"
    return str(value)


def _key(key: Any) -> str:
    """A mapping key as text, the way ``json.dumps`` writes the keys it accepts."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    safe = _scalar(key)
    return safe if isinstance(safe, str) else json.dumps(safe)
