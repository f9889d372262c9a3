"""Paths that must stay inside a root: resolved one component at a time, links included.

A shared repository is written by many people, so any folder or file in it may be a committed
symbolic link: ``people/alice/skills.json.flock`` pointing at ``~/.bashrc``, ``.claude``
pointing at another project, a skill's ``r -> p/p/../..`` that looks harmless as text but
reaches ``/`` once ``p -> .`` is followed. Checking a link's target as text, or the final
``realpath`` only, misses these; so every path the toolkit writes through, and every link a
skill carries, is resolved here the way the kernel would, one component at a time, and each
step must stay inside the root:

* :func:`resolve_inside` — the real path of a path under a root, or :class:`UnsafePath`
  naming the link that leads out and its target;
* :func:`leaves` — the one escape rule for a link inside a skill folder, and
  :func:`unsafe_entries` / :func:`check_tree` that apply it (with the refusal of FIFOs,
  devices and sockets) to a whole folder: archives, copies, validate, lock, fork, register,
  export and the fetcher all use them.

A component that does not exist yet ends the resolution: the rest is taken as written (a
``..`` after it is still not allowed to climb above the root).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from exobrain.errors import InputFileError

#: As the kernel: a chain of more links than this is a loop.
MAX_LINKS = 40
#: Folder names never part of a skill's content (the dirhash rules leave them out too).
_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})


class UnsafePath(InputFileError):
    """A path that leads outside the folder it must stay in (through a link or ``..``), or a
    file that is not a regular file, a folder or a link where only those may be."""


def _parts(text: str) -> list[str]:
    return [p for p in text.split("/") if p not in ("", ".")]


def _shown(path: str, base: str) -> str:
    return os.path.relpath(path, base) if path == base or path.startswith(base + "/") else path


def _under(path: str, base: str) -> list[str] | None:
    """The components of absolute ``path`` below ``base`` when it starts with them, as text."""
    if path == base:
        return []
    if path.startswith(base.rstrip("/") + "/"):
        return _parts(path[len(base.rstrip("/")) + 1 :])
    return None


def _link_problem(label: str, link: str, target: str, real_root: str, why: str) -> str:
    """``<label>: <link> is a symbolic link to <target>, <why>`` (the link named once when it
    is the path itself)."""
    where = _shown(link, real_root)
    subject = label if where == label else f"{label}: {where}"
    return f"{subject} is a symbolic link to {target}, {why}"


def resolve_inside(root: Path, path: Path, *, links: bool = True) -> Path:
    """The real path of ``path`` (absolute under ``root``, or relative to it), every link on
    the way followed and required to stay inside ``root``.

    ``root`` itself may be a link (where the user keeps a folder is the user's choice); below
    it, a link that leaves is refused. ``links=False`` refuses every link below the root, for
    folders that must be real (the search cache, agent folders). Messages name the path
    relative to the root. Raises :class:`UnsafePath`.
    """
    given = os.path.abspath(root)
    real_root = os.path.realpath(given)
    text = os.fspath(path)
    if os.path.isabs(text):
        rest = _under(text, given)
        if rest is None:
            rest = _under(text, real_root)
        if rest is None:
            raise UnsafePath(f"{text}: not inside {given}")
    else:
        rest = _parts(text)
    label = "/".join(rest) or "."
    pending = list(reversed(rest))
    current = real_root
    hops = 0
    via: tuple[str, str] | None = None  # the last link followed, to name it
    while pending:
        part = pending.pop()
        if part == "..":
            if current == real_root:
                if via is None:
                    raise UnsafePath(f"{label}: climbs above {given} ('..')")
                raise UnsafePath(
                    _link_problem(label, *via, real_root, f"leading outside {given}")
                    + "; refusing to go through it",
                    hint=f"remove the link {via[0]} (or make it point inside), then rerun",
                )
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        try:
            info = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            current = candidate  # not there yet: the rest is as written
            continue
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        target = os.readlink(candidate)
        if not links:
            raise UnsafePath(
                _link_problem(label, candidate, target, real_root, "not a real folder")
                + f"; it must be a real folder inside {given}",
                hint=f"remove the link {candidate} (and make a folder there), then rerun",
            )
        via = (candidate, target)
        hops += 1
        if hops > MAX_LINKS:
            raise UnsafePath(f"{label}: too many levels of symbolic links at {candidate}")
        if os.path.isabs(target):
            inside = _under(target, given)
            if inside is None:
                inside = _under(target, real_root)
            if inside is None:
                raise UnsafePath(
                    _link_problem(label, candidate, target, real_root, f"leading outside {given}")
                    + "; refusing to go through it",
                    hint=f"remove the link {candidate} (or make it point inside), then rerun",
                )
            current = real_root
            pending.extend(reversed(inside))
        else:
            pending.extend(reversed(_parts(target)))
    return Path(current)


def leaves(folder: Path, link: Path) -> bool:
    """Whether the link at ``link`` (inside ``folder``), followed through the tree as it
    stands now, leads outside ``folder`` — the one escape rule for a skill's links."""
    try:
        resolve_inside(folder, link)
    except UnsafePath:
        return True
    return False


def special_kind(mode: int) -> str | None:
    """What a file that is neither a regular file, a folder nor a link is ("a FIFO"…)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "a special file"


def unsafe_entries(folder: Path) -> list[tuple[str, str]]:
    """``(relative POSIX path, why)`` for every entry of a skill folder that must not be
    copied, hashed or shipped: a link leading outside the folder (:func:`leaves`), anything
    that is not a regular file, a folder or a link (a FIFO would hang a reader), and a folder
    that cannot be listed (the skill itself: ``.``).
    Version-control folders are not looked into. Sorted by path."""
    found: list[tuple[str, str]] = []

    def walk(directory: str, prefix: str) -> None:
        try:
            with os.scandir(directory) as entries:
                listing = list(entries)
        except OSError as exc:  # unreadable: what it holds can be neither checked nor copied
            found.append(
                (prefix.rstrip("/") or ".", f"a folder that cannot be read ({exc.strerror})")
            )
            return
        for entry in listing:
            rel = prefix + entry.name
            if entry.is_symlink():
                if leaves(folder, Path(entry.path)):
                    target = os.readlink(entry.path)
                    found.append((rel, f"a symbolic link to {target!r}, leading outside the skill"))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in _SKIPPED_DIRS:
                    walk(entry.path, rel + "/")
            elif not entry.is_file(follow_symlinks=False):
                kind = special_kind(entry.stat(follow_symlinks=False).st_mode)
                found.append((rel, f"{kind}, not a regular file"))

    walk(os.fspath(folder), "")
    return sorted(found)


def check_tree(folder: Path, label: str) -> None:
    """Refuse a skill folder holding anything :func:`unsafe_entries` reports, naming each."""
    found = unsafe_entries(folder)
    if found:
        listed = "; ".join(f"{rel}: {why}" for rel, why in found[:5])
        more = f" (and {len(found) - 5} more)" if len(found) > 5 else ""
        raise UnsafePath(
            f"{label}: {listed}{more}",
            hint="replace each link with the file it points to, and remove special files",
        )
