"""Reading and writing the user's files safely: strict UTF-8, JSON with positions, atomic writes.

Every reader raises :class:`InputFileError` naming the file and the position of the problem, so
no caller ever shows a traceback for a broken file. Every writer goes through a temporary file
in the same folder and ``os.replace`` so a crash leaves either the old or the new content.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.util import boundedjson


def read_text(path: Path) -> str:
    """Return the file's text, refusing anything that is not UTF-8 (with the byte offset)."""
    try:
        data = path.read_bytes()
    except PermissionError as exc:
        raise InputFileError(
            f"{path}: cannot read ({exc.strerror})", hint="check the file's permissions"
        ) from exc
    except IsADirectoryError as exc:
        raise InputFileError(f"{path}: is a folder, expected a file") from exc
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputFileError(
            f"{path}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            hint="re-save the file as UTF-8",
        ) from exc


def parse_json(text: str, path: Path) -> Any:
    """Parse JSON text (within :mod:`~exobrain.util.boundedjson`'s limits), turning a syntax
    error into a message with line and column."""
    if not text.strip():
        raise InputFileError(
            f"{path}: empty file, expected a JSON object", hint='write at least {"skills": []}'
        )
    try:
        return boundedjson.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    except boundedjson.JsonLimitError as exc:
        raise InputFileError(f"{path}: refused: {exc}") from exc


def load_json(path: Path) -> Any:
    """Read and parse a JSON file owned by the user."""
    return parse_json(read_text(path), path)


def atomic_write_text(path: Path, text: str | bytes, *, durable: bool = True) -> None:
    """Write ``text`` (UTF-8; bytes as they are) to ``path`` via a temp file in the same
    folder and an atomic rename.

    The file keeps its permission bits when it already exists. ``durable`` flushes the data to
    disk before the rename (what a user wrote must survive a power cut); files the toolkit can
    regenerate (locks, indexes) skip it, since an fsync per file dominates bulk rewrites.
    """
    import tempfile  # not needed by read-only commands, so not imported at start-up

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        try:
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def dump_json(data: Any) -> str:
    """The house style for small JSON files we own: two-space indent, trailing newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def default_dir_mode() -> int:
    """The mode ``mkdir`` would give a new folder under the current umask (``mkdtemp`` gives
    0700, which a folder we move into the user's tree must not keep)."""
    current = os.umask(0)
    os.umask(current)
    return 0o777 & ~current
