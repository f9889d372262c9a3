"""Content hash of a skill folder in Go's dirhash ``h1:`` format.

The hash is what tells an installed external skill from a locally edited one, and what the
skill locks pin. It is computed like Go's ``golang.org/x/mod/sumdb/dirhash.Hash1`` (with no
path prefix): for every file, the line ``"<sha256 hex of the content>  <relative POSIX path>\\n"``;
the lines sorted by path; ``h1:`` + base64 of the sha256 of their concatenation. Anyone can
re-check a hash with ``sha256sum`` and ``base64`` alone.

Left out, because they are not part of a skill's content: version-control folders, Python
byte-code and tool caches, ``.DS_Store`` and the fetcher's install record. A symbolic link is
hashed by its target text (it is not followed), so a link cannot pull outside content in. A
FIFO, device or socket in the folder is refused (:class:`~exobrain.util.confine.UnsafePath`),
never opened: reading one would hang; a folder that cannot be listed is named, not hashed.

The same walk can give each file's git blob id instead (``blob="sha1"`` or ``"sha256"``, the
object format of the repository), so a folder is compared with a git tree by ids alone, without
reading a single blob out of the repository.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from exobrain.errors import InputFileError, OperationFailed
from exobrain.util.confine import UnsafePath, special_kind
from exobrain.util.fileio import open_regular

#: The fetcher's install record; it describes the content, so it is not part of it.
INSTALL_RECORD = ".exobrain-source.json"
#: Folder names skipped wherever they occur.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".ipynb_checkpoints",
    }
)
#: File names skipped wherever they occur.
SKIPPED_FILES = frozenset({".DS_Store", INSTALL_RECORD})
_CHUNK = 1 << 20


def is_skipped_file(name: str) -> bool:
    return name in SKIPPED_FILES or name.endswith((".pyc", ".pyo"))


def counts(rel: str) -> bool:
    """Whether the file at POSIX path ``rel`` (inside a skill folder) is part of its content."""
    *folders, name = rel.split("/")
    return not is_skipped_file(name) and not any(part in SKIPPED_DIRS for part in folders)


def _start(blob: str | None, size: int) -> hashlib._Hash:
    """A digest of the file content (``blob`` None) or of its git blob object."""
    if blob is None:
        return hashlib.sha256()
    return hashlib.new(blob, b"blob %d\0" % size)


def file_digest(path: Path | str) -> str:
    """The sha256 hex of one regular file's bytes: the digest a lock records for each file
    (and the site's manifest and discovery index, so every digest of a file is this one)."""
    return sized_digest(path)[0]


def sized_digest(path: Path | str, blob: str | None = None) -> tuple[str, int]:
    """:func:`file_digest` and the number of bytes it covers, from one read; with ``blob``
    ("sha1" or "sha256") the file's git blob id in that object format instead."""
    with os.fdopen(open_regular(path), "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        digest = _start(blob, size)
        data = handle.read(_CHUNK)
        digest.update(data)
        if len(data) == _CHUNK:  # the common case, a small file, is one read
            for block in iter(lambda: handle.read(_CHUNK), b""):
                digest.update(block)
    return digest.hexdigest(), size


def _digest_bytes(data: bytes, blob: str | None) -> tuple[str, int]:
    digest = _start(blob, len(data))
    digest.update(data)
    return digest.hexdigest(), len(data)


def file_digests(folder: Path, *, blob: str | None = None) -> dict[str, str]:
    """``{relative POSIX path: sha256 hex}`` for every file that counts, links not followed;
    with ``blob`` ("sha1" or "sha256"), each file's git blob id in that object format."""
    return {rel: digest for rel, (digest, _) in file_manifest(folder, blob=blob).items()}


def file_manifest(
    folder: Path, *, blob: str | None = None, within: Callable[[int, int], None] | None = None
) -> dict[str, tuple[str, int]]:
    """``{relative POSIX path: (sha256 hex, size)}``: :func:`file_digests` with the number of
    bytes each digest covers, taken in the same read (a link: its target text). A manifest
    that publishes both (the MCP Skills extension's) then says exactly what the lock pins.

    ``within`` is called with the number of files and their total size (from the walk's
    ``stat``, before a byte is read) and may raise: a folder over a reader's limits is refused
    without hashing a 300 MB file first."""
    found = file_entries(folder)
    if within is not None:
        within(len(found), sum(size for _, size in found.values()))
    base = os.fspath(folder)
    return {
        rel: _digest_bytes(link, blob) if link is not None else sized_digest(f"{base}/{rel}", blob)
        for rel, (link, _) in found.items()
    }


def file_entries(folder: Path) -> dict[str, tuple[bytes | None, int]]:
    """``{relative POSIX path: (link target text or None, size)}`` of every file that counts,
    links not followed, nothing read: the walk :func:`file_manifest` hashes (a link's size is
    its target text's; a file's, what ``stat`` says)."""
    found: dict[str, tuple[bytes | None, int]] = {}

    def walk(directory: str, prefix: str) -> None:
        try:
            listing = os.scandir(directory)
        except OSError as exc:
            raise InputFileError(
                f"{directory}: cannot read the folder ({exc.strerror}); it cannot be hashed",
                hint="give yourself access to it (chmod u+rx FOLDER)",
            ) from exc
        with listing as entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_symlink():
                    _named(entry.path, rel)
                    target = os.fsencode(os.readlink(entry.path))
                    found[rel] = (target, len(target))
                elif entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS:
                        walk(entry.path, rel + "/")
                elif not entry.is_file(follow_symlinks=False):
                    kind = special_kind(entry.stat(follow_symlinks=False).st_mode)
                    raise UnsafePath(
                        f"{entry.path}: is {kind}, not a regular file; it cannot be hashed",
                        hint="remove it from the skill folder",
                    )
                elif not is_skipped_file(entry.name):
                    _named(entry.path, rel)
                    found[rel] = (None, entry.stat(follow_symlinks=False).st_size)

    walk(os.fspath(folder), "")
    return found


def _named(path: str, rel: str) -> None:
    if "\n" in rel:
        raise OperationFailed(
            f"{path}: file names with a newline cannot be hashed", hint="rename the file"
        )


def hash_digests(digests: dict[str, str]) -> str:
    """The ``h1:`` hash of a ``{path: sha256 hex}`` mapping (paths sorted as strings)."""
    summary = hashlib.sha256()
    for path in sorted(digests):
        summary.update(f"{digests[path]}  {path}\n".encode("utf-8", "surrogateescape"))
    return "h1:" + base64.b64encode(summary.digest()).decode("ascii")


def content_hash(folder: Path) -> str:
    """The ``h1:`` content hash of ``folder``."""
    return hash_digests(file_digests(folder))
