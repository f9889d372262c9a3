"""What every import and export adapter shares: the field tables, the string encoding of
fields that travel in ``metadata`` and a frontmatter reader that repairs common YAML slips
(the translation of a foreign frontmatter into the native schema is :mod:`.translation`).

Export moves the fields the open standard lacks into ``metadata`` (non-strings as JSON) and
lists their names under ``metadata.exobrain-fields`` (:data:`MARKER`), which is how a later
import knows exactly which entries to lift back out, so a round trip gives back the same
frontmatter.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from exobrain.artifacts.checks import MOVED_MARKER
from exobrain.artifacts.specrules import NAME_MAX
from exobrain.errors import InputFileError
from exobrain.skillmd import parse, split_frontmatter
from exobrain.util.jsonsafe import json_safe

#: Claude Code's own SKILL.md fields (besides the standard ones); kept as they are by the
#: formats that target Claude Code, moved into metadata by the plain Agent Skills format.
CLAUDE_FIELDS = (
    "allowed-tools",
    "model",
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "context",
    "agent",
    "hooks",
    "paths",
    "when_to_use",
    "effort",
    "shell",
)
#: The metadata entry naming the fields an export moved into metadata.
MARKER = MOVED_MARKER
PROVENANCE = ("source", "source_format", "source_url")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def untravelled(meta: dict[str, Any], moved: list[Any]) -> list[str]:
    """Why moved fields cannot travel in ``metadata`` as text: a key that is not text (an
    unquoted ``2020-01-01:``) has no name there, and binary data (``!!binary``) no text
    that gives it back."""
    problems = []
    for key in moved:
        if not isinstance(key, str):
            text = json_safe(key)
            problems.append(f"frontmatter key {text} is not text: quote it ('{text}':)")
        elif _holds_bytes(meta[key]):
            problems.append(f"{key} holds binary data (!!binary), which metadata cannot carry")
    return problems


def _holds_bytes(value: Any) -> bool:
    if isinstance(value, (bytes, bytearray)):
        return True
    if isinstance(value, dict):
        return any(_holds_bytes(k) or _holds_bytes(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_holds_bytes(v) for v in value)
    return False


def slugify(text: str) -> str:
    """A valid skill name from any text: ASCII lowercase letters, digits, single hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:NAME_MAX].rstrip("-")


def dump(meta: dict[str, Any], body: str) -> str:
    """A SKILL.md from a frontmatter mapping and a body: block style, no line wrapping, which
    strict YAML parsers (the reference validator's) accept."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    front = yaml.dump(
        meta,
        Dumper=dumper,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 16,
        default_flow_style=False,
    )
    return f"---\n{front}---\n{body}"


# -- reading ----------------------------------------------------------------------------------

_PLAIN_LINE = re.compile(r"^(\s*)([A-Za-z0-9_][\w.-]*):[ \t]+(\S.*?)\s*$")


def _needs_quotes(value: str) -> bool:
    if value[0] in "'\"|>&*!#":
        return False
    if value[0] in "[{":  # a flow collection is fine unless text follows it
        return not value.endswith("]" if value[0] == "[" else "}")
    return ": " in value or ":\t" in value or value.endswith(":") or value[0] in "@`%"


def quote_plain_values(front: str) -> tuple[str, list[str]]:
    """Quote one-line plain values that YAML rejects (``description: Use when: …``).
    Returns the new text and the keys whose values were quoted."""
    lines = front.split("\n")
    fixed: list[str] = []
    keys: list[str] = []
    for index, line in enumerate(lines):
        match = _PLAIN_LINE.match(line.rstrip("\r"))
        following = lines[index + 1] if index + 1 < len(lines) else ""
        indent = len(line) - len(line.lstrip())
        continued = following.strip() and len(following) - len(following.lstrip()) > indent
        if match and not continued and _needs_quotes(match.group(3)):
            value = json.dumps(match.group(3), ensure_ascii=False)
            fixed.append(f"{match.group(1)}{match.group(2)}: {value}")
            keys.append(match.group(2))
        else:
            fixed.append(line)
    return "\n".join(fixed), keys


def read_lenient(text: str, path: Path) -> tuple[dict[str, Any], str, list[str]]:
    """(frontmatter, body, repairs): parse, and when YAML refuses the frontmatter, try again
    with unquoted values quoted. An unrepairable file raises the original error."""
    try:
        doc = parse(text, path)
        return doc.raw, doc.body, []
    except InputFileError as first:
        if "invalid YAML" not in first.message:
            raise
        front, body, _ = split_frontmatter(text, path)
        fixed, keys = quote_plain_values(front)
        if not keys:
            raise
        try:
            doc = parse(f"---\n{fixed}\n---\n{body}", path)
        except InputFileError:
            raise first from None
        return (
            doc.raw,
            doc.body,
            [
                f"quoted the value of {', '.join(keys)} (YAML rejects an "
                f"unquoted ': ' inside a value)"
            ],
        )
