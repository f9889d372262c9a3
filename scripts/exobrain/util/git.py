"""The one git layer: every git process the toolkit starts goes through :class:`Git`.

Each call runs the git binary without hooks, fsmonitor, pagers, prompts or askpass helpers
(``-c core.hooksPath=/dev/null -c core.fsmonitor=false``, ``GIT_TERMINAL_PROMPT=0`` …), in its
own session so that ssh cannot ask for a password on the terminal, with only the https and ssh
transports (``file`` when allowed) and, for remote operations, a time limit after which git and
whatever it started are killed. So a repository the toolkit did not create — an instance being
harvested, a cache of someone's skills, a fresh clone — cannot run code through its config.

:class:`ObjectReader` is the one persistent ``git cat-file --batch`` process a command keeps
to read trees and blobs, thousands per call; :mod:`exobrain.util.repository` builds on both
(file lists, blobs, the objects a partial clone lacks).

Why the git binary and not GitPython, which the design card names: every call here needs the
same hardening (config overrides, a scrubbed environment, a session of its own and a kill after
a time limit), which GitPython would have to be given call by call; its plumbing wrappers add
nothing to ``-z`` output git already formats for machines; and importing it costs about 100 ms,
which the read-only commands must not pay.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.errors import OperationFailed
from exobrain.util.gitobjects import GitObject, TreeEntry, parse_tree

TIMEOUT_ENV = "EXOBRAIN_GIT_TIMEOUT"
#: What every fetch of ours starts with: quiet, no tags, no FETCH_HEAD, no submodules (the
#: objects asked for are all that is wanted).
FETCH_OBJECTS = (
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--recurse-submodules=no",
)
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
        if not remote:
            # Reads must not reach the network behind our back: a partial clone would fetch
            # each missing object on its own (git >= 2.44 obeys the first variable; older
            # ones start a fetch, which finds no transport allowed and fails at once).
            env.update(GIT_NO_LAZY_FETCH="1", GIT_ALLOW_PROTOCOL="")
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
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git, killed after the time limit; remote operations count as network calls.
        ``check`` raises :class:`GitFailed` with git's own words on a non-zero exit; ``env``
        adds to the environment."""
        self.calls.append(tuple(args))
        if remote:
            self.network_calls += 1
        try:
            proc = subprocess.Popen(
                self.argv(args, config),
                cwd=cwd,
                env={**self.env(remote=remote), **(env or {})},
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


#: Bytes a pipe takes in one write without blocking (POSIX PIPE_BUF).
_PIPE_ATOMIC = 4096
_FOUND = re.compile(rb"^([0-9a-f]{40}|[0-9a-f]{64}) (blob|tree|commit|tag) (\d+)$")


class ObjectReader:
    """One persistent ``git cat-file --batch`` process for a repository: trees and blobs by id
    or ``rev:path``, many per call.

    Names go in through a writer thread while the answers are read, so a batch of any size
    never deadlocks on full pipes. The process never reaches the network (a blob a partial
    clone lacks is simply missing: :meth:`Repository.blobs` fetches those first, in batches),
    and each answer must come within the time limit, after which git is killed (a stalled
    git fails the call; a long batch that keeps answering does not).
    """

    def __init__(self, root: Path, git: Git) -> None:
        self.root = root
        self.git = git
        self._proc: subprocess.Popen[bytes] | None = None
        self._deadline: float | None = None  # when the call under way must end
        self._stop = threading.Event()
        self._killed = False

    def __enter__(self) -> ObjectReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        if self._proc is not None:
            _kill(self._proc)
            self._proc = None

    def _process(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            args = ["cat-file", "--batch"]
            self.git.calls.append(tuple(args))
            self._proc = subprocess.Popen(
                self.git.argv(args),
                cwd=self.root,
                env=self.git.env(remote=False),
                start_new_session=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            self._stop = threading.Event()
            if self.git.timeout:
                watch = threading.Thread(target=self._watch, args=(self._proc,), daemon=True)
                watch.start()
        return self._proc

    def _watch(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill git when a call outlives the time limit (the reader then fails clearly)."""
        while not self._stop.wait(0.25):
            deadline = self._deadline
            if deadline is not None and time.monotonic() > deadline:
                self._killed = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                return

    def read(self, names: Iterable[str], *, limit: int | None = None) -> dict[str, GitObject]:
        """Each object git finds, by the name it was asked by (those it cannot find are left
        out); an object over ``limit`` bytes comes without its data."""
        return dict(self.stream(names, limit=limit))

    def stream(
        self, names: Iterable[str], *, limit: int | None = None
    ) -> Iterator[tuple[str, GitObject]]:
        """:meth:`read`, one (name, object) at a time as git answers: the caller works on an
        object while git reads the next (the first catalog of a big repository parses
        900,000 of them). Each answer must come within the time limit. A caller that stops
        early stops git too (what it was still sending is never read as a later answer)."""
        wanted = [n for n in dict.fromkeys(names) if n and "\n" not in n]
        if not wanted:
            return
        proc = self._process()
        assert proc.stdin is not None and proc.stdout is not None
        payload = "".join(n + "\n" for n in wanted).encode("utf-8", "surrogateescape")
        writer = None
        if len(payload) <= _PIPE_ATOMIC:  # git is idle between calls: a small write never blocks
            _feed(proc, payload)
        else:
            writer = threading.Thread(target=_feed, args=(proc, payload), daemon=True)
            writer.start()
        try:
            for name in wanted:
                if self.git.timeout:
                    self._deadline = time.monotonic() + self.git.timeout
                header = proc.stdout.readline()
                if not header:
                    raise self._failure()
                match = _FOUND.match(header.rstrip(b"\n"))
                if match is None:
                    continue  # "<name> missing" / "ambiguous"
                size = int(match.group(3))
                data = _take(proc, size, limit)
                self._deadline = None
                yield name, GitObject(match.group(1).decode(), match.group(2).decode(), size, data)
        except BaseException:  # a failure, or the caller stopped early (GeneratorExit)
            self.close()
            raise
        finally:
            self._deadline = None
            if writer is not None:
                writer.join()

    def tree(self, name: str) -> list[TreeEntry] | None:
        """The entries of the tree ``name`` (an id or ``rev:path``); None when it is no tree."""
        found = self.read([name]).get(name)
        if found is None or found.kind != "tree" or found.data is None:
            return None
        return parse_tree(found.data, len(found.oid) // 2)

    def _failure(self) -> GitFailed:
        if self._killed:
            return GitFailed(
                f"git cat-file timed out after {self.git.timeout or 0:g}s",
                hint=f"raise {TIMEOUT_ENV}",
            )
        return GitFailed(f"git cat-file stopped while reading objects in {self.root}")


def _feed(proc: subprocess.Popen[bytes], payload: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(payload)
        proc.stdin.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass  # git stopped: the reader says why


def _take(proc: subprocess.Popen[bytes], size: int, limit: int | None) -> bytes | None:
    """The next object's content and its trailing newline (skipped when over ``limit``)."""
    assert proc.stdout is not None
    keep = limit is None or size <= limit
    chunks, remaining = [], size + 1
    while remaining:
        block = proc.stdout.read(min(remaining, 1 << 20))
        if not block:
            raise GitFailed("git cat-file ended in the middle of an object")
        remaining -= len(block)
        if keep:
            chunks.append(block)
    return b"".join(chunks)[:-1] if keep else None
