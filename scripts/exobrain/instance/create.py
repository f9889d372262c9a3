"""``exobrain create-instance``: render a fresh exobrain from the seed.

The new instance gets the framework (:mod:`exobrain.instance.framework`) copied verbatim, freshly
written starters (a global ``skills.json`` declaring the shipped skills, their lock entries,
``crons.json`` without seed-only jobs, ``scopes.json``, the signal weights), the person and
host scope folders with a stub ``AGENTS.md``, and a git repository holding one commit.
Nothing of ``seed/`` and no scope content is copied.

Everything is built in a hidden temporary folder beside the target and moved into place with
one rename, so a failure leaves no half-made instance; the target must be new or empty.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.artifacts.lockfile import LOCK_FILE, LOCK_VERSION, read_lock
from exobrain.errors import InputFileError, OperationFailed, UsageError
from exobrain.gate.crons import CRONS_FILE
from exobrain.instance.framework import COPIED_STARTERS, Framework, read_framework
from exobrain.model import GLOBAL
from exobrain.paths import python_module
from exobrain.refs import parse_ref
from exobrain.scopes import SCOPE_FLAG
from exobrain.util.fileio import atomic_write_text, dump_json, load_json, open_regular
from exobrain.util.git import Git
from exobrain.util.staging import staged_folder

_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}\Z")
FALLBACK_AUTHOR = ("exobrain create-instance", "create-instance@exobrain.invalid")


@dataclass
class Created:
    """What create-instance made (the CLI prints it, tests read it)."""

    root: Path
    seed: Path
    seed_commit: str | None
    framework_files: int
    shipped: tuple[str, ...]
    declared: list[str]
    scopes: list[str]
    commit: str
    files: int
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "root": str(self.root),
            "seed": str(self.seed),
            "seed_commit": self.seed_commit,
            "framework_files": self.framework_files,
            "shipped_skills": list(self.shipped),
            "declared": self.declared,
            "scopes": self.scopes,
            "commit": self.commit,
            "files": self.files,
            "notes": self.notes,
        }


def check_id(value: str, flag: str) -> str:
    """A person or host id: one path segment of letters, digits, '.', '_' or '-'."""
    if not _ID.match(value) or "__" in value:
        raise UsageError(
            f"{flag} {value!r}: use lowercase letters, digits, '.', '_' or '-' "
            f"(at most 64, no '/', no leading '.' or '-', no '__')"
        )
    return value


def check_target(target: Path, seed: Path) -> Path:
    """The absolute target folder; refuses one that holds anything or lies inside the seed."""
    target = Path(os.path.abspath(target.expanduser()))
    if target.exists() or target.is_symlink():
        if not target.is_dir() or target.is_symlink():
            raise UsageError(f"{target} exists and is not a folder")
        try:
            busy = any(target.iterdir())
        except OSError as exc:
            raise UsageError(f"{target}: cannot look inside ({exc.strerror or exc})") from exc
        if busy:
            raise UsageError(
                f"{target} is not empty; create-instance writes only into a new or empty folder",
                hint="pick another DIR (nothing was changed)",
            )
    seed = seed.resolve()
    if target == seed or seed in target.resolve().parents:
        raise UsageError(
            f"{target} is inside the seed at {seed}",
            hint="render the instance outside the seed's work tree",
        )
    return target


def create_instance(
    seed: Path, target: Path, *, person: str | None = None, host: str | None = None
) -> Created:
    """Render an instance of the seed at ``seed`` into ``target`` (new or empty)."""
    if host is not None and person is None:
        raise UsageError("--host needs --person (a host scope lives under a person scope)")
    person = check_id(person, "--person") if person else None
    host = check_id(host, "--host") if host else None
    target = check_target(target, seed)
    framework = read_framework(seed)
    origin = seed_commit(seed)
    notes: list[str] = []
    step = "start"
    try:
        with staged_folder(target, root=target.parent, empty_ok=True) as build:
            step = "build"
            for path in framework.files:
                _copy(seed / path, build / path)
            declared = write_starters(seed, build, framework)
            scopes = write_scopes(build, person, host)
            commit = initial_commit(
                build,
                f"exobrain instance rendered from the seed {_short(origin) or seed.name}",
                notes,
            )
            files = len(_tracked(build))
            step = "move"
    except OSError as exc:
        message, hint = _failure(step, target, exc)
        raise OperationFailed(message, hint=hint) from exc
    notes += install_pre_commit(target)
    return Created(
        target,
        seed.resolve(),
        origin,
        len(framework.files),
        framework.shipped,
        declared,
        scopes,
        commit,
        files,
        notes,
    )


def _failure(step: str, target: Path, exc: OSError) -> tuple[str, str | None]:
    """What to say when writing the instance failed at ``step`` (nothing is left behind)."""
    reason = exc.strerror or str(exc)
    if step == "start":
        return (
            f"{target.parent}: cannot write there ({reason})",
            "pick a DIR in a folder you can write to",
        )
    if step == "move":  # the target was filled by someone else since it was checked
        return (
            f"{target}: cannot move the new instance into place ({reason}); nothing was "
            f"changed there",
            None,
        )
    return f"{target}: writing the instance failed ({exc}); nothing was left behind", None


def _copy(source: Path, dest: Path) -> None:
    """Copy one framework file (a link as a link; a FIFO or device is refused, never read)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        os.symlink(os.readlink(source), dest)
        return
    with os.fdopen(open_regular(source), "rb") as src, open(dest, "xb") as dst:
        shutil.copyfileobj(src, dst)
    shutil.copystat(source, dest)


def write_starters(seed: Path, build: Path, framework: Framework) -> list[str]:
    """The instance's own first registry, lock, crons.json and scopes.json; returns the names
    the new skills.json declares."""
    entries = [dict(raw) for raw in framework.declarations]
    lines = ",\n".join("    " + json.dumps(e, ensure_ascii=False) for e in entries)
    body = f"[\n{lines}\n  ]" if entries else "[]"
    atomic_write_text(
        build / "skills.json",
        f'{{\n  "$schema": "skills.schema.json",\n  "skills": {body}\n}}\n',
        root=build,
    )
    locked = read_lock(seed, GLOBAL)["skills"]
    lock = {n: locked[n] for n in framework.shipped if n in locked}
    if lock:
        atomic_write_text(
            build / LOCK_FILE,
            dump_json({"lock_version": LOCK_VERSION, "skills": dict(sorted(lock.items()))}),
            root=build,
        )
    _write_crons(seed, build, framework.shipped)
    for path in COPIED_STARTERS:
        if (seed / path).is_file():
            _copy(seed / path, build / path)
    for folder in ("groups", "people"):
        (build / folder).mkdir(exist_ok=True)
        (build / folder / ".gitkeep").touch()
    return [e["name"] for e in entries]


def _write_crons(seed: Path, build: Path, shipped: tuple[str, ...]) -> None:
    """The seed's jobs minus those driving a skill the instance will not have."""
    path = seed / CRONS_FILE
    if not path.is_file():
        return
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
        raise InputFileError(
            f'{path}: expected {{"jobs": [...]}}',
            hint="skills-validate explains the problem; fix the seed first",
        )
    kept = [job for job in data["jobs"] if _job_ships(job, shipped)]
    atomic_write_text(build / CRONS_FILE, dump_json({**data, "jobs": kept}), root=build)


def _job_ships(job: Any, shipped: tuple[str, ...]) -> bool:
    skill = job.get("skill") if isinstance(job, dict) else None
    if not isinstance(skill, str):
        return True
    try:
        ref = parse_ref(skill)
    except UsageError:
        return False
    return ref.name in shipped and ref.home in (None, GLOBAL)


def write_scopes(build: Path, person: str | None, host: str | None) -> list[str]:
    """The person (and host) scope folders, each flagged by a stub AGENTS.md."""
    scopes = []
    if person:
        scopes.append(f"people/{person}")
        if host:
            scopes.append(f"people/{person}/hosts/{host}")
    for scope in scopes:
        kind = "host" if "/hosts/" in scope else "person"
        who = scope.rsplit("/", 1)[-1]
        text = (
            f"# {scope}\n\nThe {kind} scope of {who}. Agents connected to it read this "
            f"file.\n\nPut skills that serve only this {kind} in `skills/<name>/` here and "
            f"declare them in `skills.json` beside this file; opt into skills declared "
            f"elsewhere with `skills-promote NAME --from HOME --to TIER`. Notes about how "
            f"{who} likes to work belong in this file.\n"
        )
        atomic_write_text(build / scope / SCOPE_FLAG, text, root=build)
    return scopes


def _git(root: Path, *args: str) -> str:
    try:
        return Git().text(list(args), cwd=root).strip()
    except OperationFailed as exc:
        raise OperationFailed(f"{exc.message} (in {root})", hint=exc.hint) from exc


def initial_commit(root: Path, message: str, notes: list[str]) -> str:
    """git init on branch main, add everything written, one commit; returns its id."""
    _git(root, "init", "-q", "-b", "main")
    identity: list[str] = []
    if not _has_identity(root):
        identity = [
            "-c",
            f"user.name={FALLBACK_AUTHOR[0]}",
            "-c",
            f"user.email={FALLBACK_AUTHOR[1]}",
        ]
        notes.append(
            f"git has no user.name/user.email here: the first commit is authored by "
            f"{FALLBACK_AUTHOR[0]} <{FALLBACK_AUTHOR[1]}>"
        )
    _git(root, "add", "--all", "--force", ".")
    _git(
        root, *identity, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", message
    )
    return _git(root, "rev-parse", "HEAD")


def _has_identity(root: Path) -> bool:
    return Git().run(["var", "GIT_COMMITTER_IDENT"], cwd=root, check=False).returncode == 0


def _tracked(root: Path) -> list[str]:
    return [p for p in _git(root, "ls-files", "-z").split("\0") if p]


def seed_commit(seed: Path) -> str | None:
    head = Git().text(["rev-parse", "--verify", "--quiet", "HEAD"], cwd=seed, check=False)
    return head.strip() or None


def _short(commit: str | None) -> str:
    return commit[:12] if commit else ""


def install_pre_commit(root: Path) -> list[str]:
    """Turn on the instance's pre-commit hooks when pre-commit is available; a note either way."""
    if not (root / ".pre-commit-config.yaml").is_file():
        return []
    import importlib.util

    if importlib.util.find_spec("pre_commit") is not None:
        command = python_module("pre_commit", "install")
    elif shutil.which("pre-commit"):
        command = [shutil.which("pre-commit") or "pre-commit", "install"]
    else:
        return [
            "pre-commit is not installed: run `pip install pre-commit && pre-commit install` "
            "in the instance to turn on the authoring gate before each commit"
        ]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return [
            f"pre-commit install failed ({(done.stderr or done.stdout).strip()[-200:]}); "
            f"run it in the instance by hand"
        ]
    return [
        "pre-commit hook installed (skills-validate and authoring-review before each commit; "
        "ruff, mypy and import-linter on the toolkit's own scripts/ and tests/ only)"
    ]
