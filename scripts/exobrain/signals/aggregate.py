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

Reading the lines is :mod:`exobrain.signals.lines`; a malformed line is skipped and reported as
``file:line: skipped: reason``, never fatal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from exobrain.signals.ledger import FUND_UNIT, ledger_owner
from exobrain.signals.lines import Record, _row_record, fast_rows, read_ledger_text, read_records
from exobrain.signals.timestamps import day_number, ts_ms

if TYPE_CHECKING:  # the aggregation itself needs only the ledgers' files
    from exobrain.workspace import Workspace

RANK_SCALE = 1 << 20  # rank codes: time in ms * RANK_SCALE + value in millionths
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

    votes: dict[str, dict[str, int]] = field(default_factory=dict)  # by → code
    ranks: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # dim → by → code
    usage: dict[str, dict[int, int]] = field(default_factory=dict)  # day → uses
    calibration: dict[str, dict[int, tuple[int, int]]] = field(
        default_factory=dict
    )  # day → (completed, total)
    fund: dict[str, dict[tuple[str, int], int]] = field(
        default_factory=dict
    )  # (currency, day) → millionths
    lines: int = 0
    problems: list[str] = field(default_factory=list)

    def skills(self) -> set[str]:
        return set().union(self.votes, self.ranks, self.usage, self.calibration, self.fund)

    def votes_of(self, skill: str) -> dict[str, tuple[float, int]]:
        """Each voter's latest vote: by → (epoch seconds, -1|1)."""
        return {
            by: ((code >> 1) / 1000, 1 if code & 1 else -1)
            for by, code in self.votes.get(skill, {}).items()
        }

    def ranks_of(self, skill: str) -> dict[tuple[str, str], tuple[float, float]]:
        """Each (rater, dimension)'s latest rank: → (epoch seconds, 0..1)."""
        return {
            (by, dim): (code // RANK_SCALE / 1000, code % RANK_SCALE / RANK_STEP)
            for dim, raters in self.ranks.get(skill, {}).items()
            for by, code in raters.items()
        }

    def fields(self) -> tuple[Any, ...]:
        """Every field in order, as the cache stores them (``Aggregate(*fields)`` rebuilds)."""
        return (
            self.votes,
            self.ranks,
            self.usage,
            self.calibration,
            self.fund,
            self.lines,
            self.problems,
        )

    def numbers(self) -> dict[str, Any]:
        """Everything but the line count and problems: what compaction must leave unchanged."""
        return {
            "votes": self.votes,
            "ranks": self.ranks,
            "usage": self.usage,
            "calibration": self.calibration,
            "fund": self.fund,
        }


def _bucket(record: Record) -> tuple[str, str, int, Any]:
    kind, skill, ts, _value, _by, key2, _snap = record
    return (kind, skill, day_number(ts), key2)


def effective_records(records: list[Record]) -> list[Record]:
    """One file's records with compaction snapshots applied.

    A snapshot stands for its whole (kind, skill, day[, currency]) bucket in this file: raw
    lines of a covered bucket are dropped (git's union merge may have brought back lines that
    a compaction folded), and duplicate snapshots of one bucket count once (the largest).
    """
    covered: dict[tuple[str, str, int, Any], Record] = {}
    for record in records:
        if record[6]:
            key = _bucket(record)
            if key not in covered or record[3] > covered[key][3]:
                covered[key] = record
    if not covered:
        return records
    kept = [
        r for r in records if not r[6] and (r[0] in ("vote", "rank") or _bucket(r) not in covered)
    ]
    return kept + list(covered.values())


def file_records(text: str, rel: str, problems: list[str], skills: set[str]) -> list[Record]:
    """The effective records of one ledger about ``skills`` only (for replaying history)."""
    rows = fast_rows(text, ledger_owner(rel))
    if rows is not None:
        return [_row_record(row) for row in rows if row[2] in skills]
    return [r for r in effective_records(read_records(text, rel, problems)) if r[1] in skills]


def _keep_latest(per: dict[str, int], key: str, code: int) -> None:
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
        self.uses: dict[str, list[str]] = {}  # skill → day texts, counted in C at the end
        self.day_ms: dict[str, int] = {}
        self.minute_ms: dict[str, int] = {}
        self.day_no: dict[str, int] = {}
        self.names: dict[str, str] = {}  # one string object per person: smaller caches

    def add_file(self, text: str, rel: str) -> None:
        rows = fast_rows(text, ledger_owner(rel))
        if rows is not None:
            self.add_rows(rows)
            return
        for record in effective_records(read_records(text, rel, self.agg.problems)):
            self.add(record)

    def add_rows(self, rows: list[tuple[str, ...]]) -> None:
        """The tight loop of the fast path (a million rows in about a second): the rules are
        those of :meth:`add`, inlined, with the day and the hour:minute parsed once each."""
        agg, uses, names = self.agg, self.uses, self.names
        day_ms, minute_ms, day_no = self.day_ms, self.minute_ms, self.day_no
        votes, ranks, calibration, fund = agg.votes, agg.ranks, agg.calibration, agg.fund
        agg.lines += len(rows)
        for row in rows:
            day, clock, skill, usage, vote, rank, dimension, outcome, amount, currency, _c, by = row
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
                    minute = minute_ms[clock[:5]] = (
                        int(clock[:2]) * 3_600_000 + int(clock[3:5]) * 60_000
                    )
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
            elif outcome or amount:
                number = day_no.get(day)
                if number is None:
                    number = day_no[day] = day_number(day)
                if outcome:
                    outcomes = calibration.get(skill)
                    if outcomes is None:
                        outcomes = calibration[skill] = {}
                    done, total = outcomes.get(number, (0, 0))
                    outcomes[number] = (done + (outcome == "true"), total + 1)
                else:
                    amounts = fund.get(skill)
                    if amounts is None:
                        amounts = fund[skill] = {}
                    key = (currency, number)
                    amounts[key] = amounts.get(key, 0) + round(float(amount) * FUND_UNIT)

    def add(self, record: Record) -> None:
        kind, skill, ts, value, by, key2, snapshot = record
        self.agg.lines += 1
        by = self.names.setdefault(by, by)
        if kind == "comment":  # debate, not a number
            return
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
            uses = self.agg.usage.setdefault(skill, {})
            uses[day] = uses.get(day, 0) + value
        elif kind == "calibration":
            outcomes = self.agg.calibration.setdefault(skill, {})
            done, total = outcomes.get(day, (0, 0))
            outcomes[day] = (done + value[0], total + value[1])
        else:
            amounts = self.agg.fund.setdefault(skill, {})
            amounts[(key2, day)] = amounts.get((key2, day), 0) + value

    def finish(self) -> Aggregate:
        usage = self.agg.usage
        numbers: dict[str, int] = {}
        for skill, texts in self.uses.items():
            counted: dict[int, int] = {}
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


def aggregate_files(root: Path, files: list[Path]) -> Aggregate:
    """Aggregate the given ledgers from scratch."""
    folder = Folder(Aggregate())
    for path in files:
        rel = path.relative_to(root).as_posix()
        text = read_ledger_text(path, rel, folder.agg.problems)
        if text is not None:
            folder.add_file(text, rel)
    return folder.finish()


def aggregate(ws: Workspace, *, use_cache: bool = True) -> Aggregate:
    """The repository's aggregated signals, from the cache when no ledger changed.

    Only the ledgers of persons of the repository count
    (:func:`exobrain.signals.voters.repository_ledgers`); the cache is keyed on exactly those
    files, so a person's scope made or removed (a folder admitted or left out) makes it miss."""
    from exobrain.signals.cache import cached_fields
    from exobrain.signals.voters import repository_ledgers

    root, files = ws.root, repository_ledgers(ws).counted
    if not use_cache:
        return aggregate_files(root, files)
    return Aggregate(*cached_fields(root, files, lambda: aggregate_files(root, files).fields()))
