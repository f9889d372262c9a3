"""Synthetic exobrains for benchmarks and scale tests.

:func:`exobrain_files` is the content: G groups, P people and H hosts per person, a number of
skills in every scope (each a folder with a SKILL.md), overrides that opt people in and out
and, with ``ledger_every``, a signal ledger for every n-th person. Two writers share it:
:func:`generate` writes the files and commits them (a work tree, for the small and mid-sized
benchmarks), :mod:`benchmarks.bigrepo` streams them into ``git fast-import`` (no work tree,
for 300,000 scopes). Deterministic: same arguments, same bytes.
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
#: The machine's connection in a synthetic exobrain: the first group and person's first host.
CONNECTED_PERSON = "p0000"
GITIGNORE = "/.exobrain.json\n/.exobrain-cache/\n/.claude/\n/.agents/\n"
#: Fixed identity and dates for every commit a benchmark makes (same input, same commit ids).
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


@dataclass(frozen=True)
class Shape:
    groups: int = 20
    people: int = 500
    hosts: int = 2
    per_scope: int = 5
    global_skills: int = 400
    ledger_every: int = 0  # a signal ledger for every n-th person (0: none)

    @property
    def scopes(self) -> int:
        return 1 + self.groups + self.people * (1 + self.hosts)

    @property
    def total_skills(self) -> int:
        return self.global_skills + (self.scopes - 1) * self.per_scope


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


def describe(shape: Shape) -> str:
    return (
        f"synthetic exobrain: {shape.scopes:,} scopes, {shape.total_skills:,} skills, "
        f"{shape.groups} groups, {shape.people:,} people x {shape.hosts} hosts"
    )


@contextmanager
def synthetic_repo(args) -> Iterator[tuple[Path, Shape]]:
    """A synthetic exobrain of the shape the options ask for, in a temporary folder that is
    removed afterwards; its size is printed first, so every figure has its context."""
    shape = shape_from(args)
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp) / "exobrain", shape)
        print(describe(shape))
        yield root, shape


def _registry(entries: list[dict], depth: int) -> str:
    schema = "../" * depth + "skills.schema.json"
    lines = ",\n".join("    " + json.dumps(e) for e in entries)
    return f'{{\n  "$schema": "{schema}",\n  "skills": [\n{lines}\n  ]\n}}\n'


def _skill(prefix: str, name: str, topic: str) -> tuple[str, str]:
    return (
        f"{prefix}skills/{name}/SKILL.md",
        f"---\nname: {name}\ndescription: Use when the user asks about {topic}; "
        f"covers {name.replace('-', ' ')} step by step.\nversion: 1.0.0\n---\n"
        f"# {name}\n\nInstructions for {topic}.\n",
    )


def _scope(
    path: str,
    title: str,
    skills: list[tuple[str, str, bool]],
    overrides: list[dict] = (),
) -> Iterator[tuple[str, str]]:
    """One scope: its AGENTS.md, a SKILL.md per (name, owner, forced) and its registry."""
    prefix = path + "/"
    yield prefix + "AGENTS.md", f"# {title}\n"
    entries = []
    for k, (name, owner, forced) in enumerate(skills):
        yield _skill(prefix, name, f"{title} topic {k}")
        entries.append(
            {
                "name": name,
                "owner": owner,
                "tier": TIERS[k % 3],
                **({"force": True} if forced else {}),
            }
        )
    yield prefix + "skills.json", _registry(entries + list(overrides), path.count("/") + 1)


def _ledger(person: str, skills: list[str]) -> str:
    lines = [
        {
            "ts": "2026-01-01T00:00:00Z",
            "skill": f"skill:{name}",
            "kind": "usage",
            "value": 1,
            "by": person,
        }
        for name in skills
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def exobrain_files(shape: Shape) -> Iterator[tuple[str, str]]:
    """Every committed file of the synthetic exobrain as (POSIX path, text), scope by scope."""
    yield "skills.schema.json", packaged("skills.schema.json").read_text(encoding="utf-8")
    yield ".gitignore", GITIGNORE
    entries = []
    for i in range(shape.global_skills):
        name = f"global-skill-{i:04d}"
        yield _skill("", name, f"global topic {i}")
        entries.append(
            {
                "name": name,
                "owner": f"p{i % max(shape.people, 1):04d}",
                "tier": TIERS[i % 3],
                **({"force": True} if i % 4 == 0 else {}),
            }
        )
    yield "skills.json", _registry(entries, 0)
    for g in range(shape.groups):
        group = f"g{g:03d}"
        yield from _scope(
            f"groups/{group}",
            f"group {group}",
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
        own = [f"{person}-skill-{k}" for k in range(shape.per_scope)]
        yield from _scope(f"people/{person}", person, [(n, person, False) for n in own], overrides)
        for h in range(shape.hosts):
            yield from _scope(
                f"people/{person}/hosts/h{h}",
                f"{person} host h{h}",
                [(f"{person}-h{h}-skill-{k}", person, False) for k in range(shape.per_scope)],
            )
        if shape.ledger_every and p % shape.ledger_every == 0:
            yield f"signals/{person}/h0.jsonl", _ledger(person, own)


def connection(shape: Shape) -> dict:
    """The connection file a synthetic exobrain's machine has: the first group and the first
    person's first host."""
    connected = (
        [f"people/{CONNECTED_PERSON}/hosts/h0"] if shape.hosts else [f"people/{CONNECTED_PERSON}"]
    )
    if shape.groups:
        connected.insert(0, "groups/g000")
    return {"connected_scopes": connected, "person": CONNECTED_PERSON, "agents": []}


def git_env() -> dict[str, str]:
    return {**os.environ, **GIT_IDENTITY}


def generate(root: Path, shape: Shape = Shape(), *, git: bool = True) -> Path:
    """Write the synthetic exobrain at ``root`` (which must not exist yet)."""
    root.mkdir(parents=True)
    made: set[Path] = set()
    for rel, text in exobrain_files(shape):
        path = root / rel
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(text, encoding="utf-8")
    (root / ".exobrain.json").write_text(json.dumps(connection(shape), indent=2), encoding="utf-8")
    if git:
        for args in (
            ["init", "-q", "-b", "main"],
            ["add", "-A"],
            ["commit", "-q", "-m", "synthetic exobrain"],
        ):
            subprocess.run(["git", *args], cwd=root, check=True, env=git_env())
    return root
