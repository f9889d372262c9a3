"""What a workspace reads from git's objects because the sparse checkout leaves it out.

In a sparse checkout a file may be missing from the disk only because the checkout leaves it
out; then git's objects hold it (:mod:`exobrain.sparse.committed`), and the workspace reads it from
there: a connected scope, an override's home or a whole-repository scan outside the cone is
still seen, and whatever could not be read is said in one warning line. A file on disk costs
no git call at all, so a command that needs only the chain pays nothing for this.

:class:`SparseView` is that half of a :class:`~exobrain.workspace.Workspace`: which scopes are
read from git, and their registries, skill names and files; the workspace decides when to ask
it (``ws.sparse``).
"""

from __future__ import annotations

import os
from collections.abc import Set
from pathlib import Path
from typing import TYPE_CHECKING

from exobrain.findings import WARNING, Finding
from exobrain.model import GLOBAL, Identity
from exobrain.registry.entries import Registry
from exobrain.scopes import SCOPE_FLAG, Scope, ScopeConfig
from exobrain.skillmd import SKILL_FILE
from exobrain.util.progress import Progress

if TYPE_CHECKING:  # git is imported only by commands that read from it
    from exobrain.sparse.committed import CommittedTree
    from exobrain.sparse.units import CommittedScope
    from exobrain.util.checkout import Checkout

NOT_READ = "not-read"


class SparseView:
    """The scopes and files of one repository that the sparse checkout leaves off the disk,
    read from git's objects (opened on first need; nothing is asked of git before)."""

    def __init__(self, root: Path, config: ScopeConfig, findings: list[Finding]) -> None:
        self.root = root
        self.config = config
        self.findings = findings  # the workspace's: the one NOT_READ warning goes there
        self._checkout: Checkout | None = None
        self._tree: CommittedTree | None = None
        self._listed_scopes: dict[str, CommittedScope] | None = None  # the scan's
        self._left_out: set[str] = set()  # scopes left out, so read from git
        self._listed: dict[str, frozenset[str]] = {}  # without_folder's folder listings
        self._present: dict[str, bool] = {}  # folders, memoised
        #: where reading a big repository from git reports its progress (set by a command)
        self.progress: Progress | None = None
        #: read only these units from git, all else being known (see CommittedTree.only)
        self.only: frozenset[str] | None = None

    def checkout(self) -> Checkout:
        """How much of the repository the working tree holds (asked of git once)."""
        if self._checkout is None:
            from exobrain.util.checkout import read_checkout

            self._checkout = read_checkout(self.root)
        return self._checkout

    def file_left_out(self, rel: str) -> bool:
        """Whether the file at ``rel`` is off the disk because the sparse checkout leaves it
        out (git's objects then hold it). Free when the file is on disk."""
        if os.path.lexists(self.root / rel):
            return False
        checkout = self.checkout()
        return checkout.sparse and not checkout.holds(rel)

    def committed(self) -> CommittedTree:
        """The repository as committed at HEAD (opened once; :mod:`exobrain.sparse.committed`)."""
        if self._tree is None:
            from exobrain.sparse.committed import CommittedTree

            self._tree = CommittedTree(
                self.root, self.config, self.checkout(), self._report, only=self.only
            )
        return self._tree

    def _report(self, stage: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(stage, done, total)

    def scope(self, path: str) -> Scope | None:
        """The committed scope at ``path`` when the checkout leaves its folder out (then it is
        read from git from now on); None when the folder is not left out or HEAD has none."""
        if not self.file_left_out(in_scope(path, SCOPE_FLAG)):
            return None
        committed = self.committed().scope(path)
        self._note_unread()
        if committed is None:
            return None
        self._left_out.add(path)
        return Scope(committed.path, committed.type)

    def committed_scope(self, path: str) -> CommittedScope | None:
        """What git holds of the scope at ``path``: its registry's and skills' blobs."""
        if self._listed_scopes is not None:  # asked once per scope and check: kept at hand
            return self._listed_scopes.get(path)
        return self.committed().scope(path)

    def registries(self, scopes: list[str]) -> dict[str, Registry]:
        """The committed registries of ``scopes`` (in one batch), by scope path."""
        tree = self.committed()
        found = [c for c in (self.committed_scope(s) for s in scopes) if c is not None]
        registries = tree.registries(found)
        self._note_unread()
        return registries

    def scopes_left_out(self, on_disk: list[Scope]) -> list[Scope]:
        """The committed scopes the sparse checkout leaves out, beside the scopes found
        ``on_disk`` (whole units at once when no folder of theirs is in the cone); they are
        read from git from now on."""
        checkout, tree = self.checkout(), self.committed()
        committed = self._listed_scopes = tree.scopes()
        paths_on_disk = {s.path for s in on_disk}
        found: list[Scope] = []
        for unit, paths in tree.units.items():
            touched = checkout.touches(unit)
            for path in paths:
                if path in paths_on_disk or path == GLOBAL:
                    continue
                if touched and checkout.holds(in_scope(path, SCOPE_FLAG)):
                    continue  # in the cone but gone from the disk: deleted here
                found.append(Scope(path, committed[path].type))
        self._left_out.update(s.path for s in found)
        return found

    def scope_left_out(self, scope: str) -> bool:
        """Whether the sparse checkout leaves the scope out (it is read from git's objects).

        The one word of this view is *left out*: a file (:meth:`file_left_out`), a scope
        (this) or every such scope (:meth:`scopes_left_out`) the checkout does not hold, so
        git's objects are read instead; :meth:`without_folder` adds that nothing of the
        scope is on the disk at all."""
        return scope in self._left_out

    def without_folder(self, scope: str) -> bool:
        """Whether a scope the checkout leaves out has no folder on the disk at all, so no
        file of it needs a look there (a scope on disk: False). Asked of each parent folder's
        listing, made once: 300,000 scopes outside the cone cost a few listings, not a stat
        each."""
        return scope in self._left_out and not self._on_disk(scope)

    def _on_disk(self, rel: str) -> bool:
        present = self._present.get(rel)
        if present is None:
            parent, _, name = rel.rpartition("/")
            present = (not parent or self._on_disk(parent)) and name in self._listing(parent)
            self._present[rel] = present
        return present

    def _listing(self, folder: str) -> frozenset[str]:
        names = self._listed.get(folder)
        if names is None:
            try:
                names = frozenset(os.listdir(self.root / folder))
            except OSError:  # gone or not a folder: nothing below it is on the disk
                names = frozenset()
            self._listed[folder] = names
        return names

    def committed_skills(self, scope: str) -> Set[str]:
        """The names of the skill folders git holds for a scope the checkout leaves out, in
        git's order (a set-like view: asking whether one is there costs no list)."""
        committed = self.committed_scope(scope) if scope in self._left_out else None
        return committed.skills.keys() if committed is not None else frozenset()

    def committed_descriptions(self, keys: list[Identity]) -> dict[Identity, str]:
        """Descriptions of in-tree skills whose SKILL.md the checkout leaves out; the others
        are read from disk by the caller."""
        wanted: dict[Identity, str] = {}
        scopes: dict[str, CommittedScope | None] = {}
        for key in keys:
            home = key.home
            if home not in scopes:
                scopes[home] = self.committed_scope(home)
            committed = scopes[home]
            blob = committed.skills.get(key.name) if committed is not None else None
            if blob:
                wanted[key] = blob
        found = self.committed().descriptions(wanted) if wanted else {}
        self._note_unread()
        return found

    def skill_copies(self, keys: list[Identity]) -> dict[Identity, Path]:
        """Readable copies of the SKILL.md of skills whose scope the checkout leaves out (see
        :meth:`CommittedTree.copies`)."""
        wanted: dict[str, Identity] = {}
        blobs: dict[str, str] = {}
        for key in keys:
            home, name = key.home, key.name
            committed = self.committed_scope(home) if home in self._left_out else None
            blob = committed.skills.get(name) if committed is not None else None
            if blob and blob != "link":
                rel = in_scope(home, f"skills/{name}/{SKILL_FILE}")
                wanted[rel], blobs[rel] = key, blob
        copies = self.committed().copies(blobs) if blobs else {}
        self._note_unread()
        return {wanted[rel]: path for rel, path in copies.items()}

    def knowledge_copies(self, scope: str, folder: str) -> dict[str, Path]:
        """Readable copies of the files below ``<scope>/<folder>`` when the checkout leaves
        that scope out, by path below the folder."""
        if scope not in self._left_out:
            return {}
        base = in_scope(scope, folder)
        tree = self.committed()
        files = tree.files_under(base)
        copies = tree.copies(files)
        self._note_unread()
        return {rel[len(base) + 1 :]: path for rel, path in copies.items()}

    def _note_unread(self) -> None:
        """One warning line for everything outside the checkout git could not give us."""
        if self._tree is None or not self._tree.unread:
            return
        self.findings[:] = [f for f in self.findings if f.code != NOT_READ]
        unread = self._tree.unread
        first = next(iter(unread))
        reasons = sorted(set(unread.values()))
        self.findings.append(
            Finding(
                WARNING,
                NOT_READ,
                first,
                f"{len(unread)} file(s) outside the sparse checkout could not be read from "
                f"git ({'; '.join(reasons)}), so they are left out of this answer",
                bad_input=False,
            )
        )

    @property
    def reads_git(self) -> bool:
        """Whether anything was read from git's objects (a sparse checkout)."""
        return self._tree is not None


def in_scope(scope: str, rel: str) -> str:
    """``rel`` inside the scope's folder, relative to the root."""
    return rel if scope == GLOBAL else f"{scope}/{rel}"
