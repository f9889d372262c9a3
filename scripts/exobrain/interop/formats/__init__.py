"""Foreign skill formats: one adapter module per format, so a new format is one file plus a
row in the tables below.

An import adapter module provides ``NAME`` (the ``--format`` value), ``SOURCE_FORMAT`` (what
``source_format`` records), ``KEEP`` (top-level keys it keeps besides the standard and native
fields), ``detect(bundle, metas) -> reason | None`` and ``prepare(raw, found) -> notes`` (facts
of the bundle the skill itself does not state, added to ``raw``). An export module provides
``export_skill`` (see :mod:`.agentskills`).
The shared machinery is in :mod:`.fields` (field tables, encoding, lenient reading),
:mod:`.translation` (a foreign frontmatter turned native) and :mod:`.bundle` (finding skills).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from exobrain.errors import UsageError
from exobrain.interop.formats.bundle import Bundle

#: --format value of ``exobrain import`` → adapter module (also the detection order).
IMPORT_FORMATS = {"kdense": "kdense", "claude": "claude", "agentskills": "agentskills"}
#: --format value of ``exobrain export`` → module.
EXPORT_FORMATS = {"agentskills-io": "agentskills", "claude-plugin": "claude"}


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


def importer(name: str) -> ModuleType:
    if name not in IMPORT_FORMATS:
        raise UsageError(
            f"--format {name}: unknown import format",
            hint=f"use one of {', '.join(sorted(IMPORT_FORMATS))}",
        )
    return _module(IMPORT_FORMATS[name])


def importer_for_source_format(source_format: str) -> ModuleType:
    """The adapter that records ``source_format`` (used by re-imports)."""
    for name in IMPORT_FORMATS:
        module = importer(name)
        if source_format == module.SOURCE_FORMAT or source_format == module.NAME:
            return module
    raise UsageError(
        f"unknown upstream format {source_format!r} in the lock",
        hint="re-import the skill with --format",
    )


def exporter(name: str) -> ModuleType:
    if name not in EXPORT_FORMATS:
        raise UsageError(
            f"--format {name}: unknown export format",
            hint=f"use one of {', '.join(sorted(EXPORT_FORMATS))}",
        )
    return _module(EXPORT_FORMATS[name])


def detect(bundle: Bundle, metas: list[dict[str, Any]]) -> tuple[ModuleType, str]:
    """The first adapter (in table order) that recognises the source, and why.

    Skills an exobrain exported (their metadata names the moved fields) are read back in the
    format they were exported to, whatever their metadata says about their origin."""
    from exobrain.interop.formats.fields import CLAUDE_FIELDS, MARKER

    if metas and all(
        isinstance(m.get("metadata"), dict) and MARKER in m["metadata"] for m in metas
    ):
        plugin = ".claude-plugin/plugin.json" in bundle.manifests or any(
            k in m for m in metas for k in CLAUDE_FIELDS if k != "allowed-tools"
        )
        return (
            (importer("claude"), "an exobrain claude-plugin export")
            if plugin
            else (importer("agentskills"), "an exobrain agentskills-io export")
        )
    for name in IMPORT_FORMATS:
        module = importer(name)
        reason = module.detect(bundle, metas)
        if reason:
            return module, reason
    raise AssertionError("the agentskills adapter recognises every source")
