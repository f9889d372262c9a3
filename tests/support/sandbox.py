"""The attack sandbox of tests/security: a repository, a home with files an attacker wants,
and a folder outside both, snapshotted before and after each attack.

Each attack runs the installed console scripts in a subprocess with a time limit (a FIFO that
hangs a command fails the test instead of hanging the suite), then checks the exit code, the
message, that nothing outside the repository changed (the snapshot of the home and the outside
folder, links not followed, file contents hashed) and that the user's files are all there.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.helpers import build_tree, exobrain, skill_md

#: Long enough for a cold Python start on a loaded machine; a hang ends the test here.
TIME_LIMIT = 30


def snapshot(*folders: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple]:
    """Every path under ``folders`` (but not under ``skip``) with what it is: a link and its
    text, a file and the sha256 of its bytes and mode, a folder, or a special file."""
    found: dict[str, tuple] = {}
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if Path(dirpath, d) not in skip]
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    found[path] = ("link", os.readlink(path))
                elif stat.S_ISREG(info.st_mode):
                    with open(path, "rb") as handle:
                        digest = hashlib.sha256(handle.read()).hexdigest()
                    found[path] = ("file", digest, info.st_mode)
                else:
                    found[path] = ("other", info.st_mode)
    return found


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass
class Sandbox:
    """``repo`` (an exobrain, connected as alice), ``home`` (HOME, with a ``.bashrc``) and
    ``outside`` (a folder of someone else's files) — the last two are what must not change."""

    base: Path
    repo: Path
    home: Path
    outside: Path

    @property
    def bashrc(self) -> Path:
        return self.home / ".bashrc"

    def snap(self) -> dict[str, tuple]:
        """The home and the outside folder, less the toolkit's own cache and state folders
        (its caches, usage-hook log and ownership records live there by design)."""
        own = (self.home / ".cache" / "exobrain", self.home / ".local" / "state" / "exobrain")
        return snapshot(self.home, self.outside, skip=own)

    @property
    def hook_log(self) -> Path:
        return self.home / ".local" / "state" / "exobrain" / "usage-hook.log"

    def run(self, *argv: str, stdin: str | None = None, cwd: Path | None = None) -> Result:
        """Run a console script (``argv[0]``) from the repository, within the time limit."""
        done = subprocess.run(
            list(argv),
            cwd=cwd or self.repo,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=TIME_LIMIT,
        )
        assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
        return Result(done.returncode, done.stdout, done.stderr)

    def commit(self, message: str = "attack") -> None:
        from tests.support.helpers import git

        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "--allow-empty", "-m", message)


def sandbox(tmp_path: Path, home: Path) -> Sandbox:
    """A repository with a global skill ``tidy`` (forced, always), a person scope ``alice``
    (connected) with a skill ``mine`` (always), and the home and outside folders."""
    repo = exobrain(
        tmp_path / "repo",
        registries={
            "global": [{"name": "tidy", "owner": "team", "tier": "always", "force": True}],
            "people/alice": [{"name": "mine", "owner": "alice", "tier": "always"}],
        },
        scopes=["people/alice", "people/bob"],
        skills={"global/tidy": None, "people/alice/mine": None},
        connection={"connected_scopes": ["people/alice"], "person": "alice", "agents": []},
    )
    build_tree(repo, {".gitignore": "/.exobrain.json\n/.claude/\n/.exobrain-cache/\n"})
    build_tree(home, {".bashrc": "# the user's shell setup\nexport PATH=$HOME/bin:$PATH\n"})
    for own in (home / ".cache" / "exobrain", home / ".local" / "state" / "exobrain"):
        own.mkdir(parents=True, exist_ok=True)
    outside = build_tree(
        tmp_path / "outside",
        {
            "victim.json": '{"skills": []}\n',
            "victim.lock.json": '{"lock_version": 1, "skills": {}}\n',
            "notes.txt": "someone else's notes\n",
            "folder": {"keep.txt": "keep\n"},
        },
    )
    return Sandbox(tmp_path, repo, home, outside)


def skill_with(tmp_path: Path, name: str, files: dict) -> Path:
    """A skill folder outside the repository (for import sources)."""
    return build_tree(tmp_path / "sources" / name, {"SKILL.md": skill_md(name), **files})
