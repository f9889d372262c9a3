"""Aggregation of the signal ledgers, exactly as SPEC-013 section 3 declares it.

* vote — *replace*: the latest vote of each voter counts, so a voter who flips counts once;
* rank — *replace* per (rater, dimension);
* usage — *sum*;
* calibration — *append*: every outcome is kept, the metric is the completion rate;
* fund — *sum* (per currency).

"Latest" compares timestamps; a tie (same voter, same millisecond) goes to the higher value,
so the result never depends on the order in which files are read or merged. Sums and
outcomes are kept per UTC day, which is what the quality score decays by and what compaction
writes back, so compacting never changes a number.

A compaction snapshot line (``"snapshot": true``) stands for its whole (skill, kind, day) in
its own file: raw lines of that bucket in the same file are ignored. That makes compaction
safe against git's union merge bringing compacted lines back.

Reading is the hot path (a million lines in a few seconds): lines written by this toolkit
match one strict regular expression and skip ``json.loads``; anything else is parsed and
validated in full. A malformed line is skipped and reported as ``file:line: reason``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .signals import (DIMENSIONS, FUND_UNIT, KINDS, TS_PATTERN, _CANONICAL_REF, _CURRENCY, _ID,
                      canonical_ts, day_number, ts_ms, valid_day)

Record = tuple[str, str, str, Any, str, Any, bool]  # kind, skill, ts, value, by, key2, snapshot

_REF = _CANONICAL_REF.pattern[1:-1]
_ID_RE = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
#: A line exactly as ``exobrain signal`` writes it, valid by construction: a match needs no
#: further checks. Groups: day, time, skill, then one kind's fields, then by.
_FAST = (
    r'\{"ts":"' + TS_PATTERN + r'","skill":"(' + _REF + r')","kind":"'
    r'(?:(usage)","value":1,"auto":(?:true|false)'
    r'|vote","value":(-?1)'
    r'|rank","value":(0(?:\.\d{1,17})?|1(?:\.0{1,17})?),"dimension":"(clarity|accuracy|scope|novelty)"'
    r'|calibration","value":(true|false)'
    r'|fund","value":((?!0(?:\.0*)?,)(?:0|[1-9]\d{0,8})(?:\.\d{1,6})?),'
    r'"currency":"([A-Za-z0-9][A-Za-z0-9._-]{0,31})")'
    r',"by":"(' + _ID_RE + r')","host":"' + _ID_RE + r'"(?:,"agent":"[a-z][a-z0-9-]*")?\}')
_FAST_LINE = re.compile(_FAST)
_FAST_ALL = re.compile("^" + _FAST + "$", re.M)


RANK_SCALE = 1 << 20     # rank codes: time in ms * RANK_SCALE + value in millionths
RANK_STEP = 1_000_000


def vote_code(ms: int, value: int) -> int:
    """A vote as one int that orders like (time, value): compact to cache, cheap to compare."""
    return ms * 2 + (value > 0)


def rank_code(ms: int, value: float) -> int:
    """A rank as one int ordering like (time, value); the value is kept to 1e-6."""
    return ms * RANK_SCALE + round(value * RANK_STEP)


@dataclass
class Aggregate:
    """Every skill's aggregated signals (keys are canonical skill refs).

    Votes and ranks are stored as ints (:func:`vote_code`, :func:`rank_code`) so that a
    million-line aggregate loads from the cache in a fraction of a second; read them through
    :meth:`votes_of` and :meth:`ranks_of`. Days are counted from 1970-01-01 (UTC).
    """

    votes: dict[str, dict[str, int]] = field(default_factory=dict)              # by → code
    ranks: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)   # dim → by → code
    usage: dict[str, dict[int, int]] = field(default_factory=dict)              # day → uses
    calibration: dict[str, dict[int, tuple[int, int]]] = field(default_factory=dict)  # day → (completed, total)
    fund: dict[str, dict[tuple[str, int], int]] = field(default_factory=dict)   # (currency, day) → millionths
    lines: int = 0
    problems: list[str] = field(default_factory=list)

    def skills(self) -> set[str]:
        return set().union(self.votes, self.ranks, self.usage, self.calibration, self.fund)

    def votes_of(self, skill: str) -> dict[str, tuple[float, int]]:
        """Each voter's latest vote: by → (epoch seconds, -1|1)."""
        return {by: ((code >> 1) / 1000, 1 if code & 1 else -1)
                for by, code in self.votes.get(skill, {}).items()}

    def ranks_of(self, skill: str) -> dict[tuple[str, str], tuple[float, float]]:
        """Each (rater, dimension)'s latest rank: → (epoch seconds, 0..1)."""
        return {(by, dim): (code // RANK_SCALE / 1000, code % RANK_SCALE / RANK_STEP)
                for dim, raters in self.ranks.get(skill, {}).items()
                for by, code in raters.items()}

    def numbers(self) -> dict[str, Any]:
        """Everything but the line count and problems: what compaction must leave unchanged."""
        return {"votes": self.votes, "ranks": self.ranks, "usage": self.usage,
                "calibration": self.calibration, "fund": self.fund}


def parse_record(obj: Any) -> Record | str:
    """Validate one parsed line; a normalised record, or why the line is unusable."""
    if not isinstance(obj, dict):
        return "not a JSON object"
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
    if snapshot and kind in ("vote", "rank"):
        return "votes and ranks are never snapshots (the latest line is kept instead)"
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
        if not (isinstance(value, int) and not isinstance(value, bool)) or value < 1 \
                or (value != 1 and not snapshot):
            return "usage value must be 1 (a snapshot: a count of at least 1)"
    elif kind == "calibration":
        if snapshot:
            total = obj.get("total")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in (value, total)) \
                    or not 0 <= value <= total or total < 1:
                return "a calibration snapshot needs value (completed) <= total, total >= 1"
            value = (value, total)
        elif not isinstance(value, bool):
            return "calibration value must be true (completed) or false"
        else:
            value = (int(value), 1)
    else:
        key2 = obj.get("currency")
        if not isinstance(key2, str) or not _CURRENCY.match(key2):
            return "fund needs a currency code"
        if not number or not math.isfinite(value) or round(value * FUND_UNIT) < 1 \
                or value * FUND_UNIT > 2**53:
            return "fund value must be a number greater than 0 (at least 0.000001)"
        value = round(value * FUND_UNIT)
    return (kind, skill, ts, value, by, key2, snapshot)


def _row_record(row: tuple) -> Record:
    """A fast-pattern match as a record (used on the line-by-line path)."""
    day, clock, skill, usage, vote, rank, dimension, outcome, amount, currency, by = row
    ts = f"{day}T{clock}Z"
    if usage:
        return ("usage", skill, ts, 1, by, None, False)
    if vote:
        return ("vote", skill, ts, int(vote), by, None, False)
    if dimension:
        return ("rank", skill, ts, float(rank), by, dimension, False)
    if outcome:
        return ("calibration", skill, ts, (int(outcome == "true"), 1), by, None, False)
    return ("fund", skill, ts, round(float(amount) * FUND_UNIT), by, currency, False)


def parse_line(line: str) -> Record | str | None:
    """One ledger line: a record, why it is unusable, or None for a blank line."""
    found = _FAST_LINE.fullmatch(line)
    if found is not None and valid_day(found.group(1)):
        return _row_record(found.groups())
    if not line.strip():
        return None
    try:
        line.encode("utf-8")
        return parse_record(json.loads(line))
    except UnicodeEncodeError:
        return "not UTF-8"
    except ValueError as exc:
        return f"invalid JSON ({str(exc).split(':')[0]})"


def read_records(text: str, rel: str, problems: list[str]) -> list[Record]:
    """Every usable record of one ledger's text, in file order; problems are appended."""
    records: list[Record] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        result = parse_line(line)
        if isinstance(result, str):
            problems.append(f"{rel}:{lineno}: skipped: {result}")
        elif result is not None:
            records.append(result)
    return records


def _bucket(record: Record) -> tuple:
    kind, skill, ts, _value, _by, key2, _snap = record
    return (kind, skill, day_number(ts), key2)


def effective_records(records: list[Record]) -> list[Record]:
    """One file's records with compaction snapshots applied.

    A snapshot stands for its whole (kind, skill, day[, currency]) bucket in this file: raw
    lines of a covered bucket are dropped (git's union merge may have brought back lines that
    a compaction folded), and duplicate snapshots of one bucket count once (the largest).
    """
    covered: dict[tuple, Record] = {}
    for record in records:
        if record[6]:
            key = _bucket(record)
            if key not in covered or record[3] > covered[key][3]:
                covered[key] = record
    if not covered:
        return records
    kept = [r for r in records if not r[6] and (r[0] in ("vote", "rank") or _bucket(r) not in covered)]
    return kept + list(covered.values())


def fast_rows(text: str) -> list[tuple] | None:
    """All rows of a ledger whose every line is in the exact written format (and that holds no
    snapshot), from one ``findall``; None when the file needs the line-by-line path."""
    if '"snapshot"' in text or not text.endswith("\n"):
        return None
    rows = _FAST_ALL.findall(text)
    if len(rows) != text.count("\n") or not all(map(valid_day, {row[0] for row in rows})):
        return None
    return rows


def file_records(text: str, rel: str, problems: list[str], skills: set[str]) -> list[Record]:
    """The effective records of one ledger about ``skills`` only (for replaying history)."""
    rows = fast_rows(text)
    if rows is not None:
        return [_row_record(row) for row in rows if row[2] in skills]
    return [r for r in effective_records(read_records(text, rel, problems)) if r[1] in skills]


def _keep_latest(per: dict, key: str, code: int) -> None:
    """Replace aggregation on codes: the latest wins; a tie (same ms) goes to the higher value."""
    old = per.get(key)
    if old is None or code > old:
        per[key] = code


class Folder:
    """Folds ledger text into an :class:`Aggregate` (the one place the aggregation rules live).

    Two paths give the same result: whole files in the exact written format go through one
    ``findall`` and a tight loop; any other file is read line by line into records.
    """

    def __init__(self, agg: Aggregate) -> None:
        self.agg = agg
        self.uses: dict[str, list[str]] = {}   # skill → day texts, counted in C at the end
        self.day_ms: dict[str, int] = {}
        self.minute_ms: dict[str, int] = {}
        self.day_no: dict[str, int] = {}
        self.names: dict[str, str] = {}        # one string object per person: smaller caches

    def add_file(self, text: str, rel: str) -> None:
        rows = fast_rows(text)
        if rows is not None:
            self.add_rows(rows)
            return
        for record in effective_records(read_records(text, rel, self.agg.problems)):
            self.add(record)

    def add_rows(self, rows: list[tuple]) -> None:
        """The tight loop of the fast path (a million rows in about a second): the rules are
        those of :meth:`add`, inlined, with the day and the hour:minute parsed once each."""
        agg, uses, names = self.agg, self.uses, self.names
        day_ms, minute_ms, day_no = self.day_ms, self.minute_ms, self.day_no
        votes, ranks, calibration, fund = agg.votes, agg.ranks, agg.calibration, agg.fund
        agg.lines += len(rows)
        for day, clock, skill, usage, vote, rank, dimension, outcome, amount, currency, by in rows:
            if usage:
                days = uses.get(skill)
                if days is None:
                    uses[skill] = [day]
                else:
                    days.append(day)
            elif vote or dimension:
                base = day_ms.get(day)
                if base is None:
                    base = day_ms[day] = day_number(day) * 86_400_000
                minute = minute_ms.get(clock[:5])
                if minute is None:
                    minute = minute_ms[clock[:5]] = (int(clock[:2]) * 3_600_000
                                                     + int(clock[3:5]) * 60_000)
                ms = base + minute + int(clock[6:8] + clock[9:])
                by = names.setdefault(by, by)
                if vote:
                    per = votes.get(skill)
                    if per is None:
                        per = votes[skill] = {}
                    code = ms * 2 + (vote == "1")
                else:
                    per = ranks.setdefault(skill, {}).setdefault(dimension, {})
                    code = ms * RANK_SCALE + round(float(rank) * RANK_STEP)
                old = per.get(by)
                if old is None or code > old:
                    per[by] = code
            else:
                number = day_no.get(day)
                if number is None:
                    number = day_no[day] = day_number(day)
                if outcome:
                    per = calibration.get(skill)
                    if per is None:
                        per = calibration[skill] = {}
                    done, total = per.get(number, (0, 0))
                    per[number] = (done + (outcome == "true"), total + 1)
                else:
                    per = fund.get(skill)
                    if per is None:
                        per = fund[skill] = {}
                    key = (currency, number)
                    per[key] = per.get(key, 0) + round(float(amount) * FUND_UNIT)

    def add(self, record: Record) -> None:
        kind, skill, ts, value, by, key2, snapshot = record
        self.agg.lines += 1
        by = self.names.setdefault(by, by)
        if kind == "usage" and not snapshot:
            self.uses.setdefault(skill, []).append(ts[:10])
        elif kind == "vote":
            _keep_latest(self.agg.votes.setdefault(skill, {}), by, vote_code(ts_ms(ts), value))
        elif kind == "rank":
            per = self.agg.ranks.setdefault(skill, {}).setdefault(key2, {})
            _keep_latest(per, by, rank_code(ts_ms(ts), value))
        else:
            self.add_bucket(kind, skill, day_number(ts), key2, value)

    def add_bucket(self, kind: str, skill: str, day: int, key2: Any, value: Any) -> None:
        if kind == "usage":
            per = self.agg.usage.setdefault(skill, {})
            per[day] = per.get(day, 0) + value
        elif kind == "calibration":
            per = self.agg.calibration.setdefault(skill, {})
            done, total = per.get(day, (0, 0))
            per[day] = (done + value[0], total + value[1])
        else:
            per = self.agg.fund.setdefault(skill, {})
            per[(key2, day)] = per.get((key2, day), 0) + value

    def finish(self) -> Aggregate:
        usage, numbers = self.agg.usage, {}
        for skill, texts in self.uses.items():
            counted = {}
            for text, count in Counter(texts).items():
                day = numbers.get(text)
                if day is None:
                    day = numbers[text] = day_number(text)
                counted[day] = count
            per = usage.get(skill)
            if per is None:
                usage[skill] = counted
            else:
                for day, count in counted.items():
                    per[day] = per.get(day, 0) + count
        self.uses = {}
        return self.agg


def read_ledger_text(path: Path, rel: str, problems: list[str]) -> str | None:
    """A ledger's text (bytes that are not UTF-8 stay visible to the line checks)."""
    try:
        return path.read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError as exc:
        problems.append(f"{rel}: skipped: cannot read ({exc.strerror or exc})")
        return None


def aggregate_files(root: Path, files: list[Path]) -> Aggregate:
    """Aggregate the given ledgers from scratch."""
    folder = Folder(Aggregate())
    for path in files:
        rel = path.relative_to(root).as_posix()
        text = read_ledger_text(path, rel, folder.agg.problems)
        if text is not None:
            folder.add_file(text, rel)
    return folder.finish()


def aggregate(root: Path, *, use_cache: bool = True) -> Aggregate:
    """The repository's aggregated signals, from the cache when no ledger changed."""
    from .signal_cache import cached_aggregate
    from .signals import ledger_files

    files = ledger_files(root)
    if not use_cache:
        return aggregate_files(root, files)
    return cached_aggregate(root, files, lambda: aggregate_files(root, files))
