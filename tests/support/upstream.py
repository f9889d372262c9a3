"""Upstream repositories for fetcher tests: a work tree plus a bare repository served over
file:// with partial-clone filters allowed, and a git wrapper that logs every invocation."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.support.helpers import build_tree, git, skill_md


class Upstream:
    """A skills repository: edit ``work`` with :meth:`commit`, fetch from :attr:`url`."""

    def __init__(self, base: Path, files: dict, name: str = "up") -> None:
        self.work = base / f"{name}-work"
        self.bare = base / f"{name}.git"
        build_tree(self.work, files)
        git(self.work.parent, "init", "-q", "-b", "main", str(self.work))
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", "-m", "initial")
        git(base, "clone", "-q", "--bare", str(self.work), str(self.bare))
        git(self.bare, "config", "uploadpack.allowFilter", "true")
        git(self.work, "remote", "add", "origin", str(self.bare))

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    def head(self) -> str:
        return git(self.work, "rev-parse", "HEAD").strip()

    def commit(self, files: dict, message: str = "change") -> str:
        build_tree(self.work, files)
        git(self.work, "add", "-A")
        git(self.work, "commit", "-q", "-m", message)
        git(self.work, "push", "-q", "origin", "HEAD:main")
        return self.head()

    def tag(self, name: str, annotated: bool = False) -> None:
        args = ["-a", "-m", name] if annotated else []
        git(self.work, "tag", *args, name)
        git(self.work, "push", "-q", "origin", f"refs/tags/{name}")


def two_skills() -> dict:
    return {
        "skills/pdf/SKILL.md": skill_md("pdf", "Use for PDF files."),
        "skills/pdf/reference/forms.md": "# Forms\n",
        "skills/pdf/scripts/fill.py": "print('fill')\n",
        "skills/doc/SKILL.md": skill_md("doc", "Use for documents."),
        "other/big.txt": "x" * 50_000,
    }


def external(
    name: str,
    repo: str,
    ref: str = "main",
    path: str | None = None,
    tier: str = "always",
    owner: str = "anthropic",
    **extra,
) -> dict:
    return {
        "name": name,
        "owner": owner,
        "tier": tier,
        "force": True,
        "source": {"repo": repo, "path": path or f"skills/{name}", "ref": ref},
        **extra,
    }


class GitLog:
    """Reads the log written by the wrapper: one line per git invocation (its arguments)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def clear(self) -> None:
        self.path.write_text("")

    def lines(self) -> list[list[str]]:
        if not self.path.exists():
            return []
        return [line.split() for line in self.path.read_text().splitlines()]

    def count(self, *verbs: str) -> int:
        return sum(1 for words in self.lines() if any(w in verbs for w in words))


def git_wrapper(bin_dir: Path, log: Path) -> str:
    """Write a ``git`` that logs its arguments then runs the real one; return the new PATH."""
    real = shutil.which("git")
    bin_dir.mkdir(parents=True, exist_ok=True)
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
