"""``.skill`` / ``.zip`` archives: safe extraction for import, reproducible writing for export.

An archive comes from anywhere, so extraction trusts none of it. Before anything is written it
refuses absolute names and ``..``, a name that appears twice (a link then a file of the same
name would write through the link), any entry whose path passes through a link entry or a
file entry, and an archive over the size or entry cap (a hostile archive cannot fill the
disk). Then folders and files are written (files created exclusively, never through a link),
links last; and each link is finally resolved against the extracted tree as it stands
(:func:`exobrain.util.confine.leaves`), so ``p -> .`` plus ``r -> p/p/../..`` — both harmless
as text — is refused because ``r`` reaches outside. Written archives are reproducible: entries
sorted, fixed timestamps, so the same skills give the same bytes.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from exobrain.errors import InputFileError
from exobrain.util.confine import leaves
from exobrain.util.fileio import open_regular

MAX_BYTES = 1 << 30
MAX_ENTRIES = 100_000
_EPOCH = (1980, 1, 1, 0, 0, 0)
_LINK_MAX = 4096


def is_archive(path: Path) -> bool:
    return path.is_file() and (
        path.suffix.lower() in (".skill", ".zip") or zipfile.is_zipfile(path)
    )


def _safe_name(name: str) -> str | None:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if not parts or name.startswith("/") or ".." in parts or ":" in parts[0]:
        return None
    return "/".join(p for p in parts if p != ".")


def _refuse(archive: Path, why: str) -> InputFileError:
    return InputFileError(f"{archive}: {why}; refusing the archive, nothing was kept")


def _plan(archive: Path, infos: list[zipfile.ZipInfo]) -> list[tuple[str, str, zipfile.ZipInfo]]:
    """``(name, kind, info)`` per entry (kind: dir, link or file), every name checked."""
    if len(infos) > MAX_ENTRIES or sum(i.file_size for i in infos) > MAX_BYTES:
        raise _refuse(archive, f"more than {MAX_ENTRIES} entries or {MAX_BYTES >> 20} MB unpacked")
    planned: list[tuple[str, str, zipfile.ZipInfo]] = []
    kinds: dict[str, str] = {}
    for info in infos:
        name = _safe_name(info.filename)
        if name is None:
            raise _refuse(
                archive, f"entry {info.filename!r} would land outside the extraction folder"
            )
        if not name:
            continue
        mode = info.external_attr >> 16
        kind = "dir" if info.is_dir() else "link" if stat.S_ISLNK(mode) else "file"
        if name in kinds:
            raise _refuse(archive, f"entry {name!r} appears twice")
        kinds[name] = kind
        planned.append((name, kind, info))
    for name, _, _ in planned:
        parts = name.split("/")
        for depth in range(1, len(parts)):
            above = "/".join(parts[:depth])
            if kinds.get(above, "dir") != "dir":
                raise _refuse(archive, f"entry {name!r} passes through {above!r}, a {kinds[above]}")
    return planned


#: What reading a damaged member raises: a checksum that does not match, data cut short,
#: compressed data that does not decompress, a method or a password zipfile cannot handle.
_DAMAGE = (
    zipfile.BadZipFile,
    EOFError,
    zlib.error,
    RuntimeError,
    NotImplementedError,
    ValueError,
    OSError,
)


def _damage(exc: BaseException) -> str:
    """What a reading error says about the archive, in a user's words."""
    if isinstance(exc, EOFError):
        return "its data is cut short (the archive is truncated)"
    if isinstance(exc, zipfile.BadZipFile) and "CRC" in str(exc):
        return "its checksum does not match its data (the archive is damaged)"
    if isinstance(exc, zlib.error):
        return f"its compressed data is damaged ({exc})"
    return f"it cannot be read ({exc or type(exc).__name__})"


def extract(archive: Path, dest: Path) -> None:
    """Unpack ``archive`` into the existing empty folder ``dest`` (see the module docstring).
    A damaged archive — a member whose checksum, data or compression is bad, an encrypted
    one — is refused with the member and what is wrong. On refusal, whatever was written
    stays in ``dest`` for the caller to remove."""
    with os.fdopen(open_regular(archive), "rb") as raw:
        try:
            handle = zipfile.ZipFile(raw)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise InputFileError(f"{archive}: not a readable zip archive ({exc})") from exc
        with handle:
            _extract(archive, handle, dest)


def _extract(archive: Path, handle: zipfile.ZipFile, dest: Path) -> None:
    """Folders and files first (no link exists yet to write through), links last, then
    every link resolved against the finished tree."""
    planned = _plan(archive, handle.infolist())
    links: list[tuple[str, str]] = []
    for name, kind, info in planned:
        target = dest / name
        if kind == "dir":
            target.mkdir(parents=True, exist_ok=True)
        elif kind == "link":
            if info.file_size > _LINK_MAX:
                raise _refuse(archive, f"{name} is a link with an implausible target")
            links.append((name, _read_member(archive, handle, info, name)))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            _copy_member(archive, handle, info, name, target)
            if (info.external_attr >> 16) & 0o111:
                os.chmod(target, 0o755)
    for name, text in links:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(text, dest / name)
    for name, text in links:
        if leaves(dest, dest / name):
            raise _refuse(archive, f"{name} is a link to {text!r}, which leads outside it")


def _readable(archive: Path, info: zipfile.ZipInfo, name: str) -> None:
    """Refuse a member zipfile could only fail on: encrypted, or compressed in a way it (or
    this Python) does not decompress."""
    if info.flag_bits & 0x1:
        raise _refuse(archive, f"entry {name!r} is encrypted (it needs a password)")
    if info.compress_type not in _methods():
        raise _refuse(
            archive,
            f"entry {name!r} is compressed with method {info.compress_type}, "
            "which cannot be read here (stored, deflate, bzip2 and lzma can)",
        )


def _methods() -> set[int]:
    """The compression methods this Python decompresses."""
    found = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
    for method, module in ((zipfile.ZIP_BZIP2, "bz2"), (zipfile.ZIP_LZMA, "lzma")):
        if importlib.util.find_spec(module) is not None:
            found.add(method)
    return found


def _read_member(archive: Path, handle: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> str:
    """A small member's text (a link's target)."""
    _readable(archive, info, name)
    try:
        return handle.read(info).decode("utf-8", "surrogateescape")
    except _DAMAGE as exc:
        raise _refuse(archive, f"entry {name!r}: {_damage(exc)}") from exc


def _copy_member(
    archive: Path, handle: zipfile.ZipFile, info: zipfile.ZipInfo, name: str, target: Path
) -> None:
    """Write a member into the new file ``target`` (created exclusively, never through a
    link), block by block; a member that turns out damaged refuses the archive."""
    _readable(archive, info, name)
    try:
        src = handle.open(info)
    except _DAMAGE as exc:
        raise _refuse(archive, f"entry {name!r}: {_damage(exc)}") from exc
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with src, os.fdopen(os.open(target, flags, 0o644), "wb") as dst:
        while True:
            try:
                block = src.read(1 << 20)
            except _DAMAGE as exc:
                raise _refuse(archive, f"entry {name!r}: {_damage(exc)}") from exc
            if not block:
                break
            dst.write(block)


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
            with os.fdopen(open_regular(path), "rb") as src, handle.open(info, "w") as dst:
                while block := src.read(1 << 20):
                    dst.write(block)
