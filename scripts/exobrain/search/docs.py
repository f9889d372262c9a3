"""What the search index reads from an artifact: its fields, the texts each encoder embeds,
its fingerprint and its hash.

A skill's fields come from its SKILL.md frontmatter (name, description, triggers, tags,
personas) and body (instructions); a knowledge document's from its optional frontmatter, its
title (or first heading) and first paragraph. A file that does not parse is still indexed, by
its name and raw text, so one broken file never takes search down; the reading commands warn
about it and skills-validate reports it as an error.

The encoders embed what *describes* an artifact, never its whole body (embedding whole
SKILL.md files ranked worse on real skills and costs far more):

* MiniLM: the description and triggers (the name when both are empty); as more views, the
  body's "When to use …" section when there is one, and each trigger on its own (a trigger is
  a phrasing that should find the skill, so a query close to one of them should score as
  close); the artifact's cosine is the largest. The name is left out on purpose: with it,
  MiniLM ranked 6 of 231 development queries worse, and the lexical half already boosts the
  name.
* WordLlama: ``name words: description triggers``.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError
from exobrain.search.artifact import Artifact
from exobrain.search.embedding import MINILM, WORDLLAMA, normalise
from exobrain.skillmd import SKILL_LIMIT, as_list, one_line, parse, split_frontmatter
from exobrain.util.dirhash import content_hash
from exobrain.util.fileio import read_bytes, read_text
from exobrain.util.jsonsafe import json_safe


@dataclass(frozen=True)
class Doc:
    """What the index knows about one artifact, as read from its file."""

    fields: dict[str, str]  # the FTS columns
    description: str
    meta: dict[str, Any]  # the frontmatter (JSON-safe)
    views: dict[str, tuple[str, ...]]  # encoder role → the texts it embeds (see the module)
    problem: str | None = None  # why the frontmatter was not read (after the file's path)


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
    meta = json_safe(meta)
    name = str(meta.get("name") or artifact.name)
    description = meta.get("description")
    if not isinstance(description, str):
        description = "" if artifact.type == "skill" else _first_paragraph(body)
    triggers = [str(t) for t in as_list(meta.get("triggers"))]
    label = name_words(name)
    if artifact.type != "skill":  # a document's path says little; its title says more
        label = " ".join(filter(None, [label, str(meta.get("title") or _first_heading(body))]))
    fields = {
        "name": label,
        "triggers": "\n".join(triggers),
        "description": description,
        "instructions": body,
        "tags": " ".join(map(str, as_list(meta.get("tags")))),
        "personas": " ".join(map(str, as_list(meta.get("personas")))),
    }
    return Doc(fields, description, meta, views(label, description, triggers, body), problem)


def name_words(name: str) -> str:
    """``pdf-to-markdown`` → ``pdf to markdown`` (so BM25 and the encoders see words)."""
    return name.replace("-", " ").replace("_", " ").replace("/", " ")


def views(
    label: str, description: str, triggers: list[str], body: str
) -> dict[str, tuple[str, ...]]:
    """The texts each encoder embeds for one artifact (never empty: the label stands in)."""
    main = normalise(" ".join([description, *triggers])) or normalise(label) or "-"
    minilm = [main, when_section(body), *(normalise(t) for t in triggers[:MAX_TRIGGER_VIEWS])]
    wordllama = normalise(f"{label}: {description} {' '.join(triggers)}")
    return {MINILM: tuple(dict.fromkeys(v for v in minilm if v)), WORDLLAMA: (wordllama,)}


#: A heading such as "## When to Use This Skill", "### Use this skill when…".
_WHEN_HEADING = re.compile(
    r"^(#{1,4})[ \t]+[^\n]*(when to (use|apply|invoke)|use (this skill )?when)[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
_BULLET = re.compile(r"^[ \t]*([-*+]|\d+\.)[ \t]+", re.MULTILINE)
#: The "When to use" view is cut here: it lists situations; past a few of them it drifts.
WHEN_LIMIT = 600
#: Triggers embedded as views of their own (each costs a MiniLM run; lists are short).
MAX_TRIGGER_VIEWS = 8


def when_section(body: str) -> str:
    """The text under the body's first "When to use …" heading, up to the next heading of the
    same or a higher level, bullets flattened, at most :data:`WHEN_LIMIT` characters; "" when
    there is none. Such sections list the situations a user describes, which is what
    paraphrased queries match (125 of the 198 development skills have one)."""
    match = _WHEN_HEADING.search(body)
    if not match:
        return ""
    rest = body[match.end() :]
    end = re.search(rf"^#{{1,{len(match.group(1))}}}[ \t]", rest, re.MULTILINE)
    section = _BULLET.sub("", rest[: end.start()] if end else rest)
    return normalise(section)[:WHEN_LIMIT].rstrip()


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


#: The fingerprint of a file a folder above forbids looking at: unlike any stored one, so the
#: file is read (and its reader reports why it cannot be) on every refresh, never dropped
#: from the index in silence as if it were gone.
UNREADABLE = "unreadable"


def stat_signature(artifact: Artifact) -> str | None:
    """A cheap fingerprint: the file's mtime, size and inode, plus the skill folder's mtime
    (which moves when a file is added, removed or renamed). None when the file is gone,
    :data:`UNREADABLE` when it cannot be looked at."""
    if artifact.file is None:
        return None
    try:
        info = os.stat(artifact.file)
        folder = os.stat(artifact.folder).st_mtime_ns if artifact.folder else 0
    except PermissionError:
        return UNREADABLE
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
