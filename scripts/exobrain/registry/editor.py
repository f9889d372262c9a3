"""The one writer of ``skills.json`` files.

Every command that changes a registry (promote now; lifecycle, register and import later) goes
through :func:`edit_registry`, so they all get the same guarantees:

* writers are serialised by the file lock ``<file>.flock`` next to the target
  (:mod:`exobrain.util.locking`), taken with a timeout, so two commands never lose each
  other's entries;
* a file that does not parse or breaks the schema is refused (named by file, entry and rule)
  and left untouched: we never "repair" a file by rewriting what we could not read;
* the result is checked against the schema before anything is written;
* the text is spliced in the file's own style (:mod:`exobrain.util.jsonstyle`), so untouched
  entries keep their bytes and an add followed by a remove gives back the original file;
* the write is atomic (temp file + rename) and happens only when the text changed.

The locked atomic update under it is :mod:`exobrain.util.jsonfile`, which the other JSON files
the toolkit owns (``skills.lock.json``, the trust records) use directly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError, UsageError
from exobrain.findings import Finding
from exobrain.paths import shown
from exobrain.registry.entries import SCHEMA_FILE, Registry, registry_path
from exobrain.registry.rules import ENTRY_KEY_ORDER, entry_problem, top_level_problem
from exobrain.registry.schema import schema_findings
from exobrain.util.checkout import refuse_outside
from exobrain.util.fileio import dump_json, parse_json
from exobrain.util.jsonfile import read_existing, sweep_temp_files, write_file
from exobrain.util.jsonstyle import locate_array, splice_array
from exobrain.util.locking import DEFAULT_TIMEOUT, exclusive


def ordered_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with its keys in :data:`ENTRY_KEY_ORDER` (unknown keys last, as given)."""
    known = [k for k in ENTRY_KEY_ORDER if k in entry]
    return {k: entry[k] for k in known + [k for k in entry if k not in ENTRY_KEY_ORDER]}


def with_key(entry: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of ``entry`` with ``key`` set: in place if present, else at its canonical spot."""
    if key in entry or key not in ENTRY_KEY_ORDER:
        return {**entry, key: value}
    rank = ENTRY_KEY_ORDER.index(key)
    result: dict[str, Any] = {}
    placed = False
    for k, v in entry.items():
        if not placed and k in ENTRY_KEY_ORDER and ENTRY_KEY_ORDER.index(k) > rank:
            result[key] = value
            placed = True
        result[k] = v
    if not placed:
        result[key] = value
    return result


def without_key(entry: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != key}


def _matches(entry: Any, fields: dict[str, Any]) -> bool:
    """Every field equal (a None value means the key must be absent)."""
    return isinstance(entry, dict) and all(entry.get(k) == v for k, v in fields.items())


@dataclass
class RegistryEdit:
    """One scope's registry opened for editing: ``entries`` is the "skills" list, in order."""

    root: Path
    scope: str
    path: Path
    entries: list[dict[str, Any]]
    original: str | None
    _read: list[dict[str, Any]] = field(default_factory=list, repr=False)
    text: str | None = None  # the rendered result, set when the block ends
    written: bool = False

    @property
    def rel(self) -> str:
        return shown(self.path, self.root)

    @property
    def changed(self) -> bool:
        """True when the text differs (a missing file changes only by gaining entries)."""
        if self.original is None:
            return self.text is not None and bool(self.entries)
        return self.text is not None and self.text != self.original

    def find(self, **fields: Any) -> list[int]:
        """Indexes of the entries whose ``fields`` match (value None: key absent)."""
        return [i for i, e in enumerate(self.entries) if _matches(e, fields)]

    def upsert(
        self, entry: dict[str, Any], **identity: Any
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """Update the last entry matching ``identity`` with ``entry``'s keys, or append it.

        Keys the existing entry has and ``entry`` does not (notes, agent filters) are kept.
        Returns (before, after); before is None when the entry was appended.
        """
        found = self.find(**identity)
        if not found:
            new = ordered_entry(entry)
            self.entries.append(new)
            return None, new
        index = found[-1]
        before = self.entries[index]
        after = before
        for key, value in entry.items():
            after = with_key(after, key, value)
        self.entries[index] = after
        return before, after

    def remove(self, **identity: Any) -> list[dict[str, Any]]:
        """Remove every entry matching ``identity``; returns what was removed."""
        removed = [e for e in self.entries if _matches(e, identity)]
        self.entries[:] = [e for e in self.entries if not _matches(e, identity)]
        return removed

    def touched(self) -> list[int]:
        """Indexes of the entries that differ from every entry the file held when read."""
        before = {repr(e) for e in self._read}
        return [i for i, e in enumerate(self.entries) if repr(e) not in before]

    def render(self) -> str:
        """The file's new text: spliced into the original, or a new file in the house style."""
        base = self.original
        if base is None:
            schema = Path(os.path.relpath(self.root / SCHEMA_FILE, self.path.parent)).as_posix()
            base = dump_json({"$schema": schema, "skills": []})
        span = locate_array(base, "skills")
        assert span is not None  # checked on read: the file holds a "skills" list
        return splice_array(base, span, self._read, self.entries)


def registry_problems(
    root: Path,
    scope: str,
    data: Any,
    text: str,
    *,
    fast: list[int] | None = None,
    full: list[int] | None = None,
) -> list[Finding]:
    """What is wrong with a registry's content: its structure, then its entries.

    ``fast`` lists the entries given the fast check (``entry_problem``, kept in agreement with
    the schema by the test suite), ``full`` those also run through the JSON Schema together
    with the top level; None means every entry. The editor checks every entry quickly on read
    and only the entries it adds or changes on write: running jsonschema over every entry of a
    large file on every edit would cost far more than the edit. ``skills-validate`` runs it all.
    """
    registry = Registry(scope, root, data=data, text=text, parsed=True)
    rel = shown(registry.path, root)
    problem = top_level_problem(data)
    if problem is not None:
        return [Finding("error", "registry-schema", rel, problem, bad_input=True)]
    skills = data["skills"]
    found = []
    for index in range(len(skills)) if fast is None else fast:
        raw = skills[index]
        problem = entry_problem(raw)
        if problem:
            found.append(registry.entry_finding(index, raw, problem))
    if found:
        return found
    positions = list(range(len(skills))) if full is None else full
    registry.data = {**data, "skills": [skills[i] for i in positions]}
    return schema_findings(root, registry, positions)


def _describe(findings: list[Finding]) -> str:
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return f"{first.where()}: {first.message}{more}"


@contextmanager
def edit_registry(
    root: Path,
    scope: str,
    *,
    create: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
    dry_run: bool = False,
) -> Iterator[RegistryEdit]:
    """Open ``scope``'s skills.json for editing under its lock; write it back when the block ends.

    Raises InputFileError (file untouched) when the current file is unreadable, does not parse
    or breaks the schema; UsageError (nothing written) when the edited entries would break the
    schema, or when the file is missing and ``create`` is False; OperationFailed when the lock
    is not obtained within ``timeout`` seconds or the write fails. An exception inside the block
    writes nothing. With ``dry_run`` nothing is locked or written; ``text`` shows the result.
    """
    path = registry_path(root, scope)
    rel = shown(path, root)
    if not dry_run:
        refuse_outside(root, path)
    with nullcontext() if dry_run else exclusive(path, timeout, root=root):
        original = read_existing(path)
        if original is None and not create:
            raise UsageError(f"{rel} does not exist")
        entries: list[dict[str, Any]] = []
        if original is not None:
            try:
                data = parse_json(original, Path(rel))
            except InputFileError as exc:
                raise InputFileError(
                    f"{exc.message}; refusing to rewrite it, nothing was changed",
                    hint=f"edit {rel} by hand (skills-validate shows why)",
                ) from exc
            problems = registry_problems(root, scope, data, original, full=[])
            if problems:
                raise InputFileError(
                    f"{_describe(problems)}; refusing to rewrite it, nothing was changed",
                    hint=f"edit {rel} by hand (skills-validate lists every problem)",
                )
            entries = data["skills"]
        # two independent copies: what the block edits and what the file held (parsing the
        # text again is cheaper than a deep copy)
        read = json.loads(original)["skills"] if original is not None else []
        edit = RegistryEdit(root, scope, path, entries, original, _read=read)
        yield edit
        edit.text = edit.render()
        new_data = parse_json(edit.text, path)
        touched = edit.touched()
        problems = registry_problems(root, scope, new_data, edit.text, fast=touched, full=touched)
        if problems:
            raise UsageError(
                f"the change would break the schema of {_describe(problems)}; nothing was written"
            )
        if edit.changed and not dry_run:
            write_file(root, path, edit.text, rel)
            edit.written = True
        if not dry_run:
            sweep_temp_files(path)
