"""A generated exobrain in a bare repository (``git fast-import``, no work tree) and the clones
the sparse tests work in: blob-less, sparse ones as a big exobrain's users make them, and a
full one to push changes from."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.bigrepo import import_exobrain
from benchmarks.synthetic import Shape
from tests.support.helpers import git

#: 3 groups, 4 people with 2 hosts each (16 scopes and the root), 2 skills each, 4 global.
SHAPE = Shape(groups=3, people=4, hosts=2, per_scope=2, global_skills=4, ledger_every=1)
#: What p0001 on host h1 in group g001 needs on disk.
CONE = [
    "groups/g001/skills",
    "people/p0001/hosts/h1/skills",
    "people/p0001/skills",
    "signals/p0001",
    "skills",
]


def origin(tmp_path: Path, shape: Shape = SHAPE) -> Path:
    """The generated exobrain as a bare repository that serves partial clones."""
    bare = tmp_path / "origin.git"
    import_exobrain(bare, shape)
    return bare


def sparse_clone(bare: Path, dest: Path) -> Path:
    """``git clone --filter=blob:none --sparse file://…``: every commit and tree, the root's
    files, no other blob."""
    git(dest.parent, "clone", "-q", "--filter=blob:none", "--sparse", f"file://{bare}", str(dest))
    return dest


def full_clone(bare: Path, dest: Path) -> Path:
    git(dest.parent, "clone", "-q", str(bare), str(dest))
    return dest


def push_change(work: Path, path: str, edit) -> None:
    """Edit one registry in the full clone (``edit`` takes and returns its entries), commit
    and push it to the origin."""
    file = work / path
    data = json.loads(file.read_text(encoding="utf-8"))
    data["skills"] = edit(data["skills"])
    file.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    git(work, "commit", "-q", "-am", f"change {path}")
    git(work, "push", "-q", "origin", "HEAD:main")


def cone(root: Path) -> list[str]:
    return sorted(git(root, "sparse-checkout", "list").split())
