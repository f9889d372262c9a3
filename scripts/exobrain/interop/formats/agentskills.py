"""The open Agent Skills format (agentskills.io): plain skill folders, and the standard bundle
``exobrain export --format agentskills-io`` writes.

Import keeps only the standard fields and the native ones; anything else moves under
``metadata``. Export keeps only the standard fields (``name``, ``description``, ``license``,
``compatibility``, ``metadata``, ``allowed-tools`` as space-separated text); every other field
goes into ``metadata`` as a string (JSON for non-strings, listed under
``metadata.exobrain-fields`` so an import restores it) or, with ``strip``, is dropped.
``version`` always travels as the conventional ``metadata.version``.
"""

from __future__ import annotations

from typing import Any

from exobrain.artifacts.checks import STANDARD_FIELDS, fields_to_move, metadata_conflicts
from exobrain.artifacts.frontmatter import encode
from exobrain.artifacts.specrules import spec_problems
from exobrain.interop.formats.bundle import Bundle, FoundSkill
from exobrain.interop.formats.fields import MARKER, dump, untravelled
from exobrain.skillmd import lifted
from exobrain.util.versions import is_version

NAME = "agentskills"
SOURCE_FORMAT = "agentskills_io"
KEEP: frozenset[str] = frozenset()
FORMAT = "agentskills-io"
#: Top-level keys an exported SKILL.md keeps.
EXPORT_KEEP = frozenset(STANDARD_FIELDS)


def detect(bundle: Bundle, metas: list[dict[str, Any]]) -> str | None:
    return "plain Agent Skills folders"


def prepare(raw: dict[str, Any], found: FoundSkill) -> list[str]:
    return []


def moved_fields(meta: dict[str, Any]) -> list[str]:
    """The fields an export moves into metadata."""
    return fields_to_move(meta, EXPORT_KEEP, True)


def compat_problems(
    meta: dict[str, Any],
    body: str,
    folder: str,
    *,
    keep: frozenset[str] = EXPORT_KEEP,
    strip: bool = False,
    tools_as_text: bool = True,
) -> list[str]:
    """Why a skill cannot be exported as a standard bundle (``agentskills_io_compat_check``)."""
    written, meta = meta, lifted(meta)  # the toolkit's fields count wherever they are
    problems = [message for _, message in spec_problems(meta, folder)]
    version = meta.get("version")
    if not is_version(version):
        problems.append(
            "no valid version (MAJOR.MINOR.PATCH): run exobrain register PATH "
            "--bump patch, or add version: 0.1.0"
        )
    if not body.strip():
        problems.append("no instructions after the frontmatter")
    if not strip:
        problems += untravelled(meta, fields_to_move(meta, keep, tools_as_text))
    return problems + metadata_conflicts(
        written, keep=keep, tools_as_text=tools_as_text, strip=strip
    )


def export_meta(
    meta: dict[str, Any],
    *,
    keep: frozenset[str] = EXPORT_KEEP,
    strip: bool = False,
    tools_as_text: bool = True,
) -> dict[str, Any]:
    """The exported frontmatter (see the module docstring)."""
    meta = lifted(meta)
    metadata: dict[str, str] = dict(meta.get("metadata") or {})
    moved = [] if strip else fields_to_move(meta, keep, tools_as_text)
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if key in keep and key != "metadata":
            out[key] = value
    if tools_as_text and isinstance(out.get("allowed-tools"), list):
        out["allowed-tools"] = " ".join(str(t) for t in out["allowed-tools"])
    if "version" in meta:
        metadata["version"] = str(meta["version"])
    for key in moved:
        metadata[key] = encode(meta[key])
    if moved:
        metadata[MARKER] = " ".join(moved)
    if metadata:
        out["metadata"] = metadata
    return out


def export_skill(meta: dict[str, Any], body: str, *, strip: bool = False) -> str:
    """The SKILL.md text of the exported skill."""
    return dump(export_meta(meta, strip=strip), body)
