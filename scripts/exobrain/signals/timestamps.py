"""The ledgers' timestamps: one canonical text form, and the day and millisecond numbers read
from it.

A line's ``ts`` is UTC at millisecond precision in a fixed width
(``2026-11-29T15:16:47.123Z``), so timestamps sort as text in time order and the fast reader
(:mod:`exobrain.signals.lines`) matches them with one pattern. Aggregation, compaction and the
sweep count in days since 1970 and in epoch milliseconds, derived here from the text without a
``datetime`` object per line.

Imported by the Claude usage hook (through :mod:`exobrain.signals.ledger`), so it imports only
the standard library.
"""

from __future__ import annotations

import re
import time
from typing import Any

#: The canonical timestamp, as two groups (day, time); shared with the fast reader.
TS_PATTERN = (
    r"(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))"
    r"T((?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3})Z"
)
_TS = re.compile(f"^{TS_PATTERN}\\Z")
_EPOCH = 719163  # date(1970, 1, 1).toordinal(): datetime is imported only where it is needed


def format_ts(epoch: float) -> str:
    """UTC, millisecond precision, fixed width: sorts as text in time order."""
    seconds, ms = divmod(int(epoch * 1000), 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{ms:03d}Z"


def canonical_ts(text: Any) -> str | None:
    """``text`` as a canonical timestamp, or None when it is not a timezone-aware ISO time."""
    if not isinstance(text, str):
        return None
    if _TS.match(text):
        return text if valid_day(text[:10]) else None
    try:
        from datetime import datetime

        moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    result = format_ts(moment.timestamp())
    return result if _TS.match(result) else None  # years before 1000 do not fit the width


_DAY_CACHE: dict[str, int] = {}


def day_number(ts: str) -> int:
    """Days since 1970-01-01 of a canonical timestamp (memoised: ledgers repeat days a lot)."""
    key = ts[:10]
    day = _DAY_CACHE.get(key)
    if day is None:
        from datetime import date

        day = _DAY_CACHE[key] = date.fromisoformat(key).toordinal() - _EPOCH
    return day


def valid_day(text: str) -> bool:
    """True for a real calendar day (the patterns alone let 2026-02-30 through)."""
    try:
        day_number(text)
    except ValueError:
        return False
    return True


def ts_ms(ts: str) -> int:
    """Epoch milliseconds of a canonical timestamp, without a datetime object per call."""
    return (
        day_number(ts) * 86_400_000
        + int(ts[11:13]) * 3_600_000
        + int(ts[14:16]) * 60_000
        + int(ts[17:19]) * 1000
        + int(ts[20:23])
    )


def day_label(day: int) -> str:
    from datetime import date

    return date.fromordinal(day + _EPOCH).isoformat()
