"""The catalog's rows published on a branch, so that a fresh clone's first catalog is a patch.

The first ``skills-status --all`` in a fresh blob-less clone of 100,000 people fetches and
parses 900,000 registries and SKILL.md files: over half a minute on two cores, however the
parsing is done. Yet the rows a catalog prints at a commit are the same in every clone. So
whoever has a clean checkout — CI, after each merge — publishes them once:
``exobrain publish-catalog`` commits the kept rows (:mod:`exobrain.catalog.kept`) of the
``table``, ``plain`` and ``json`` variants, read at ``HEAD``, to the branch
``exobrain-catalog``, as a commit of its own (no parent: the branch never grows a history, and
no work tree is touched). A clone that names the branch
(``git config exobrain.catalog origin/exobrain-catalog``) and has no kept rows of its own
takes the published ones as its own, then patches them for what changed since their commit
and for its own cone (:mod:`exobrain.catalog.patch`), exactly as it patches rows it made.

Trust: published rows say what registries and SKILL.md files hold without this clone reading
them, so they are trusted as far as whoever may push that branch, and no further. Nothing is
taken unless the user names the branch; the README asks to let only CI push it, as for the
main branch. They must also have been made with this toolkit's version, rows format and scope
configuration; anything else, and the catalog is rendered in full.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from exobrain.caches import CATALOG, damaged
from exobrain.catalog.kept import (
    COMMIT_ID,
    DATA_PARTS,
    LIMIT,
    Rows,
    RowStore,
    parts_stored,
    rows_key,
)
from exobrain.catalog.rows import catalog_rows
from exobrain.catalog.text import JSON, PLAIN, SEPARATORS, TABLE, render
from exobrain.errors import ExobrainError, OperationFailed, UsageError
from exobrain.scopes import SEED
from exobrain.sparse.units import unit_of
from exobrain.util import boundedjson
from exobrain.util.repository import Repository
from exobrain.workspace import Workspace

BRANCH = "exobrain-catalog"
#: The git configuration naming the published branch a clone takes rows from.
CONFIG_KEY = "exobrain.catalog"
VARIANTS = (TABLE, PLAIN, JSON)
_FILE = re.compile(
    r"^(table|plain|json)\.(rows\.txt|offsets\.bin|index\.bin|scopes\.txt|meta\.json)\Z"
)
#: Who the published commit is by: a generated artifact, the same wherever it is made.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "exobrain",
    "GIT_AUTHOR_EMAIL": "exobrain@localhost",
    "GIT_COMMITTER_NAME": "exobrain",
    "GIT_COMMITTER_EMAIL": "exobrain@localhost",
}


@dataclass(frozen=True)
class Published:
    branch: str
    commit: str
    head: str  # the commit whose catalog it holds
    rows: int


def publish(ws: Workspace, branch: str = BRANCH) -> Published:
    """Commit the catalog rows read at ``HEAD`` to ``branch`` (see the module). Refused when
    the work tree differs from ``HEAD`` (the rows would not be the commit's), when the
    catalog has findings, or when ``branch`` exists and holds anything but published rows."""
    repo = Repository(ws.root, own_env=True)
    try:
        head = repo.commit_of("HEAD")
        if head is None:
            raise UsageError("nothing is committed yet: there is no catalog to publish")
        _check_branch(repo, branch)
        if repo.run("status", "--porcelain", "--untracked-files=all").strip():
            raise UsageError(
                "the work tree differs from HEAD, so its catalog is not HEAD's",
                hint="publish from a clean checkout (CI), or commit or stash your changes",
            )
        rows = catalog_rows(ws)
        if ws.findings:
            raise UsageError(
                f"the catalog has {len(ws.findings)} finding(s): published rows must not hide them",
                hint="skills-validate lists them; fix them and publish again",
            )
        lines = []
        for kind in VARIANTS:
            kept = Rows.rendered(render(kind, rows), rows)
            if kept is None:
                raise OperationFailed(
                    f"the {kind} catalog cannot be kept as rows (a scope path "
                    "ends in a space or holds a line break)"
                )
            parts = kept.parts()
            meta = kept.meta(rows_key(ws, kind, cone=False), head, set())
            parts["meta.json"] = json.dumps(meta, separators=(",", ":")).encode()
            for part, data in parts.items():
                oid = repo.run("hash-object", "-w", "--stdin", stdin=data).strip()
                lines.append(f"100644 blob {oid}\t{kind}.{part}")
        tree = repo.run("mktree", stdin=("\n".join(sorted(lines)) + "\n").encode()).strip()
        done = repo.git.run(
            ["commit-tree", tree, "-m", f"exobrain catalog of {head}"],
            cwd=ws.root,
            env=_IDENTITY,
        )
        commit = done.stdout.decode().strip()
        repo.run("update-ref", f"refs/heads/{branch}", commit)
        return Published(branch, commit, head, len(rows))
    finally:
        repo.close()


def _check_branch(repo: Repository, branch: str) -> None:
    """Refuse a branch name git refuses, the checked-out branch, and a branch that holds
    anything but published rows (never overwrite what this command did not make)."""
    checked = repo.git.run(["check-ref-format", "--branch", branch], cwd=repo.root, check=False)
    if checked.returncode != 0 or branch.startswith("-"):
        raise UsageError(f"{branch!r} is not a valid branch name")
    current = repo.run("symbolic-ref", "-q", "--short", "HEAD", check=False).strip()
    if branch == current:
        raise UsageError(f"{branch} is the branch checked out here", hint="name another branch")
    tip = repo.commit_of(f"refs/heads/{branch}")
    if tip is not None and not all(_FILE.match(p) for p in repo.tree(tip)):
        raise UsageError(
            f"branch {branch} exists and holds more than a published catalog; not overwritten",
            hint="name another branch with --branch",
        )


def adopt(ws: Workspace, store: RowStore, variant: str) -> bool:
    """Make the rows published on the branch the clone names (:data:`CONFIG_KEY`) this
    clone's kept rows of ``variant``, to be patched for what changed since and for the
    units of its own cone; False (nothing written) when there are none to take, and when
    they are damaged (reported: every part is decoded and checked before it is kept, the
    text as UTF-8 row by row, since kept rows are trusted from then on)."""
    units = _cone_units(ws)
    if variant not in VARIANTS or units is None:
        return False
    repo = Repository(ws.root, own_env=True)
    try:
        name = repo.run("config", "--get", CONFIG_KEY, check=False).strip()
        commit = repo.commit_of(name) if name else None
        files = repo.tree(commit) if commit else {}
        wanted = {part: files.get(f"{variant}.{part}") for part in (*DATA_PARTS, "meta.json")}
        if any(v is None or v[0] != "100644" for v in wanted.values()):
            return False
        blobs = repo.blobs([v[1] for v in wanted.values() if v], limit=LIMIT, what="rows")
        parts = {p: blobs[v[1]].data for p, v in wanted.items() if v and v[1] in blobs}
        meta = boundedjson.loads(parts.pop("meta.json") or b"null")
        if not isinstance(meta, dict) or meta.get("key") != rows_key(ws, variant, cone=False):
            return False  # made by another toolkit or for another scope configuration
        head = meta.get("head")
        if isinstance(head, str) and COMMIT_ID.match(head) and not repo.commit_of(head):
            return False  # of a commit this clone does not have (yet)
        data = {p: v for p, v in parts.items() if v is not None}
        stored = (
            parts_stored(meta, data, SEPARATORS[variant])
            if len(data) == len(DATA_PARTS)
            else "a part could not be read"
        )
    except ValueError as exc:
        stored = f"meta.json is not JSON ({exc})"
    except ExobrainError:  # git could not read the branch
        return False
    finally:
        repo.close()
    if isinstance(stored, str):
        damaged(CATALOG, f"the catalog published on {name} ({variant})", stored)
        return False
    store.keep(data, {**meta, "key": store.key, "fresh": sorted(units)})
    return True


def _cone_units(ws: Workspace) -> set[str] | None:
    """The units the cone holds any of (rows read from the commit alone may differ there);
    None when the cone holds a whole collection."""
    names = ws.config.folders
    found: set[str] = set()
    for folder in ws.sparse.checkout().cone or ():
        unit = unit_of(folder, names)
        if unit is None and folder.partition("/")[0] in names:
            return None
        if unit is not None and unit != SEED:
            found.add(unit)
    return found
