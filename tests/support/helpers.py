"""Test helpers: dict → file tree, real git repositories with an isolated configuration.

:func:`git` is :func:`exobrain.testkit.git` (git as a person runs it, through the toolkit's git
layer), re-exported here for the tests."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from exobrain.testkit import git


def build_tree(root: Path, tree: dict[str, Any]) -> Path:
    """Write ``tree`` under ``root``: str/bytes values are files, dicts and lists go as JSON
    when the key ends in .json, nested dicts otherwise are folders."""
    for name, value in tree.items():
        path = root / name
        if isinstance(value, dict) and not name.endswith(".json"):
            path.mkdir(parents=True, exist_ok=True)
            build_tree(path, value)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, bytes):
            path.write_bytes(value)
        elif isinstance(value, str):
            path.write_text(value, encoding="utf-8")
        else:
            path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return root


def skill_md(name: str, description: str = "", body: str = "Instructions.\n", **extra: str) -> str:
    """A minimal valid SKILL.md."""
    description = description or f"Use {name} when the user asks for {name}."
    lines = ["---", f"name: {name}", f"description: {description}"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n---\n" + body


def init_repo(path: Path, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if commit:
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    return path


def exobrain(
    root: Path,
    registries: dict[str, list[dict]] | None = None,
    scopes: list[str] = (),
    skills: dict[str, str] | None = None,
    connection: dict | None = None,
    commit: bool = True,
) -> Path:
    """A real exobrain: ``registries`` maps scope path ("global" for the root) to entries
    (the global registry is empty when not given: it is what makes the folder an exobrain),
    ``scopes`` lists scope folders to flag with AGENTS.md, ``skills`` maps
    "<home>/<name>" (home "global" for the root) to SKILL.md text (None for a default one)."""
    root.mkdir(parents=True, exist_ok=True)
    registries = {"global": [], **(registries or {})}
    for scope in scopes:
        build_tree(root, {f"{scope}/AGENTS.md": f"# {scope}\n"})
    for scope, entries in registries.items():
        folder = root if scope == "global" else root / scope
        build_tree(folder, {"skills.json": {"skills": entries}})
    for key, text in (skills or {}).items():
        home, name = key.rsplit("/", 1)
        folder = root if home == "global" else root / home
        build_tree(folder, {f"skills/{name}/SKILL.md": text or skill_md(name)})
    if connection is not None:
        build_tree(root, {".exobrain.json": connection})
    return init_repo(root, commit=commit)


def connected(root: Path, *args: str) -> Any:
    """``connect-agent ARGS --repo ROOT`` through click's runner; it must succeed."""
    from click.testing import CliRunner

    from exobrain.cli.connect import main as connect_cmd

    result = CliRunner().invoke(connect_cmd, [*args, "--repo", str(root)])
    assert result.exit_code == 0, result.output
    return result


def optional_exobrain(root: Path, count: int, description: Callable[[str], str]) -> Path:
    """An exobrain of ``count`` forced optional global skills ``skill-000``, ``skill-001``, …
    (``description(name)`` each), with ``people/dana`` connected: the repository of the
    index and budget tests."""
    names = [f"skill-{i:03d}" for i in range(count)]
    return exobrain(
        root,
        registries={
            "global": [{"name": n, "owner": "o", "tier": "optional", "force": True} for n in names]
        },
        scopes=["people/dana"],
        skills={f"global/{n}": skill_md(n, description(n)) for n in names},
        connection={"connected_scopes": ["people/dana"], "person": "dana"},
    )


def mtimes(folder: Path) -> dict[str, int]:
    """Every path under ``folder`` (links not followed) with its mtime in ns."""
    result = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            result[str(p)] = p.lstat().st_mtime_ns
    return result
