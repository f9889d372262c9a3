"""What the search index reads from an artifact: its fields, its fingerprint, its hash.

A skill's fields come from its SKILL.md frontmatter (name, description, triggers, tags,
personas) and body (instructions); a knowledge document's from its optional frontmatter, its
first heading and first paragraph. A file that does not parse is still indexed, by its name
and raw text, so one broken file never takes search down; the reading commands warn about it
and skills-validate reports it as an error.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError
from exobrain.search.corpus import Artifact
from exobrain.skillmd import SKILL_LIMIT, as_list, one_line, parse, split_frontmatter
from exobrain.util.dirhash import content_hash
from exobrain.util.fileio import read_bytes, read_text


@dataclass(frozen=True)
class Doc:
    """What the index knows about one artifact, as read from its file."""

    fields: dict[str, str]  # the FTS columns
    description: str
    meta: dict[str, Any]  # the frontmatter (JSON-safe)
    embed_text: str  # name + description + triggers + instructions
    problem: str | None = None  # why the frontmatter was not read (after the file's path)

    @property
    def embed_hash(self) -> str:
        return hashlib.sha256(self.embed_text.encode("utf-8", "surrogatepass")).hexdigest()


def read_doc(artifact: Artifact) -> Doc:
    """Parse an artifact's markdown into index fields; a file that does not parse is indexed by
    its name and raw text (skills-validate reports it), so one bad file never stops search."""
    path = artifact.path
    assert path is not None
    text = read_text(path, limit=SKILL_LIMIT, what="a document search indexes")
    problem = None
    try:
        doc = parse(text, path) if text.startswith(("---", "\ufeff---")) else None
        meta, body = (doc.meta, doc.body) if doc else ({}, text)
    except ExobrainError as exc:
        meta, body = {}, _after_frontmatter(text, path)
        problem = exc.message.removeprefix(str(path))
    meta = json.loads(json.dumps(meta, default=str))
    name = str(meta.get("name") or artifact.name)
    description = meta.get("description")
    if not isinstance(description, str):
        description = "" if artifact.type == "skill" else _first_paragraph(body)
    title = str(meta.get("title") or _first_heading(body) or "")
    triggers = "\n".join(str(t) for t in as_list(meta.get("triggers")))
    label = " ".join(filter(None, [name.replace("-", " ").replace("/", " "), title]))
    fields = {
        "name": label,
        "triggers": triggers,
        "description": description,
        "instructions": body,
        "tags": " ".join(map(str, as_list(meta.get("tags")))),
        "personas": " ".join(map(str, as_list(meta.get("personas")))),
    }
    embed = "\n".join([label, description, triggers, body])
    return Doc(fields, description, meta, embed, problem)


def _after_frontmatter(text: str, path: Path) -> str:
    try:
        return split_frontmatter(text, path)[1]
    except ExobrainError:
        return text


def _first_heading(body: str) -> str:
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def _first_paragraph(body: str) -> str:
    for block in body.split("\n\n"):
        block = block.strip()
        if block and not block.startswith("#"):
            return one_line(block, 300)
    return ""


def stat_signature(artifact: Artifact) -> str | None:
    """A cheap fingerprint: the file's mtime, size and inode, plus the skill folder's mtime
    (which moves when a file is added, removed or renamed). None when the file is gone."""
    if artifact.file is None:
        return None
    try:
        info = os.stat(artifact.file)
        folder = os.stat(artifact.folder).st_mtime_ns if artifact.folder else 0
    except OSError:
        return None
    return f"{info.st_mtime_ns}:{info.st_size}:{info.st_ino}:{folder}"


def artifact_hash(artifact: Artifact) -> str:
    """The content hash the index is keyed on: the skill folder's dirhash, or the file's."""
    if artifact.folder is not None:
        return content_hash(Path(artifact.folder))
    assert artifact.file is not None
    data = read_bytes(Path(artifact.file), limit=SKILL_LIMIT, what="a document search indexes")
    return "sha256:" + hashlib.sha256(data).hexdigest()
