"""Synthetic exobrains for benchmarks and scale tests.

``generate`` writes a repository with G groups, P people and H hosts per person, a number of
skills in every scope (each a real folder with a SKILL.md) and overrides that opt people in
and out, then makes it a git repository with one commit. Deterministic: same arguments, same
bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from exobrain.paths import packaged

TIERS = ("always", "optional", "unlisted")


@dataclass(frozen=True)
class Shape:
    groups: int = 20
    people: int = 500
    hosts: int = 2
    per_scope: int = 5
    global_skills: int = 400

    @property
    def total_skills(self) -> int:
        scopes = self.groups + self.people * (1 + self.hosts)
        return self.global_skills + scopes * self.per_scope


def add_shape_arguments(parser, runs: int) -> None:
    """The options every scale benchmark shares: the synthetic shape and the number of runs."""
    default = Shape()
    parser.add_argument("--groups", type=int, default=default.groups)
    parser.add_argument("--people", type=int, default=default.people)
    parser.add_argument("--hosts", type=int, default=default.hosts)
    parser.add_argument("--per-scope", type=int, default=default.per_scope)
    parser.add_argument("--global-skills", type=int, default=default.global_skills)
    parser.add_argument("--runs", type=int, default=runs)


def shape_from(args) -> Shape:
    return Shape(args.groups, args.people, args.hosts, args.per_scope, args.global_skills)


@contextmanager
def synthetic_repo(args) -> Iterator[tuple[Path, Shape]]:
    """A synthetic exobrain of the shape the options ask for, in a temporary folder that is
    removed afterwards; its size is printed first, so every figure has its context."""
    shape = shape_from(args)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        print(
            f"synthetic exobrain: {shape.total_skills} skills, {shape.groups} groups, "
            f"{shape.people} people x {shape.hosts} hosts"
        )
        yield root, shape


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _registry(entries: list[dict], depth: int) -> str:
    schema = "../" * depth + "skills.schema.json"
    lines = ",\n".join("    " + json.dumps(e) for e in entries)
    return f'{{\n  "$schema": "{schema}",\n  "skills": [\n{lines}\n  ]\n}}\n'


def _skill(folder: Path, name: str, topic: str) -> None:
    _write(
        folder / name / "SKILL.md",
        f"---\nname: {name}\ndescription: Use when the user asks about {topic}; "
        f"covers {name.replace('-', ' ')} step by step.\nversion: 1.0.0\n---\n"
        f"# {name}\n\nInstructions for {topic}.\n",
    )


def _scope(
    folder: Path,
    title: str,
    depth: int,
    skills: list[tuple[str, str, bool]],
    overrides: list[dict] = (),
) -> None:
    """One scope: its AGENTS.md, a SKILL.md per (name, owner, forced) and its registry."""
    _write(folder / "AGENTS.md", f"# {title}\n")
    entries = []
    for k, (name, owner, forced) in enumerate(skills):
        _skill(folder / "skills", name, f"{title} topic {k}")
        entries.append(
            {
                "name": name,
                "owner": owner,
                "tier": TIERS[k % 3],
                **({"force": True} if forced else {}),
            }
        )
    _write(folder / "skills.json", _registry(entries + list(overrides), depth))


def generate(root: Path, shape: Shape = Shape(), *, git: bool = True) -> Path:
    """Write the synthetic exobrain at ``root`` (which must not exist yet)."""
    root.mkdir(parents=True)
    schema = packaged("skills.schema.json")
    _write(root / "skills.schema.json", schema.read_text(encoding="utf-8"))
    entries = []
    for i in range(shape.global_skills):
        name = f"global-skill-{i:04d}"
        _skill(root / "skills", name, f"global topic {i}")
        entries.append(
            {
                "name": name,
                "owner": f"p{i % max(shape.people, 1):04d}",
                "tier": TIERS[i % 3],
                **({"force": True} if i % 4 == 0 else {}),
            }
        )
    _write(root / "skills.json", _registry(entries, 0))
    for g in range(shape.groups):
        group = f"g{g:03d}"
        _scope(
            root / "groups" / group,
            f"group {group}",
            2,
            [(f"group-{g:03d}-skill-{k}", group, k % 2 == 0) for k in range(shape.per_scope)],
        )
    for p in range(shape.people):
        person = f"p{p:04d}"
        g = p % max(shape.groups, 1)
        overrides = []
        if shape.groups:
            overrides.append(
                {"name": f"group-{g:03d}-skill-1", "from": f"groups/g{g:03d}", "tier": "always"}
            )
        if shape.global_skills:
            overrides.append({"name": "global-skill-0000", "from": "global", "tier": "off"})
        _scope(
            root / "people" / person,
            person,
            2,
            [(f"{person}-skill-{k}", person, False) for k in range(shape.per_scope)],
            overrides,
        )
        for h in range(shape.hosts):
            _scope(
                root / "people" / person / "hosts" / f"h{h}",
                f"{person} host h{h}",
                4,
                [(f"{person}-h{h}-skill-{k}", person, False) for k in range(shape.per_scope)],
            )
    connected = ["people/p0000/hosts/h0"] if shape.hosts else ["people/p0000"]
    if shape.groups:
        connected.insert(0, "groups/g000")
    _write(
        root / ".exobrain.json",
        json.dumps({"connected_scopes": connected, "person": "p0000", "agents": []}, indent=2),
    )
    _write(root / ".gitignore", "/.exobrain.json\n/.claude/\n/.agents/\n")
    if git:
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "bench",
            "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "bench@example.com",
        }
        for args in (
            ["init", "-q", "-b", "main"],
            ["add", "-A"],
            ["commit", "-q", "-m", "synthetic exobrain"],
        ):
            subprocess.run(["git", *args], cwd=root, check=True, env=env)
    return root
