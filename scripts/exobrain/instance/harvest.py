"""``exobrain harvest``: what the seed's instances did with the framework, and what they added.

The seed lists its instances in the connection file (``"instances": [...]``, per machine):
local paths (read where they are) or git URLs (fetched into a bare cache under
``.exobrain-cache/instances/``, which ``.gitignore`` keeps out of the seed). Instances are only
ever read: a local one through git plumbing with optional locks off, so not even its index is
refreshed.

What is compared is what an instance has **committed** (its ``HEAD``) against the seed's
working tree. Per instance: its state (ok, dirty — uncommitted changes, which are not
harvested —, absent, not an exobrain) and these facts:

* ``differs PATH`` — a framework file whose content differs from the seed's;
* ``behind PATH`` — the instance holds an older version of the seed's file (nothing to
  harvest; the instance should update);
* ``missing PATH`` — a framework file the instance deleted;
* ``only-there PATH`` — a file in a framework folder the seed lacks (``scripts/``, ``tests/``,
  …), or a skill folder (any scope) whose name no skill of the seed has.

:func:`compare` is pure; everything before it reads git.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.caches import INSTANCES as INSTANCES_CACHE
from exobrain.caches import REPO_CACHE
from exobrain.errors import InputFileError, OperationFailed, UsageError
from exobrain.gate.review import skill_folder
from exobrain.gate.snapshot import Snapshot, snapshot, wanted_blobs
from exobrain.instance.framework import (
    FRAMEWORK_FILES,
    FRAMEWORK_FOLDERS,
    Framework,
    is_framework,
    is_framework_area,
    read_framework,
)
from exobrain.model import Identity
from exobrain.paths import cache_folder
from exobrain.scan import scan_scopes
from exobrain.scopes import CONNECTION_FILE, Connection, ScopeConfig, load_scope_config
from exobrain.util.git import Git
from exobrain.util.repository import Repository

INSTANCES_KEY = "instances"
INSTANCES = INSTANCES_CACHE.folder  # the fetched instances, inside the cache folder
OK, DIRTY, ABSENT, NOT_EXOBRAIN = "ok", "dirty", "absent", "not an exobrain"
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://|^[A-Za-z0-9._~+-]+@[^/:]+:")


@dataclass(frozen=True)
class Fact:
    kind: str  # differs | behind | missing | only-there
    path: str  # a file, or a skill folder ending in "/"
    skill: str | None = None  # for a skill folder: its name

    def line(self) -> str:
        return f"{self.kind} {self.path}"


@dataclass
class InstanceReport:
    """One instance as harvest saw it."""

    source: str  # as listed
    state: str
    location: Path  # the repository read (the instance, or its cache clone)
    reason: str = ""
    commit: str | None = None
    facts: list[Fact] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    snap: Snapshot | None = field(default=None, repr=False)
    ids: dict[str, str] = field(default_factory=dict, repr=False)  # path → blob id at commit

    @property
    def readable(self) -> bool:
        return self.state in (OK, DIRTY)

    def as_json(self) -> dict[str, Any]:
        return {
            "instance": self.source,
            "state": self.state,
            "reason": self.reason,
            "location": str(self.location),
            "commit": self.commit,
            "warnings": self.warnings,
            "facts": [
                {"kind": f.kind, "path": f.path, **({"skill": f.skill} if f.skill else {})}
                for f in self.facts
            ],
        }


def listed_instances(connection: Connection) -> list[str]:
    """The ``instances`` of the connection file (an empty list when there is none)."""
    value = connection.raw.get(INSTANCES_KEY, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputFileError(
            f"{CONNECTION_FILE}: {INSTANCES_KEY} must be a list of paths or git URLs",
            hint='e.g. "instances": ["../alice-exobrain", '
            '"https://git.example.com/team/exobrain.git"]',
        )
    return [v.strip() for v in value]


def is_url(text: str) -> bool:
    return bool(_URL.match(text))


def cache_dir(seed: Path, url: str) -> Path:
    """The bare cache repository of an instance URL, inside the seed's ignored cache folder."""
    name = url.split("://", 1)[-1].removesuffix("/").removesuffix(".git")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[-50:]
    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return seed / REPO_CACHE / INSTANCES / f"{slug}-{digest}.git"


def open_instance(seed: Path, source: str) -> InstanceReport:
    """Locate an instance (fetching a URL into the cache) and read its state."""
    if is_url(source):
        report, rev = _fetch(seed, source)
        if report.state != OK:
            return report
        return _read(report, Repository(report.location), rev, bare=True)
    path = (seed / Path(source).expanduser()).resolve()
    report = InstanceReport(source, OK, location=path)
    if not path.exists():
        return _set(report, ABSENT, f"no such folder: {path}")
    if not path.is_dir():
        return _set(report, NOT_EXOBRAIN, f"{path} is a file")
    try:
        git = Repository(path, foreign=True)  # its own config must not run anything here
    except UsageError:
        return _set(report, NOT_EXOBRAIN, "not a git repository")
    except OperationFailed as exc:
        return _set(report, NOT_EXOBRAIN, exc.message)
    if git.run("rev-parse", "--show-prefix").strip():
        return _set(report, NOT_EXOBRAIN, "a folder inside a git repository, not its root")
    return _read(report, git, "HEAD", bare=False)


def _set(report: InstanceReport, state: str, reason: str) -> InstanceReport:
    report.state, report.reason = state, reason
    return report


def _fetch(seed: Path, url: str) -> tuple[InstanceReport, str]:
    """Fetch the URL's HEAD into its cache repository (kept when the remote is unreachable)."""
    from exobrain.fetch.remote import SourceRefused, check_repo

    report = InstanceReport(url, OK, location=cache_dir(seed, url))
    ref = "refs/harvest/head"
    try:
        checked, local = check_repo(url, allow_local=True, root=seed)
    except SourceRefused as exc:
        return _set(report, ABSENT, exc.message), ref
    git = Git(allow_file=local)
    folder = report.location
    try:
        if not (folder / "HEAD").is_file():
            cache_folder(seed, INSTANCES)  # real folders only: a committed link is refused
            git.run(["init", "-q", "--bare", "--template=", str(folder)])
        git.run(
            ["fetch", "--quiet", "--force", "--no-tags", "--", checked, f"+HEAD:{ref}"],
            cwd=folder,
            remote=True,
        )
    except OperationFailed as exc:
        known = (
            git.run(["rev-parse", "--verify", "--quiet", ref], cwd=folder, check=False)
            if (folder / "HEAD").is_file()
            else None
        )
        if known is not None and known.returncode == 0:
            report.warnings.append(f"fetch failed, using the copy fetched before: {exc.message}")
            return report, ref
        return _set(report, ABSENT, f"cannot fetch: {exc.message}"), ref
    return report, ref


def _read(report: InstanceReport, git: Repository, rev: str, *, bare: bool) -> InstanceReport:
    commit = git.commit_of(rev)
    if commit is None:
        return _set(report, NOT_EXOBRAIN, "no commit yet")
    report.commit = commit
    files = git.files(commit)
    if "skills.json" not in files:
        return _set(report, NOT_EXOBRAIN, "no skills.json at its root")
    report.snap = snapshot(list(files), git.read(wanted_blobs(files)), strict=False)
    report.ids = files
    report.warnings += [w.replace("base ", "", 1) for w in report.snap.warnings]
    if (
        not bare
        and git.run(
            "status", "--porcelain", "--untracked-files=normal", "--ignore-submodules=all"
        ).strip()
    ):
        _set(report, DIRTY, "uncommitted changes, not harvested")
    return report


def seed_skill_names(seed: Path, config: ScopeConfig) -> set[str]:
    """Every skill folder name the seed has on disk, in any scope (seed/ included)."""
    names: set[str] = set()
    for scope in scan_scopes(seed, config).scopes:
        folder = scope.directory(seed) / "skills"
        if folder.is_dir():
            names |= {p.parent.name for p in folder.glob("*/SKILL.md")}
    return names


def seed_history(seed: Path, framework: Framework) -> dict[str, set[str]]:
    """Every blob id each framework path ever had in the seed's history (to tell "behind")."""
    specs = [*FRAMEWORK_FILES, *FRAMEWORK_FOLDERS, *(f"skills/{n}/" for n in framework.shipped)]
    out = Git().text(
        ["log", "--format=", "--raw", "--no-abbrev", "--no-renames", "-z", "--", *specs],
        cwd=seed,
        check=False,
    )
    history: dict[str, set[str]] = {}
    fields = out.split("\0")
    for info, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = info.strip().split()
        if len(parts) >= 4:
            history.setdefault(path, set()).update(parts[2:4])
    return history


def compare(
    seed_ids: dict[str, str],
    shipped: tuple[str, ...],
    known_skills: set[str],
    instance_ids: dict[str, str],
    instance_skills: set[Identity],
    history: dict[str, set[str]],
) -> list[Fact]:
    """The facts about one instance (pure): framework files that differ, lag or are missing,
    then what only the instance has."""
    facts: list[Fact] = []
    for path, oid in sorted(seed_ids.items()):
        theirs = instance_ids.get(path)
        if theirs is None:
            facts.append(Fact("missing", path))
        elif theirs != oid:
            facts.append(Fact("behind" if theirs in history.get(path, ()) else "differs", path))
    for path in sorted(instance_ids):
        if path not in seed_ids and (is_framework_area(path) or is_framework(path, shipped)):
            facts.append(Fact("only-there", path))
    for scope, name, _ in sorted(instance_skills):
        if name not in known_skills:
            facts.append(Fact("only-there", skill_folder(scope, name) + "/", name))
    return facts


def harvest(seed: Path, sources: list[str]) -> list[InstanceReport]:
    """Read every instance and compare it with the seed."""
    framework = read_framework(seed)
    seed_ids = framework.blob_ids()
    known = seed_skill_names(seed, load_scope_config(seed))
    history: dict[str, set[str]] | None = None
    reports = []
    for source in sources:
        report = open_instance(seed, source)
        if report.readable and report.snap is not None:
            ids = report.ids
            if history is None and any(ids.get(p, o) != o for p, o in seed_ids.items()):
                history = seed_history(seed, framework)
            report.facts = compare(
                seed_ids, framework.shipped, known, ids, report.snap.skill_files(), history or {}
            )
        reports.append(report)
    return reports
