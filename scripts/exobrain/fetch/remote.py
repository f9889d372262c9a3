"""The ``source`` of an external skill, checked before git ever sees it.

A declaration's ``source: {repo, path, ref}`` comes from a shared registry, so it is untrusted
input handed to git. Only plain transports are accepted (``https://``, ``ssh://``, scp-like
``user@host:path``; ``file://`` and local paths only when allowed), nothing git would read as
an option or as its ``<transport>::<address>`` syntax (``ext::`` runs commands), refs that
are full commit ids or well-formed ref names, and a ``path`` that stays inside the repository.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from exobrain.errors import OperationFailed

_FULL_SHA = re.compile(r"^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})\Z")
_SCP_LIKE = re.compile(r"^[A-Za-z0-9._~+-]+@[A-Za-z0-9][A-Za-z0-9.-]*:(?!/{2})\S+\Z")
_HOST = re.compile(
    r"^(?:https|ssh)://(?:[^@/]*@)?"  # scheme, user
    r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)"  # host
    r"(?::\d*)?(?:/|$)",
    re.IGNORECASE,
)  # port
_BAD_REF_CHARS = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
ALLOWED = "https://, ssh:// or user@host:path (file:// and local paths with --allow-local)"


class SourceRefused(OperationFailed):
    """A declaration's source that the fetcher will not hand to git."""


@dataclass(frozen=True)
class Source:
    """A checked source: ``url`` is what git gets (local paths become ``file://`` URLs)."""

    repo: str
    url: str
    path: str  # POSIX, relative, "." for the repository root
    ref: str
    is_local: bool

    @property
    def pinned(self) -> bool:
        """A full commit id never moves, so it never needs asking the remote."""
        return is_full_sha(self.ref)


def is_full_sha(ref: str) -> bool:
    return bool(_FULL_SHA.match(ref))


def check_source(raw: Mapping[str, object], *, allow_local: bool, root: Path) -> Source:
    """Validate ``raw`` (a declaration's ``source``) or raise :class:`SourceRefused`."""
    repo, path, ref = (raw.get(k) for k in ("repo", "path", "ref"))
    if not (
        isinstance(repo, str)
        and repo
        and isinstance(path, str)
        and path
        and isinstance(ref, str)
        and ref
    ):
        raise SourceRefused("source needs repo, path and ref, each a non-empty string")
    url, is_local = check_repo(repo, allow_local=allow_local, root=root)
    return Source(repo, url, check_path(path), check_ref(ref), is_local)


def check_repo(repo: str, *, allow_local: bool, root: Path) -> tuple[str, bool]:
    """The URL git should use for ``repo`` and whether it is local; refuses the rest."""
    if repo.startswith("-"):
        raise SourceRefused(f"source.repo {repo!r} starts with '-' and would be read as an option")
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in repo):
        raise SourceRefused(f"source.repo {repo!r} contains spaces or control characters")
    if "::" in repo.split("/", 1)[0]:
        raise SourceRefused(
            f"source.repo {repo!r} uses git's <transport>::<address> form "
            f"(ext:: and fd:: can run commands); use {ALLOWED}"
        )
    scheme = repo.split("://", 1)[0].lower() if "://" in repo else ""
    if scheme in ("https", "ssh"):
        if not _HOST.match(repo):
            raise SourceRefused(f"source.repo {repo!r} has no host name")
        return repo, False
    if scheme == "" and _SCP_LIKE.match(repo):
        return repo, False
    if scheme == "file" or (scheme == "" and repo.startswith(("/", "./", "../", "~"))):
        if not allow_local:
            raise SourceRefused(
                f"source.repo {repo!r} is a local repository; local sources are off by default",
                hint="pass --allow-local, or set "
                '"external_skills": {"allow_local": true} in .exobrain.json',
            )
        if scheme == "file":
            return repo, True
        return (root / Path(repo).expanduser()).resolve().as_uri(), True
    raise SourceRefused(f"source.repo {repo!r} is not an accepted URL; use {ALLOWED}")


def check_ref(ref: str) -> str:
    """A full commit id (lower-cased) or a well-formed branch or tag name."""
    if ref.startswith("-"):
        raise SourceRefused(f"source.ref {ref!r} starts with '-' and would be read as an option")
    if is_full_sha(ref):
        return ref.lower()
    parts = ref.split("/")
    if (
        _BAD_REF_CHARS.search(ref)
        or ".." in ref
        or "@{" in ref
        or ref == "@"
        or any(not p or p.startswith(".") or p.endswith(".lock") for p in parts)
        or ref.endswith(".")
    ):
        raise SourceRefused(f"source.ref {ref!r} is not a valid branch, tag or full commit id")
    return ref


def check_path(path: str) -> str:
    """A relative POSIX path inside the repository without '..' ("." is the root)."""
    text = path.rstrip("/") or path
    if text == ".":
        return "."
    parts = text.split("/")
    if text.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise SourceRefused(
            f"source.path {path!r} must be a relative path inside the repository "
            f"without '.', '..' or empty parts"
        )
    if any(p.lower() == ".git" for p in parts) or any(ord(c) < 0x20 for c in text):
        raise SourceRefused(f"source.path {path!r} must not name .git or hold control characters")
    return text
