"""Comments: debate about a skill, kept as ``comment`` lines in the signal ledgers (and the
rule of the other free text a line carries, a calibration's note).

A comment is a ledger line like any other (``exobrain comment REF TEXT``), so it merges
without conflicts and travels with the repository; it counts in no number. Its ``value`` is
the text, its ``id`` a digest of the line's facts (the same line brought back by a merge keeps
its id) and ``reply_to`` names the comment it answers, which makes the lines a thread.

The text rules live here and are shared by the writer and the line reader; this module
imports only the standard library and the toolkit's errors and output filter at the top
(the Claude usage hook imports the ledger).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from exobrain.errors import UsageError
from exobrain.util.terminal import unsafe_in

#: The longest comment: a paragraph of debate, not a document (a ledger is read whole).
MAX_COMMENT = 2000
#: The longest calibration note: what happened, in a few words (as long as a comment may be;
#: the MCP tool's cap is the same).
MAX_NOTE = 2000
COMMENT_ID = re.compile(r"^c-[0-9a-f]{12}\Z")


def comment_text(text: Any) -> str:
    """A comment's text, trimmed: 1 to :data:`MAX_COMMENT` characters, with no control
    characters but newlines and tabs and no bidi control (it is printed to terminals). A
    line someone wrote by hand with bidi controls is still read: they are shown escaped."""
    value = text.strip() if isinstance(text, str) else ""
    if not value:
        raise UsageError("a comment needs some text")
    if len(value) > MAX_COMMENT:
        raise UsageError(
            f"a comment is at most {MAX_COMMENT} characters, not {len(value)}",
            hint="link a document instead of pasting it",
        )
    problem = comment_problem(value)
    if problem:
        raise UsageError(f"a comment must be plain text: {problem}")
    found = unsafe_in(value, lines=True)
    if found:  # what is left: the bidi controls, which reorder how a line reads
        raise UsageError(
            f"a comment must be plain text: it holds the bidi control {found}",
            hint="write the text without direction marks, embeddings or isolates",
        )
    return value


def comment_problem(text: str) -> str | None:
    """Why a comment's text cannot be kept, or None (shared with the line reader)."""
    if any(ch not in "\n\t" and (ch < " " or "\x7f" <= ch <= "\x9f") for ch in text):
        return "control characters other than newlines and tabs are not allowed"
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        return "not UTF-8"
    return None


def note_text(text: Any) -> str | None:
    """A calibration note, trimmed (None when empty): one line of at most :data:`MAX_NOTE`
    characters, no control or bidi character (it is printed in the signals table; a longer
    story is a comment)."""
    value = text.strip() if isinstance(text, str) else str(text)
    if not value:
        return None
    if len(value) > MAX_NOTE:
        raise UsageError(
            f"a calibration note is at most {MAX_NOTE} characters, not {len(value)}",
            hint="say what happened in a few words; exobrain comment takes a longer text",
        )
    found = unsafe_in(value)
    if found:
        raise UsageError(
            f"a calibration note must be one line of plain text: it holds {found}",
            hint="drop newlines, tabs, control and bidi characters",
        )
    return value


def comment_id(skill: str, ts: str, by: str, host: str, text: str) -> str:
    """A comment's id: a digest of who said what about which skill when, so a reply always
    names one comment and a duplicated line is one comment."""
    digest = hashlib.sha256("\n".join((skill, ts, by, host, text)).encode("utf-8"))
    return "c-" + digest.hexdigest()[:12]


def check_comment_id(value: str) -> str:
    if not COMMENT_ID.match(value or ""):
        raise UsageError(
            f"{value!r} is not a comment id",
            hint="ids look like c-0123456789ab; exobrain signals REF lists them",
        )
    return value


def thread(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The comment lines among ``lines`` (time order) as one thread: each comment once, its
    replies right after it in time order, each with its ``depth``. A reply whose comment is
    not here (not merged yet) starts its own thread."""
    comments: dict[str, dict[str, Any]] = {}
    for line in lines:
        if line.get("kind") == "comment" and line.get("id") not in comments:
            comments[line["id"]] = {
                key: line[key]
                for key in ("id", "ts", "by", "host", "agent", "reply_to", "file", "line")
                if key in line
            }
            comments[line["id"]]["text"] = line["value"]
    replies: dict[str | None, list[str]] = {}
    for cid, comment in comments.items():
        parent = comment.get("reply_to")
        replies.setdefault(parent if parent in comments else None, []).append(cid)
    ordered: list[dict[str, Any]] = []
    seen: set[str] = set()

    def visit(cid: str, depth: int) -> None:
        if cid in seen:
            return
        seen.add(cid)
        ordered.append({**comments[cid], "depth": depth})
        for child in replies.get(cid, []):
            visit(child, depth + 1)

    for cid in replies.get(None, []):
        visit(cid, 0)
    for cid in comments:  # hand-written lines that answer each other in a circle
        visit(cid, 0)
    return ordered
