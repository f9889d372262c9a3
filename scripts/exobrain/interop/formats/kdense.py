"""K-Dense scientific skill bundles (``K-Dense-AI/claude-scientific-skills`` and alike).

Recognised by a ``scientific-skills/`` folder, by ``metadata.skill-author`` in the skills, or by
a plugin manifest together with ``metadata.version``. The skills are Claude Code skills, so
Claude Code's fields are kept; the plugin that lists a skill contributes its keywords as tags
and its author as ``metadata.skill-author``.
"""

from __future__ import annotations

from typing import Any

from exobrain.interop.formats.bundle import Bundle, FoundSkill
from exobrain.interop.formats.fields import CLAUDE_FIELDS

NAME = "kdense"
SOURCE_FORMAT = "kdense"
KEEP = frozenset(CLAUDE_FIELDS)


def _metadata(meta: dict[str, Any]) -> dict[str, Any]:
    value = meta.get("metadata")
    return value if isinstance(value, dict) else {}


def detect(bundle: Bundle, metas: list[dict[str, Any]]) -> str | None:
    if bundle.has_folder("scientific-skills"):
        return "a scientific-skills/ folder"
    authored = sum(1 for m in metas if "skill-author" in _metadata(m))
    if authored:
        return f"metadata.skill-author in {authored} skill(s)"
    versioned = sum(1 for m in metas if "version" in _metadata(m))
    if bundle.manifests and versioned:
        return f"{bundle.manifests[0]} and metadata.version in {versioned} skill(s)"
    return None


def prepare(raw: dict[str, Any], found: FoundSkill) -> list[str]:
    """Plugin-level facts the skill itself does not state (the version is the bundle's, read
    for every format: :meth:`FoundSkill.bundle_versions`)."""
    plugin = found.plugin or {}
    notes: list[str] = []
    keywords = [k for k in plugin.get("keywords") or plugin.get("tags") or [] if isinstance(k, str)]
    if keywords:
        tags = raw.get("tags")
        if not isinstance(tags, list):
            tags = []
        added = [k for k in keywords if k not in tags]
        if added and "tags" not in _metadata(raw):
            raw["tags"] = tags + added
            notes.append(f"tags {', '.join(added)} taken from plugin {plugin.get('name')!r}")
    author = plugin.get("author")
    author_name = author.get("name") if isinstance(author, dict) else author
    if (
        isinstance(author_name, str)
        and isinstance(raw.get("metadata", {}), dict)
        and "skill-author" not in _metadata(raw)
    ):
        raw["metadata"] = {**_metadata(raw), "skill-author": author_name}
        notes.append(
            f"metadata.skill-author {author_name!r} taken from plugin {plugin.get('name')!r}"
        )
    return notes
