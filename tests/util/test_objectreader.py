"""The persistent ``git cat-file --batch`` reader: whole batches, and objects handed over one
at a time while git reads the next."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from exobrain.util import git as git_module
from exobrain.util.git import Git, GitFailed, ObjectReader
from exobrain.util.repository import Repository
from tests.support.helpers import git

#: Enough names that the request is fed by a thread (more than one pipe buffer).
MANY = 3000


def _blobs(root: Path, count: int) -> list[str]:
    """Write ``count`` blobs ``blob <i>`` (one with 4 KB of text every 100) and return ids."""
    git(root, "init", "-q")
    ids = []
    for start in range(0, count, 500):
        paths = []
        for i in range(start, min(count, start + 500)):
            path = root / f"b{i}"
            path.write_text(f"blob {i}\n" + ("x" * 4096 if i % 100 == 0 else ""))
            paths.append(str(path))
        ids += git(root, "hash-object", "-w", *paths).split()
    return ids


def test_a_stream_hands_over_what_a_read_returns_in_the_order_asked(tmp_path):
    ids = _blobs(tmp_path, 5)
    missing = "0" * 40
    with ObjectReader(tmp_path, Git()) as reader:
        streamed = list(reader.stream([ids[3], missing, ids[0], ids[3]], limit=100))
        assert [name for name, _ in streamed] == [ids[3], ids[0]]  # duplicates asked once
        assert streamed[1][1].data is None  # over the limit: no data, still named
        assert streamed[0][1].data == b"blob 3\n" and streamed[0][1].kind == "blob"
        assert dict(streamed).keys() == reader.read([ids[3], missing, ids[0]], limit=100).keys()


@pytest.mark.parametrize("count", [4, MANY])
def test_a_caller_that_stops_early_leaves_no_answer_behind(tmp_path, count):
    ids = _blobs(tmp_path, count)
    seen: list[object] = []

    def scenario() -> None:
        with ObjectReader(tmp_path, Git()) as reader:
            stream = reader.stream(ids)
            seen.append(next(stream)[1].data)
            stream.close()  # the rest of git's answer is never read as a later one
            again = reader.read([ids[-1], ids[1]])
            seen.append([o.data for o in again.values()])
            seen.append(len(reader.read(ids)))  # a big batch after it is whole

    # a reader that kept git's unread answer would block (a full pipe) or mix answers up:
    # the scenario runs in a thread so that a regression fails here instead of hanging
    worker = threading.Thread(target=scenario, daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the reader blocked after a caller stopped early"
    assert seen == [
        b"blob 0\n" + b"x" * 4096,
        [f"blob {count - 1}\n".encode(), b"blob 1\n"],
        count,
    ]


def test_the_repository_stream_names_what_it_could_not_read_once_done(tmp_path):
    ids = _blobs(tmp_path, 3)
    missing = "1" * 40
    repo = Repository(tmp_path)
    try:
        stream = repo.stream_blobs([ids[0], missing, ids[2]])
        assert next(stream)[0] == ids[0] and not repo.unread  # known only at the end
        assert [oid for oid, _ in stream] == [ids[2]]
        assert repo.unread == {missing: "not in the repository"}
    finally:
        repo.close()


def test_the_time_limit_is_per_answer_so_a_slow_caller_is_never_cut_off(tmp_path):
    ids = _blobs(tmp_path, 3)
    with ObjectReader(tmp_path, Git(timeout=1.0)) as reader:
        taken = []
        for _, obj in reader.stream(ids):
            time.sleep(0.6)  # 1.8 s in all, over the limit: the caller's time does not count
            taken.append(obj.data)
        assert taken == [b"blob 0\n" + b"x" * 4096, b"blob 1\n", b"blob 2\n"]


def test_a_git_that_stops_answering_is_killed_at_the_time_limit(tmp_path, monkeypatch):
    ids = _blobs(tmp_path, 2)
    monkeypatch.setattr(git_module, "_feed", lambda proc, payload: None)  # git waits for names
    with ObjectReader(tmp_path, Git(timeout=1.0)) as reader:
        started = time.monotonic()
        with pytest.raises(GitFailed, match="timed out after 1s"):
            reader.read(ids)
        assert time.monotonic() - started < 10
