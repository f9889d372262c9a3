"""SKILL.md: frontmatter parsing, the powers a skill grants, and a fast summary reader.

The full parser uses PyYAML's C loader when available. ``quick_meta`` reads the common case
(plain ``key: value`` lines) without YAML at all, so catalog commands over thousands of
skills stay fast; anything it is not sure about falls back to the full parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError, InputFileError
from exobrain.findings import WARNING, Finding, from_error
from exobrain.model import AGENT_HOOKS, EXTERNAL, TOOL_WILDCARDS
from exobrain.paths import shown, skill_dir
from exobrain.util import boundedjson
from exobrain.util.boundedjson import MAX_DEPTH, MAX_NUMBER_CHARS
from exobrain.util.fileio import read_bytes, read_text

SKILL_FILE = "SKILL.md"
#: The cap on a SKILL.md: instructions an agent loads, not a data file (a 56 MB one made
#: search use 8.8 GB). Bigger content belongs in files beside it.
SKILL_LIMIT = 1 << 20
_SIMPLE_LINE = re.compile(r"^([A-Za-z_][\w-]*):(?:[ \t]+(.*))?$")
_SEMVER = re.compile(r"^\d+\.\d+\.\d+$")


#: The toolkit's own frontmatter fields (SPEC-013's artifact version, schema and provenance).
#: They are written into ``metadata`` as strings — the place the Agent Skills specification
#: gives a client's own keys — so the SKILL.md an agent reads passes ``agentskills validate``;
#: a skill written before keeps them at the top level and reads the same.
TOOLKIT_FIELDS = ("version", "schema_version", "source", "source_format", "source_url")


def toolkit_field(meta: dict[str, Any], key: str) -> Any:
    """One of :data:`TOOLKIT_FIELDS`: from ``metadata`` when it is there, else the top level
    (``schema_version`` as the number the schema names)."""
    metadata = meta.get("metadata")
    if isinstance(metadata, dict) and key in metadata:
        value = metadata[key]
        if key == "schema_version" and isinstance(value, str) and value.isdigit():
            return int(value)
        return value
    return meta.get(key)


#: The ``metadata`` entry naming the SPEC-013 fields kept there (``triggers``, ``links``, …),
#: each as text (non-strings as JSON): what an export writes, and what a skill may be written
#: as to stay a valid Agent Skills folder while using the toolkit's fields.
FOLDED_MARKER = "exobrain-fields"


def folded_fields(meta: dict[str, Any]) -> list[str]:
    """The field names ``metadata.exobrain-fields`` lists (none when it lists nothing)."""
    metadata = meta.get("metadata")
    marker = metadata.get(FOLDED_MARKER) if isinstance(metadata, dict) else None
    return marker.split() if isinstance(marker, str) else []


def unfold(text: str) -> Any:
    """A folded field's value: JSON read back, any other text as it is."""
    try:
        return boundedjson.loads(text)
    except ValueError:
        return text


def lifted(meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` as the toolkit reads it: the toolkit's fields and the folded SPEC-013 fields
    kept in ``metadata`` put back at the top level (``metadata`` keeps the rest), so every
    reader and the registry's schema see one shape whichever way the file is written. A field
    at the top level wins; :func:`toolkit_field_conflicts` reports a disagreement."""
    metadata = meta.get("metadata")
    folded = folded_fields(meta)
    if not isinstance(metadata, dict) or not (folded or any(k in metadata for k in TOOLKIT_FIELDS)):
        return meta
    out = {k: v for k, v in meta.items() if k != "metadata"}
    rest = dict(metadata)
    rest.pop(FOLDED_MARKER, None)
    for key in folded:
        if key in rest:
            value = rest.pop(key)
            out.setdefault(key, unfold(value) if isinstance(value, str) else value)
    for key in TOOLKIT_FIELDS:
        if key in rest:
            rest.pop(key)
            out.setdefault(key, toolkit_field(meta, key))
    if rest:
        out["metadata"] = rest
    return out


def toolkit_field_conflicts(meta: dict[str, Any]) -> list[str]:
    """The toolkit fields set both at the top level and in ``metadata``, to different values."""
    metadata = meta.get("metadata")
    if not isinstance(metadata, dict):
        return []
    return [
        f"{key} is {meta[key]!r} at the top level and {metadata[key]!r} in metadata; keep "
        f"the one in metadata"
        for key in TOOLKIT_FIELDS
        if key in meta and key in metadata and str(meta[key]) != str(metadata[key])
    ]


@dataclass
class SkillDoc:
    """A parsed SKILL.md: its frontmatter as the toolkit reads it (:func:`lifted`), the
    markdown body after it, and the frontmatter exactly as written (``raw``)."""

    path: Path
    meta: dict[str, Any]
    body: str
    raw: dict[str, Any]

    @property
    def description(self) -> str:
        value = self.meta.get("description")
        return value if isinstance(value, str) else ""


def split_frontmatter(text: str, path: Path) -> tuple[str, str, int]:
    """Return (frontmatter text, body, line number where the body starts)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first = text.find("\n")  # lines are found one at a time: the body is never split
    if (text if first < 0 else text[:first]).rstrip("\r") != "---":
        raise InputFileError(
            f"{path}:1: no YAML frontmatter (the file must start with '---')",
            hint="add '---', name: and description: lines, then '---'",
        )
    start, index = first + 1, 1
    while first >= 0:
        end = text.find("\n", start)
        if (text[start:] if end < 0 else text[start:end]).rstrip("\r") in ("---", "..."):
            body = "" if end < 0 else text[end + 1 :]
            return text[first + 1 : start - 1], body, index + 2
        if end < 0:
            break
        start, index = end + 1, index + 1
    raise InputFileError(
        f"{path}: frontmatter is not closed (no second '---' line)",
        hint="end the frontmatter with a line holding only '---'",
    )


def _yaml_load(text: str, path: Path) -> dict[str, Any]:
    """The frontmatter as data. It is composed into nodes first and checked before anything
    is built (see :func:`_node_problem`), so a hostile file costs at most its own size."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        problem = _node_problem(node) if node is not None else None
        if problem is not None:
            raise InputFileError(
                f"{path}:{problem[0] + 2}: frontmatter refused: {problem[1]}",
                hint="write the values out in full (no &anchors, *aliases or deep nesting)",
            )
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 2}" if mark is not None else ""
        problem_text = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputFileError(
            f"{path}{line}: invalid YAML in frontmatter: {problem_text}",
            hint="quote values that contain ': ' or start with a special character",
        ) from exc
    finally:
        loader.dispose()
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputFileError(f"{path}: frontmatter must be a mapping of keys to values")
    return data


def _node_problem(root: Any) -> tuple[int, str] | None:
    """Why a composed frontmatter must not be built, with its line (0-based), or None.

    Refused: aliases (``*name``: a few lines of them expand into billions of values, the
    "billion laughs"), nesting deeper than :data:`~exobrain.util.boundedjson.MAX_DEPTH`
    (what reads the data later recurses) and number literals longer than
    :data:`~exobrain.util.boundedjson.MAX_NUMBER_CHARS` characters (Python refuses to
    convert integers of more than 4,300 digits). An alias is a node met twice in the walk.
    """
    import yaml

    seen: set[int] = set()
    level: list[Any] = [root]
    depth = 0
    while level:
        depth += 1
        deeper: list[Any] = []
        for node in level:
            if id(node) in seen:
                return node.start_mark.line, "YAML aliases (*name) are not allowed"
            seen.add(id(node))
            if depth > MAX_DEPTH:
                return node.start_mark.line, f"nested deeper than {MAX_DEPTH} levels"
            if isinstance(node, yaml.ScalarNode):
                if node.tag.endswith((":int", ":float")) and len(node.value) > MAX_NUMBER_CHARS:
                    return node.start_mark.line, (
                        f"a number of {len(node.value)} characters (at most {MAX_NUMBER_CHARS})"
                    )
            elif isinstance(node, yaml.SequenceNode):
                deeper += node.value
            else:
                deeper += [part for pair in node.value for part in pair]
        level = deeper
    return None


def parse(text: str, path: Path) -> SkillDoc:
    front, body, _ = split_frontmatter(text, path)
    raw = _yaml_load(front, path)
    return SkillDoc(path, lifted(raw), body, raw)


def skill_text(path: Path) -> str:
    """The text of a SKILL.md: a regular UTF-8 file of at most :data:`SKILL_LIMIT` bytes."""
    return read_text(path, limit=SKILL_LIMIT, what="a SKILL.md")


def read_skill(path: Path) -> SkillDoc:
    """Read and parse ``path`` (a SKILL.md file)."""
    return parse(skill_text(path), path)


def frontmatter_mentioning(path: Path, marker: bytes) -> dict[str, Any] | None:
    """The frontmatter of the SKILL.md at ``path`` when its bytes hold ``marker``; None when
    they do not, or when it cannot be read or parsed (skills-validate reports that). The
    byte scan comes first: resolution asks every skill of the chain for its links and its
    dependencies, and most skills have neither."""
    try:
        data = read_bytes(path, limit=SKILL_LIMIT, what="a SKILL.md")
        if marker not in data:
            return None
        return parse(data.decode("utf-8"), path).meta
    except (ExobrainError, UnicodeDecodeError):
        return None


def _plain_scalar(raw: str) -> str | None:
    """The value of a simple one-line YAML scalar, or None when YAML rules might differ."""
    value = raw.strip()
    if not value:
        return None
    if value[0] == '"' and value[-1] == '"' and len(value) > 1 and "\\" not in value:
        inner = value[1:-1]
        return None if '"' in inner else inner
    if value[0] == "'" and value[-1] == "'" and len(value) > 1:
        inner = value[1:-1]
        return None if "'" in inner else inner
    if value[0] in "\"'>|[]{}&*!%@`#,?-:" or ": " in value or " #" in value or value.endswith(":"):
        return None
    if _SEMVER.match(value):
        return value  # a semantic version: YAML reads it as a string too
    if value in ("null", "~", "true", "false", "yes", "no", "on", "off") or value[0].isdigit():
        return None
    return value


def quick_meta(path: Path, keys: tuple[str, ...] = ("name", "description")) -> dict[str, Any]:
    """The requested frontmatter keys, parsed without YAML when the lines are simple."""
    return quick_meta_of(skill_text(path), path, keys)


def quick_meta_of(
    text: str, path: Path, keys: tuple[str, ...] = ("name", "description")
) -> dict[str, Any]:
    """:func:`quick_meta` of a SKILL.md's text (read from disk or from git's objects)."""
    front, _, _ = split_frontmatter(text, path)
    lines = front.split("\n")
    found: dict[str, Any] = {}
    for index, line in enumerate(lines):
        if not line.startswith(keys):  # (the catalog reads 600,000 of these at 100k people)
            continue
        match = _SIMPLE_LINE.match(line.rstrip("\r"))
        if not match or match.group(1) not in keys:
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        value = _plain_scalar(match.group(2) or "")
        if value is None or following[:1] in (" ", "\t"):
            return {k: v for k, v in _yaml_load(front, path).items() if k in keys}
        found[match.group(1)] = value
    return found


def quick_version(path: Path) -> Any:
    """A SKILL.md's version (in ``metadata`` or at the top level), read as fast as it can be."""
    return toolkit_field(quick_meta(path, ("version", "metadata")), "version")


def description_of(root: Path, home: str, name: str, problems: list[Finding] | None = None) -> str:
    """The full description from an in-tree skill's SKILL.md, or "" when it cannot be read
    (then, when the file is there, a warning goes to ``problems``: skills-validate is where
    a broken SKILL.md is an error)."""
    if home == EXTERNAL:
        return ""
    path = skill_dir(root, home, name) / SKILL_FILE
    try:
        value = quick_meta(path, ("description",)).get("description")
    except InputFileError as exc:
        if problems is not None and not isinstance(exc.__cause__, FileNotFoundError):
            problems.append(unreadable_skill(root, path, exc.message))
        return ""
    return value if isinstance(value, str) else ""


def unreadable_skill(root: Path, path: Path, message: str) -> Finding:
    """The warning a reading command gives for a SKILL.md it skipped (skills-validate
    reports the same problem as an error)."""
    return from_error(
        "skill-unreadable", shown(path, root), message, path, level=WARNING, bad_input=False
    )


def one_line(description: str, limit: int = 120) -> str:
    """A one-line summary: the first line of the description, cut at ``limit`` characters."""
    text = " ".join(description.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


_GRANT = re.compile(r"\*|[^\s,()]+(?:\([^)]*\))?")


def powers(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """What a skill would let an agent do on its own: (policy rule, why) pairs — agent hooks,
    and tool permissions that grant everything."""
    found: list[tuple[str, str]] = []
    if meta.get("hooks"):
        found.append((AGENT_HOOKS, "carries agent hooks (hooks:): commands run on agent events"))
    grants = wildcard_grants(meta.get("allowed-tools"))
    if grants:
        found.append(
            (TOOL_WILDCARDS, f"allowed-tools grants every tool or command: {', '.join(grants)}")
        )
    return found


def wildcard_grants(value: Any) -> list[str]:
    """The grants of an ``allowed-tools`` value (text or list) that allow everything: ``*``, a
    tool with only wildcards as its pattern (``Bash(*)``, ``Bash(*:*)``) and a bare ``Bash``
    (any shell command)."""
    texts = [str(v) for v in value] if isinstance(value, list) else [str(value or "")]
    grants = [g for text in texts for g in _GRANT.findall(text)]
    return [
        g
        for g in grants
        if g == "*"
        or g == "Bash"
        or (g.endswith(")") and "(" in g and "*" in g and not g[g.index("(") + 1 : -1].strip(" *:"))
    ]


def as_list(value: Any) -> list[Any]:
    """A frontmatter field that should be a list: one string becomes a one-item list."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def links_of(meta: dict[str, Any], predicate: str) -> list[str]:
    """The skill refs under ``links.<predicate>`` (objects with a ``ref`` give their ref)."""
    links = meta.get("links")
    if not isinstance(links, dict):
        return []
    refs = []
    for item in as_list(links.get(predicate)):
        ref = item.get("ref") if isinstance(item, dict) else item
        if isinstance(ref, str):
            refs.append(ref)
    return refs
