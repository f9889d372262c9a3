"""Where an import reads from: a folder, a ``.skill``/``.zip`` archive, or a git repository.

:func:`open_source` turns what the user typed into a local folder to read (archives are
unpacked into a temporary folder that is removed afterwards) plus the facts a re-import needs,
which the lock keeps under ``upstream``: the kind, the URL or absolute path, the path inside it,
the ref and the resolved commit.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from exobrain.errors import OperationFailed, UsageError
from exobrain.util.archive import extract, is_archive
from exobrain.util.git import Git

FOLDER, ARCHIVE, GIT = "folder", "archive", "git"
#: The ``url`` a lock records for a local source (:mod:`exobrain.interop.localsources`).
LOCAL = "local"
_GIT_URL = re.compile(r"^(https://|ssh://|git@[^:/]+:|file://)")
_SHORTHAND = re.compile(
    r"^(?P<owner>[A-Za-z0-9][\w.-]*)/(?P<repo>[\w.-]+)"
    r"(?P<path>(?:/[^@\s]+)?)(?:@(?P<ref>[^@\s]+))?\Z"
)


@dataclass(frozen=True)
class Opened:
    """A source made local: read ``root``; ``path`` is where ``root`` sits inside the source."""

    kind: str
    url: str
    root: Path
    path: str = ""
    ref: str | None = None
    commit: str | None = None
    note: str | None = None  # what the person should know of how the source is recorded

    def where(self, rel: str) -> str:
        """The path of a skill inside the source (for the lock's upstream record)."""
        return "/".join(p for p in (self.path, rel) if p)

    @property
    def local(self) -> bool:
        """Whether this source is on this machine's file system (:func:`is_local`)."""
        return is_local(self.kind, self.url)

    def display(self, rel: str) -> str:
        """A one-line address of a skill for ``source_url``; of a local source, a label that
        names no place on this machine (``local:notes/skills/tidy``)."""
        where = self.where(rel)
        if self.local:
            name = PurePosixPath(self.url.replace("\\", "/").rstrip("/")).name
            return f"{LOCAL}:" + "/".join(p for p in (name, where) if p)
        github = re.match(r"^https://github\.com/([^/]+/[^/]+?)(?:\.git)?/?\Z", self.url)
        if github:
            tree = f"https://github.com/{github.group(1)}/tree/{self.ref or 'HEAD'}"
            return f"{tree}/{where}".rstrip("/")
        return self.url + (f"#{where}" if where else "") + (f"@{self.ref}" if self.ref else "")


def is_local(kind: object, url: object) -> bool:
    """Whether an upstream of ``kind`` at ``url`` is on this machine's file system: a folder,
    an archive, or a git repository named by a path or a ``file://`` URL (as the fetcher
    tells them apart)."""
    from exobrain.fetch.remote import SourceRefused, check_repo

    if kind in (FOLDER, ARCHIVE) or url == LOCAL:
        return True
    if kind != GIT or not isinstance(url, str):
        return False
    try:
        return check_repo(url, allow_local=True, root=Path("/"))[1]
    except SourceRefused:
        return False  # not a source at all: opening it refuses it


def classify(
    text: str, *, path: str | None = None, ref: str | None = None
) -> tuple[str, str, str, str | None]:
    """(kind, url or absolute path, path inside, ref) for a SOURCE argument."""
    local = Path(text).expanduser()
    if local.exists():
        if path is not None or ref is not None:
            raise UsageError(
                f"{text}: --path and --ref are for git sources; point SOURCE at "
                f"the folder you mean instead"
            )
        if local.is_dir():
            return FOLDER, str(local.resolve()), "", None
        if is_archive(local):
            return ARCHIVE, str(local.resolve()), "", None
        raise UsageError(f"{text}: neither a folder nor a .skill/.zip archive")
    if _GIT_URL.match(text):
        return GIT, text, (path or "").strip("/"), ref
    shorthand = _SHORTHAND.match(text)
    if shorthand and not text.startswith((".", "/", "~")):
        if path is not None or (ref is not None and shorthand.group("ref")):
            raise UsageError(
                f"{text}: give the path and ref either in the shorthand "
                f"(owner/repo/path@ref) or with --path/--ref, not both"
            )
        return (
            GIT,
            f"https://github.com/{shorthand.group('owner')}/{shorthand.group('repo')}",
            shorthand.group("path").strip("/"),
            ref or shorthand.group("ref"),
        )
    raise UsageError(
        f"{text}: no such folder or archive, and not a git URL",
        hint="give a skill folder, a bundle folder, a .skill/.zip file, a git URL "
        "(https://, ssh://, git@host:, file://) or owner/repo[/path][@ref]",
    )


def is_shorthand(text: str) -> bool:
    """True when ``text`` would be read as GitHub's owner/repo shorthand."""
    return (
        not Path(text).expanduser().exists()
        and not _GIT_URL.match(text)
        and bool(_SHORTHAND.match(text))
        and not text.startswith((".", "/", "~"))
    )


def folder_commit(folder: Path) -> str | None:
    """The HEAD commit of the git work tree holding ``folder``, when there is one."""
    probe = folder
    while not (probe / ".git").exists():
        if probe.parent == probe:
            return None
        probe = probe.parent
    try:
        head = Git(timeout=10).text(
            ["rev-parse", "--verify", "-q", "HEAD"], cwd=folder, check=False
        )
    except OperationFailed:
        return None
    return head.strip() or None


def _local_folder(url: str, folder: Path, path: str) -> Opened:
    """A local folder as a source, recorded so that it travels: inside a git checkout whose
    ``origin`` is a shared repository and with nothing uncommitted below the folder, as that
    repository at the checkout's commit (a colleague's ``import --update`` fetches it from
    there); else as the folder, a local source (the lock names no place of this machine), with
    a note saying so."""
    origin = checkout_origin(folder)
    if origin is not None:
        remote, inside, head = origin
        return Opened(GIT, remote, folder, inside, None, head)
    commit = folder_commit(folder)
    why = "has uncommitted changes or no shared git remote" if commit else "is not in git"
    note = (
        f"{url} {why}: a local source, which the lock does not name (only this machine "
        f"remembers it, for import --update); to let a colleague update it, push it to a "
        f"repository and import from there"
    )
    return Opened(FOLDER, url, folder, path, None, commit, note)


def checkout_origin(folder: Path) -> tuple[str, str, str] | None:
    """(the ``origin`` remote's URL, the folder's path inside the checkout, the commit) of a
    folder in a clean git checkout whose origin another machine can reach (not a local path
    or ``file://``); None otherwise."""
    git = Git(timeout=10)
    try:
        top = git.text(["rev-parse", "--show-toplevel"], cwd=folder, check=False).strip()
        if not top:
            return None
        remote = git.text(["config", "--get", "remote.origin.url"], cwd=folder, check=False)
        commit = git.text(["rev-parse", "--verify", "-q", "HEAD"], cwd=folder, check=False)
        dirty = git.text(["status", "--porcelain", "--", "."], cwd=folder, check=False)
    except OperationFailed:
        return None
    remote, commit = remote.strip(), commit.strip()
    if not remote or not commit or dirty.strip() or not _GIT_URL.match(remote):
        return None
    if remote.startswith("file:"):
        return None
    inside = folder.resolve().relative_to(Path(top).resolve()).as_posix()
    return remote, "" if inside == "." else inside, commit


@contextmanager
def open_source(
    kind: str,
    url: str,
    path: str = "",
    ref: str | None = None,
    *,
    root: Path,
    allow_local: bool | None = None,
) -> Iterator[Opened]:
    """Make a classified source readable; temporary folders are removed on exit.
    ``allow_local`` (None: the ``.exobrain.json`` setting) lets git read file:// URLs."""
    if kind == FOLDER:
        folder = Path(url) / path if path else Path(url)
        if not folder.is_dir():
            raise OperationFailed(
                f"the upstream folder {folder} does not exist on this machine",
                hint="the local copy is kept as it is",
            )
        yield _local_folder(url, folder, path)
    elif kind == ARCHIVE:
        archive = Path(url)
        if not archive.is_file():
            raise OperationFailed(
                f"the upstream archive {archive} does not exist on this machine",
                hint="the local copy is kept as it is",
            )
        temp = Path(tempfile.mkdtemp(prefix="exobrain-import-"))
        try:
            stem = archive.name.rsplit(".", 1)[0] or "skill"
            unpacked = temp / stem
            unpacked.mkdir()
            extract(archive, unpacked)
            folder = unpacked / path if path else unpacked
            if not folder.is_dir():
                raise OperationFailed(
                    f"the upstream archive {archive} holds no folder {path} any more",
                    hint="the local copy is kept as it is",
                )
            yield Opened(ARCHIVE, url, folder, path, None, None)
        finally:
            shutil.rmtree(temp, ignore_errors=True)
    elif kind == GIT:
        with _open_git(url, path, ref, root=root, allow_local=allow_local) as opened:
            yield opened
    else:
        raise UsageError(
            f"unknown source kind {kind!r} in the upstream record",
            hint="re-import the skill from its source",
        )


@contextmanager
def _open_git(
    url: str, path: str, ref: str | None, *, root: Path, allow_local: bool | None = None
) -> Iterator[Opened]:
    """Materialise ``path`` of ``url`` at ``ref`` (default HEAD) into a temporary folder,
    through the fetcher's checks and its cached partial clone (an import from a repository the
    fetcher already knows costs no second clone)."""
    from exobrain.fetch.materialise import materialise
    from exobrain.fetch.plan import fetch_settings
    from exobrain.fetch.remote import check_path, check_ref, check_repo, is_full_sha
    from exobrain.fetch.repocache import RepoCache, pick_ref
    from exobrain.paths import user_cache_dir
    from exobrain.scopes import read_connection

    settings = fetch_settings(read_connection(root))
    allow = settings.allow_local if allow_local is None else allow_local
    git_url, _ = check_repo(url, allow_local=allow, root=root)
    inside = check_path(path or ".")
    wanted = check_ref(ref or "HEAD")
    cache = RepoCache(Git(allow_file=allow), user_cache_dir(), git_url)
    if is_full_sha(wanted):
        commit = wanted
    else:
        info = pick_ref(cache.ls_remote([wanted]), wanted)
        if info is None:
            raise OperationFailed(
                f"{url} has no branch or tag {wanted!r}",
                hint="use a branch, a tag or a full commit id with --ref",
            )
        commit = info.commit
    temp = Path(tempfile.mkdtemp(prefix="exobrain-import-"))
    try:
        name = (
            PurePosixPath(inside).name
            if inside != "."
            else PurePosixPath(url.rstrip("/")).name.removesuffix(".git") or "skill"
        )
        folder = temp / name
        folder.mkdir()
        with cache.locked():
            cache.ensure_commit(commit)
            tree = cache.tree_at(commit, inside)
            cache.ensure_complete(tree, settings.max_bytes)
            materialise(cache, tree, folder, settings.max_bytes)
        yield Opened(GIT, url, folder, "" if inside == "." else inside, ref, commit)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
