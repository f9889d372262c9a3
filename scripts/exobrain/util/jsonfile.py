"""Locked, atomic updates of the JSON files the toolkit owns (a lock file, the trust
records): read and parse under the file's lock, let the caller change the data, write it back
in the file's own style, atomically and only when it changed.

The registry editor (:mod:`exobrain.registry.editor`) adds the schema and the entry splicing
on top of the same steps; both sweep the temp files a killed writer left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError, OperationFailed
from exobrain.util.checkout import refuse_outside
from exobrain.util.fileio import atomic_write_text, dump_json, parse_json, read_text
from exobrain.util.jsonstyle import render_like
from exobrain.util.locking import DEFAULT_TIMEOUT, exclusive


def read_existing(path: Path) -> str | None:
    if not path.exists() and not path.is_symlink():
        return None
    return read_text(path)


def write_file(root: Path, path: Path, text: str, rel: str, durable: bool = True) -> None:
    """Write through a symlinked registry that stays inside ``root`` (the link is kept); one
    leading outside is refused by the file layer, with the link named."""
    try:
        atomic_write_text(path, text, root=root, durable=durable)
    except OSError as exc:
        raise OperationFailed(
            f"{rel}: cannot write ({exc.strerror or exc}); the file is unchanged",
            hint="check the folder's permissions and free space",
        ) from exc


@dataclass
class JsonUpdate:
    """A JSON document being updated under its lock; change ``data`` in place or replace it."""

    path: Path
    data: Any
    original: str | None
    text: str | None = None  # the rendered result, set when the block ends
    written: bool = False

    @property
    def changed(self) -> bool:
        return self.text is not None and self.text != self.original


@contextmanager
def update_json_file(
    path: Path,
    *,
    root: Path,
    default: Callable[[], Any] | None = None,
    check: Callable[[Any], None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    dry_run: bool = False,
    durable: bool = True,
) -> Iterator[JsonUpdate]:
    """Lock, read and parse ``path`` (a file inside ``root``), let the block change it, then
    write it back atomically.

    ``default`` builds the document when the file is missing (None: a missing file is an
    error). ``check`` raises on data that must not be written; it runs on the file as read
    (so a broken file is refused before the block runs) and on the result. The result keeps
    the file's indentation and newlines; a new file is written in the house style. With
    ``dry_run`` nothing is locked or written, but ``text`` still shows the result.
    ``durable=False`` skips the fsync, for files that can be regenerated (locks).
    """
    if not dry_run:
        refuse_outside(root, path)
    with nullcontext() if dry_run else exclusive(path, timeout, root=root):
        original = read_existing(path)
        if original is None:
            if default is None:
                raise InputFileError(f"{path}: no such file")
            data = default()
        else:
            data = parse_json(original, path)
            if check:
                check(data)
        update = JsonUpdate(path, data, original)
        yield update
        if check:
            check(update.data)
        update.text = (
            render_like(original, update.data) if original is not None else dump_json(update.data)
        )
        if update.changed and not dry_run:
            write_file(root, path, update.text, str(path), durable)
            update.written = True
        if not dry_run:
            sweep_temp_files(path)


def sweep_temp_files(path: Path) -> None:
    """Remove temp files a writer killed mid-write left (only callable under the file's lock).

    ``atomic_write_text`` names them ``.<file>.<random>.tmp``; every writer of ``path`` holds
    the lock while its temp file exists, so under the lock any such file is an orphan.
    """
    prefix = f".{path.name}."
    for orphan in path.parent.iterdir():
        if orphan.name.startswith(prefix) and orphan.name.endswith(".tmp"):
            try:
                orphan.unlink()
            except OSError:
                pass
