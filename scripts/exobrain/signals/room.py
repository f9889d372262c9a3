"""Keeping a ledger under its cap without losing a number.

Every reader skips a ledger over :data:`~exobrain.signals.ledger.LEDGER_LIMIT` whole (a file
of any size cannot be read on every command), so a ledger that grew past it would drop all of
its person's signals from that host — votes, ranks, uses, outcomes, funds. What makes a real
ledger that large is free text, not numbers: a calibration's ``note`` (or a compaction
snapshot's ``notes``). So when a line would take a ledger over the cap, and when compaction
leaves one over it, those notes are shed first — every line keeps its numbers and its place,
only the words go — and the write is refused (nothing lost, the reason and the fix named) when
even that does not make room, which only comments can cause: they are debate, never dropped.

Imported by the ledger's writer, which the usage hook loads: the standard library only, plus
the toolkit's own file helpers.
"""

from __future__ import annotations

import json
from pathlib import Path

from exobrain.errors import OperationFailed
from exobrain.util import boundedjson
from exobrain.util.fileio import atomic_write_text, read_bytes, size_text

#: The largest ledger that is still read to shed its notes or be compacted (four times the
#: cap): a hand-made file beyond it is refused by name, never loaded.
REPAIR_LIMIT_FACTOR = 4
_NOTE_KEYS = ("note", "notes")


def shed_notes(data: bytes) -> bytes:
    """``data`` (a ledger) with the note of every calibration line dropped; everything else
    byte for byte. A line rewritten keeps its key order, so a line the toolkit wrote still
    matches its fast reader's pattern."""
    lines = data.split(b"\n")
    for index, line in enumerate(lines):
        if b'"note' not in line:
            continue
        try:
            obj = boundedjson.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue  # unreadable lines are kept as they are (their readers report them)
        if not isinstance(obj, dict) or obj.get("kind") != "calibration":
            continue
        if any(key in obj for key in _NOTE_KEYS):
            for key in _NOTE_KEYS:
                obj.pop(key, None)
            text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
            lines[index] = text.encode("utf-8")
    return b"\n".join(lines)


def fit(path: Path, data: bytes, limit: int, *, root: Path) -> bytes:
    """The ledger text ``data`` of ``path`` made to fit in ``limit`` bytes, shedding its notes
    when it is larger; OperationFailed (the file, the sizes, the fix) when it cannot."""
    if len(data) <= limit:
        return data
    shed = shed_notes(data)
    if len(shed) > limit:
        raise _full(path, root, len(shed), limit)
    return shed


def make_room(path: Path, extra: int, limit: int, *, root: Path) -> None:
    """Called under the ledger's lock when ``extra`` more bytes would take ``path`` over
    ``limit``: rewrite it atomically without its notes so that they fit (the caller's
    descriptor then holds the old file: it locks the new one). OperationFailed, and nothing
    changed, when even the numbers alone leave no room."""
    data = read_bytes(path, limit=limit * REPAIR_LIMIT_FACTOR, what="a ledger to make room in")
    shed = shed_notes(data)
    if len(shed) + extra > limit:
        raise _full(path, root, len(shed), limit)
    atomic_write_text(path, shed, root=root)


def _full(path: Path, root: Path, size: int, limit: int) -> OperationFailed:
    rel = path.relative_to(root).as_posix()
    return OperationFailed(
        f"{rel}: {size_text(size)} without its calibration notes, no room under the "
        f"{size_text(limit)} cap for a ledger; nothing was written and no line dropped",
        hint="record on another host file (--host NAME), or move old comments out of it",
    )
