"""vercel's ``skills`` CLI lock files: the project's ``skills-lock.json`` (lock version 1),
read and written, and the user's ``~/.agents/.skill-lock.json`` (version 3), read.

Why a module of pure functions: the same file is written by ``exobrain export --lock`` (so a
colleague without exobrain restores our pins with ``npx skills experimental_install``) and read
when skills installed by that tool are brought in; both sides share this one reading of the
format and nothing here touches git or the disk.

The format, as ``skills`` 1.5.18 writes it (its ``writeLocalLock``)::

    {"version": 1, "skills": {"<name>": {"source": ..., "sourceUrl": ..., "ref": ...,
     "sourceType": ..., "skillPath": ..., "computedHash": ...}}}

``skills`` sorted by name, two-space indent, a trailing newline; ``sourceUrl`` only for the
``git`` and ``gitlab`` source types, ``ref`` and ``skillPath`` only when known. The name is the
``name`` of the skill's SKILL.md frontmatter: a restore clones ``source`` at ``ref`` (``git clone
--branch``, so a branch or a tag, never a commit id) and installs the skills of that name.
``computedHash`` is sha256 over each file's relative path then its bytes, files ordered as
JavaScript's ``localeCompare`` orders them (:func:`folder_hash`); the tool rewrites it on
every install, so it records what was installed rather than gating the restore.

The user's lock (version 3, under ``$XDG_STATE_HOME/skills/`` when that is set) has the same
fields per skill, its hash as ``skillFolderHash`` (a folder hash, or the GitHub tree id of the
skill's folder), plus install and update times; :func:`read_lock` reads either for
``exobrain adopt``. Neither records a commit. Samples the tool wrote are in
tests/fixtures/locks/ and tests/fixtures/adopt/.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from hashlib import sha256
from typing import Any

PROJECT_LOCK = "skills-lock.json"
USER_LOCK = ".skill-lock.json"
PROJECT_VERSION = 1
USER_VERSION = 3
#: The source types ``skills`` records (``local``, ``well-known`` and ``node_modules`` cannot be
#: restored to a commit; they are read, never written).
SOURCE_TYPES = ("github", "gitlab", "git", "local", "well-known", "node_modules")
#: The source types that name a git repository.
GIT_TYPES = ("github", "gitlab", "git")
#: Bounds on what is read: a lock is small, a hostile one must not cost memory or time.
MAX_TEXT = 1 << 20
MAX_SKILLS = 5000
MAX_FIELD = 2048
_FIELDS = {
    "source": "source",
    "sourceUrl": "source_url",
    "ref": "ref",
    "sourceType": "source_type",
    "skillPath": "skill_path",
    "computedHash": "computed_hash",
}
_HASH = re.compile(r"^[0-9a-f]{64}\Z")
_TREE_OR_HASH = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")  # the user lock's
_GITHUB = re.compile(r"^(?:https|ssh)://(?:git@)?github\.com/([^/]+)/([^/]+?)(?:\.git)?/?\Z")
_GITLAB = re.compile(r"^https://gitlab\.com/(.+?/[^/]+?)(?:\.git)?/?\Z")


class LockFormatError(ValueError):
    """A source or a file that this format cannot hold or read (the message says why)."""


@dataclass(frozen=True)
class LockEntry:
    """One skill of the lock, in the tool's own terms."""

    name: str
    source: str
    source_type: str
    ref: str | None = None
    source_url: str | None = None
    skill_path: str | None = None
    computed_hash: str = ""

    def as_json(self) -> dict[str, str]:
        """The entry as the tool writes it (its key order; absent values left out)."""
        out = {"source": self.source}
        if self.source_url:
            out["sourceUrl"] = self.source_url
        if self.ref:
            out["ref"] = self.ref
        out["sourceType"] = self.source_type
        if self.skill_path:
            out["skillPath"] = self.skill_path
        out["computedHash"] = self.computed_hash
        return out


@dataclass(frozen=True)
class LockProblem:
    """An entry (or the whole file, ``name`` None) that cannot be used, and why."""

    name: str | None
    why: str


@dataclass
class ParsedLock:
    """What :func:`parse` read: the good entries and one message per bad one."""

    entries: list[LockEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def render(entries: Iterable[LockEntry]) -> str:
    """The lock text for ``entries``, byte for byte as the tool writes it (each entry
    checked as :func:`parse` reads it)."""
    skills: dict[str, dict[str, str]] = {}
    for entry in sorted(entries, key=lambda e: e.name):
        check(entry)
        if entry.name in skills:
            raise LockFormatError(f"two entries named {entry.name!r}; the lock holds one per name")
        skills[entry.name] = entry.as_json()
    lock = {"version": PROJECT_VERSION, "skills": skills}
    return json.dumps(lock, indent=2, ensure_ascii=False) + "\n"


def parse(text: str) -> ParsedLock:
    """Read a lock; raises :class:`LockFormatError` when the file as a whole is unreadable
    (not JSON, too large, no ``skills`` object, another version), and lists each bad entry
    (``<name>: why``) in ``problems`` while keeping the good ones."""
    if len(text) > MAX_TEXT:
        raise LockFormatError(f"is larger than {MAX_TEXT} characters; not a lock")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise LockFormatError(f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise LockFormatError('must be a JSON object {"version": 1, "skills": {...}}')
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version != PROJECT_VERSION:
        raise LockFormatError(
            f"has version {version!r}; only lock version {PROJECT_VERSION} is read"
        )
    skills = data.get("skills")
    if not isinstance(skills, dict):
        raise LockFormatError('has no "skills" object')
    if len(skills) > MAX_SKILLS:
        raise LockFormatError(f"lists more than {MAX_SKILLS} skills")
    parsed = ParsedLock()
    for name, raw in skills.items():
        try:
            parsed.entries.append(_entry(name, raw))
        except LockFormatError as exc:
            parsed.problems.append(f"{_shown(name)}: {exc}")
    return parsed


def check(entry: LockEntry) -> None:
    """Refuse (:class:`LockFormatError`) an entry :func:`parse` would not read back, so what
    is written is what is read."""
    _entry(entry.name, entry.as_json())


def read_lock(data: Any, *, user: bool = False) -> tuple[dict[str, LockEntry], list[LockProblem]]:
    """The entries of a parsed lock (the project's, or with ``user`` the user's, whose hash
    key is ``skillFolderHash``), and the problems of the entries (or of the whole file, name
    None) that cannot be used: a lock someone else wrote, read entry by entry."""
    version = USER_VERSION if user else PROJECT_VERSION
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        return {}, [LockProblem(None, 'expected an object with a "skills" object')]
    found = data.get("version")
    if isinstance(found, bool) or not isinstance(found, int) or found < version:
        return {}, [LockProblem(None, f"version {found!r}: this reader knows version {version}")]
    skills = data["skills"]
    if len(skills) > MAX_SKILLS:
        return {}, [LockProblem(None, f"{len(skills)} skills, over the cap of {MAX_SKILLS}")]
    entries: dict[str, LockEntry] = {}
    problems: list[LockProblem] = []
    for name, raw in skills.items():
        try:
            entries[name] = _entry(name, raw, user=user)
        except LockFormatError as exc:
            problems.append(LockProblem(_shown(name), str(exc)))
    return entries, problems


def _entry(name: str, raw: Any, *, user: bool = False) -> LockEntry:
    if not name or len(name) > MAX_FIELD or not _printable(name):
        raise LockFormatError("the skill name must be non-empty printable text")
    if not isinstance(raw, dict):
        raise LockFormatError("the entry must be an object")
    values: dict[str, str] = {}
    for key, attr in _FIELDS.items():
        value = raw.get("skillFolderHash" if user and key == "computedHash" else key)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > MAX_FIELD or not _printable(value):
            raise LockFormatError(f"{key} must be printable text of at most {MAX_FIELD} chars")
        values[attr] = value
    if not values.get("source"):
        raise LockFormatError("source is missing")
    if values.get("source_type") not in SOURCE_TYPES:
        raise LockFormatError(f"sourceType must be one of {', '.join(SOURCE_TYPES)}")
    digest = values.get("computed_hash", "")
    if digest and not user and not _HASH.match(digest):
        raise LockFormatError("computedHash must be 64 lower-case hex digits")
    if digest and user and not _TREE_OR_HASH.match(digest):
        raise LockFormatError("skillFolderHash must be a sha256 or a tree id in lower-case hex")
    path = values.get("skill_path")
    if path is not None and (
        path.startswith("/") or ".." in path.split("/") or not path.endswith("SKILL.md")
    ):
        raise LockFormatError("skillPath must be a relative path to a SKILL.md without '..'")
    return LockEntry(name=name, **values)


def _printable(text: str) -> bool:
    return all(ch.isprintable() for ch in text)


def _shown(name: object) -> str:
    text = str(name)[:80]
    return repr(text) if not _printable(text) else text


# -- writing our sources in the tool's terms ------------------------------------------------


def lock_source(repo: str) -> tuple[str, str, str | None]:
    """``(source, sourceType, sourceUrl)`` the tool records for a repository URL (what its
    ``skills add <url>#<ref>`` writes), or :class:`LockFormatError` for a URL whose ref the
    tool would not read back on restore (it takes a ``#ref`` only after a GitHub or GitLab
    address, a ``git@`` address, or an https/ssh URL ending in ``.git``)."""
    github = _GITHUB.match(repo)
    if github:
        return f"{github[1]}/{github[2]}", "github", None
    if repo.startswith("git@"):
        return repo, "git", repo
    gitlab = _GITLAB.match(repo)
    if gitlab:
        url = f"https://gitlab.com/{gitlab[1]}.git"
        return url, "gitlab", url
    if repo.startswith(("https://", "ssh://")):
        if not repo.endswith(".git"):
            raise LockFormatError(
                "does not end in .git, so the skills CLI would not read a ref after it "
                "(an https URL without .git is taken for a well-known endpoint)"
            )
        return repo, "git", repo
    if repo.startswith("file:") or repo.startswith(("/", ".", "~")):
        raise LockFormatError("is a local repository; the skills CLI reads no ref for those")
    raise LockFormatError("is a user@host:path address; the skills CLI reads a ref only after git@")


def skill_path(path: str) -> str:
    """``skillPath`` for a skill folder inside its repository ("." is the root)."""
    return "SKILL.md" if path in ("", ".") else f"{path.strip('/')}/SKILL.md"


def folder_hash(files: Iterable[tuple[str, bytes]]) -> str:
    """The tool's ``computedHash`` of a skill folder: ``files`` are (POSIX path relative to the
    folder, content) for every regular file outside ``.git`` and ``node_modules`` folders."""
    digest = sha256()
    for path, content in sorted(files, key=lambda item: collation_key(item[0])):
        digest.update(path.encode("utf-8"))
        digest.update(content)
    return digest.hexdigest()


#: The order of printable ASCII under the Unicode collation (CLDR root, punctuation not
#: ignored) that Node's ``localeCompare`` uses: symbols, then digits, then letters, letters
#: compared without case first; measured from Node 20 (``Intl.Collator``), one group a string.
_ASCII_ORDER = (
    " ",
    "_",
    "-",
    ",",
    ";",
    ":",
    "!",
    "?",
    ".",
    "'",
    '"',
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "@",
    "*",
    "/",
    "\\",
    "&",
    "#",
    "%",
    "`",
    "^",
    "+",
    "<",
    "=",
    ">",
    "|",
    "~",
    "$",
    *"0123456789",
    *(c + c.upper() for c in "abcdefghijklmnopqrstuvwxyz"),
)
_PRIMARY = {ch: rank for rank, group in enumerate(_ASCII_ORDER) for ch in group}


def collation_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A sort key that orders like ``a.localeCompare(b)`` in Node: every character's base
    (primary) weight over the whole string first, then accents, then case (lower before upper).
    Exact for ASCII; other characters are decomposed (é sorts with e) and unknown bases sort
    after the letters by code point."""
    primary: list[int] = []
    accents: list[int] = []
    case: list[int] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            if accents:
                accents[-1] = accents[-1] * 1024 + ord(ch) % 1024
            continue
        primary.append(_PRIMARY.get(ch, len(_ASCII_ORDER) + ord(ch)))
        accents.append(0)
        case.append(1 if ch.isupper() else 0)
    return tuple(primary), tuple(accents), tuple(case)
