"""Reading ledger lines: one strict pattern for what the toolkit writes, full checks otherwise.

Lines written by ``exobrain signal`` (and the hooks) match one regular expression that is valid
by construction, so a million of them are read with a ``findall`` per file and no
``json.loads``; anything else (hand-written, reformatted, other key orders) is parsed and
validated in full, to the same record. A line that is not usable becomes a reason, reported
as ``file:line: skipped: reason`` and never fatal.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.signals.comments import COMMENT_ID, MAX_COMMENT, comment_problem
from exobrain.signals.ledger import (
    _CANONICAL_REF,
    _CURRENCY,
    _ID,
    DIMENSIONS,
    FUND_UNIT,
    KINDS,
    LEDGER_LIMIT,
    MAX_COUNT,
    MAX_FUND,
    ledger_owner,
)
from exobrain.signals.timestamps import TS_PATTERN, canonical_ts, valid_day
from exobrain.util import boundedjson
from exobrain.util.fileio import read_bytes

Record = tuple[str, str, str, Any, str, Any, bool]  # kind, skill, ts, value, by, key2, snapshot

_REF = _CANONICAL_REF.pattern.removeprefix("^").removesuffix(r"\Z")
_ID_RE = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
#: A comment's text as written: JSON string units (no control characters but the escaped
#: newline and tab), at most MAX_COMMENT of them, not starting or ending with a space or an
#: escape, so a match is always text the full check accepts.
_PLAIN = r'[^"\\\s\x00-\x1f\x7f-\x9f\ud800-\udfff]'
_UNIT = r'(?:[^"\\\x00-\x1f\x7f-\x9f\ud800-\udfff]|\\["\\/nt])'
_TEXT = f"{_PLAIN}(?:{_UNIT}{{0,{MAX_COMMENT - 2}}}{_PLAIN})?"
#: A line exactly as ``exobrain signal`` writes it, valid by construction: a match needs no
#: further checks. Groups: day, time, skill, then one kind's fields, then by. A comment's
#: text is not a group: comments count in no number, and the listing reads the whole line.
_FAST = (
    r'\{"ts":"' + TS_PATTERN + r'","skill":"(' + _REF + r')","kind":"'
    r'(?:(usage)","value":1,"auto":(?:true|false)'
    r'|vote","value":(-?1)'
    r'|rank","value":(0(?:\.\d{1,17})?|1(?:\.0{1,17})?),"dimension":"(clarity|accuracy|scope|novelty)"'
    r'|calibration","value":(true|false)'
    r'|fund","value":((?!0(?:\.0*)?,)(?:0|[1-9]\d{0,8})(?:\.\d{1,6})?),'
    r'"currency":"([A-Za-z0-9][A-Za-z0-9._-]{0,31})"'
    r'|comment","value":"' + _TEXT + r'","id":"(c-[0-9a-f]{12})"(?:,"reply_to":"c-[0-9a-f]{12}")?)'
    r',"by":"(' + _ID_RE + r')","host":"' + _ID_RE + r'"(?:,"agent":"[a-z][a-z0-9-]*")?\}'
)
_FAST_LINE = re.compile(_FAST)
_FAST_ALL = re.compile("^" + _FAST + "$", re.M)


def parse_record(obj: Any) -> Record | str:
    """Validate one parsed line; a normalised record, or why the line is unusable."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    value: Any  # any JSON value: checked, then normalised, per kind below
    ts, skill, kind, value, by = (obj.get(k) for k in ("ts", "skill", "kind", "value", "by"))
    ts = canonical_ts(ts)
    if ts is None:
        return "ts must be a valid ISO 8601 time with a timezone, e.g. 2026-11-29T15:16:47.123Z"
    if not isinstance(skill, str) or not _CANONICAL_REF.match(skill):
        return "skill must be a home-qualified reference skill:NAME@HOME"
    if kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)}"
    if not isinstance(by, str) or not _ID.match(by):
        return "by must be a person id"
    snapshot = obj.get("snapshot") is True
    if snapshot and kind in ("vote", "rank", "comment"):
        return f"a {kind} line is never a snapshot"
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    key2: Any = None
    if kind == "vote":
        if not number or value not in (1, -1):
            return "vote value must be 1 or -1"
        value = int(value)
    elif kind == "rank":
        key2 = obj.get("dimension")
        if key2 not in DIMENSIONS:
            return f"rank dimension must be one of {', '.join(DIMENSIONS)}"
        if not number or not 0 <= value <= 1:
            return "rank value must be a number from 0 to 1"
        value = float(value)
    elif kind == "usage":
        if (
            not (isinstance(value, int) and not isinstance(value, bool))
            or not 1 <= value <= MAX_COUNT
            or (value != 1 and not snapshot)
        ):
            return f"usage value must be 1 (a snapshot: a count from 1 to {MAX_COUNT})"
    elif kind == "calibration":
        if snapshot:
            total: Any = obj.get("total")
            if (
                not all(isinstance(v, int) and not isinstance(v, bool) for v in (value, total))
                or not 0 <= value <= total <= MAX_COUNT
                or total < 1
            ):
                return (
                    f"a calibration snapshot needs value (completed) <= total, "
                    f"1 <= total <= {MAX_COUNT}"
                )
            value = (value, total)
        elif not isinstance(value, bool):
            return "calibration value must be true (completed) or false"
        else:
            value = (int(value), 1)
    elif kind == "comment":
        return _comment_record(obj, skill, ts, by)
    else:
        key2 = obj.get("currency")
        if not isinstance(key2, str) or not _CURRENCY.match(key2):
            return "fund needs a currency code"
        if (
            not number
            or not math.isfinite(value)
            or not 0 < value <= MAX_FUND
            or round(value * FUND_UNIT) < 1
        ):
            return f"fund value must be a number from 0.000001 to {MAX_FUND}"
        value = round(value * FUND_UNIT)
    return (kind, skill, ts, value, by, key2, snapshot)


def _comment_record(obj: dict[str, Any], skill: str, ts: str, by: str) -> Record | str:
    """A comment's record carries its id; its text stays in the line (it counts in no
    number, and the listing reads the line itself)."""
    text, cid, reply_to = obj.get("value"), obj.get("id"), obj.get("reply_to")
    if not isinstance(text, str) or not 0 < len(text) <= MAX_COMMENT or text != text.strip():
        return f"comment value must be text of 1 to {MAX_COMMENT} characters, trimmed"
    problem = comment_problem(text)
    if problem:
        return f"comment value: {problem}"
    if not isinstance(cid, str) or not COMMENT_ID.match(cid):
        return "comment id must look like c-0123456789ab"
    if reply_to is not None and (not isinstance(reply_to, str) or not COMMENT_ID.match(reply_to)):
        return "comment reply_to must be a comment id"
    return ("comment", skill, ts, None, by, cid, False)


def _row_record(row: tuple[Any, ...]) -> Record:
    """A fast-pattern match as a record (used on the line-by-line path). A group that took no
    part is "" in a ``findall`` row and None in ``groups()``: only its truth is read."""
    day, clock, skill, usage, vote, rank, dimension, outcome, amount, currency, comment, by = row
    ts = f"{day}T{clock}Z"
    if comment:
        return ("comment", skill, ts, None, by, comment, False)
    if usage:
        return ("usage", skill, ts, 1, by, None, False)
    if vote:
        return ("vote", skill, ts, int(vote), by, None, False)
    if dimension:
        return ("rank", skill, ts, float(rank), by, dimension, False)
    if outcome:
        return ("calibration", skill, ts, (int(outcome == "true"), 1), by, None, False)
    return ("fund", skill, ts, round(float(amount) * FUND_UNIT), by, currency, False)


def parse_line(line: str, owner: str | None = None) -> Record | str | None:
    """One ledger line: a record, why it is unusable, or None for a blank line. With ``owner``
    (the person whose folder holds the ledger) a line written in someone else's name is
    unusable: nobody can vote for others by writing their names into their own file."""
    found = _FAST_LINE.fullmatch(line)
    if found is not None and valid_day(found.group(1)):
        result: Record | str | None = _row_record(found.groups())
    elif not line.strip():
        return None
    else:
        try:
            line.encode("utf-8")
            result = parse_record(boundedjson.loads(line))
        except UnicodeEncodeError:
            return "not UTF-8"
        except ValueError as exc:
            return f"invalid JSON ({str(exc).split(':')[0]})"
    if owner is not None and isinstance(result, tuple) and result[4] != owner:
        return f"by {result[4]!r} in {owner}'s ledger (a line counts only in its author's own)"
    return result


def read_records(text: str, rel: str, problems: list[str]) -> list[Record]:
    """Every usable record of one ledger's text, in file order; problems are appended."""
    records: list[Record] = []
    owner = ledger_owner(rel)
    for lineno, line in enumerate(text.split("\n"), 1):
        result = parse_line(line, owner)
        if isinstance(result, str):
            problems.append(f"{rel}:{lineno}: skipped: {result}")
        elif result is not None:
            records.append(result)
    return records


def fast_rows(text: str, owner: str) -> list[tuple[str, ...]] | None:
    """All rows of a ledger whose every line is in the exact written format, by ``owner``
    (and that holds no snapshot), from one ``findall``; None when the file needs the
    line-by-line path (which reports the lines that do not count)."""
    if '"snapshot"' in text or not text.endswith("\n"):
        return None
    rows = _FAST_ALL.findall(text)
    if (
        len(rows) != text.count("\n")
        or not all(map(valid_day, {row[0] for row in rows}))
        or {row[-1] for row in rows} - {owner}
    ):
        return None
    return rows


def read_ledger_text(path: Path, rel: str, problems: list[str]) -> str | None:
    """A ledger's text (bytes that are not UTF-8 stay visible to the line checks)."""
    try:
        data = read_bytes(path, limit=LEDGER_LIMIT, what="a ledger")
    except InputFileError as exc:  # a FIFO, a folder, over the cap: named, never waited on
        problems.append(f"{rel}: skipped: {exc.message.removeprefix(f'{path}: ')}")
        return None
    return data.decode("utf-8", errors="surrogateescape")
