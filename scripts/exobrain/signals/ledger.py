"""Signal ledgers: who said what about which skill, one JSON line at a time, in git.

Each person writes only their own files, ``signals/<person>/<host>.jsonl``, so two machines
never edit the same bytes and git merges never conflict (``.gitattributes`` marks the ledgers
``merge=union`` as a second line of defence). A line is one JSON object::

    {"ts": "2026-11-29T15:16:47.123Z", "skill": "skill:tidy@groups/acme", "kind": "vote",
     "value": 1, "by": "alice", "host": "laptop", "agent": "claude"}

with, per kind: ``vote`` value -1|1; ``rank`` value 0..1 and ``dimension``; ``usage`` value 1
and ``auto`` (true when a hook wrote it); ``calibration`` value true|false (did the declared
outcome happen) and an optional ``note`` (one line of plain text: see
:mod:`exobrain.signals.comments`); ``fund`` value > 0 and ``currency``; ``comment`` value the
text (see :mod:`exobrain.signals.comments`), its ``id`` and an optional ``reply_to`` (the id of
the comment it answers). A use or an outcome of a superseded skill is filed against its
successor with ``"via"``, the reference that was used (:mod:`exobrain.signals.record`).
Compaction writes ``"snapshot": true`` lines that stand for a whole day of one file (see
:mod:`exobrain.signals.compact`). Numbers are derived at read time
(:mod:`exobrain.signals.aggregate`), never stored; ``ts`` is the canonical timestamp of
:mod:`exobrain.signals.timestamps`.

This module is imported by the Claude usage hook, so it imports only the standard library.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from exobrain.errors import InputFileError, OperationFailed, UsageError
from exobrain.signals.comments import check_comment_id, comment_id, comment_text, note_text
from exobrain.signals.timestamps import format_ts
from exobrain.util.fileio import make_folders
from exobrain.util.locking import lock_fd

if TYPE_CHECKING:  # the ledger's readers need no workspace
    from exobrain.workspace import Workspace

SIGNALS_DIR = "signals"
LEDGER_SUFFIX = ".jsonl"
GUEST = "guest"
KINDS = ("vote", "rank", "usage", "calibration", "fund", "comment")
DIMENSIONS = ("clarity", "accuracy", "scope", "novelty")
DEFAULT_CURRENCY = "token"
UNION_RULE = "signals/**/*.jsonl merge=union"
#: Fund amounts are summed in millionths so a sum never depends on the order of the lines.
FUND_UNIT = 1_000_000
#: The largest amount one fund line may carry, and the largest count of a compaction snapshot
#: (uses or outcomes of one skill on one day): anything beyond is a hostile line, not a signal.
MAX_FUND = 1_000_000_000
MAX_COUNT = 1_000_000_000
LOCK_TIMEOUT = 10.0
#: The cap on one ledger file (one person on one host): about 400,000 lines, and compaction
#: keeps real ones far smaller. Readers skip a file over it, so no write passes it: the notes
#: go first (:mod:`exobrain.signals.room`).
LEDGER_LIMIT = 64 << 20

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
#: An agent's name as a line carries it (the fast reader's pattern; the agent table's names).
_AGENT = re.compile(r"^[a-z][a-z0-9-]{0,31}\Z")
_CURRENCY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}\Z")
#: A ledger's skill field. The name part is looser than the naming rule (the reader's pattern
#: is faster without the nested group); only declared names are ever written or scored.
_CANONICAL_REF = re.compile(r"^skill:[a-z0-9][a-z0-9-]*@[A-Za-z0-9][A-Za-z0-9._/-]*\Z")


# --- values ------------------------------------------------------------------------------


def vote_value(text: Any) -> int:
    words = {"up": 1, "+1": 1, "1": 1, "down": -1, "-1": -1}
    value = words.get(str(text).strip().lower()) if not isinstance(text, bool) else None
    if value is None:
        raise UsageError(f"vote must be up (1) or down (-1), not {text!r}")
    return value


def rank_value(dimension: str, text: Any) -> float:
    if dimension not in DIMENSIONS:
        raise UsageError(
            f"unknown rank dimension {dimension!r}", hint=f"use one of {', '.join(DIMENSIONS)}"
        )
    value = _number(text, "rank value")
    if not 0.0 <= value <= 1.0:
        raise UsageError(
            f"rank value must be from 0 to 1, not {text}", hint="0 = poor, 1 = excellent, e.g. 0.8"
        )
    return value


def calibration_value(text: Any) -> bool:
    if isinstance(text, bool):
        return text
    words = {
        "true": True,
        "yes": True,
        "completed": True,
        "false": False,
        "no": False,
        "failed": False,
    }
    value = words.get(str(text).strip().lower())
    if value is None:
        raise UsageError(f"calibration outcome must be true (completed) or false, not {text!r}")
    return value


def fund_value(text: Any, currency: str) -> float:
    value = _number(text, "fund amount")
    if value <= 0:
        raise UsageError(f"fund amount must be greater than 0, not {text}")
    if value > MAX_FUND:
        raise UsageError(f"fund amount {text} is too large (at most {MAX_FUND})")
    if round(value * FUND_UNIT) < 1:
        raise UsageError(f"fund amount {text} is below the smallest unit, 0.000001")
    if not _CURRENCY.match(currency or ""):
        raise UsageError(f"currency {currency!r} must be a short code such as token")
    return value


def _number(text: Any, what: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise UsageError(f"{what} must be a number, not {text!r}") from None
    if isinstance(text, bool) or not math.isfinite(value):
        raise UsageError(f"{what} must be a finite number, not {text!r}")
    return value


def check_agent(value: str) -> str:
    """An agent's name as a line carries it: lowercase letters, digits and '-'."""
    if not _AGENT.match(value):
        raise UsageError(
            f"agent {value[:80]!r} must be lowercase letters, digits or '-' "
            f"(at most 32, starting with a letter)",
            hint="exobrain signal --help; connect-agent --help lists the agents",
        )
    return value


def check_id(value: str, what: str) -> str:
    """A person or host id: it becomes a path component and a column of the signals
    table, so keep it plain (the message quotes at most 80 characters of a bad one)."""
    if not _ID.match(value or ""):
        shown = value[:80] if isinstance(value, str) else value
        raise UsageError(
            f"{what} {shown!r} must be letters, digits, '.', '_' or '-' "
            f"(at most 64, not starting with '.' or '-')"
        )
    return value


def make_signal(
    kind: str,
    skill: str,
    value: Any,
    *,
    by: str,
    host: str,
    at: float | None = None,
    agent: str | None = None,
    dimension: str | None = None,
    auto: bool = False,
    note: str | None = None,
    currency: str = DEFAULT_CURRENCY,
    via: str | None = None,
    reply_to: str | None = None,
) -> dict[str, Any]:
    """One validated ledger line (as a dict in the house key order); raises UsageError.

    ``via`` keeps the reference the caller named when the line is filed against another skill
    (a superseded skill's use counts for its successor: :mod:`exobrain.signals.record`)."""
    if kind not in KINDS:
        raise UsageError(f"unknown signal kind {kind!r}", hint=f"use one of {', '.join(KINDS)}")
    if not _CANONICAL_REF.match(skill):
        raise UsageError(f"{skill!r} is not a home-qualified skill reference (skill:NAME@HOME)")
    by, host = check_id(by, "person"), check_id(host, "host")
    line: dict[str, Any] = {
        "ts": format_ts(time.time() if at is None else at),
        "skill": skill,
        "kind": kind,
    }
    if kind == "vote":
        line["value"] = vote_value(value)
    elif kind == "rank":
        line["value"] = rank_value(dimension or "", value)
        line["dimension"] = dimension
    elif kind == "usage":
        if value not in (1, "1"):
            raise UsageError(f"a usage signal counts one use: its value is 1, not {value!r}")
        line["value"], line["auto"] = 1, bool(auto)
    elif kind == "calibration":
        line["value"] = calibration_value(value)
        kept = note_text(note) if note else None
        if kept:
            line["note"] = kept
    elif kind == "comment":
        line["value"] = text = comment_text(value)
        line["id"] = comment_id(skill, line["ts"], by, host, text)
        if reply_to:
            line["reply_to"] = check_comment_id(reply_to)
    else:
        line["value"] = fund_value(value, currency)
        line["currency"] = currency
    line["by"], line["host"] = by, host
    if agent:
        line["agent"] = check_agent(agent)
    if via is not None:
        if not _CANONICAL_REF.match(via):
            raise UsageError(f"{via!r} is not a home-qualified skill reference (skill:NAME@HOME)")
        line["via"] = via
    return line


def dump_line(line: dict[str, Any]) -> str:
    """The exact bytes we write: compact separators (the reader's fast path expects them)."""
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"


# --- who and where ----------------------------------------------------------------------


def author(ws: Workspace) -> str:
    """The person signals are filed under: the connection's person, else the one person scope
    in the chain, else ``guest`` (a documented placeholder shared by every unconnected user)."""
    if ws.connection.person:
        return check_id(ws.connection.person, "person")
    people = sorted(s.name for s in ws.chain.scopes if s.type == "person")
    return check_id(people[0], "person") if len(people) == 1 else GUEST


def host_id(ws: Workspace, override: str | None = None) -> str:
    """``--host``, else ``$EXOBRAIN_HOST``, else the host scope I am connected to, else the
    short hostname (characters outside the id alphabet become '-')."""
    if override:
        return check_id(override, "host")
    if os.environ.get("EXOBRAIN_HOST"):
        return check_id(os.environ["EXOBRAIN_HOST"], "--host / EXOBRAIN_HOST")
    hosts = sorted(s.name for s in ws.chain.scopes if s.type == "host")
    if len(hosts) == 1:
        return str(hosts[0])
    short = os.uname().nodename.split(".")[0]
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", short).lstrip(".-")[:64]
    return cleaned or "unknown-host"


def ledger_path(root: Path, person: str, host: str) -> Path:
    return root / SIGNALS_DIR / person / f"{host}{LEDGER_SUFFIX}"


def ledger_owner(rel: str) -> str:
    """The person whose folder holds a ledger (``signals/<person>/<host>.jsonl``): the only
    ``by`` its lines may carry."""
    return rel.rsplit("/", 2)[-2]


def ledger_files(root: Path) -> list[Path]:
    """Every ledger in the repository, sorted (``signals/<person>/<host>.jsonl``). A folder
    that cannot be listed (``signals/`` or a person's) is in the list as it is: its readers
    report it as unreadable and skip it (as they do a FIFO or a dangling link), so the
    ledgers that can be read still count."""
    base = root / SIGNALS_DIR
    people = _listed(base)
    if people is None:
        return [base] if os.path.isdir(base) else []
    found = []
    for person in people:
        if person.name.startswith(".") or not person.is_dir():
            continue
        entries = _listed(Path(person.path))
        if entries is None:
            found.append(Path(person.path))
            continue
        for entry in entries:
            # anything but a folder: a FIFO or a dangling link is then reported by the reader
            if entry.name.endswith(LEDGER_SUFFIX) and not entry.is_dir():
                found.append(Path(entry.path))
    return found


def _listed(folder: Path) -> list[os.DirEntry[str]] | None:
    """The folder's entries by name; None when it cannot be listed (absent included)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entries, key=lambda e: e.name)
    except OSError:
        return None


# --- writing ----------------------------------------------------------------------------


def locked_ledger(path: Path, *, root: Path, timeout: float = LOCK_TIMEOUT) -> int:
    """Open ``path`` (inside ``root``) for reading and appending and hold an exclusive lock on
    it; return the fd.

    A ledger is the toolkit's own file: its folder must resolve inside ``root`` and the file
    is never followed (a committed ``signals/alice/<host>.jsonl`` link to ``~/.bashrc`` is
    refused, exit 2). Compaction replaces the file with a rename while holding the same lock,
    so the lock checks that our fd is still the file at ``path`` and reopens otherwise: a line
    is never appended to a replaced (unlinked) file.
    """
    make_folders(root, path.parent)
    return lock_fd(path, os.O_RDWR | os.O_APPEND, timeout, "the ledger", root=root)


def append_line(path: Path, line: dict[str, Any], *, root: Path) -> None:
    """Append one line with a single ``write`` under the ledger's lock (never interleaved)."""
    data = dump_line(line).encode("utf-8")
    fd = locked_ledger(path, root=root)
    try:
        size = os.fstat(fd).st_size
        if size + len(data) + 1 > LEDGER_LIMIT:  # readers would skip it: make room, or refuse
            from exobrain.signals.room import make_room

            make_room(path, len(data) + 1, LEDGER_LIMIT, root=root)
            old, fd = fd, -1
            os.close(old)
            fd = locked_ledger(path, root=root)  # the rewritten file, locked in its turn
            size = os.fstat(fd).st_size
            if size + len(data) + 1 > LEDGER_LIMIT:  # a writer came first and filled it
                raise OperationFailed(f"{path}: at the cap for a ledger; try again")
        if size and os.pread(fd, 1, size - 1) != b"\n":  # a hand edit may have left none
            data = b"\n" + data
        written = os.write(fd, data)
        if written != len(data):
            raise OperationFailed(
                f"{path}: short write ({written} of {len(data)} bytes)",
                hint="check free disk space",
            )
    except OSError as exc:
        raise OperationFailed(
            f"{path}: cannot append ({exc.strerror or exc})",
            hint="check the folder's permissions and free space",
        ) from exc
    finally:
        if fd >= 0:
            os.close(fd)


def ensure_union_merge(root: Path) -> bool:
    """Make sure ``.gitattributes`` marks the ledgers ``merge=union``; True when it added it."""
    from exobrain.util.fileio import atomic_write_text, read_text

    path = root / ".gitattributes"
    text = read_text(path) if path.exists() or path.is_symlink() else ""
    if any(line.split() == UNION_RULE.split() for line in text.splitlines()):
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    atomic_write_text(path, text + UNION_RULE + "\n", root=root)
    return True


def record_signal(root: Path, line: dict[str, Any]) -> tuple[Path, str | None]:
    """Append a validated line to its author's ledger; return the ledger and a warning (when
    ``.gitattributes`` could not be updated: the signal still counts, merges just lose their
    safety net)."""
    path = ledger_path(root, line["by"], line["host"])
    warning = None
    if not os.path.lexists(path):
        try:
            ensure_union_merge(root)
        except (InputFileError, OSError) as exc:
            warning = f".gitattributes not updated ({exc}); add the line: {UNION_RULE}"
    append_line(path, line, root=root)
    return path, warning
