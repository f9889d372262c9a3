"""The one git layer: every git process the toolkit starts goes through :class:`Git`.

Each call runs the git binary without hooks, fsmonitor, pagers, prompts or askpass helpers
(``-c core.hooksPath=/dev/null -c core.fsmonitor=false``, ``GIT_TERMINAL_PROMPT=0`` …), in its
own session so that ssh cannot ask for a password on the terminal, with only the https and ssh
transports (``file`` when allowed) and, for remote operations, a time limit after which git and
whatever it started are killed. So a repository the toolkit did not create — an instance being
harvested, a cache of someone's skills, a fresh clone — cannot run code through its config.

:class:`Repository` reads what git tracks in an exobrain (file lists and blobs of a commit or of
the index, merge bases, renames): the authoring gate must judge what a commit will contain, not
what happens to be on disk.

Why the git binary and not GitPython, which the design card names: every call here needs the
same hardening (config overrides, a scrubbed environment, a session of its own and a kill after
a time limit), which GitPython would have to be given call by call; its plumbing wrappers add
nothing to ``-z`` output git already formats for machines; and importing it costs about 100 ms,
which the read-only commands must not pay.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.errors import OperationFailed, UsageError

TIMEOUT_ENV = "EXOBRAIN_GIT_TIMEOUT"
DEFAULT_TIMEOUT = 120.0
#: Config every git process gets: nothing configured in a repository may run code or block.
SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.quotepath=false",
    "protocol.version=2",
    "gc.auto=0",
    "maintenance.auto=false",
    "fetch.negotiationAlgorithm=noop",
    "fetch.writeCommitGraph=false",
    "credential.interactive=false",
)
#: Variables that point git at another repository: dropped for repositories of our own making.
_REPOSITORY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
)
#: ``rev`` value meaning "the index" (the staging area: what the next commit will hold).
INDEX = None


class GitFailed(OperationFailed):
    """A git command failed (the message says which and why, in git's words)."""


def _timeout() -> float:
    try:
        return float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT


@dataclass
class Git:
    """Runs git safely and counts what it ran (``network_calls`` backs the fetcher's no-op
    promise). ``own_env`` keeps the caller's ``GIT_DIR``/``GIT_INDEX_FILE`` … (a hook judging
    the user's own index); otherwise they are dropped. ``timeout`` (None: no limit) bounds
    every call: a cache or a remote must not hang a command."""

    allow_file: bool = False
    timeout: float | None = field(default_factory=_timeout)
    own_env: bool = False
    calls: list[tuple[str, ...]] = field(default_factory=list)
    network_calls: int = 0

    def env(self, *, remote: bool = True) -> dict[str, str]:
        env = dict(os.environ)
        if not remote:  # reads must not reach the network behind our back (git >= 2.44)
            env["GIT_NO_LAZY_FETCH"] = "1"
        env.update(
            GIT_TERMINAL_PROMPT="0",
            GIT_ASKPASS="true",
            SSH_ASKPASS="true",
            SSH_ASKPASS_REQUIRE="never",
            LC_ALL="C",
            GIT_NO_REPLACE_OBJECTS="1",
            GIT_OPTIONAL_LOCKS="0",
            GIT_PAGER="cat",
            GIT_ALLOW_PROTOCOL="https:ssh" + (":file" if self.allow_file else ""),
        )
        if not self.own_env:
            for name in _REPOSITORY_ENV:
                env.pop(name, None)
        return env

    def argv(self, args: list[str], config: tuple[str, ...] = SAFE_CONFIG) -> list[str]:
        argv = ["git"]
        for item in config:
            argv += ["-c", item]
        return argv + args

    def run(
        self,
        args: list[str],
        *,
        cwd: Path | None = None,
        remote: bool = False,
        stdin: bytes | None = None,
        check: bool = True,
        config: tuple[str, ...] = SAFE_CONFIG,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git, killed after the time limit; remote operations count as network calls.
        ``check`` raises :class:`GitFailed` with git's own words on a non-zero exit."""
        self.calls.append(tuple(args))
        if remote:
            self.network_calls += 1
        try:
            proc = subprocess.Popen(
                self.argv(args, config),
                cwd=cwd,
                env=self.env(remote=remote),
                start_new_session=True,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError as exc:
            raise GitFailed(
                "git is not installed or not on PATH", hint="install git 2.27 or newer"
            ) from exc
        try:
            out, err = proc.communicate(stdin, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _kill(proc)
            raise GitFailed(
                f"git {args[0]} timed out after {self.timeout or 0:g}s",
                hint=f"check the network, or raise {TIMEOUT_ENV}",
            ) from None
        except BaseException:
            _kill(proc)
            raise
        done = subprocess.CompletedProcess(args, proc.returncode, out, err)
        if check and proc.returncode != 0:
            raise GitFailed(f"git {args[0]} failed: {git_message(err)}")
        return done

    def text(self, args: list[str], *, cwd: Path | None = None, check: bool = True) -> str:
        """The standard output of a local command as text ("" when it failed and ``check`` is
        off)."""
        done = self.run(args, cwd=cwd, check=check)
        return done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else ""

    def hooks_path(self, cwd: Path) -> str:
        """Where git runs hooks from in ``cwd``'s repository, the user's own
        ``core.hooksPath`` honoured (this call only reads it; "" when git cannot tell)."""
        config = tuple(c for c in SAFE_CONFIG if not c.startswith("core.hooksPath="))
        done = self.run(["rev-parse", "--git-path", "hooks"], cwd=cwd, check=False, config=config)
        return (
            done.stdout.decode("utf-8", "surrogateescape").strip() if done.returncode == 0 else ""
        )


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Stop git and whatever it started (ssh, upload-pack): they share its session."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.communicate()


_BOILERPLATE = (
    "Please make sure you have the correct access rights",
    "and the repository exists.",
    "fatal: Could not read from remote repository.",
    "warning: This repository uses",
    "hint:",
)


def git_message(stderr: bytes) -> str:
    """The informative line of git's error output (its first line that is not boilerplate)."""
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(_BOILERPLATE)]
    line = (useful or lines or ["no message"])[0]
    return line.removeprefix("fatal: ").removeprefix("error: ")


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

    def tree(self, rev: str | None) -> dict[str, tuple[str, str]]:
        """Tracked files at ``rev`` (INDEX: the staging area) → (mode, blob id): the mode says
        which are executable (``100755``) or links (``120000``)."""
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
        for record in filter(None, self.run("ls-tree", "-r", "-z", rev).split("\0")):
            info, path = record.split("\t", 1)
            mode, kind, oid = info.split()
            if kind == "blob":
                found[path] = (mode, oid)
        return found

    def read(self, blobs: dict[str, str]) -> dict[str, bytes]:
        """The content of each blob, by path (``blobs`` maps path → blob id, as from files());
        one ``cat-file --batch`` process for all of them."""
        if not blobs:
            return {}
        stdin = "".join(f"{oid}\n" for oid in blobs.values()).encode()
        out = self.run_bytes("cat-file", "--batch", "--buffer", stdin=stdin)
        found: dict[str, bytes] = {}
        pos = 0
        for path in blobs:
            end = out.index(b"\n", pos)
            header = out[pos:end]
            pos = end + 1
            if header.endswith(b" missing"):
                continue
            size = int(header.rsplit(b" ", 1)[1])
            found[path] = out[pos : pos + size]
            pos += size + 1
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
