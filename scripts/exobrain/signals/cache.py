"""The aggregation cache: the aggregate's fields kept outside git, in the user cache dir.

It is keyed on the path, size, mtime and inode of every ledger that counts (a person's:
:mod:`exobrain.signals.voters`), so any append, merge, checkout or compaction, or a person
admitted or removed, makes it miss and the ledgers are read again; nothing is ever served
from a stale cache. A cache that cannot be read or written is ignored (it is only a speed-up).
The file holds a magic string, the key's length (8 bytes), the key and the aggregate's
fields, each a ``marshal`` record, so a miss reads only the key. ``marshal`` (plain dicts,
tuples, ints and strings) loads a third faster than
pickle; its format depends on the Python version, which is part of the key.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

from exobrain.caches import SIGNALS, damaged
from exobrain.paths import user_cache_dir

FORMAT = (SIGNALS.version, marshal.version, sys.version_info[:2])
MAGIC = b"exobrain-signals\x00"


def cache_dir() -> Path:
    return user_cache_dir() / SIGNALS.folder


def cache_path(root: Path) -> Path:
    digest = hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:20]
    return cache_dir() / f"{digest}.pickle"


def manifest(root: Path, files: list[Path]) -> tuple[Any, ...]:
    """What the cache is keyed on: (path, size, mtime_ns, inode) of every ledger."""
    rows = []
    for path in files:
        try:
            info = path.stat()
        except OSError:
            return ("unreadable",)
        rows.append(
            (path.relative_to(root).as_posix(), info.st_size, info.st_mtime_ns, info.st_ino)
        )
    return (FORMAT, tuple(rows))


def load(path: Path, key: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The cached fields when the file's key is ``key``; None when it is absent, of another
    key (the ledgers changed) or damaged: cut short, not this cache's ``marshal`` records or
    of the wrong shape (reported, :func:`exobrain.caches.damaged`; the caller computes the
    fields and saves them anew)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(MAGIC) + 8)
            size = int.from_bytes(head[len(MAGIC) :], "little")
            if head[: len(MAGIC)] != MAGIC or len(head) < len(MAGIC) + 8:
                why = "not a signal cache"
            elif size > 1 << 24:
                why = f"a key of {size} bytes"
            elif marshal.loads(handle.read(size)) != key:
                return None
            else:
                fields = marshal.loads(handle.read())  # one read: marshal.load(file) is slow
                if well_formed(fields):
                    return fields  # type: ignore[no-any-return]
                why = "fields of the wrong shape"
    except FileNotFoundError:
        return None
    except (OSError, EOFError, ValueError, TypeError) as exc:
        why = f"unreadable ({exc})"
    damaged(SIGNALS, path, why)
    return None


#: The types of the aggregate's fields, in order (see ``Aggregate.fields``).
_FIELD_TYPES = (dict, dict, dict, dict, dict, int, list)
#: Every number the aggregate holds (a vote or rank code: a time in ms times 2**20 at most)
#: is smaller than this; a far bigger one would overflow the float arithmetic of the score.
_BOUND = 1 << 63
#: The days a line can be dated (years 1000 to 9999, the timestamp's fixed width), counted
#: from 1970-01-01 as the aggregate counts them: a day beyond them is no date at all (the
#: listing's ``last_day`` could not be printed).
_DAYS = (
    date(1000, 1, 1).toordinal() - date(1970, 1, 1).toordinal(),
    date(9999, 12, 31).toordinal() - date(1970, 1, 1).toordinal(),
)


def well_formed(fields: Any) -> bool:
    """Whether cached fields have the aggregate's shape all the way down (see ``Aggregate``:
    skill → votes by → code, ranks dimension → by → code, usage day → uses, calibration day
    → (completed, total), fund (currency, day) → millionths; a line count; problems as text),
    every code an int within :data:`_BOUND`, every day within :data:`_DAYS` and every count
    and amount from 0: a cache cut short, edited or written by something else is a miss,
    never a crash further on (a negative amount broke the score's logarithm, a day past the
    year 9999 the listing). The per-value work runs in C loops (``chain``, ``map``, ``set``,
    ``min``, ``max``), so a million-line aggregate is checked in a few milliseconds."""
    if not (
        isinstance(fields, tuple)
        and len(fields) == len(_FIELD_TYPES)
        and all(type(f) is t for f, t in zip(fields, _FIELD_TYPES, strict=True))
    ):
        return False
    votes, ranks, usage, calibration, fund, lines, problems = fields
    if not all(_maps(table, str, dict) for table in (votes, ranks, usage, calibration, fund)):
        return False
    per_dimension = list(ranks.values())  # (each skill's dimension → by → code)
    if not (_types(_keys(per_dimension)) <= {str} and _types(_values(per_dimension)) <= {dict}):
        return False
    raters = [*votes.values(), *_values(per_dimension)]
    uses = list(usage.values())
    pairs = list(_values(calibration.values()))
    days = list(_keys(fund.values()))
    return (
        _types(_keys(raters)) <= {str}
        and _numbers(_values(raters))
        and _numbers(_keys(uses), *_DAYS)
        and _numbers(_values(uses), 0)
        and _numbers(_keys(calibration.values()), *_DAYS)
        and _types(pairs) <= {tuple}
        and set(map(len, pairs)) <= {2}
        and _numbers(chain.from_iterable(pairs), 0)
        and _numbers(_values(fund.values()), 0)
        and _types(days) <= {tuple}
        and set(map(len, days)) <= {2}
        and _types(map(itemgetter(0), days)) <= {str}
        and _numbers(map(itemgetter(1), days), *_DAYS)
        and _numbers((lines,), 0)
        and _types(problems) <= {str}
    )


def _types(values: Iterable[Any]) -> set[type]:
    return set(map(type, values))


def _maps(table: dict[Any, Any], key: type, value: type) -> bool:
    return _types(table) <= {key} and _types(table.values()) <= {value}


def _keys(tables: Iterable[dict[Any, Any]]) -> Iterator[Any]:
    return chain.from_iterable(tables)


def _values(tables: Iterable[dict[Any, Any]]) -> Iterator[Any]:
    return chain.from_iterable(map(dict.values, tables))


def _numbers(values: Iterable[Any], low: int = 1 - _BOUND, high: int = _BOUND - 1) -> bool:
    """Whether every value is a whole number from ``low`` to ``high``, in C loops (cheaper
    than asking each value its type): ``sum`` refuses what is no number and a float among
    them makes the total a float; ``min`` and ``max`` give the range."""
    found = values if isinstance(values, list) else list(values)
    try:
        total = sum(found)
    except TypeError:
        return False
    return type(total) is int and (not found or (min(found) >= low and max(found) <= high))


def save(path: Path, key: tuple[Any, ...], fields: tuple[Any, ...]) -> None:
    """Write the cache (inside the user cache dir); a failure only costs the speed-up."""
    from exobrain.errors import ExobrainError
    from exobrain.util.fileio import atomic_write_text

    head = marshal.dumps(key)
    data = MAGIC + len(head).to_bytes(8, "little") + head + marshal.dumps(fields)
    try:
        atomic_write_text(path, data, root=user_cache_dir(), durable=False)
    except (OSError, ExobrainError):
        pass


def cached_fields(
    root: Path, files: list[Path], compute: Callable[[], tuple[Any, ...]]
) -> tuple[Any, ...]:
    """The cached aggregate fields when the ledgers are unchanged, else ``compute()`` (then
    cached).

    The key is taken before reading, so a ledger that changes while we read makes the next
    call miss instead of caching a mix of old and new.
    """
    key = manifest(root, files)
    path = cache_path(root)
    fields = load(path, key)
    if fields is None:
        fields = compute()
        if key != ("unreadable",):
            save(path, key, fields)
    return fields
