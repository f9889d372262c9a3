"""Reading and writing the user's files safely: strict UTF-8, JSON with positions, atomic writes,
only regular files read, every write kept inside its root.

This is the one file layer every reader and writer of repository and agent files goes through
(hostile repositories are the rule, not the exception: see :mod:`exobrain.util.confine`):

* every reader raises :class:`InputFileError` naming the file and the problem, so no caller
  ever shows a traceback for a broken file; it opens the file non-blocking and checks with
  ``fstat`` that it is a regular file (a FIFO, device or socket is refused, never waited on)
  no bigger than its cap (:data:`JSON_LIMIT` by default; SKILL.md and ledgers have their own);
* every writer takes the ``root`` the file must stay in (a required argument, so no call site
  can forget it): the path is resolved component by component inside it, a link on the way
  that leaves the root is refused with the link and its target named, a final link that stays
  inside is written through (the link is kept), and the write goes through a temporary file in
  the same folder and ``os.replace``, so a crash leaves either the old or the new content.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError, OperationFailed
from exobrain.util import boundedjson
from exobrain.util.confine import UnsafePath, resolve_inside, special_kind

#: The cap on a JSON document we read (registries, locks, crons.json, scopes.json, the
#: connection file, weights, install records): a 200,000-entry registry is about 15 MB.
JSON_LIMIT = 32 << 20
_CHUNK = 1 << 20


def size_text(size: int) -> str:
    """A byte count for a message: ``512 bytes``, ``1.5 KB``, ``1 MB``, ``56.2 MB``."""
    if size < 1 << 10:
        return f"{size} bytes"
    value, unit = (size / (1 << 10), "KB") if size < 1 << 20 else (size / (1 << 20), "MB")
    return f"{value:.1f}".removesuffix(".0") + f" {unit}"


def open_regular(path: Path | str) -> int:
    """Open ``path`` for reading and return the descriptor, refusing (InputFileError) anything
    but a regular file: opened non-blocking and checked with ``fstat``, so a FIFO, a device or
    a socket is named and refused rather than waited on forever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except PermissionError as exc:
        raise InputFileError(
            f"{path}: cannot read ({exc.strerror})", hint="check the file's permissions"
        ) from exc
    except OSError as exc:
        kind = _kind_at(path)
        if kind:
            raise InputFileError(f"{path}: is {kind}, not a regular file") from exc
        raise InputFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):  # O_NONBLOCK does nothing to a regular file, so it stays set
        return fd
    os.close(fd)
    if stat.S_ISDIR(mode):
        raise InputFileError(f"{path}: is a folder, expected a file")
    raise InputFileError(
        f"{path}: is {special_kind(mode)}, not a regular file",
        hint="replace it with a regular file (or remove it)",
    )


def is_file(path: Path | str) -> bool:
    """Whether a regular file is at ``path`` (links followed), telling "nothing there" (False)
    from "cannot look": a folder on the way that this user may not search is an
    :class:`InputFileError` naming the path (``Path.is_file`` raises a bare
    ``PermissionError`` there, a traceback in every command that asks)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except PermissionError as exc:
        raise InputFileError(
            f"{path}: cannot be read ({exc.strerror})",
            hint="give yourself access to it and to the folders above it (chmod u+rx FOLDER)",
        ) from exc
    except OSError:  # absent, a folder above is a file, a loop of links: no file there
        return False


def _kind_at(path: Path | str) -> str | None:
    try:
        return special_kind(os.stat(path).st_mode)
    except OSError:
        return None


def read_bytes(path: Path, *, limit: int = JSON_LIMIT, what: str = "this file") -> bytes:
    """The bytes of the regular file ``path`` (see :func:`open_regular`), refusing one over
    ``limit`` bytes with a message naming the cap (``what``: "a SKILL.md", "a ledger"…)."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            # "1 MB, over the 1 MB cap" says nothing: bytes when the rounding hides the excess
            shown = size_text(size) if size_text(size) != size_text(limit) else f"{size:,} bytes"
            raise InputFileError(
                f"{path}: {shown}, over the {size_text(limit)} cap for {what}",
                hint="split or shorten the file",
            )
        data = os.read(fd, size + 1)  # a regular file gives all of it in one read
        if len(data) > size:  # it grew since fstat: read on, up to the cap
            chunks = [data]
            total = len(data)
            while block := os.read(fd, _CHUNK):
                total += len(block)
                if total > limit:
                    raise InputFileError(f"{path}: over the {size_text(limit)} cap for {what}")
                chunks.append(block)
            data = b"".join(chunks)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)
    return data


def read_text(path: Path, *, limit: int = JSON_LIMIT, what: str = "this file") -> str:
    """Return the file's text, refusing anything that is not UTF-8 (with the byte offset), not
    a regular file, or over ``limit`` bytes."""
    data = read_bytes(path, limit=limit, what=what)
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


def stat_signature(path: Path | str) -> list[int] | None:
    """What tells one version of a file from another without reading it: its inode, size,
    modification and change times (None when it is not there). A file rewritten, replaced,
    copied or checked out anew has another signature."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def atomic_write_text(path: Path, text: str | bytes, *, root: Path, durable: bool = True) -> None:
    """Write ``text`` (UTF-8; bytes as they are) to ``path``, which must stay inside ``root``,
    via a temp file in the same folder and an atomic rename.

    Missing folders are created. ``path`` being a link that stays inside ``root`` is written
    through (the link is kept); a link on the way that leaves ``root`` is refused
    (:class:`~exobrain.util.confine.UnsafePath`, nothing written). The file keeps its
    permission bits when it already exists (a new one follows the umask); one this process may
    not write (made read-only) is refused rather than replaced by the rename. ``durable``
    flushes the data to disk before the rename (what a user wrote must survive a power cut);
    files the toolkit can regenerate (locks, indexes) skip it, since an fsync per file
    dominates bulk rewrites.
    """
    import tempfile  # not needed by read-only commands, so not imported at start-up

    target = resolve_inside(root, path)
    if target.exists() and not os.access(target, os.W_OK):
        # a rename would replace it anyway: a file made read-only is not ours to replace
        raise OperationFailed(
            f"{path}: is read-only; nothing was written",
            hint=f"make it writable (chmod u+w {path}) if it should change, then rerun",
        )
    make_folders(root, target.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        try:
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        except FileNotFoundError:  # a new file: what open() would give under the umask
            os.chmod(tmp, default_dir_mode() & 0o666)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def make_folders(root: Path, folder: Path, *, links: bool = True) -> Path:
    """Create ``folder`` (and its missing parents) inside ``root``; its real path.

    Existing parts are resolved with :func:`~exobrain.util.confine.resolve_inside` (a link
    leaving ``root`` is refused; with ``links=False`` any link below ``root`` is), missing
    ones are made one at a time, so nothing is ever created outside ``root``.
    """
    real = resolve_inside(root, folder, links=links)
    missing = []
    probe = real
    while not probe.is_dir():
        # a folder another process made since the test above is fine; a file or link is not
        if probe.is_symlink() or (probe.exists() and not probe.is_dir()):
            raise UnsafePath(f"{folder}: {probe} is not a folder")
        if probe.is_dir():
            break
        missing.append(probe)
        probe = probe.parent
    for part in reversed(missing):
        try:
            os.mkdir(part)
        except FileExistsError as exc:
            if part.is_symlink() or not part.is_dir():
                raise UnsafePath(f"{folder}: {part} appeared meanwhile, not a folder") from exc
    return real


def dump_json(data: Any) -> str:
    """The house style for small JSON files we own: two-space indent, trailing newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def default_dir_mode() -> int:
    """The mode ``mkdir`` would give a new folder under the current umask (``mkdtemp`` gives
    0700, which a folder we move into the user's tree must not keep)."""
    current = os.umask(0)
    os.umask(current)
    return 0o777 & ~current
