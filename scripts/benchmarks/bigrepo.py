"""Big synthetic exobrains written straight into git: ``git fast-import``, no work tree.

Writing 1.2 million files to disk, then ``git add`` and ``git commit``, takes most of an hour
and twice the disk; streaming the same content (:func:`benchmarks.synthetic.exobrain_files`)
into ``git fast-import`` makes a 300,000-scope repository in minutes. The result is a bare
repository with one commit on ``main``, ready to be cloned (``file://`` with
``uploadpack.allowFilter`` set, so partial clones work).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from benchmarks.synthetic import GIT_IDENTITY, Shape, exobrain_files, git_env

#: fast-import's commit header: the fixed identity and date of every synthetic commit.
_WHO = f"{GIT_IDENTITY['GIT_AUTHOR_NAME']} <{GIT_IDENTITY['GIT_AUTHOR_EMAIL']}> 1767225600 +0000"
_CHUNK = 1 << 20


def _data(payload: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(payload), payload)


def import_exobrain(bare: Path, shape: Shape, *, message: str = "synthetic exobrain") -> float:
    """Create the bare repository ``bare`` (which must not exist) holding the synthetic
    exobrain of ``shape`` as one commit on ``main``; the seconds it took."""
    start = time.perf_counter()
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    for key, value in (
        ("uploadpack.allowFilter", "true"),
        ("uploadpack.allowAnySHA1InWant", "true"),
    ):
        subprocess.run(["git", "config", key, value], cwd=bare, check=True)
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"],
        cwd=bare,
        env=git_env(),
        stdin=subprocess.PIPE,
    )
    assert proc.stdin is not None
    header = b"commit refs/heads/main\nauthor %s\ncommitter %s\n" % (
        _WHO.encode(),
        _WHO.encode(),
    )
    buffer = [header + _data(message.encode())]
    size = 0
    for path, text in exobrain_files(shape):
        payload = text.encode("utf-8")
        item = b"M 100644 inline %s\n%s" % (path.encode(), _data(payload))
        buffer.append(item)
        size += len(item)
        if size >= _CHUNK:
            proc.stdin.write(b"".join(buffer))
            buffer, size = [], 0
    buffer.append(b"\ndone\n")
    proc.stdin.write(b"".join(buffer))
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit(f"git fast-import failed for {bare}")
    return time.perf_counter() - start
