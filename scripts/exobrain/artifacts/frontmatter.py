"""Writing a SKILL.md's frontmatter: one field changed in place with every other byte kept, a
link added, a whole file written, and the toolkit's own fields put where the Agent Skills
specification lets a client keep them (``metadata``, :data:`exobrain.skillmd.TOOLKIT_FIELDS`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.skillmd import (
    FOLDED_MARKER,
    TOOLKIT_FIELDS,
    as_list,
    folded_fields,
    parse,
    split_frontmatter,
)
from exobrain.util import boundedjson
from exobrain.util.jsonsafe import json_safe


def dump_frontmatter(meta: dict[str, Any], body: str) -> str:
    """A whole SKILL.md from a mapping and a body (used when a new file is written)."""
    import yaml

    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100)
    return f"---\n{front}---\n{body}"


def add_link(text: str, predicate: str, value: Any) -> str:
    """Append ``value`` to ``links.<predicate>`` in a SKILL.md. The frontmatter is rewritten
    from its parsed form (comments in it are lost, the body is kept byte for byte); ``links``
    stays where it is written, and a skill without links gets them folded into ``metadata``,
    where the Agent Skills specification allows them."""
    doc = parse(text, Path("SKILL.md"))
    meta = dict(doc.meta)
    links = meta.get("links")
    if links is not None and not isinstance(links, dict):
        raise InputFileError("SKILL.md: links must be a mapping of predicates to lists")
    links = dict(links or {})
    current = as_list(links.get(predicate))
    if value not in current:
        links[predicate] = [*current, value]
    meta["links"] = links
    fold = folded_fields(doc.raw) + ([] if "links" in doc.raw else ["links"])
    return dump_frontmatter(in_metadata(meta, fold=fold), doc.body)


def encode(value: Any) -> str:
    """A field value as a metadata string: strings stay as they are unless they would read
    back as JSON (``"true"``, ``"[1]"``), everything else is JSON. A date travels as its ISO
    text (binary data never gets here: an export refuses it first)."""
    value = json_safe(value)
    if isinstance(value, str):
        try:
            boundedjson.loads(value)
        except ValueError:
            return value
    return json.dumps(value, ensure_ascii=False)


def in_metadata(meta: dict[str, Any], fold: Iterable[str] = ()) -> dict[str, Any]:
    """``meta`` (as the toolkit reads it) as a file keeps it: the toolkit's fields moved from
    the top level into ``metadata`` as strings, and the SPEC-013 fields named in ``fold``
    folded there too (:func:`encode`, listed under ``exobrain-fields``), ``metadata`` last;
    the rest keeps its order."""
    moved = {k: str(meta[k]) for k in TOOLKIT_FIELDS if k in meta and meta[k] is not None}
    folded = [
        k for k in dict.fromkeys(fold) if k in meta and k not in (*TOOLKIT_FIELDS, "metadata")
    ]
    if not moved and not folded:
        return meta
    out = {k: v for k, v in meta.items() if k not in (*TOOLKIT_FIELDS, *folded, "metadata")}
    metadata = dict(meta["metadata"]) if isinstance(meta.get("metadata"), dict) else {}
    metadata.update(moved)
    metadata.update({k: encode(meta[k]) for k in folded})
    if folded:
        metadata[FOLDED_MARKER] = " ".join(folded)
    out["metadata"] = metadata
    return out


_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*):(\s|$)")


def set_toolkit_field(text: str, key: str, value: str) -> str:
    """Set one of the toolkit's fields in ``metadata``, leaving every other byte as it was
    when the frontmatter has a block ``metadata:`` of plain lines (or none): the entry is
    replaced or added at the block's end, a top-level copy of the field is removed. Anything
    else (a flow mapping, comments in odd places) is rewritten from its parsed form."""
    path = Path("SKILL.md")
    _, body, body_line = split_frontmatter(text, path)
    lines = text.split("\n")
    start, end = 1, body_line - 2
    eol = "\r" if lines[start].endswith("\r") else ""
    entry = f"  {key}: {_scalar(value)}{eol}"
    top = [i for i in range(start, end) if re.match(rf"^{re.escape(key)}:(\s|$)", lines[i])]
    block = next((i for i in range(start, end) if re.match(r"^metadata:\s*$", lines[i])), None)
    if block is None and any(lines[i].startswith("metadata:") for i in range(start, end)):
        meta = parse(text, path).meta
        meta[key] = value
        return dump_frontmatter(in_metadata(meta), body)
    if block is None:
        lines[end:end] = [f"metadata:{eol}", entry]
    else:
        last = block
        index = block + 1
        while index < end and lines[index][:1] in (" ", "\t"):
            stripped = lines[index].strip()
            if stripped.startswith(f"{key}:"):
                lines[index] = entry
                break
            last = index
            index += 1
        else:
            lines.insert(last + 1, entry)
    for index in reversed(top):  # the field's top-level line (a scalar: one line) goes
        if index + 1 < len(lines) and lines[index + 1][:1] in (" ", "\t"):
            continue  # not a plain scalar: leave it to validation to report
        del lines[index]
    return "\n".join(lines)


_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+-]*\Z")


def _scalar(value: str) -> str:
    """``value`` as YAML reads it back as the same string: plain when it is safe (``1.0.6``,
    ``native``), else double-quoted (``"1"``, a URL with a colon)."""
    import json

    import yaml

    if _PLAIN.match(value) and yaml.safe_load(value) == value:
        return value
    return json.dumps(value, ensure_ascii=False)
