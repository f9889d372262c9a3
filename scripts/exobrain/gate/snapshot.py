"""What the authoring gate reads of one state of the repository (a commit or the index): its
scopes, the declarations of each registry, the files of each skill folder and the scheduled
jobs — from git's file list and blobs, never from the working tree.

Pure: :func:`snapshot` takes the tracked paths and the blobs :func:`wanted_blobs` asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.gate.crons import CRONS_FILE, CronJob, parse_crons
from exobrain.model import GLOBAL, Identity
from exobrain.registry.entries import REGISTRY_FILE
from exobrain.scopes import (
    SCOPE_FLAG,
    ScopeConfig,
    is_shared,
    parse_scope_config,
    scopes_from_flags,
)
from exobrain.util.fileio import parse_json


@dataclass(frozen=True)
class Snapshot:
    """What the gate knows about one state of the repository (a commit or the index)."""

    files: frozenset[str]
    scopes: dict[str, str]  # scope path → scope type
    declarations: dict[Identity, dict[str, Any]]  # first declaration of each name per registry
    skills: dict[Identity, tuple[str, ...]]  # skill folder → the paths inside it
    jobs: tuple[CronJob, ...] = ()
    warnings: tuple[str, ...] = ()

    def shared(self, scope: str) -> bool:
        kind = self.scopes.get(scope)
        return kind is not None and is_shared(kind)

    def skill_files(self) -> set[Identity]:
        """Every skill folder holding a SKILL.md, as (scope, name)."""
        return {key for key, inside in self.skills.items() if "SKILL.md" in inside}


def scopes_from_files(files: frozenset[str], config: ScopeConfig) -> dict[str, str]:
    """Scope path → type for the scopes flagged in ``files`` (ancestors must be scopes too)."""
    return scopes_from_flags(
        (p[: -len(SCOPE_FLAG) - 1] for p in files if p.endswith("/" + SCOPE_FLAG)), config
    )


def skill_location(path: str, scopes: dict[str, str]) -> tuple[str, str, str] | None:
    """``(scope, skill name, path inside the skill folder)`` for a file in a skill folder."""
    at = path.find("skills/")
    while at >= 0:
        if at == 0 or path[at - 1] == "/":
            scope = path[: at - 1] if at else GLOBAL
            name, _slash, inside = path[at + 7 :].partition("/")
            if scope in scopes and name and inside:
                return scope, name, inside
        at = path.find("skills/", at + 1)
    return None


def snapshot(files: list[str], contents: dict[str, bytes], *, strict: bool) -> Snapshot:
    """Build a snapshot from tracked files and the blobs :func:`wanted_blobs` asked for.

    ``strict`` (the current state): a broken scopes.json, skills.json or crons.json is an
    InputFileError. Otherwise (the base) it is read as empty, with a warning.
    """
    warnings: list[str] = []

    def parsed(path: str) -> Any:
        if path not in contents:
            return None
        try:
            return parse_json(_text(contents[path], path), Path(path))
        except InputFileError as exc:
            if strict:
                raise InputFileError(
                    exc.message,
                    hint=f"fix {path} and git add it; skills-validate explains every problem",
                ) from exc
            warnings.append(f"base {path} unreadable, read as empty: {exc.message}")
            return None

    config_data = parsed("scopes.json")
    config = ScopeConfig() if config_data is None else _scope_config(config_data, strict, warnings)
    file_set = frozenset(files)
    scopes = scopes_from_files(file_set, config)
    declarations: dict[Identity, dict[str, Any]] = {}
    for scope in scopes:
        data = parsed(REGISTRY_FILE if scope == GLOBAL else f"{scope}/{REGISTRY_FILE}")
        entries = data.get("skills") if isinstance(data, dict) else None
        for raw in entries if isinstance(entries, list) else []:
            if isinstance(raw, dict) and isinstance(raw.get("name"), str) and "from" not in raw:
                declarations.setdefault(Identity(scope, raw["name"]), raw)
    skills: dict[Identity, list[str]] = {}
    for path in files:
        place = skill_location(path, scopes)
        if place:
            skills.setdefault(Identity(place[0], place[1]), []).append(place[2])
    jobs: tuple[CronJob, ...] = ()
    if CRONS_FILE in contents:  # the base's too: a changed command is for a reviewer to read
        try:
            text = _text(contents[CRONS_FILE], CRONS_FILE)
            jobs = tuple(parse_crons(text, Path(CRONS_FILE)).jobs)
        except InputFileError as exc:
            if strict:
                raise
            warnings.append(f"base {CRONS_FILE} unreadable, read as empty: {exc.message}")
    return Snapshot(
        file_set,
        scopes,
        declarations,
        {key: tuple(sorted(inside)) for key, inside in skills.items()},
        jobs,
        tuple(warnings),
    )


def _text(blob: bytes, path: str) -> str:
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            f"{path}: not UTF-8 (offset {exc.start})", hint="re-save the file as UTF-8"
        ) from exc


def _scope_config(data: Any, strict: bool, warnings: list[str]) -> ScopeConfig:
    try:
        return parse_scope_config(data, Path("scopes.json"))
    except InputFileError as exc:
        if strict:
            raise
        warnings.append(f"base scopes.json unusable, default collections used: {exc.message}")
        return ScopeConfig()


def wanted_blobs(files: dict[str, str]) -> dict[str, str]:
    """The files a snapshot reads (scopes.json, crons.json, every skills.json) → blob ids."""
    return {
        p: oid
        for p, oid in files.items()
        if p in ("scopes.json", CRONS_FILE, REGISTRY_FILE) or p.endswith("/" + REGISTRY_FILE)
    }
