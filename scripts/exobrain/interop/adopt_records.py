"""What other installers left on this machine: the skill folders in the agents' folders and the
record each tool keeps of where a skill came from (for ``exobrain adopt``).

Two record keepers are read. Vercel's ``skills`` CLI keeps a lock: the project's
``skills-lock.json`` at the repository root for project folders, the user's
``.skill-lock.json`` for user folders (:mod:`exobrain.interop.formats.skills_lock`).
GitHub's ``gh skill install`` writes its record into the installed SKILL.md itself
(``metadata.github-repo``, ``github-path``, ``github-ref``, ``github-tree-sha``,
``github-pinned``); since that record travels with the content, it wins when a folder has both.

Everything here is read-only and treats what it reads as untrusted: files are size-capped,
entries checked one by one, and a broken entry becomes a problem on that one skill. Links and
installs this toolkit made itself (symlinks into the repository's scopes, folders with its
install record) are not someone else's installs and are left out.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from exobrain.agents import Agent
from exobrain.errors import ExobrainError
from exobrain.interop.formats import skills_lock
from exobrain.interop.formats.fields import read_lenient
from exobrain.paths import shown
from exobrain.skillmd import SKILL_FILE, skill_text
from exobrain.util.dirhash import INSTALL_RECORD
from exobrain.util.fileio import parse_json, read_text

VERCEL, GH = "skills (vercel)", "gh skill"
LOCK_LIMIT = 4 * 1024 * 1024
MAX_FOLDERS = 2000
_GH_KEYS = ("github-repo", "github-path", "github-ref", "github-tree-sha", "github-pinned")
_TREE = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")


@dataclass(frozen=True)
class Origin:
    """Where a tool says a skill came from. ``repo`` is a git URL when the source is a git
    repository (``path`` the folder inside it, "." for its root; None when unknown), ``ref``
    the ref asked for (None: the default branch). ``hash`` is vercel's hash of the folder as
    installed, ``tree`` the git tree id gh recorded of the folder upstream; ``pinned`` says
    that ``ref`` is the very commit that was installed (Claude Code's plugin records)."""

    tool: str
    record: str  # where the record is, as shown to the person
    source_type: str
    source: str
    repo: str | None = None
    path: str | None = None
    ref: str | None = None
    hash: str = ""
    tree: str | None = None
    pinned: bool = False


@dataclass
class Installed:
    """One installed skill folder (its real location) and the agents whose folders show it."""

    name: str
    folder: Path
    where: str
    agents: list[str] = field(default_factory=list)
    origin: Origin | None = None
    problem: str | None = None


def user_lock_path() -> Path:
    """Where the tool keeps the user lock: under ``$XDG_STATE_HOME/skills`` when that is set
    and the file is there, else ``~/.agents``."""
    state = os.environ.get("XDG_STATE_HOME")
    if state:
        candidate = Path(state) / "skills" / skills_lock.USER_LOCK
        if candidate.is_file():
            return candidate
    return Path.home() / ".agents" / skills_lock.USER_LOCK


def shown_path(path: Path, root: Path) -> str:
    """A path as the plan shows it: inside the repository relative to it, in the home with ~/."""
    text = shown(path, root)
    if text != str(path):
        return text
    home = Path.home()
    return f"~/{path.relative_to(home).as_posix()}" if path.is_relative_to(home) else text


class _Lock:
    """One vercel lock file, read on first use: its entries and problems."""

    def __init__(self, path: Path, root: Path, *, user: bool) -> None:
        self.path, self.user, self.shown = path, user, shown_path(path, root)
        self._read: tuple[dict[str, skills_lock.LockEntry], dict[str, str], str | None] | None
        self._read = None

    def lookup(self, name: str) -> tuple[skills_lock.LockEntry | None, str | None]:
        """(entry, problem) for the skill ``name``; both None when the lock does not list it."""
        if self._read is None:
            self._read = self._load()
        entries, problems, broken = self._read
        if broken:
            return None, broken
        if name in problems:
            return None, f"{self.shown}: skills.{name}: {problems[name]}"
        return entries.get(name), None

    def _load(self) -> tuple[dict[str, skills_lock.LockEntry], dict[str, str], str | None]:
        if not self.path.is_file():
            return {}, {}, None
        try:
            data = parse_json(read_text(self.path, limit=LOCK_LIMIT, what="a lock"), self.path)
        except ExobrainError as exc:
            return {}, {}, f"{exc.message.replace(str(self.path), self.shown)}"
        entries, problems = skills_lock.read_lock(data, user=self.user)
        whole = [p.why for p in problems if p.name is None]
        if whole:
            return {}, {}, f"{self.shown}: {whole[0]}"
        return entries, {str(p.name): p.why for p in problems}, None


def _github_url(source: str) -> str | None:
    match = re.match(r"^([A-Za-z0-9][\w.-]*)/([\w.-]+?)(?:\.git)?\Z", source)
    return f"https://github.com/{match.group(1)}/{match.group(2)}" if match else None


def vercel_origin(entry: skills_lock.LockEntry, record: str) -> Origin:
    """An :class:`Origin` from a vercel lock entry: GitHub shorthand becomes its https URL,
    the SKILL.md path its folder."""
    repo = None
    if entry.source_type == "github":
        repo = _github_url(entry.source) or entry.source_url
    elif entry.source_type in skills_lock.GIT_TYPES:
        repo = entry.source_url or entry.source
    path = None
    if entry.skill_path:
        parent = PurePosixPath(entry.skill_path).parent.as_posix()
        path = "." if parent in ("", ".") else parent
    # online, the user lock keeps GitHub's tree id of the folder (40 hex digits) instead of
    # the tool's own 64-digit folder hash
    tree = entry.computed_hash if len(entry.computed_hash) == 40 else None
    digest = "" if tree else entry.computed_hash
    return Origin(
        VERCEL, record, entry.source_type, entry.source, repo, path, entry.ref, digest, tree
    )


def gh_origin(folder: Path, record: str) -> Origin | None:
    """The record ``gh skill install`` wrote into the SKILL.md's metadata, None when there is
    none; raises ValueError naming the field that is unusable."""
    try:
        meta, _, _ = read_lenient(skill_text(folder / SKILL_FILE), folder / SKILL_FILE)
    except ExobrainError as exc:
        raise ValueError(exc.message) from None
    metadata = meta.get("metadata")
    if not isinstance(metadata, dict) or "github-repo" not in metadata:
        return None
    values: dict[str, str] = {}
    for key in _GH_KEYS:
        value = metadata.get(key)
        if value is None and key == "github-pinned":
            continue
        if not isinstance(value, str) or not value or len(value) > skills_lock.MAX_FIELD:
            raise ValueError(f"metadata.{key} must be a non-empty string")
        values[key] = value
    if not values["github-repo"].startswith("https://"):
        raise ValueError(f"metadata.github-repo {values['github-repo']!r} is not an https URL")
    if not _TREE.match(values["github-tree-sha"]):
        raise ValueError("metadata.github-tree-sha must be a git tree id")
    path = values["github-path"].strip("/").removesuffix(SKILL_FILE).strip("/") or "."
    return Origin(
        GH,
        record,
        "github",
        values["github-repo"],
        values["github-repo"].removesuffix(".git"),
        path,
        values["github-ref"],
        "",
        values["github-tree-sha"],
    )


def _candidates(skills_dir: Path, root: Path) -> list[tuple[str, Path]]:
    """(name, real folder) of the skill folders directly in ``skills_dir`` that are not this
    toolkit's own links or installs."""
    try:
        entries = sorted(os.scandir(skills_dir), key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for entry in entries[:MAX_FOLDERS]:
        path = Path(entry.path)
        if entry.name.startswith(".") or not path.is_dir():
            continue
        real = path.resolve()
        if entry.is_symlink() and real.is_relative_to(root.resolve()):
            inside = os.path.relpath(real, root.resolve()).split(os.sep)
            if not any(part.startswith(".") for part in inside[:1]):
                continue  # a link into a scope of this repository: connect-agent's
        if (real / INSTALL_RECORD).exists() or not (real / SKILL_FILE).is_file():
            continue
        found.append((entry.name, real))
    return found


def find_installed(root: Path, agents: list[Agent], *, user: bool) -> list[Installed]:
    """The skills other tools installed in the project folders of ``agents`` (and their user
    folders with ``user``), one per real folder, each with its record or its problem."""
    project_lock = _Lock(root / skills_lock.PROJECT_LOCK, root, user=False)
    user_lock = _Lock(user_lock_path(), root, user=True)
    places: list[tuple[Agent, Path, _Lock]] = []
    for agent in agents:
        if agent.project_skills is not None:
            places.append((agent, root / agent.project_skills, project_lock))
        if user:
            places.append((agent, agent.user_skills_dir(), user_lock))
    by_folder: dict[Path, Installed] = {}
    for agent, skills_dir, lock in places:
        for name, real in _candidates(skills_dir, root):
            known = by_folder.get(real)
            if known is not None:
                if agent.name not in known.agents:
                    known.agents.append(agent.name)
                continue
            item = Installed(name, real, shown_path(skills_dir / name, root), [agent.name])
            by_folder[real] = item
            _attach(item, lock)
    return list(by_folder.values())


def _attach(item: Installed, lock: _Lock) -> None:
    """Give ``item`` its record: gh's frontmatter first, else the lock's entry."""
    try:
        origin = gh_origin(item.folder, f"{item.where}/{SKILL_FILE} (metadata)")
    except ValueError as exc:
        item.problem = f"{item.where}/{SKILL_FILE}: {exc}"
        return
    if origin is not None:
        item.origin = origin
        return
    entry, problem = lock.lookup(item.name)
    if problem:
        item.problem = problem
    elif entry is not None:
        item.origin = vercel_origin(entry, lock.shown)


def describe(origin: Origin) -> dict[str, Any]:
    """The record as JSON for a plan."""
    return {
        "tool": origin.tool,
        "record": origin.record,
        "source_type": origin.source_type,
        "source": origin.source,
        "repo": origin.repo,
        "path": origin.path,
        "ref": origin.ref,
    }


def installed_hash(folder: Path) -> str:
    """The skills CLI's hash of an installed folder (:func:`skills_lock.folder_hash`) read from
    the disk: every regular file outside ``.git`` and ``node_modules``, links not followed."""
    files: list[tuple[str, bytes]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                files.append((path.relative_to(folder).as_posix(), path.read_bytes()))
    return skills_lock.folder_hash(files)
