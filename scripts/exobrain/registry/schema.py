"""skills.json against its JSON Schema: what ``skills-validate`` and the registry editor report.

The fast structural check of :mod:`exobrain.registry.rules` (``entry_problem``) runs on every load;
this is the full one, ``skills.schema.json`` run by jsonschema, with each problem located by
entry and line. A test keeps the two in agreement, so when a repository uses the packaged
schema, jsonschema runs only where the fast check found something to explain.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from exobrain.errors import InputFileError
from exobrain.findings import ERROR, Finding
from exobrain.paths import packaged, shown
from exobrain.registry.entries import SCHEMA_FILE, Registry
from exobrain.util.fileio import read_text

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


#: Bad entries of one file that skills-validate explains in the JSON Schema's own words (all of
#: their problems); further ones keep the fast check's first problem. jsonschema costs about
#: 0.3 ms an entry: a file of 200,000 broken entries must not take a minute to report.
EXPLAINED_MAX = 1000


def explained_findings(root: Path, registry: Registry, limit: int = EXPLAINED_MAX) -> list[Finding]:
    """A registry's schema problems for skills-validate when the repository uses the packaged
    schema (which the fast check mirrors): the top level and the first ``limit`` bad entries
    through jsonschema, the entries the fast check passed skipped."""
    skills = registry.data.get("skills") if isinstance(registry.data, dict) else None
    if not isinstance(skills, list):
        return schema_findings(root, registry)
    chosen = sorted(registry.bad_entries)[:limit]
    subset = Registry(
        registry.scope,
        registry.root,
        data={**registry.data, "skills": [skills[i] for i in chosen]},
        text=registry.text,
        parsed=True,
    )
    rest = [f for i, f in sorted(registry.bad_entries.items()) if i not in set(chosen)]
    return schema_findings(root, subset, chosen) + rest


@lru_cache(maxsize=4)
def _validator(schema_text: str) -> Validator:
    import jsonschema

    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def packaged_schema_text() -> str:
    return packaged(SCHEMA_FILE).read_text(encoding="utf-8")


def schema_is_packaged(root: Path) -> bool:
    """True when the repository uses the schema this package ships (or none of its own).

    Then the fast ``entry_problem`` check — kept equal to that schema by the test suite — is
    enough for registries it finds nothing wrong with, and jsonschema runs only where there is
    something to explain.
    """
    local = root / SCHEMA_FILE
    try:
        return not local.is_file() or local.read_bytes() == packaged_schema_text().encode()
    except OSError:
        return False


def schema_text(root: Path) -> tuple[str, Path]:
    """The repository's skills.schema.json, else the copy shipped with the package."""
    local = root / SCHEMA_FILE
    if local.is_file():
        return read_text(local), local
    return packaged_schema_text(), packaged(SCHEMA_FILE)


def schema_findings(
    root: Path, registry: Registry, positions: list[int] | None = None
) -> list[Finding]:
    """Every JSON Schema violation in a parsed registry, located by entry and line.

    ``positions`` says where each entry of ``registry.data`` sits in the file when the data is
    a subset of it (the registry editor validates only the entries it adds or changes).
    """
    if not registry.parsed:
        return []
    text, schema_path = schema_text(root)
    try:
        validator = _validator(text)
    except (ValueError, Exception) as exc:  # a broken schema file is itself bad input
        raise InputFileError(f"{schema_path}: not a usable JSON Schema ({exc})") from exc
    rel = shown(registry.path, root)
    seen: set[tuple[int | None, str]] = set()
    found: list[Finding] = []
    for error in sorted(validator.iter_errors(registry.data), key=lambda e: list(map(str, e.path))):
        path = list(error.absolute_path)
        index = (
            path[1] if len(path) > 1 and path[0] == "skills" and isinstance(path[1], int) else None
        )
        rule = (
            error.schema.get("description")  # the root's description is no rule
            if isinstance(error.schema, dict) and error.schema is not validator.schema
            else None
        )
        field_name = ".".join(str(p) for p in (path[2:] if index is not None else path))
        message = rule or error.message
        if field_name and not rule:
            message = f"{field_name}: {error.message}"
        elif field_name:
            message = f"{field_name}: {rule}"
        if (index, message) in seen:
            continue
        seen.add((index, message))
        entry = line = None
        if index is not None:
            raw = registry.data["skills"][index]
            index = positions[index] if positions is not None else index
            entry = f"#{index} {raw.get('name')}" if isinstance(raw, dict) else f"#{index}"
            line = registry.line_of(index)
        found.append(
            Finding(ERROR, "registry-schema", rel, message, entry=entry, line=line, bad_input=True)
        )
    return found
