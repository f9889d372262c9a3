"""What git tracks in a repository: file lists and blobs of a commit or of the index, merge
bases, renames, and the objects a partial clone lacks, fetched in batches.

Every process starts through :class:`~exobrain.util.git.Git` (its hardening applies), and
objects are read by its one persistent reader (:class:`~exobrain.util.git.ObjectReader`).
The authoring gate must judge what a commit will contain, not what happens to be on disk; the
catalog reads what a sparse checkout leaves out from here too.

A partial clone (``git clone --filter=blob:none``) holds every commit and tree but only the
blobs it checked out. Asking git for another blob would make it fetch that one object, one
round trip each; :meth:`Repository.blobs` lists what the object store holds once, fetches the
rest from the promisor remote in batches (:mod:`exobrain.util.partialclone`), and records
whatever still could not be read in :attr:`Repository.unread`, so callers say so instead of
answering with less. ``EXOBRAIN_OFFLINE=1`` turns the fetching off.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from exobrain.errors import UsageError
from exobrain.util.git import SAFE_CONFIG, Git, GitFailed, ObjectReader, git_message
from exobrain.util.gitobjects import GitObject, is_oid, parse_tree
from exobrain.util.partialclone import fetch_objects, objects_held
from exobrain.util.progress import Progress

#: ``rev`` value meaning "the index" (the staging area: what the next commit will hold).
INDEX = None
#: Set to 1: never fetch the blobs a partial clone lacks (they are then reported unread).
OFFLINE_ENV = "EXOBRAIN_OFFLINE"
#: Up to this many wanted objects, a partial clone asks which of them it holds (one small
#: query) rather than listing all it holds (about 1 s at 900,000 objects).
FEW_OBJECTS = 20_000


@dataclass(frozen=True)
class Rename:
    """One file git paired across the diff (``old`` at the base, ``new`` in the index)."""

    old: str
    new: str


class Repository:
    """The git repository around a folder (an exobrain root, an instance, a bare cache),
    queried with plain git commands.

    Paths are relative to the folder, which may be a subfolder of the work tree (git lists and
    diffs only what is under the folder it runs in, relative to it); a linked worktree works
    like any other because git itself finds its repository.
    """

    def __init__(self, root: Path, *, own_env: bool = False, foreign: bool = False) -> None:
        """``foreign``: a repository the toolkit did not create and whose own configuration is
        not the user's (an instance being harvested): its filter drivers are switched off too."""
        self.root = root
        self.git = Git(own_env=own_env, timeout=None)
        self.config: tuple[str, ...] = SAFE_CONFIG
        self._reader: ObjectReader | None = None
        self._local: frozenset[str] | None = None
        #: Objects that were wanted but could not be read (partial clone, offline or the
        #: fetch failed), with the reason; callers say so in one line.
        self.unread: dict[str, str] = {}
        self.run("rev-parse", "--git-dir")  # fails early, clearly, outside a repository
        if foreign:
            self.config = SAFE_CONFIG + self._without_own_filters()

    def _without_own_filters(self) -> tuple[str, ...]:
        """Config that switches off the filter drivers the repository's own configuration
        (its ``.git/config`` and what that includes) defines: ``filter.<name>.clean`` runs on
        ``git status`` for any file git must re-read, and an empty command is no filter. The
        user's global and system filters (git-lfs) stay. Reading the configuration runs
        nothing."""
        out = self.run_bytes(
            "config", "--includes", "--show-scope", "-z", "--get-regexp", r"^filter\.", check=False
        )
        fields = out.split(b"\0")
        names: set[str] = set()
        for scope, record in zip(fields[0::2], fields[1::2], strict=False):
            if scope in (b"local", b"worktree"):
                key = record.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
                names.add(key[len("filter.") :].rsplit(".", 1)[0])
        if any("=" in name or "\n" in name for name in names):
            raise GitFailed(
                f"{self.root}: its git configuration defines a filter driver whose name cannot "
                "be switched off; not read"
            )
        return tuple(
            f"filter.{n}.{k}=" for n in sorted(names) for k in ("clean", "smudge", "process")
        )

    def reader(self) -> ObjectReader:
        """The repository's one persistent ``cat-file --batch`` reader (started on first use,
        stopped by :meth:`close`)."""
        if self._reader is None:
            self._reader = ObjectReader(self.root, Git(own_env=self.git.own_env))
        return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def promisor(self) -> str | None:
        """The remote a partial clone fetches missing objects from; None for a full clone."""
        out = self.run("config", "--get", "extensions.partialClone", check=False).strip()
        if out:
            return out
        listed = self.run("config", "--get-regexp", r"^remote\..*\.promisor$", check=False)
        for line in listed.splitlines():
            key, _, value = line.partition(" ")
            if value.strip().lower() == "true":
                return key[len("remote.") : -len(".promisor")]
        return None

    def blobs(
        self, oids: Iterable[str], *, limit: int | None = None, what: str = "files"
    ) -> dict[str, GitObject]:
        """Objects by id, read through the persistent reader. In a partial clone the ones not
        held locally are fetched first from the promisor remote, in batches (unless
        ``EXOBRAIN_OFFLINE=1``); those still missing land in :attr:`unread`."""
        return dict(self.stream_blobs(oids, limit=limit, what=what))

    def stream_blobs(
        self,
        oids: Iterable[str],
        *,
        limit: int | None = None,
        what: str = "files",
        progress: Progress | None = None,
    ) -> Iterator[tuple[str, GitObject]]:
        """:meth:`blobs` one (id, object) at a time, as git reads them (see
        :meth:`ObjectReader.stream`); :attr:`unread` is complete once the last is taken.
        A fetch reports its progress as stage ``git-fetch`` (objects fetched so far)."""
        wanted = [o for o in dict.fromkeys(oids) if is_oid(o)]
        remote = self.promisor() if wanted else None
        if remote is not None:
            held = self._held(wanted)
            missing = [o for o in wanted if o not in held]
            if missing:
                self._fetch(remote, missing, what, progress)
        found: set[str] = set()
        for oid, obj in self.reader().stream(
            [o for o in wanted if o not in self.unread], limit=limit
        ):
            found.add(oid)
            yield oid, obj
        for oid in wanted:
            if oid not in found and oid not in self.unread:
                self.unread[oid] = "not in the repository"

    def _held(self, oids: list[str]) -> Iterable[str]:
        """The ones of ``oids`` the local object store holds (or a superset of them)."""
        if self._local is None and len(oids) <= FEW_OBJECTS:
            return self._present(oids)
        return self.local_objects()

    def _present(self, oids: list[str]) -> set[str]:
        """Which of ``oids`` the object store holds, asked without a fetch
        (:func:`~exobrain.util.partialclone.objects_held`)."""
        objects = self.run("rev-parse", "--path-format=absolute", "--git-path", "objects")
        fmt = self.run("rev-parse", "--show-object-format").strip() or "sha1"
        return objects_held(objects.strip(), fmt, oids)

    def local_objects(self) -> frozenset[str]:
        """Every object id the local object store holds (listed once; a partial clone's way
        to know what it lacks without asking the remote)."""
        if self._local is None:
            out = self.run(
                "cat-file", "--batch-all-objects", "--batch-check=%(objectname)", "--unordered"
            )
            self._local = frozenset(out.split())
        return self._local

    def _fetch(
        self, remote: str, oids: list[str], what: str, progress: Progress | None = None
    ) -> None:
        if os.environ.get(OFFLINE_ENV, "") not in ("", "0"):
            self.unread.update(
                dict.fromkeys(oids, f"not in this partial clone ({OFFLINE_ENV} set)")
            )
            return
        self.unread.update(
            fetch_objects(
                self.root, remote, oids, what, own_env=self.git.own_env, progress=progress
            )
        )
        self._local = None

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> str:
        return self.run_bytes(*args, stdin=stdin, check=check).decode("utf-8", "surrogateescape")

    def run_bytes(self, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
        done = self.git.run(list(args), cwd=self.root, stdin=stdin, check=False, config=self.config)
        if check and done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
            if "not a git repository" in message:
                raise UsageError(
                    f"{self.root} is not inside a git repository",
                    hint="run the command inside your exobrain or pass --repo PATH",
                )
            raise GitFailed(f"git {' '.join(args[:2])} failed: {git_message(done.stderr)}")
        return done.stdout

    def tracked(self, path: str) -> bool:
        """Whether git tracks a file at or under ``path`` (relative to the folder)."""
        return bool(self.run_bytes("ls-files", "-z", "--", path).strip(b"\0"))

    def ignores(self, path: str) -> bool:
        """Whether git's ignore rules (any ``.gitignore``, ``info/exclude``, the user's
        excludes) cover ``path``, tracked or not; a folder is asked for with a trailing ``/``."""
        done = self.git.run(
            ["check-ignore", "-q", "--no-index", "--", path],
            cwd=self.root,
            check=False,
            config=self.config,
        )
        return done.returncode == 0

    def move(self, old: str, new: str) -> None:
        """``git mv``: the folder moves on disk with everything in it (untracked files too) and
        the index follows; changes not staged stay unstaged."""
        self.run("mv", "--", old, new)

    def forget(self, path: str) -> None:
        """Drop ``path`` (a file or a folder) from the index; the work tree is left alone."""
        self.run("rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", path)

    def commit_of(self, ref: str) -> str | None:
        """The commit ``ref`` names, or None when it does not resolve."""
        if ref.startswith("-"):
            return None
        out = self.run_bytes(
            "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False
        )
        return out.decode().strip() or None

    def merge_base(self, one: str, other: str) -> str | None:
        out = self.run_bytes("merge-base", one, other, check=False)
        return out.decode().strip() or None

    def files(self, rev: str | None) -> dict[str, str]:
        """Tracked files at ``rev`` (INDEX: the staging area) → blob id, relative to the root."""
        return {path: oid for path, (_mode, oid) in self.tree(rev).items()}

    def tree(self, rev: str | None, under: str | None = None) -> dict[str, tuple[str, str]]:
        """Tracked files at ``rev`` (INDEX: the staging area) → (mode, blob id): the mode says
        which are executable (``100755``) or links (``120000``). ``under``: only the files
        below that folder (a commit's, not the index's)."""
        found: dict[str, tuple[str, str]] = {}
        if rev is INDEX:
            for record in filter(None, self.run("ls-files", "-z", "--stage").split("\0")):
                info, path = record.split("\t", 1)
                mode, oid, stage = info.split()
                if stage != "0":
                    raise UsageError(
                        f"{path} has unresolved merge conflicts",
                        hint="resolve them and git add the file, then run again",
                    )
                found[path] = (mode, oid)
            return found
        below = ("--", under + "/") if under is not None else ()
        for record in filter(None, self.run("ls-tree", "-r", "-z", rev, *below).split("\0")):
            info, path = record.split("\t", 1)
            mode, kind, oid = info.split()
            if kind == "blob":
                found[path] = (mode, oid)
        return found

    def read(self, blobs: dict[str, str]) -> dict[str, bytes]:
        """The content of each blob, by path (``blobs`` maps path → blob id or ``rev:path``,
        as from files()); what does not exist is left out. Names are resolved to ids first,
        so a partial clone fetches what it lacks in one batch (see :meth:`blobs`)."""
        ids = self.resolve([n for n in blobs.values() if not is_oid(n)])
        oids = {path: name if is_oid(name) else ids.get(name, "") for path, name in blobs.items()}
        found = self.blobs(oids.values())
        return {
            path: found[oid].data or b""
            for path, oid in oids.items()
            if oid in found and found[oid].kind == "blob"
        }

    def resolve(self, names: list[str]) -> dict[str, str]:
        """``rev:path`` names → object ids, read from the trees that hold them: git itself
        would read each object too, and a partial clone would have to fetch every blob one by
        one (git 2.39 even stops at the first it cannot fetch)."""
        parents: dict[str, list[tuple[str, str]]] = {}
        for name in names:
            rev, colon, path = name.partition(":")
            if not colon or not path or rev.startswith("-"):
                continue
            folder, _, base = path.rstrip("/").rpartition("/")
            parent = f"{rev}:{folder}" if folder else f"{rev}^{{tree}}"
            parents.setdefault(parent, []).append((name, base))
        trees = self.reader().read(parents)
        found: dict[str, str] = {}
        for parent, wanted in parents.items():
            tree = trees.get(parent)
            if tree is None or tree.kind != "tree" or tree.data is None:
                continue
            entries = {e.name: e.oid for e in parse_tree(tree.data, len(tree.oid) // 2)}
            for name, base in wanted:
                if base in entries:
                    found[name] = entries[base]
        return found

    def sizes(self, oids: list[str]) -> dict[str, int]:
        """The size in bytes of each object (absent ones left out); one process for all."""
        if not oids:
            return {}
        stdin = "".join(f"{oid}\n" for oid in oids).encode()
        found: dict[str, int] = {}
        for line in self.run("cat-file", "--batch-check", stdin=stdin).splitlines():
            oid, kind, *size = line.split()
            if kind != "missing" and size:
                found[oid] = int(size[0])
        return found

    def changed_paths(self, old: str, new: str) -> list[str] | None:
        """The files that differ between two commits (added, changed or gone), or None when
        git cannot compare them (a commit no longer there). Trees only: no blob is read, so
        a partial clone fetches nothing. git would read the index first, for nothing, and a
        sparse index is expanded to every file for that (6 s at 1.2 million files), so it is
        pointed at an index that does not exist."""
        with tempfile.TemporaryDirectory(prefix="exobrain-diff-") as scratch:
            done = self.git.run(
                ["diff-tree", "-r", "--name-only", "-z", "--no-renames", old, new, "--"],
                cwd=self.root,
                check=False,
                config=self.config,
                env={"GIT_INDEX_FILE": os.path.join(scratch, "no-index")},
            )
        if done.returncode != 0:
            return None
        return [p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p]

    def renames(self, base: str, pathspecs: tuple[str, ...]) -> list[Rename]:
        """Files renamed between ``base`` and the index, by git's rename detection."""
        out = self.run(
            "diff",
            "--cached",
            "-M",
            "--name-status",
            "-z",
            "--relative",
            "--no-ext-diff",
            base,
            "--",
            *pathspecs,
        )
        fields = out.split("\0")
        found: list[Rename] = []
        pos = 0
        while pos < len(fields) and fields[pos]:
            status = fields[pos]
            if status[0] in "RC":
                if status[0] == "R":
                    found.append(Rename(fields[pos + 1], fields[pos + 2]))
                pos += 3
            else:
                pos += 2
        return found
