"""Big synthetic exobrains written straight into git: ``git fast-import``, no work tree.

Writing 1.2 million files to disk, then ``git add`` and ``git commit``, takes most of an hour
and twice the disk; streaming the same content (:func:`benchmarks.synthetic.exobrain_files`)
into ``git fast-import`` makes a 300,000-scope repository in minutes. The result is a bare
repository with one commit on ``main``, ready to be cloned (``file://``, with
``uploadpack.allowFilter`` set so partial clones work).

fast-import finds a path's folder entry by walking the folder's entries one by one, so a
single commit putting 100,000 people under ``people/`` costs time quadratic in the people.
The people therefore go in as commits of :data:`CHUNK` people each, every one rooted at the
``people/`` folder itself (``deleteall`` between them); the ``people`` tree is then made from
all their entries with one ``git mktree``, and the commit with ``git commit-tree`` — every
step linear in the size of the repository.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from benchmarks.synthetic import GIT_IDENTITY, Shape, exobrain_files, git_env
from exobrain.util.gitobjects import parse_tree

#: Fixed identity and date of every synthetic commit (the same input gives the same ids).
_WHO = f"{GIT_IDENTITY['GIT_AUTHOR_NAME']} <{GIT_IDENTITY['GIT_AUTHOR_EMAIL']}> 1767225600 +0000"
_FLUSH = 1 << 20
#: People per fast-import commit (their folders share one root folder of this many entries).
CHUNK = 250
_PEOPLE = "people/"
_STAGING = "refs/import/people"


def _data(payload: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(payload), payload)


def _commit(ref: str, message: str) -> bytes:
    who = _WHO.encode()
    return b"commit %s\nauthor %s\ncommitter %s\n%s" % (
        ref.encode(),
        who,
        who,
        _data(message.encode()),
    )


def _file(path: str, text: str) -> bytes:
    return b"M 100644 inline %s\n%s" % (path.encode(), _data(text.encode("utf-8")))


def _git(bare: Path, *args: str, stdin: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", *args], cwd=bare, env=git_env(), input=stdin, capture_output=True, check=True
    )
    return done.stdout


def import_exobrain(bare: Path, shape: Shape, *, message: str = "synthetic exobrain") -> float:
    """Create the bare repository ``bare`` (which must not exist) holding the synthetic
    exobrain of ``shape`` as one commit on ``main``; the seconds it took."""
    start = time.perf_counter()
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
        _git(bare, "config", key, "true")
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"], cwd=bare, env=git_env(), stdin=subprocess.PIPE
    )
    assert proc.stdin is not None
    rest: list[bytes] = []  # everything outside people/, committed last on main
    buffer: list[bytes] = []
    size, people, chunk_people = 0, None, 0
    for path, text in exobrain_files(shape):
        if not path.startswith(_PEOPLE):
            rest.append(_file(path, text))
            continue
        person = path[len(_PEOPLE) :].partition("/")[0]
        if person != people:
            people = person
            if chunk_people % CHUNK == 0:
                buffer.append(_commit(_STAGING, "people") + b"deleteall\n")
            chunk_people += 1
        item = _file(path[len(_PEOPLE) :], text)
        buffer.append(item)
        size += len(item)
        if size >= _FLUSH:
            proc.stdin.write(b"".join(buffer))
            buffer, size = [], 0
    buffer.append(_commit("refs/heads/main", message))
    buffer.extend(rest)
    buffer.append(b"\ndone\n")
    proc.stdin.write(b"".join(buffer))
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit(f"git fast-import failed for {bare}")
    if chunk_people:
        _graft_people(bare, message)
    return time.perf_counter() - start


def _graft_people(bare: Path, message: str) -> None:
    """Put the staged people under ``people/`` in main's one commit (see the module)."""
    trees = _git(bare, "log", "--format=%T", _STAGING).decode().split()
    out = _git(bare, "cat-file", "--batch", stdin="".join(t + "\n" for t in trees).encode())
    lines: list[str] = []
    pos = 0
    for _ in trees:
        end = out.index(b"\n", pos)
        length = out[pos:end].split()[2]
        data = out[end + 1 : end + 1 + int(length)]
        pos = end + 2 + int(length)
        lines += [f"{e.mode.zfill(6)} tree {e.oid}\t{e.name}" for e in parse_tree(data)]
    people = _git(bare, "mktree", stdin="\n".join(lines).encode() + b"\n").decode().strip()
    root = _git(bare, "ls-tree", "main^{tree}").decode().splitlines()
    root.append(f"040000 tree {people}\tpeople")
    tree = _git(bare, "mktree", stdin="\n".join(root).encode() + b"\n").decode().strip()
    commit = _git(bare, "commit-tree", tree, "-m", message).decode().strip()
    _git(bare, "update-ref", "refs/heads/main", commit)
    _git(bare, "update-ref", "-d", _STAGING)


def commit_change(bare: Path, people: list[str], tag: str) -> None:
    """One more commit on ``main`` that gives each of ``people`` a new skill, declared in
    their ``skills.json`` and written as a SKILL.md: what a pull brings in a busy exobrain."""
    names = "".join(f"main:people/{p}/skills.json\n" for p in people).encode()
    out = _git(bare, "cat-file", "--batch", stdin=names)
    buffer = [_commit("refs/heads/main", f"{len(people)} new skills ({tag})")]
    buffer.append(b"from refs/heads/main^0\n")
    pos = 0
    for person in people:
        end = out.index(b"\n", pos)
        length = int(out[pos:end].split()[2])
        registry = json.loads(out[end + 1 : end + 1 + length])
        pos = end + 2 + length
        name = f"{person}-new-{tag}"
        registry["skills"].append({"name": name, "owner": person, "tier": "optional"})
        skill = f"---\nname: {name}\ndescription: Use when {person} needs {tag}.\n---\n# {name}\n"
        buffer.append(_file(f"people/{person}/skills.json", json.dumps(registry, indent=2)))
        buffer.append(_file(f"people/{person}/skills/{name}/SKILL.md", skill))
    buffer.append(b"\ndone\n")
    _git(bare, "fast-import", "--quiet", "--done", stdin=b"".join(buffer))
