"""The aggregation cache: the aggregate's fields kept outside git, in the user cache dir.

It is keyed on every ledger file's path, size, mtime and inode, so any append, merge,
checkout or compaction makes it miss and the ledgers are read again; nothing is ever served
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from exobrain.caches import SIGNALS
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
    try:
        with open(path, "rb") as handle:
            if handle.read(len(MAGIC)) != MAGIC:
                return None
            size = int.from_bytes(handle.read(8), "little")
            if size > 1 << 24 or marshal.loads(handle.read(size)) != key:
                return None
            fields = marshal.loads(handle.read())  # one read: marshal.load(file) is slow
        return fields if well_formed(fields) else None
    except (OSError, EOFError, ValueError, TypeError):
        return None


#: The types of the aggregate's fields, in order (see ``Aggregate.fields``).
_FIELD_TYPES = (dict, dict, dict, dict, dict, int, list)


def well_formed(fields: Any) -> bool:
    """Whether cached fields have the aggregate's shape down to each skill's table: a cache
    cut short or written by something else is a miss, not a crash further on."""
    return (
        isinstance(fields, tuple)
        and len(fields) == len(_FIELD_TYPES)
        and all(type(f) is t for f, t in zip(fields, _FIELD_TYPES, strict=True))
        and all(
            all(type(skill) is str for skill in table)
            and all(type(per) is dict for per in table.values())
            for table in fields[:5]
        )
    )


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
