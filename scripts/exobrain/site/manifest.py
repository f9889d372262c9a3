"""The site's manifest: what ``exobrain site`` wrote into a folder, so a rebuild touches only that.

A site folder is often more than the site: a ``gh-pages`` checkout holds ``.git/`` and a
``CNAME``, a web root holds files of the host. So the builder never replaces the folder. It
keeps a manifest, ``DIR/.exobrain-site``, listing every file it wrote with its sha256::

    {"manifest_version": 1, "generator": "exobrain site",
     "files": {"index.html": "<sha256 hex>", "assets/site.css": "<sha256 hex>", …}}

and a rebuild (:func:`install`) moves each new file into place (one ``rename`` per file, from a
staging folder inside ``DIR``), removes a file of the previous manifest that the new build no
longer writes only while its content is still what was written (an edited one is kept, and
said so), and leaves everything else as it is, naming what it kept.

The manifest is read as untrusted input (:func:`previous_files`): a file that is not our
manifest, or one claiming a path outside ``DIR`` (absolute, ``..``, through a link that
leaves, or inside a ``.git`` folder) or a path no build writes (a ``CNAME`` listed with its
real digest: :data:`BUILT`), is refused before anything changes, so a committed or forged
marker can never turn a build into a deletion. A non-empty folder without a manifest
is refused too; ``--force`` writes the site there anyway, adding and overwriting files only.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError, UsageError
from exobrain.site.layout import ASSET_FILES
from exobrain.util.confine import UnsafePath, resolve_inside
from exobrain.util.dirhash import file_digest
from exobrain.util.fileio import atomic_write_text, dump_json, make_folders, parse_json, read_text
from exobrain.util.staging import TMP_PREFIX, clean_leftovers
from exobrain.util.terminal import safe_line

MARKER = ".exobrain-site"
MANIFEST_VERSION = 1
GENERATOR = "exobrain site"
#: Shown with every refusal: the two ways on.
FIX = (
    "build into a new or empty folder, or add --force to write the site over this folder "
    "(files are added and overwritten, nothing is deleted)"
)
#: Why a path of the folder that no manifest lists was kept.
NOT_OURS = "not written by exobrain site"
_HEX = frozenset("0123456789abcdef")
_SHOWN = 5


@dataclass(frozen=True)
class Kept:
    """A path of the folder the build left alone, and why."""

    path: str
    why: str


@dataclass
class SiteUpdate:
    """What a build did to its folder: files written (sorted, the manifest not listed), files
    of the previous build removed, and what it kept."""

    files: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)

    def foreign(self) -> list[str]:
        """The kept paths the build never wrote."""
        return [k.path for k in self.kept if k.why == NOT_OURS]

    def edited(self) -> list[str]:
        """The kept paths of the previous build, left because they changed since."""
        return [k.path for k in self.kept if k.why != NOT_OURS]

    def as_json(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "removed": self.removed,
            "kept": [{"path": k.path, "why": k.why} for k in self.kept],
        }


def shown_paths(paths: list[str]) -> str:
    """A few paths for one line of a message (``a, b, c (and 4 more)``), each sanitised."""
    listed = ", ".join(safe_line(p) for p in paths[:_SHOWN])
    return listed + (f" (and {len(paths) - _SHOWN} more)" if len(paths) > _SHOWN else "")


def _refused(marker: Path, why: str) -> UsageError:
    return UsageError(f"{marker}: {why}; nothing was changed", hint=FIX)


#: The shape of every path a build writes (:mod:`exobrain.site.layout`): the pages, the
#: search index, the assets, and what the discovery index serves. A manifest claiming
#: anything else (a ``CNAME``, a host's ``.htaccess`` or its own ``assets/logo.png``) was not
#: written by a build, so it is refused rather than trusted with a deletion.
BUILT = re.compile(
    r"(?:index\.html|scopes\.html|search-index\.js"
    rf"|assets/(?:{'|'.join(re.escape(name) for name in ASSET_FILES)})"
    r"|scopes/[^/]+\.html|skills/[^/]+/[^/]+\.html"
    r"|\.well-known/agent-skills/(?:index\.json|[^/]+\.zip|[^/]+/SKILL\.md))"
)


def _claim_problem(rel: Any) -> str | None:
    """Why ``rel`` cannot be a file this builder wrote (None: it can)."""
    if not isinstance(rel, str) or not rel:
        return "an empty or non-text path"
    if rel.startswith("/") or "\\" in rel or "\0" in rel:
        return "an absolute path or one with a backslash or NUL"
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "a path with an empty, '.' or '..' part"
    if ".git" in parts or rel == MARKER or parts[0].startswith(TMP_PREFIX):
        return "a path the builder never writes"
    if not BUILT.fullmatch(rel):
        return "a path the builder never writes"
    return None


def previous_files(out_dir: Path, *, force: bool = False) -> dict[str, str]:
    """The files (path → sha256) the previous build listed in ``out_dir``'s manifest; {} for
    a new or empty folder, or with ``force`` when there is no valid manifest.

    Refused (:class:`UsageError`, nothing changed): ``out_dir`` not a folder; a non-empty
    folder without a manifest (unless ``force``); a manifest that is not ours or claims a path
    outside ``out_dir`` (unless ``force``, which then ignores its claims).
    """
    if not os.path.lexists(out_dir):
        return {}
    if out_dir.is_symlink() or not out_dir.is_dir():
        raise UsageError(
            f"{out_dir} exists and is not a folder", hint="choose a new or empty folder with -o"
        )
    marker = out_dir / MARKER
    if not os.path.lexists(marker):
        leftovers = {e.name for e in os.scandir(out_dir) if e.name.startswith(TMP_PREFIX)}
        if force or not any(e.name not in leftovers for e in os.scandir(out_dir)):
            return {}
        raise UsageError(
            f"{out_dir} is not empty and holds no {MARKER} manifest of an earlier build; "
            "nothing was changed",
            hint=FIX,
        )
    try:
        return _read_manifest(out_dir, marker)
    except UsageError:
        if force:
            return {}
        raise


def _read_manifest(out_dir: Path, marker: Path) -> dict[str, str]:
    info = os.lstat(marker)
    if not stat.S_ISREG(info.st_mode):
        raise _refused(marker, "is not a regular file, so not a manifest of exobrain site")
    try:
        data = parse_json(read_text(marker, what="a site manifest"), marker)
    except ExobrainError as exc:
        raise _refused(marker, f"not a manifest of exobrain site ({exc.message})") from exc
    if (
        not isinstance(data, dict)
        or data.get("manifest_version") != MANIFEST_VERSION
        or data.get("generator") != GENERATOR
        or not isinstance(data.get("files"), dict)
    ):
        raise _refused(
            marker,
            f'not a manifest of exobrain site (expected {{"manifest_version": '
            f'{MANIFEST_VERSION}, "generator": "{GENERATOR}", "files": {{…}}}})',
        )
    files: dict[str, str] = {}
    for rel, digest in data["files"].items():
        why = _claim_problem(rel)
        if why is None and not (
            isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX
        ):
            why = "no sha256 of 64 hex digits"
        if why is None:
            try:
                resolve_inside(out_dir, Path(rel))
            except UnsafePath:
                why = "a path that leads outside the folder through a link"
        if why is not None:
            raise _refused(
                marker, f"lists {safe_line(repr(rel))} ({why}): not a file exobrain site wrote"
            )
        files[rel] = digest
    return files


def open_folder(out_dir: Path) -> tuple[Path, bool]:
    """Make ``out_dir`` (inside its parent) if needed and clear what a killed build left in
    it; the folder and whether this call made it."""
    made = not os.path.lexists(out_dir)
    make_folders(out_dir.parent, out_dir)
    clean_leftovers(out_dir)
    return out_dir, made


def staging_folder(out_dir: Path) -> Path:
    """A private folder inside ``out_dir`` to build in: the same file system as the files it
    replaces, so each moves into place with one ``rename``."""
    return Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}site-", dir=out_dir))


def _write_manifest(out_dir: Path, files: dict[str, str]) -> None:
    data = {
        "manifest_version": MANIFEST_VERSION,
        "generator": GENERATOR,
        "files": dict(sorted(files.items())),
    }
    atomic_write_text(out_dir / MARKER, dump_json(data), root=out_dir)


def _check_destinations(
    out_dir: Path, written: dict[str, str], previous: dict[str, str], force: bool
) -> None:
    """Refuse, before anything moves, a new file whose place holds a folder, is reached
    through a link leaving ``out_dir``, or holds a file the previous build did not write
    (unless ``force``)."""
    foreign: list[str] = []
    checked: set[str] = set()
    for rel in sorted(written):
        parent = rel.rpartition("/")[0]
        if parent not in checked:
            resolve_inside(out_dir, Path(parent or "."))  # UnsafePath names the link
            checked.add(parent)
        try:
            info = os.lstat(out_dir / rel)
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            raise UsageError(
                f"{out_dir / rel}: a file of the site goes there, but a folder above it is a "
                "file; nothing was changed",
                hint="move that file away, or build into a new folder",
            ) from None
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(
                f"{out_dir / rel}: is a folder where the site writes a file; nothing was changed",
                hint="move the folder away, or build into a new folder",
            )
        if rel not in previous or not stat.S_ISREG(info.st_mode):
            foreign.append(rel)
    if foreign and not force:
        raise UsageError(
            f"{out_dir}: the site would overwrite {len(foreign)} files it did not write: "
            f"{shown_paths(foreign)}; nothing was changed",
            hint="move them away, build into a new folder, or add --force to overwrite them",
        )


def install(
    out_dir: Path,
    staging: Path,
    written: dict[str, str],
    previous: dict[str, str],
    *,
    force: bool = False,
) -> SiteUpdate:
    """Move the files ``written`` (path → sha256, built in ``staging``) into ``out_dir``,
    remove those of ``previous`` no longer written and unchanged, and list what was kept.

    The manifest first lists both builds' files, so a build killed halfway leaves a manifest
    naming every file it may have written; it lists the new build's only at the end.
    """
    _check_destinations(out_dir, written, previous, force)
    _write_manifest(out_dir, {**previous, **written})
    folders: dict[str, Path] = {}
    for rel in sorted(written):
        parent, _, name = rel.rpartition("/")
        if parent not in folders:
            folders[parent] = make_folders(out_dir, out_dir / parent)
        os.replace(staging / rel, folders[parent] / name)
    update = SiteUpdate(files=sorted(written))
    for rel in sorted(set(previous) - set(written)):
        why = _remove_if_ours(out_dir, rel, previous[rel])
        if why is None:
            update.removed.append(rel)
        elif why:
            update.kept.append(Kept(rel, why))
    _write_manifest(out_dir, written)
    shutil.rmtree(staging, ignore_errors=True)
    stale = {k.path for k in update.kept}
    update.kept += [Kept(p, NOT_OURS) for p in foreign(out_dir, written, stale)]
    return update


def _remove_if_ours(out_dir: Path, rel: str, digest: str) -> str | None:
    """Remove the file ``rel`` the previous build wrote, if it is still that file; None when
    removed, "" when already gone, else why it was kept."""
    path = out_dir / rel
    try:
        resolve_inside(out_dir, path.parent, links=False)
        info = os.lstat(path)
    except UnsafePath:
        return "reached through a symbolic link: not removed"
    except (FileNotFoundError, NotADirectoryError):
        return ""
    if not stat.S_ISREG(info.st_mode):
        return "no longer the file exobrain site wrote: not removed"
    if file_digest(path) != digest:
        return "changed since exobrain site wrote it: not removed"
    path.unlink()
    folder = path.parent
    while folder != out_dir:  # folders the build made and now left empty
        try:
            folder.rmdir()
        except OSError:
            break
        folder = folder.parent
    return None


def foreign(out_dir: Path, ours: dict[str, str], also: set[str]) -> list[str]:
    """The entries of ``out_dir`` that are neither the build's files, its manifest nor in
    ``also``: a folder holding none of them is named once (``.git/``), not walked."""
    inside = {
        "/".join(rel.split("/")[:k]) for rel in (*ours, *also) for k in range(1, rel.count("/") + 1)
    }
    found: list[str] = []

    def walk(directory: Path, prefix: str) -> None:
        with os.scandir(directory) as entries:
            listing = sorted(entries, key=lambda e: e.name)
        for entry in listing:
            rel = prefix + entry.name
            if rel in ours or rel in also or rel == MARKER:
                continue
            if entry.is_dir(follow_symlinks=False):
                if rel in inside:
                    walk(Path(entry.path), rel + "/")
                elif not (prefix == "" and entry.name.startswith(TMP_PREFIX)):
                    found.append(rel + "/")
            else:
                found.append(rel)

    walk(out_dir, "")
    return found
