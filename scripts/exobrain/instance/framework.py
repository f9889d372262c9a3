"""What an instance inherits from the seed: the framework manifest shared by create-instance
and harvest.

Every file of an exobrain falls in one of three kinds, so both commands agree on what flows
where:

* **framework** — copied verbatim into every new instance and compared by ``harvest``
  afterwards: the toolkit (``scripts/``), its tests, the agent docs, the schema, CI and hook
  configuration, and each in-tree skill the seed's global ``skills.json`` declares (the
  shipped global skills). :data:`FRAMEWORK_FILES` and :data:`FRAMEWORK_FOLDERS` list them.
* **starters** — written once at creation, then the instance's own and never compared: the
  fresh global ``skills.json`` and ``skills.lock.json``, ``crons.json`` (the seed's jobs
  that do not name a seed-only skill), ``scopes.json`` and ``signals/weights.json`` (copied),
  the collection folders and the person and host scope flags (:data:`STARTERS`).
* **never** — neither copied nor compared: ``seed/``, the seed's bootstrap files at the root
  (:data:`SEED_ONLY`), every scope's content (``groups/``, ``teams/``, ``people/``), signal
  ledgers, the connection file, agent folders, caches and anything else.

A seed's files are what git would keep: tracked files plus untracked ones its ``.gitignore``
does not exclude, read from the working tree (so a seed with uncommitted framework edits
renders and compares those edits).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import UsageError
from exobrain.model import GLOBAL
from exobrain.registry.entries import load_registry
from exobrain.util.git import Git

#: Single framework files, relative to the root (copied only when the seed has them).
FRAMEWORK_FILES: tuple[str, ...] = (
    "pyproject.toml",
    "README.md",
    "skills.schema.json",
    ".gitignore",
    ".gitattributes",
    ".pre-commit-config.yaml",
    ".pre-commit-hooks.yaml",
    ".github/workflows/skills-review.yml",
    ".github/workflows/site.yml",
)
#: The seed's bootstrap files: they send a fresh agent in a clone of the seed to
#: create-instance, which an instance has not (it has no ``seed/``), so they are never framework.
SEED_ONLY: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md")
#: Framework folders: every file below them (the package, its tests, the agent docs, CI).
FRAMEWORK_FOLDERS: tuple[str, ...] = ("scripts/", "tests/", "knowledge/exobrain/", ".ci/")
#: Written at creation, then owned by the instance (harvest never compares them).
STARTERS: tuple[str, ...] = (
    "skills.json",
    "skills.lock.json",
    "crons.json",
    "scopes.json",
    "signals/weights.json",
    "groups/.gitkeep",
    "people/.gitkeep",
)
#: Starters copied as they are in the seed (when it has them); the others are rendered.
COPIED_STARTERS: tuple[str, ...] = ("scopes.json", "signals/weights.json")
#: What marks a folder as a seed able to render instances.
REQUIRED: tuple[str, ...] = ("pyproject.toml", "skills.schema.json", "scripts/exobrain/__init__.py")


@dataclass(frozen=True)
class Framework:
    """The framework of one exobrain: its file list and the global skills it ships."""

    root: Path
    files: tuple[str, ...]  # framework paths, sorted
    shipped: tuple[str, ...]  # in-tree global skills declared in skills.json
    declarations: tuple[dict[str, Any], ...]  # their declarations and the external ones, file order

    def blob_ids(self) -> dict[str, str]:
        """Path → git blob id of the working-tree content (what harvest compares)."""
        return {path: blob_id(self.root / path) for path in self.files}


def is_framework(path: str, shipped: tuple[str, ...] | frozenset[str]) -> bool:
    """Whether ``path`` (POSIX, relative to the root) belongs to the framework."""
    if path in SEED_ONLY:
        return False
    if path in FRAMEWORK_FILES or path.startswith(FRAMEWORK_FOLDERS):
        return True
    parts = path.split("/")
    return len(parts) > 2 and parts[0] == "skills" and parts[1] in shipped


def is_framework_area(path: str) -> bool:
    """Whether ``path`` lies where framework files live (a file only an instance has there is
    a candidate for harvest)."""
    return path.startswith(FRAMEWORK_FOLDERS)


def kept_files(root: Path) -> list[str]:
    """The files git would keep in ``root``: tracked plus untracked-but-not-ignored, as POSIX
    paths relative to ``root``, existing on disk (a tracked file deleted from disk is gone)."""
    done = Git(timeout=60).run(
        ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root, check=False
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise UsageError(
            f"{root} is not a git work tree ({message})",
            hint="run it in the seed's clone or pass --repo PATH",
        )
    paths = {p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p}
    return sorted(p for p in paths if os.path.lexists(root / p))


def read_framework(root: Path) -> Framework:
    """The framework of the exobrain at ``root``; refuses a folder that is not a seed."""
    files = kept_files(root)
    present = set(files)
    missing = [path for path in REQUIRED if path not in present]
    if missing:
        raise UsageError(
            f"{root} holds no exobrain framework (missing: {', '.join(missing)})",
            hint="run it in a clone of the seed, or pass --repo SEED",
        )
    registry = load_registry(root, GLOBAL)
    if registry.findings:
        raise UsageError(
            f"{root}/skills.json: {registry.findings[0].message}",
            hint="skills-validate shows every problem; fix the seed first",
        )
    shipped, declarations = [], []
    for entry in registry.entries:
        raw = registry.data["skills"][entry.index]
        if entry.is_override:
            continue
        if entry.source is not None:
            declarations.append(raw)
        elif f"skills/{entry.name}/SKILL.md" in present:
            shipped.append(entry.name)
            declarations.append(raw)
    names = tuple(sorted(set(shipped)))
    chosen = tuple(path for path in files if is_framework(path, names))
    return Framework(root, chosen, names, tuple(declarations))


def blob_id(path: Path) -> str:
    """The git blob id of a file's content (a symbolic link: of its target text), as
    ``git hash-object`` computes it without filters."""
    data = (
        os.readlink(path).encode("utf-8", "surrogateescape")
        if path.is_symlink()
        else path.read_bytes()
    )
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
