"""``.skill`` / ``.zip`` archives: safe extraction for import, reproducible writing for export.

Extraction refuses what could write outside the target folder (absolute names, ``..``) and
links that leave it, and caps the unpacked size and entry count so a hostile archive cannot
fill the disk. Written archives are reproducible: entries sorted, fixed timestamps, so the same
skills give the same bytes.
"""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from exobrain.errors import InputFileError
from exobrain.util.treecopy import link_escapes

MAX_BYTES = 1 << 30
MAX_ENTRIES = 100_000
_EPOCH = (1980, 1, 1, 0, 0, 0)


def is_archive(path: Path) -> bool:
    return path.is_file() and (
        path.suffix.lower() in (".skill", ".zip") or zipfile.is_zipfile(path)
    )


def _safe_name(name: str) -> str | None:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not parts or name.startswith("/") or ".." in parts or ":" in parts[0]:
        return None
    return "/".join(p for p in parts if p != ".")


def extract(archive: Path, dest: Path) -> None:
    """Unpack ``archive`` into the existing folder ``dest``."""
    try:
        handle = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputFileError(f"{archive}: not a readable zip archive ({exc})") from exc
    with handle:
        infos = handle.infolist()
        if len(infos) > MAX_ENTRIES or sum(i.file_size for i in infos) > MAX_BYTES:
            raise InputFileError(
                f"{archive}: more than {MAX_ENTRIES} entries or "
                f"{MAX_BYTES >> 20} MB unpacked; refusing to extract it"
            )
        for info in infos:
            name = _safe_name(info.filename)
            if name is None:
                raise InputFileError(
                    f"{archive}: entry {info.filename!r} would land outside "
                    f"the extraction folder; refusing the archive"
                )
            if not name:
                continue
            target = dest / name
            mode = info.external_attr >> 16
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if stat.S_ISLNK(mode):
                link = handle.read(info).decode("utf-8", "surrogateescape")
                if link_escapes(name, link):
                    raise InputFileError(
                        f"{archive}: {name} is a link to {link!r}, outside "
                        f"the archive; refusing the archive"
                    )
                os.symlink(link, target)
                continue
            with handle.open(info) as src, open(target, "wb") as dst:
                while block := src.read(1 << 20):
                    dst.write(block)
            if mode & 0o111:
                os.chmod(target, 0o755)


#: One archive member: (name in the archive, file to copy, or text, or a link target).
Member = tuple[str, "str | None", "str | None", "str | None"]


def write_zip(dest: Path, members: Iterable[Member]) -> None:
    """Write ``members`` (sorted by name) into the new archive ``dest``: files streamed from
    disk, texts encoded as UTF-8, links as link entries."""
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as handle:
        for name, path, text, link in sorted(members, key=lambda m: m[0]):
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.create_system = 3  # unix, so the mode bits below are honoured
            info.compress_type = zipfile.ZIP_DEFLATED
            if link is not None:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                handle.writestr(info, link)
                continue
            executable = path is not None and os.stat(path).st_mode & 0o111
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            if text is not None:
                handle.writestr(info, text.encode("utf-8"))
                continue
            assert path is not None
            with open(path, "rb") as src, handle.open(info, "w") as dst:
                while block := src.read(1 << 20):
                    dst.write(block)
