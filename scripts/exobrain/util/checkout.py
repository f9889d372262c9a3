"""What of the repository is on disk: a full checkout, or a sparse one that leaves folders out.

A big exobrain is cloned the way large monorepos are: ``git clone --filter=blob:none
--sparse`` and a cone-mode sparse checkout of the connection's folders (``exobrain sparse``).
Then a registry or a SKILL.md missing from the disk may simply lie outside the cone, and
what needs the whole repository reads it from git's objects instead
(:mod:`exobrain.sparse.committed`). This module tells the two cases apart.

Cone mode (what ``git sparse-checkout set --cone`` writes and ``exobrain sparse`` uses) holds
every file at the root, every file below a listed folder, and the files directly inside each
ancestor of a listed folder. In the older pattern mode nothing so simple holds, so a file is
taken as checked out exactly when it is on disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.errors import UsageError
from exobrain.util.git import Git

#: What ``git config --get-regexp`` is asked for: the sparse checkout and partial clone keys.
_KEYS = (
    r"^(core\.sparsecheckout|core\.sparsecheckoutcone|extensions\.partialclone"
    r"|remote\..+\.promisor|index\.sparse)$"
)


@dataclass(frozen=True)
class Checkout:
    """How much of the repository at ``root`` the working tree holds."""

    root: Path
    sparse: bool = False
    cone: tuple[str, ...] | None = None  # cone-mode folders; None: full or pattern mode
    partial: bool = False  # a partial clone: blobs outside the checkout may be absent
    sparse_index: bool = False  # the index holds folders outside the cone as one entry
    _recursive: frozenset[str] = field(default=frozenset(), repr=False)
    _parents: frozenset[str] = field(default=frozenset(), repr=False)

    def holds(self, rel: str) -> bool:
        """Whether the file at ``rel`` (POSIX, relative to the root) belongs to the checkout,
        present or not; outside it, git's objects are the only copy."""
        if not self.sparse:
            return True
        if self.cone is None:
            return os.path.lexists(self.root / rel)
        folder = rel.rpartition("/")[0]
        return not folder or folder in self._parents or self._below_cone(folder)

    def touches(self, folder: str) -> bool:
        """Whether anything below the folder ``rel`` belongs to the checkout (pattern mode: it
        may, so yes)."""
        if not self.sparse or self.cone is None:
            return True
        return folder in self._recursive or folder in self._parents or self.holds_folder(folder)

    def holds_folder(self, rel: str) -> bool:
        """Whether everything below the folder ``rel`` belongs to the checkout."""
        if not self.sparse:
            return True
        return self.cone is not None and self._below_cone(rel)

    def _below_cone(self, folder: str) -> bool:
        """Whether ``folder`` is a folder of the cone or lies below one."""
        probe = folder
        while probe:
            if probe in self._recursive:
                return True
            probe = probe.rpartition("/")[0]
        return False


def cone_checkout(
    root: Path, folders: list[str], *, partial: bool = False, sparse_index: bool = False
) -> Checkout:
    """A cone-mode checkout of ``folders`` (what ``git sparse-checkout list`` prints)."""
    cone = tuple(sorted({f.strip("/") for f in folders if f.strip("/")}))
    parents = {f.rsplit("/", n)[0] for f in cone for n in range(1, f.count("/") + 1)}
    return Checkout(root, True, cone, partial, sparse_index, frozenset(cone), frozenset(parents))


def read_checkout(root: Path, git: Git | None = None) -> Checkout:
    """The checkout at ``root`` as git's configuration describes it (two quick git calls when
    it is sparse, one otherwise; outside a repository: a full checkout)."""
    git = git or Git(own_env=True)
    done = git.run(["config", "-z", "--get-regexp", _KEYS], cwd=root, check=False)
    settings: dict[str, str] = {}
    for record in done.stdout.decode("utf-8", "replace").split("\0"):
        key, _, value = record.partition("\n")
        if key:
            settings[key.lower()] = value.strip().lower()
    partial = bool(settings.get("extensions.partialclone")) or any(
        key.endswith(".promisor") and value == "true" for key, value in settings.items()
    )
    if settings.get("core.sparsecheckout") != "true":
        return Checkout(root, partial=partial)
    if settings.get("core.sparsecheckoutcone") != "true":
        return Checkout(root, True, partial=partial)
    listed = git.run(["sparse-checkout", "list"], cwd=root, check=False)
    folders = listed.stdout.decode("utf-8", "surrogateescape").splitlines()
    sparse_index = settings.get("index.sparse") == "true"
    return cone_checkout(root, folders, partial=partial, sparse_index=sparse_index)


def refuse_outside(root: Path, path: Path) -> None:
    """Stop a writer about to create ``path`` in a folder the sparse checkout leaves out: git
    would not see the new file there (nor ``git add`` it), so the change would be lost."""
    if os.path.lexists(path):
        return
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return
    checkout = read_checkout(root)
    if checkout.sparse and not checkout.holds(rel):
        folder = rel.rpartition("/")[0] or "."
        raise UsageError(
            f"{rel} is outside the sparse checkout (its folder {folder} is not on disk), so "
            f"nothing was written",
            hint=f"git sparse-checkout add {folder}, then run again",
        )
