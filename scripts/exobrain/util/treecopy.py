"""Copying a skill folder while hashing it, in one pass over the bytes.

Import and export both copy whole skill folders and need their content hashes; reading every
file once for the copy and once more for the hash would double the I/O of a 20 MB bundle. The
digests produced here follow :mod:`exobrain.util.dirhash` exactly (same junk rules, symbolic links
hashed by their target text), which the test suite checks.

Symbolic links are copied as links when they stay inside the skill folder, judged by the one
escape rule (:func:`exobrain.util.confine.leaves`: the link followed through the tree as it
stands, not its target read as text); a link that leads outside is refused, and so is anything
that is not a regular file, a folder or a link (a FIFO would hang the copy), so a copied skill
never pulls in outside content.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from exobrain.util.confine import UnsafePath, leaves, special_kind
from exobrain.util.dirhash import SKIPPED_DIRS, is_skipped_file
from exobrain.util.fileio import open_regular

_CHUNK = 1 << 20


def _copy_file(source: str, target: str) -> str:
    digest = hashlib.sha256()
    with os.fdopen(open_regular(source), "rb") as src, open(target, "xb") as dst:
        for block in iter(lambda: src.read(_CHUNK), b""):
            digest.update(block)
            dst.write(block)
        mode = os.fstat(src.fileno()).st_mode
    if mode & 0o111:
        os.chmod(target, 0o755)
    return digest.hexdigest()


def iter_tree(source: Path) -> Iterator[tuple[str, str, str | None]]:
    """``(relative POSIX path, absolute path, link target or None)`` for every file and link
    of a skill folder that counts (junk left out; folders are implied by the paths).
    A link that leads outside the folder, or a special file, raises
    :class:`~exobrain.util.confine.UnsafePath`."""

    def walk(directory: str, prefix: str) -> Iterator[tuple[str, str, str | None]]:
        with os.scandir(directory) as entries:
            listing = list(entries)
        for entry in listing:
            rel = prefix + entry.name
            if "\n" in rel:
                raise UnsafePath(
                    f"{entry.path}: file names with a newline cannot be copied",
                    hint="rename the file",
                )
            if entry.is_symlink():
                link = os.readlink(entry.path)
                if leaves(source, Path(entry.path)):
                    raise UnsafePath(
                        f"{entry.path}: symbolic link to {link!r} leads outside the skill folder",
                        hint="replace the link with the file it points to",
                    )
                yield rel, entry.path, link
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    yield from walk(entry.path, rel + "/")
            elif not entry.is_file(follow_symlinks=False):
                kind = special_kind(entry.stat(follow_symlinks=False).st_mode)
                raise UnsafePath(
                    f"{entry.path}: is {kind}, not a regular file; skills hold only files, "
                    f"folders and links",
                    hint="remove it from the skill folder",
                )
            elif not is_skipped_file(entry.name):
                yield rel, entry.path, None

    yield from walk(os.fspath(source), "")


def copy_tree(
    source: Path, target: Path, *, replace: dict[str, str] | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """Copy ``source`` into the existing empty folder ``target`` (junk left out).

    ``replace`` maps relative paths to new text written instead of the source file (the
    translated SKILL.md). Returns ``(source digests, target digests)`` as
    :func:`exobrain.util.dirhash.file_digests` would compute them.
    """
    replace = replace or {}
    upstream: dict[str, str] = {}
    written: dict[str, str] = {}
    made = {""}
    base = os.fspath(target)
    for rel, path, link in iter_tree(source):
        folder = rel.rpartition("/")[0]
        if folder not in made:
            os.makedirs(os.path.join(base, folder), exist_ok=True)
            made.add(folder)
        dst = os.path.join(base, rel)
        if link is not None:
            upstream[rel] = written[rel] = hashlib.sha256(os.fsencode(link)).hexdigest()
            if rel not in replace:
                os.symlink(link, dst)
        elif rel in replace:
            upstream[rel] = _digest(path)
        else:
            upstream[rel] = written[rel] = _copy_file(path, dst)
    for rel, text in replace.items():
        data = text.encode("utf-8")
        (target / rel).write_bytes(data)
        written[rel] = hashlib.sha256(data).hexdigest()
    return upstream, written


def _digest(path: str) -> str:
    digest = hashlib.sha256()
    with os.fdopen(open_regular(path), "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()
