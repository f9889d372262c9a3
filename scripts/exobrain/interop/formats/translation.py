"""The translation of a foreign frontmatter into the native schema, for every import adapter.

Import never drops information: a key the native schema does not know, or a value of the wrong
shape, is moved under ``metadata`` as a string, and a text over the standard's limit (a
description over 1,024 characters) is cut at a sentence or word boundary with the full text kept
in ``metadata.full-<field>``; every repair is reported. The fields an exobrain export moved into
``metadata`` (named by :data:`~.fields.MARKER`) are lifted back out, so a round trip gives back
the same frontmatter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from exobrain.artifacts.checks import NATIVE_FIELDS, STANDARD_FIELDS
from exobrain.artifacts.content import SCHEMA_VERSION
from exobrain.artifacts.frontmatter import encode, in_metadata
from exobrain.artifacts.specrules import COMPATIBILITY_MAX, DESCRIPTION_MAX, NAME_MAX
from exobrain.interop.formats.fields import MARKER, PROVENANCE, SLUG, slugify
from exobrain.skillmd import TOOLKIT_FIELDS, unfold
from exobrain.util.versions import normalise as normalise_version

SOURCE_KINDS = ("native", "imported", "composed")
LIST_FIELDS = ("tags", "triggers", "personas")
FIRST_VERSION = "0.1.0"
_HEAD = ("name", "description", "version")


@dataclass
class Translation:
    """A foreign frontmatter turned native: what was repaired, or what makes it unusable."""

    name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    upstream_version: str | None = None
    repairs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def lift_exported(meta: dict[str, Any]) -> list[str]:
    """Move the fields an exobrain export put into metadata back to the top level; returns
    their names (they were top-level fields of an exobrain skill, so they stay there)."""
    metadata = meta.get("metadata")
    if not isinstance(metadata, dict) or not isinstance(metadata.get(MARKER), str):
        return []
    metadata = dict(metadata)
    lifted = []
    for key in metadata.pop(MARKER).split():
        if key in metadata:
            value = metadata.pop(key)
            meta[key] = unfold(value) if isinstance(value, str) else value
            lifted.append(key)
    meta["metadata"] = metadata
    return lifted


def _clean_metadata(raw: Any, meta: dict[str, Any], out: Translation) -> dict[str, str]:
    """metadata as a map of strings; lists of tags/triggers/personas go to the top level."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        out.repairs.append("metadata was not a mapping; kept as metadata.value")
        return {"value": encode(raw)}
    clean: dict[str, str] = {}
    for key, value in raw.items():
        key = str(key)
        if isinstance(value, str):
            clean[key] = value
        elif isinstance(value, list) and key in LIST_FIELDS and key not in meta:
            meta[key] = [_scalar_text(v) for v in value]
            out.repairs.append(f"metadata.{key} was a list; moved to the top-level {key}")
        elif isinstance(value, list):
            clean[key] = ", ".join(v if isinstance(v, str) else encode(v) for v in value)
            out.repairs.append(f"metadata.{key} was a list; joined into one string")
        elif isinstance(value, dict):
            clean[key] = encode(value)
            out.repairs.append(f"metadata.{key} was a mapping; kept as JSON text")
        else:
            clean[key] = _scalar_text(value)
            out.repairs.append(
                f"metadata.{key} was {type(value).__name__} {value!r}; written as a string"
            )
    return clean


def _set_aside(metadata: dict[str, str], key: str, value: Any) -> str:
    """Put ``value`` under metadata (a free key; text as it is, anything else as JSON),
    returning the key used."""
    taken = key in metadata or key in TOOLKIT_FIELDS  # the toolkit keeps its own there
    target = key if not taken else f"upstream-{key}"
    metadata[target] = value if isinstance(value, str) else encode(value)
    return target


def _version(
    meta: dict[str, Any],
    metadata: dict[str, str],
    out: Translation,
    bundle: list[tuple[str, Any]],
) -> None:
    """The version, by precedence: what the bundle states (the marketplace's
    ``metadata.version``, then the plugin's ``version``), then the skill's own ``version`` or
    ``metadata.version``. A version of the skill's own that loses, or that is not a version,
    is kept as ``metadata.upstream-version``."""
    own = [
        ("version", meta.pop("version", None)),
        ("metadata.version", metadata.pop("version", None)),
    ]
    chosen = ""
    for origin, value in [*bundle, *own]:
        if value is None:
            continue
        version = normalise_version(value)
        if version is not None and not chosen:
            chosen, out.upstream_version = origin, version
            if str(value) != version:
                out.repairs.append(f"{origin} {value!r} read as {version}")
        elif origin in ("version", "metadata.version") and version != out.upstream_version:
            kept = _set_aside(metadata, "upstream-version", value)
            why = (
                "is not a usable version"
                if version is None
                else f"differs from {chosen} {out.upstream_version}, which takes precedence"
            )
            out.repairs.append(f"{origin} {value!r} {why}; kept as metadata.{kept}")
        elif version is None:
            out.repairs.append(f"{origin} {value!r} is not a version; not used")


def _name(meta: dict[str, Any], folder: str, metadata: dict[str, str], out: Translation) -> str:
    raw = meta.get("name")
    if not isinstance(raw, str) or not raw.strip():
        name = folder if SLUG.match(folder) and len(folder) <= NAME_MAX else slugify(folder)
        out.repairs.append(f"no name; named after its folder: {name}")
        return name
    name = raw.strip()
    if not SLUG.match(name) or len(name) > NAME_MAX:
        slug = slugify(name) or slugify(folder)
        metadata.setdefault("original-name", name)
        out.repairs.append(
            f"name {name!r} is not a valid skill name; imported as {slug!r} "
            f"(the original is kept as metadata.original-name)"
        )
        name = slug
    if name != folder:
        out.repairs.append(
            f"name {name!r} does not match its folder {folder!r}; the folder "
            f"is named after the skill"
        )
    return name


def _move_unknown(
    meta: dict[str, Any], keep: frozenset[str], metadata: dict[str, str], out: Translation
) -> None:
    allowed = set(STANDARD_FIELDS) | set(NATIVE_FIELDS) | {"version"} | keep
    for key in list(meta):
        if str(key) not in allowed:
            used = _set_aside(metadata, str(key), meta.pop(key))
            out.repairs.append(f"unknown top-level key {key!r} moved to metadata.{used}")
    for key in LIST_FIELDS:
        if isinstance(meta.get(key), str):
            meta[key] = [part.strip() for part in meta[key].split(",") if part.strip()]
            out.repairs.append(f"{key} was a comma-separated string; split into a list")
    source = meta.pop("source", None)
    if source is not None and source not in SOURCE_KINDS:
        used = _set_aside(metadata, "source", source)
        out.repairs.append(
            f"top-level source {source!r} is not native/imported/composed; kept as metadata.{used}"
        )
    for key in ("source_format", "source_url"):
        meta.pop(key, None)  # replaced by this import's provenance


def _schema_fit(meta: dict[str, Any], metadata: dict[str, str], out: Translation) -> None:
    """Move fields that break the native schema (other than name/description) into metadata."""
    from exobrain.artifacts.register import native_errors

    for key, _, message in native_errors(meta):
        if key in ("name", "description", "metadata", "") or key not in meta:
            continue  # name and metadata are already clean, long texts already cut
        used = _set_aside(metadata, key, meta.pop(key))
        out.repairs.append(f"{message}; the field was moved to metadata.{used}")


#: Text fields the standard limits, with their limit: an import cuts them to fit and keeps the
#: full upstream text in ``metadata.full-<field>``.
LIMITED = (("description", DESCRIPTION_MAX), ("compatibility", COMPATIBILITY_MAX))


def shorten(text: str, limit: int) -> tuple[str, str]:
    """``text`` cut to at most ``limit`` characters, and where it was cut: after the last
    sentence that ends within the limit when that keeps at least half of it ("sentence"),
    else at the last word boundary, marked with an ellipsis ("word")."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit + 1) if m.end() <= limit]
    if ends and ends[-1] >= limit // 2:
        return text[: ends[-1]].rstrip(), "sentence"
    head = text[: limit - 1]
    if not text[limit - 1].isspace():  # the cut falls inside a word: leave that word out
        space = max(head.rfind(c) for c in " \n\t")
        if space > limit // 2:
            head = head[:space]
    return head.rstrip().rstrip(",;:-—") + "…", "word"


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def _fit_lengths(meta: dict[str, Any], metadata: dict[str, str], out: Translation) -> None:
    """Cut over-long limited fields (see :data:`LIMITED`), keeping each full text in
    metadata, so the skill validates and nothing of the upstream is lost."""
    for key, limit in LIMITED:
        text = meta.get(key)
        if not isinstance(text, str) or len(text) <= limit:
            continue
        short, where = shorten(text, limit)
        kept = _set_aside(metadata, f"full-{key}", text)
        meta[key] = short
        out.repairs.append(
            f"{key} was {len(text)} characters (the standard allows {limit}): cut at a "
            f"{where} boundary to {len(short)}; the full text is kept in metadata.{kept}"
        )


def _ordered(meta: dict[str, Any]) -> dict[str, Any]:
    tail = ("metadata", "schema_version", *PROVENANCE)
    keys = [k for k in _HEAD if k in meta]
    keys += [k for k in meta if k not in _HEAD and k not in tail]
    keys += [k for k in tail if k in meta]
    return {k: meta[k] for k in keys}


def translate(
    raw: dict[str, Any],
    folder: str,
    *,
    keep: frozenset[str],
    source_format: str,
    source_url: str,
    new_name: str | None = None,
    bundle_versions: list[tuple[str, Any]] | None = None,
) -> Translation:
    """Turn a foreign frontmatter into a native one (see the module docstring);
    ``bundle_versions`` are the versions the bundle states for the skill, by precedence."""
    out = Translation()
    meta = {str(k): v for k, v in raw.items()}
    keep = keep | frozenset(lift_exported(meta))
    metadata = _clean_metadata(meta.pop("metadata", None), meta, out)
    _version(meta, metadata, out, bundle_versions or [])
    name = _name(meta, folder, metadata, out)
    _move_unknown(meta, keep, metadata, out)
    description = meta.get("description")
    if description is None or (isinstance(description, str) and not description.strip()):
        out.problems.append(
            "no description: the frontmatter needs a 'description' saying what "
            "the skill does and when to use it"
        )
    elif not isinstance(description, str):
        meta["description"] = _scalar_text(description)
        out.repairs.append("description was not text; written as a string")
    for key in ("license", "compatibility"):
        if key in meta and not isinstance(meta[key], str):
            meta[key] = _scalar_text(meta[key])
            out.repairs.append(f"{key} was not text; written as a string")
    _fit_lengths(meta, metadata, out)
    out.name = new_name or name
    meta["name"] = out.name
    meta["version"] = out.upstream_version or FIRST_VERSION
    _schema_fit(meta, metadata, out)
    for key in TOOLKIT_FIELDS:  # an upstream's own entry of that name is kept beside ours
        if key in metadata and key != "version":
            kept = _set_aside(metadata, key, metadata.pop(key))
            out.repairs.append(
                f"metadata.{key} is the toolkit's; the upstream's is metadata.{kept}"
            )
    if metadata:
        meta["metadata"] = metadata
    meta.update(
        {
            "schema_version": SCHEMA_VERSION,
            "source": "imported",
            "source_format": source_format,
            "source_url": source_url,
        }
    )
    out.meta = in_metadata(_ordered(meta))  # the toolkit's fields where the standard allows
    return out
