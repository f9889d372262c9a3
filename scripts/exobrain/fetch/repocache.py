"""Git plumbing for external skills: one cached partial clone per repository URL.

Why not ``git clone``: a skill is one folder of a repository that may be large. The cache
repository is a bare partial clone that only ever asks the remote for exactly what one skill
needs, by object id, with a filter:

1. the commit, at depth 1, without trees (``--filter=tree:0``);
2. each tree on the way down to ``path`` on its own (``tree:0`` again);
3. the skill's tree with its sub-trees and blobs (``--filter=blob:limit=<cap>``, so a blob
   larger than the size cap is not even transferred).

Files are then written from the object store (``ls-tree`` + ``cat-file --batch``): no
worktree, no checkout. Servers that refuse a filter get the next coarser one (``blob:none``,
then none); the refusal is remembered in the cache repository's config.

Every git process runs without hooks, prompts or askpass helpers, in its own session (so ssh
cannot ask for a password on the terminal), with only the https, ssh (and, when allowed, file)
transports, and remote operations are killed after a time limit.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.caches import REPOS
from exobrain.errors import OperationFailed
from exobrain.util.fileio import make_folders
from exobrain.util.git import FETCH_OBJECTS, Git, GitFailed, ObjectReader, git_message
from exobrain.util.gitobjects import parse_tree
from exobrain.util.locking import exclusive
from exobrain.util.staging import staged_folder

#: What to ask for when a server refuses a filter: the next coarser one, then none at all.
_FALLBACK = {"tree:0": "blob:none", "blob:none": None}


def _kind(filt: str) -> str:
    """The name a server's ``uploadpackfilter.<name>.allow`` uses for a filter spec."""
    if filt.startswith("tree:"):
        return "tree"
    return filt.split("=", 1)[0]  # blob:limit=N → blob:limit; blob:none stays itself


class SizeCapExceeded(OperationFailed):
    """The skill is larger than the configured cap."""


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    kind: str  # blob | tree | commit (a submodule)
    oid: str
    size: int
    path: str


@dataclass(frozen=True)
class RefInfo:
    commit: str
    kind: str  # commit | tag | branch ("branch" is anything that can move, HEAD included)


class RepoCache:
    """The cached partial clone of one repository URL."""

    def __init__(self, git: Git, cache_root: Path, url: str) -> None:
        self.git, self.url = git, url
        name = url.split("://", 1)[-1].removesuffix("/").removesuffix(".git")
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[-60:]
        digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
        self.root = cache_root
        self.dir = cache_root / REPOS.folder / f"{slug}-{digest}.git"
        self._rejected: set[str] | None = None
        self._reader: ObjectReader | None = None

    @contextmanager
    def locked(self) -> Iterator[RepoCache]:
        """Serialise runs that share this cache repository (the file lock ``<dir>.flock``; a
        waiter gives up after a few remote time limits, in case a run hangs; when git has no time
        limit, neither has the wait)."""
        make_folders(self.root, self.dir.parent)
        limit = self.git.timeout
        wait = math.inf if limit is None else 4 * limit
        with exclusive(self.dir, timeout=wait, root=self.root, remove=False):
            self._open()
            yield self

    def _open(self) -> None:
        if (self.dir / "HEAD").is_file():
            return
        with staged_folder(self.dir, root=self.root) as tmp:
            self.git.run(["init", "-q", "--bare", "--template=", str(tmp)])  # no sample hooks
            for key, value in (
                ("remote.origin.url", self.url),
                ("remote.origin.promisor", "true"),
                ("gc.auto", "0"),
                ("core.logAllRefUpdates", "false"),
            ):
                self.git.run(["config", key, value], cwd=tmp)

    def _local(self, args: list[str], **kw: Any) -> subprocess.CompletedProcess[bytes]:
        return self.git.run(args, cwd=self.dir, **kw)

    # -- asking the remote -------------------------------------------------------------------

    def ls_remote(self, refs: list[str]) -> dict[str, str]:
        """``{ref name: oid}`` for the given short or full ref names (peeled tags as ``^{}``)."""
        patterns = [p for ref in refs for p in (ref, ref + "^{}")]
        done = self.git.run(["ls-remote", self.url, *patterns], remote=True, check=False)
        if done.returncode != 0:
            raise GitFailed(f"cannot reach {self.url}: {git_message(done.stderr)}")
        listing: dict[str, str] = {}
        for line in done.stdout.decode("utf-8", "replace").splitlines():
            oid, _, name = line.partition("\t")
            listing[name] = oid
        return listing

    def fetch(self, wants: list[str], filt: str | None, *, depth: int | None = None) -> None:
        """Fetch objects by id with ``filt``, falling back when the server refuses it."""
        filt = self._usable(filt)
        args = [
            *FETCH_OBJECTS,
            "--no-auto-gc",
            "--stdin",
            f"--filter={filt}" if filt else "--no-filter",
        ]
        if depth:
            args.append(f"--depth={depth}")
        done = self._local(
            [*args, "origin"],
            remote=True,
            check=False,
            stdin="".join(w + "\n" for w in wants).encode(),
        )
        if done.returncode == 0:
            return
        message = git_message(done.stderr)
        if filt and "filter" in message.lower():
            self._reject(filt)
            self.fetch(wants, filt, depth=depth)
            return
        raise GitFailed(f"cannot fetch from {self.url}: {message}")

    def _usable(self, filt: str | None) -> str | None:
        if self._rejected is None:
            done = self._local(["config", "--get-all", "exobrain.rejectedFilter"], check=False)
            self._rejected = set(done.stdout.decode().split())
        while filt is not None and _kind(filt) in self._rejected:
            filt = _FALLBACK.get(filt, "blob:none" if filt.startswith("blob:limit") else None)
        return filt

    def _reject(self, filt: str) -> None:
        kind = _kind(filt)
        assert self._rejected is not None
        self._rejected.add(kind)
        self._local(["config", "--add", "exobrain.rejectedFilter", kind])

    # -- reading the object store (never lazily fetching) ------------------------------------

    def has(self, oid: str) -> bool:
        """Whether ``oid`` is in the cache, asked without triggering a lazy fetch."""
        done = self._local(
            ["rev-list", "--objects", "--no-walk", "--filter=tree:0", "--missing=allow-any", oid],
            check=False,
        )
        return done.returncode == 0

    def missing_under(self, tree: str) -> list[str]:
        """Objects below ``tree`` that are not in the cache (``tree`` itself when it is not)."""
        if not self.has(tree):
            return [tree]
        done = self._local(["rev-list", "--objects", "--missing=print", tree])
        return [ln[1:] for ln in done.stdout.decode().split() if ln.startswith("?")]

    def ensure_commit(self, commit: str) -> None:
        if not self.has(commit):
            self.fetch([commit], "tree:0", depth=1)
            if not self.has(commit):
                raise GitFailed(f"{self.url} did not send commit {commit}")

    def tree_at(self, commit: str, path: str) -> str:
        """The id of the tree at ``path`` in ``commit``, fetching each tree on the way."""
        done = self._local(["cat-file", "commit", commit])
        current = done.stdout.split(b"\n", 1)[0].split()[1].decode()
        walked: list[str] = []
        for part in [] if path == "." else path.split("/"):
            if not self.has(current):
                self.fetch([current], "tree:0")
            listing = self._local(["ls-tree", "-z", current, "--", part]).stdout.split(b"\0")[0]
            walked.append(part)
            meta = listing.split(b"\t", 1)[0].split()
            if len(meta) != 3 or meta[1] != b"tree":
                raise GitFailed(
                    f"{'/'.join(walked)} is not a folder in {self.url} at {commit[:12]}",
                    hint="check source.path and source.ref",
                )
            current = meta[2].decode()
        return current

    def ensure_complete(self, tree: str, max_bytes: int) -> None:
        """Fetch what is missing below ``tree``; blobs over ``max_bytes`` stay behind."""
        missing = self.missing_under(tree)
        if missing:
            self.fetch(missing, f"blob:limit={max_bytes + 1}")
            if self.missing_under(tree):
                raise SizeCapExceeded(
                    f"a file is larger than the {max_bytes} byte size cap",
                    hint='raise "external_skills": {"max_bytes": N} in '
                    ".exobrain.json if you trust this source",
                )

    def entries(self, tree: str) -> list[TreeEntry]:
        out = self._local(["ls-tree", "-r", "-z", "-l", tree]).stdout
        found = []
        for record in filter(None, out.split(b"\0")):
            meta, _, path = record.partition(b"\t")
            mode, kind, oid, size = meta.decode().split()
            found.append(
                TreeEntry(mode, kind, oid, int(size) if size != "-" else 0, os.fsdecode(path))
            )
        return found

    def blob_ids(self, commit: str, path: str) -> dict[str, str] | None:
        """``{path: blob id}`` of the files below ``path`` in ``commit`` (sub-modules left out),
        from the cache alone and without reading a blob: the trees, level by level, through
        one ``cat-file --batch`` kept for every install checked against this cache. None when
        the cache is gone or lacks the commit or a tree below it (then nothing can be told)."""
        if not (self.dir / "HEAD").is_file():
            return None
        if self._reader is None:
            self._reader = ObjectReader(self.dir, self.git)
        top = f"{commit}:{path}" if path not in ("", ".") else f"{commit}^{{tree}}"
        found: dict[str, str] = {}
        level: dict[str, list[str]] = {top: [""]}  # tree name → the prefixes it sits at
        while level:
            trees = self._reader.read(level)
            below: dict[str, list[str]] = {}
            for name, prefixes in level.items():
                tree = trees.get(name)
                if tree is None or tree.kind != "tree" or tree.data is None:
                    return None
                for entry in parse_tree(tree.data, len(tree.oid) // 2):
                    for prefix in prefixes:
                        if entry.is_tree:
                            below.setdefault(entry.oid, []).append(f"{prefix}{entry.name}/")
                        elif entry.mode != "160000":  # a sub-module is another repository
                            found[prefix + entry.name] = entry.oid
            level = below
        return found

    def close(self) -> None:
        """Stop the object reader :meth:`blob_ids` keeps (a fetch afterwards needs a new one)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def read_small(self, oids: list[str]) -> dict[str, bytes]:
        """The content of a few small blobs (symlink targets), in one ``cat-file --batch``."""
        out = self._local(
            ["cat-file", "--batch"], stdin="".join(o + "\n" for o in oids).encode()
        ).stdout
        found: dict[str, bytes] = {}
        while out:
            header, _, rest = out.partition(b"\n")
            oid, _, size = header.decode().split()
            found[oid], out = rest[: int(size)], rest[int(size) + 1 :]
        return found

    def write_blobs(self, wanted: dict[str, list[Path]]) -> None:
        """Write each blob to its paths, streaming ``cat-file --batch`` (ids via a temp file)."""
        with tempfile.TemporaryFile() as ids:
            ids.write("".join(oid + "\n" for oid in wanted).encode())
            ids.seek(0)
            self.git.calls.append(("cat-file", "--batch"))
            proc = subprocess.Popen(
                self.git.argv(["cat-file", "--batch"]),
                cwd=self.dir,
                env=self.git.env(remote=False),
                stdin=ids,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            try:
                assert proc.stdout is not None
                for _ in wanted:
                    header = proc.stdout.readline().split()
                    if len(header) != 3:
                        raise GitFailed(f"cannot read objects from the cache at {self.dir}")
                    oid, remaining = header[0].decode(), int(header[2])
                    with ExitStack() as files:
                        handles = [files.enter_context(open(p, "wb")) for p in wanted[oid]]
                        while remaining:
                            block = proc.stdout.read(min(remaining, 1 << 20))
                            if not block:
                                raise GitFailed(f"truncated object {oid} in {self.dir}")
                            remaining -= len(block)
                            for handle in handles:
                                handle.write(block)
                    proc.stdout.read(1)  # the newline after each object
            finally:
                if proc.poll() is None:
                    proc.kill()
                proc.communicate()


def pick_ref(listing: dict[str, str], ref: str) -> RefInfo | None:
    """What ``ref`` names in an ``ls-remote`` listing, in git's order: exact, tag, branch."""
    names = (
        [ref]
        if ref.startswith("refs/") or ref == "HEAD"
        else [f"refs/tags/{ref}", f"refs/heads/{ref}"]
    )
    for name in names:
        if name in listing:
            commit = listing.get(name + "^{}", listing[name])
            return RefInfo(commit, "tag" if name.startswith("refs/tags/") else "branch")
    return None
