"""Trust: an executable a repository ships runs on this machine only once its exact content was
trusted here.

A scope's hooks (``<scope>/scripts/connect-agent…``, see :mod:`exobrain.connect.scopehooks`)
run on every relink, and so on every ``git pull`` through the post-merge hook: without this,
whoever can push to a shared scope runs code on every member's machine. As direnv and mise do,
trust is recorded per machine and outside every repository, in
``$XDG_CONFIG_HOME/exobrain/trust.json`` (``~/.config/exobrain/trust.json``)::

    {"version": 1, "files": {"/abs/path/groups/acme/scripts/connect-agent":
        {"sha256": "…", "trusted_at": "2026-11-29T15:16:47Z"}}}

A file is trusted when its real path is recorded with the sha256 of what it holds now. A new
file, or a trusted one whose content changed, is *not run*: it is reported with the command
that trusts it once reviewed (``exobrain trust PATH``). The file is written atomically under
a lock, through the one JSON editor.

The same file records the test suites this machine trusts (``exobrain trust --suite``: what
``exobrain selftest`` may run, see :mod:`exobrain.instance.suitetrust`), under ``"suites"``,
keyed by the repository's real path: the digest of every file the suite can load, when, and
the commit it was trusted at (so a changed suite can be reviewed as a diff)::

    "suites": {"/abs/path/exobrain": {"sha256": "…", "trusted_at": "…", "commit": "…"}}
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.caches import TRUST
from exobrain.errors import InputFileError, UsageError
from exobrain.paths import user_config_dir
from exobrain.util.fileio import load_json
from exobrain.util.jsonfile import update_json_file

TRUST_FILE = TRUST.folder
FORMAT = 1
TRUSTED, NEW, CHANGED, MISSING = "trusted", "new", "changed", "missing"
#: An executable larger than this is never trusted (a hook is a short script).
MAX_BYTES = 10 * 1024 * 1024


def trust_file() -> Path:
    return user_config_dir() / TRUST_FILE


def key_of(path: Path) -> str:
    """The key a file is trusted under: its real, absolute path (a link is its target)."""
    return os.path.realpath(path)


def digest(path: Path) -> str | None:
    """The sha256 of a regular file's content; None when it is not one or cannot be read."""
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                return None
            return hashlib.sha256(handle.read(MAX_BYTES + 1)).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True)
class TrustRecord:
    """One trusted file: its key (real path), the content's sha256, when it was trusted."""

    path: str
    sha256: str
    trusted_at: str

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "trusted_at": self.trusted_at}


def _records(table: Any) -> bool:
    """Whether ``table`` maps paths to records with a ``sha256`` and a ``trusted_at``."""
    return isinstance(table, dict) and all(
        isinstance(k, str)
        and isinstance(v, dict)
        and isinstance(v.get("sha256"), str)
        and isinstance(v.get("trusted_at"), str)
        for k, v in table.items()
    )


def _check(data: Any) -> None:
    """The shape of the trust file; anything else is refused, never rewritten."""
    where = trust_file()
    hint = f"move the file away; exobrain trust PATH writes a new one ({where})"
    if not isinstance(data, dict) or data.get("version") != FORMAT:
        raise InputFileError(
            f'{where}: expected {{"version": {FORMAT}, "files": {{…}}}}', hint=hint
        )
    if not _records(data.get("files")):
        raise InputFileError(
            f'{where}: "files" must map paths to {{"sha256", "trusted_at"}}', hint=hint
        )
    if "suites" in data and not _records(data["suites"]):
        raise InputFileError(
            f'{where}: "suites" must map repositories to {{"sha256", "trusted_at", "commit"}}',
            hint=hint,
        )


def load_trust() -> dict[str, TrustRecord]:
    """Every trusted file by key (none when the trust file does not exist)."""
    path = trust_file()
    if not os.path.lexists(path):
        return {}
    data = load_json(path)
    _check(data)
    return {k: TrustRecord(k, v["sha256"], v["trusted_at"]) for k, v in data["files"].items()}


def load_trust_or_warn(warnings: list[str]) -> dict[str, TrustRecord]:
    """:func:`load_trust` for a command that goes on: a broken trust file trusts nothing, and
    a warning says so."""
    try:
        return load_trust()
    except InputFileError as exc:
        warnings.append(f"{exc.message}: nothing is trusted until it is fixed")
        return {}


def state_of(path: Path, store: dict[str, TrustRecord]) -> str:
    """TRUSTED, NEW (never trusted here), CHANGED (trusted with other content) or MISSING."""
    found = digest(path)
    return MISSING if found is None else _state(path, found, store)


def is_trusted(path: Path, sha256: str) -> bool:
    """Whether ``path`` is trusted with exactly ``sha256`` (read again right before a run)."""
    record = load_trust().get(key_of(path))
    return record is not None and record.sha256 == sha256 == digest(path)


def _empty() -> dict[str, Any]:
    return {"version": FORMAT, "files": {}}


def trust(paths: list[Path]) -> list[tuple[Path, str, str]]:
    """Trust each file's current content: (path, sha256, its state before) for each."""
    chosen: list[tuple[Path, str]] = []
    for path in paths:
        found = digest(path)
        if found is None:
            raise UsageError(
                f"{path}: not a readable regular file (of at most {MAX_BYTES} bytes)",
                hint="name the script itself, e.g. groups/acme/scripts/connect-agent",
            )
        chosen.append((path, found))
    before = load_trust()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    trust_file().parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with update_json_file(
        trust_file(), root=user_config_dir(), default=_empty, check=_check
    ) as update:
        for path, found in chosen:
            update.data["files"][key_of(path)] = {"sha256": found, "trusted_at": stamp}
        update.data["files"] = dict(sorted(update.data["files"].items()))
    return [(path, found, _state(path, found, before)) for path, found in chosen]


def _state(path: Path, found: str, store: dict[str, TrustRecord]) -> str:
    """NEW, TRUSTED or CHANGED for content ``found`` at ``path``."""
    record = store.get(key_of(path))
    return NEW if record is None else TRUSTED if record.sha256 == found else CHANGED


def untrust(paths: list[Path]) -> list[tuple[Path, bool]]:
    """Forget each file's trust: (path, whether it was trusted)."""
    if not os.path.lexists(trust_file()):
        return [(path, False) for path in paths]
    result: list[tuple[Path, bool]] = []
    with update_json_file(trust_file(), root=user_config_dir(), check=_check) as update:
        for path in paths:
            result.append((path, update.data["files"].pop(key_of(path), None) is not None))
    return result


@dataclass(frozen=True)
class SuiteRecord:
    """A test suite trusted here: its repository (real path), the digest of what it can load,
    when, and the commit it was trusted at (None outside git)."""

    root: str
    sha256: str
    trusted_at: str
    commit: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "repository": self.root,
            "sha256": self.sha256,
            "trusted_at": self.trusted_at,
            "commit": self.commit,
        }


def load_suites() -> dict[str, SuiteRecord]:
    """Every trusted suite by its repository's real path (none without a trust file)."""
    path = trust_file()
    if not os.path.lexists(path):
        return {}
    data = load_json(path)
    _check(data)
    return {
        k: SuiteRecord(
            k,
            v["sha256"],
            v["trusted_at"],
            v["commit"] if isinstance(v.get("commit"), str) else None,
        )
        for k, v in data.get("suites", {}).items()
    }


def trust_suite(root: Path, sha256: str, commit: str | None) -> SuiteRecord:
    """Record the suite of the repository at ``root`` as trusted with digest ``sha256``."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    record = SuiteRecord(key_of(root), sha256, stamp, commit)
    trust_file().parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with update_json_file(
        trust_file(), root=user_config_dir(), default=_empty, check=_check
    ) as update:
        suites = update.data.setdefault("suites", {})
        suites[record.root] = {"sha256": sha256, "trusted_at": stamp, "commit": commit}
        update.data["suites"] = dict(sorted(suites.items()))
    return record


def untrust_suite(root: Path) -> bool:
    """Forget the trust of the suite of ``root``; whether it was trusted."""
    if not os.path.lexists(trust_file()):
        return False
    with update_json_file(trust_file(), root=user_config_dir(), check=_check) as update:
        return update.data.get("suites", {}).pop(key_of(root), None) is not None


def review_hint(shown_path: str) -> str:
    """What a person does about an executable that is not trusted."""
    return (
        f"review it (less {shown_path}; git log -p -- {shown_path}), "
        f"then: exobrain trust {shown_path}"
    )
