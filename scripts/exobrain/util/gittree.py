"""Reading what git tracks: file lists and blobs of a commit or of the index, merge bases, and
renames between a commit and the index — through the git binary, never prompting.

Why the git binary and not the working tree: the authoring gate must judge what is *tracked*
(what a commit will contain), not what happens to be on disk. Why not gitpython: these are a
handful of plumbing calls whose output git already formats for machines (``-z``); one
``cat-file --batch`` process reads every blob the gate needs.

Paths are relative to the exobrain root, which may be a subfolder of the git work tree (git
lists and diffs only what is under the folder it runs in, relative to it); a linked worktree
works like any other because git itself finds its repository.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from exobrain.errors import OperationFailed, UsageError

#: ``rev`` value meaning "the index" (the staging area: what the next commit will hold).
INDEX = None


@dataclass(frozen=True)
class Rename:
    """One file git paired across the diff (``old`` at the base, ``new`` in the index)."""

    old: str
    new: str


class Git:
    """The repository around an exobrain root, queried with plain git commands."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.run("rev-parse", "--git-dir")  # fails early, clearly, outside a repository

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> str:
        return self.run_bytes(*args, stdin=stdin, check=check).decode("utf-8", "surrogateescape")

    def run_bytes(self, *args: str, stdin: bytes | None = None, check: bool = True) -> bytes:
        """Run ``git args`` in the root without prompts, pagers or optional index locks."""
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0",
               "GIT_PAGER": "cat"}
        command = ["git", "-c", "core.quotepath=false", *args]
        try:
            done = subprocess.run(command, cwd=self.root, input=stdin, capture_output=True,
                                  env=env, check=False)
        except FileNotFoundError as exc:
            raise OperationFailed("git is not installed or not on PATH",
                                  hint="install git: the gate reads what git tracks") from exc
        if check and done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip() or f"exit {done.returncode}"
            if "not a git repository" in message:
                raise UsageError(f"{self.root} is not inside a git repository",
                                 hint="run the command inside your exobrain or pass --repo PATH")
            raise OperationFailed(f"git {' '.join(args[:2])} failed: {message}")
        return done.stdout

    def commit_of(self, ref: str) -> str | None:
        """The commit ``ref`` names, or None when it does not resolve."""
        if ref.startswith("-"):
            return None
        out = self.run_bytes("rev-parse", "--verify", "--quiet", "--end-of-options",
                             f"{ref}^{{commit}}", check=False)
        return out.decode().strip() or None

    def merge_base(self, one: str, other: str) -> str | None:
        out = self.run_bytes("merge-base", one, other, check=False)
        return out.decode().strip() or None

    def files(self, rev: str | None) -> dict[str, str]:
        """Tracked files at ``rev`` (INDEX: the staging area) → blob id, relative to the root."""
        found: dict[str, str] = {}
        if rev is INDEX:
            for record in filter(None, self.run("ls-files", "-z", "--stage").split("\0")):
                info, path = record.split("\t", 1)
                _, oid, stage = info.split()
                if stage != "0":
                    raise UsageError(f"{path} has unresolved merge conflicts",
                                     hint="resolve them and git add the file, then run again")
                found[path] = oid
            return found
        for record in filter(None, self.run("ls-tree", "-r", "-z", rev).split("\0")):
            info, path = record.split("\t", 1)
            _, kind, oid = info.split()
            if kind == "blob":
                found[path] = oid
        return found

    def read(self, blobs: dict[str, str]) -> dict[str, bytes]:
        """The content of each blob, by path (``blobs`` maps path → blob id, as from files())."""
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
            found[path] = out[pos:pos + size]
            pos += size + 1
        return found

    def renames(self, base: str, pathspecs: tuple[str, ...]) -> list[Rename]:
        """Files renamed between ``base`` and the index, by git's rename detection."""
        out = self.run("diff", "--cached", "-M", "--name-status", "-z", "--relative",
                       "--no-ext-diff", base, "--", *pathspecs)
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
