"""Compaction: fold a person's old ledger lines into snapshot lines, changing no number.

Lines dated before a cutoff day (UTC midnight, so a day is never split) are rewritten:

* vote and rank lines — only each voter's (each rater and dimension's) latest old line is kept,
  verbatim: under *replace* aggregation the others can never count again, and keeping the
  latest keeps every aggregate, and the score at any time after the cutoff, unchanged;
* comment lines — kept verbatim: they are words, not numbers;
* usage, calibration and fund lines — one ``"snapshot": true`` line per (skill, kind, day
  [, currency]) carrying the day's total (calibration: completed ``value`` out of ``total``,
  with the notes kept in ``notes``), dated at the day's midnight. Aggregation and the quality
  score already count these kinds per day, so the totals and their decay are unchanged.

Lines from the cutoff on are kept byte for byte at the end of the file, so a compaction and an
append made elsewhere merge cleanly; if git's union merge does bring compacted lines back, the
snapshot still wins (see :func:`exobrain.signals.aggregate.effective_records`). Unreadable
lines are kept as they are. The rewrite happens under the ledger's lock, atomically.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.signals.aggregate import _bucket, rank_code, vote_code
from exobrain.signals.ledger import (
    FUND_UNIT,
    LEDGER_LIMIT,
    LEDGER_SUFFIX,
    SIGNALS_DIR,
    dump_line,
    ledger_owner,
    locked_ledger,
)
from exobrain.signals.lines import Record, parse_line
from exobrain.signals.room import REPAIR_LIMIT_FACTOR, fit
from exobrain.signals.timestamps import format_ts, ts_ms
from exobrain.util import boundedjson
from exobrain.util.fileio import atomic_write_text, read_bytes

SUMMED = ("usage", "calibration", "fund")


@dataclass
class Compaction:
    """What compacting one ledger did (or would do, on a dry run)."""

    rel: str
    before: int  # lines holding data before
    after: int  # lines after
    snapshots: int  # snapshot lines in the result
    changed: bool  # the text differs (written unless it was a dry run)


def _notes(line: str) -> list[str]:
    obj = boundedjson.loads(line)
    if isinstance(obj.get("notes"), list):
        return [str(n) for n in obj["notes"]]
    return [str(obj["note"])] if obj.get("note") else []


def compact_text(text: str, cutoff_day: int, host: str, owner: str) -> tuple[str, int]:
    """The compacted text of one ledger of ``owner`` and the number of snapshot lines in it
    (lines that do not count, a foreign ``by`` among them, are kept as they are)."""
    old_kept: list[tuple[int, str]] = []  # (position, line) kept among the old lines
    new_lines: list[str] = []
    latest: dict[
        tuple[Any, ...], tuple[int, int, str]
    ] = {}  # vote/rank key → (code, position, line)
    buckets: dict[tuple[Any, ...], dict[str, Any]] = {}
    covered: dict[tuple[Any, ...], tuple[Record, str]] = {}
    for position, line in enumerate(text.split("\n")):
        record = parse_line(line, owner)
        if record is None:
            continue
        if isinstance(record, str):
            old_kept.append((position, line))
            continue
        kind, skill, ts, value, by, key2, snapshot = record
        if kind == "comment":  # debate is kept word for word, however old
            old_kept.append((position, line))
            continue
        if ts_ms(ts) >= cutoff_day * 86_400_000:
            new_lines.append(line)
            continue
        if kind in ("vote", "rank"):
            code = vote_code(ts_ms(ts), value) if kind == "vote" else rank_code(ts_ms(ts), value)
            key = (kind, skill, by, key2)
            if key not in latest or code > latest[key][0]:
                latest[key] = (code, position, line)
            continue
        bucket = _bucket(record)
        if snapshot:
            if bucket not in covered or value > covered[bucket][0][3]:
                covered[bucket] = (record, line)
            continue
        total = buckets.setdefault(
            bucket, {"value": (0, 0) if kind == "calibration" else 0, "by": by, "notes": []}
        )
        if kind == "calibration":
            total["value"] = (total["value"][0] + value[0], total["value"][1] + value[1])
            total["notes"] += _notes(line)
        else:
            total["value"] += value
    for bucket, (record, line) in covered.items():
        buckets[bucket] = {
            "value": record[3],
            "by": record[4],
            "notes": _notes(line) if record[0] == "calibration" else [],
        }
    snapshots = [
        _snapshot_line(bucket, data, host)
        for bucket, data in sorted(
            buckets.items(), key=lambda item: (item[0][2], item[0][0], item[0][1], str(item[0][3]))
        )
    ]
    old_kept += [(position, line) for _code, position, line in latest.values()]
    lines = snapshots + [line for _pos, line in sorted(old_kept)] + new_lines
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines), len(snapshots)


def _snapshot_line(bucket: tuple[Any, ...], data: dict[str, Any], host: str) -> str:
    kind, skill, day, key2 = bucket
    line: dict[str, Any] = {"ts": format_ts(day * 86400), "skill": skill, "kind": kind}
    if kind == "calibration":
        line["value"], line["total"] = data["value"]
        if data["notes"]:
            line["notes"] = data["notes"]
    elif kind == "fund":
        line["value"], line["currency"] = data["value"] / FUND_UNIT, key2
    else:
        line["value"] = data["value"]
    line.update({"snapshot": True, "by": data["by"], "host": host})
    return dump_line(line)


def compact_file(root: Path, path: Path, cutoff_day: int, *, dry_run: bool = False) -> Compaction:
    """Compact one ledger under its lock (the rewrite is atomic; appenders wait, then reopen)."""
    rel = path.relative_to(root).as_posix()
    fd = locked_ledger(path, root=root) if not dry_run else None
    try:
        # a ledger over the cap (which every reader skips) is read to be repaired, up to a
        # bound: compacted, and its notes shed when it is still too large
        data = read_bytes(path, limit=LEDGER_LIMIT * REPAIR_LIMIT_FACTOR, what="a ledger")
        text = data.decode("utf-8", errors="surrogateescape")
        compacted, snapshots = compact_text(
            text, cutoff_day, path.name[: -len(LEDGER_SUFFIX)], ledger_owner(rel)
        )
        result = fit(path, compacted.encode("utf-8", "surrogateescape"), LEDGER_LIMIT, root=root)
        before = sum(1 for line in text.split("\n") if line.strip())
        changed = result != data
        if changed and not dry_run:
            atomic_write_text(path, result, root=root)
        return Compaction(rel, before, result.count(b"\n"), snapshots, changed)
    finally:
        if fd is not None:
            os.close(fd)


def compact_person(
    root: Path, person: str, cutoff_day: int, *, dry_run: bool = False
) -> list[Compaction]:
    """Compact every ledger of ``person`` (all their hosts)."""
    folder = root / SIGNALS_DIR / person
    paths = sorted(folder.glob(f"*{LEDGER_SUFFIX}")) if folder.is_dir() else []
    return [compact_file(root, path, cutoff_day, dry_run=dry_run) for path in paths]
