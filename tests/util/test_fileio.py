"""The file layer: regular files only, size caps, writes confined to their root, locks and
ledgers never followed."""

import os
import socket
import threading

import pytest

from exobrain.errors import InputFileError
from exobrain.util.confine import UnsafePath
from exobrain.util.fileio import atomic_write_text, make_folders, read_bytes, read_text, size_text
from exobrain.util.locking import exclusive, lock_fd


def test_a_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "skills.json"
    os.mkfifo(fifo)
    done = []
    reader = threading.Thread(target=lambda: done.append(_error(read_text, fifo)), daemon=True)
    reader.start()
    reader.join(5)
    assert done == [f"{fifo}: is a FIFO, not a regular file"]


def _error(function, *args, **kw):
    try:
        function(*args, **kw)
    except InputFileError as exc:
        return exc.message
    return None


def test_folders_sockets_and_missing_files_are_named(tmp_path):
    assert _error(read_text, tmp_path) == f"{tmp_path}: is a folder, expected a file"
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        assert _error(read_bytes, sock_path) == f"{sock_path}: is a socket, not a regular file"
    assert "cannot read (No such file or directory)" in _error(read_text, tmp_path / "gone")


def test_the_cap_is_checked_before_reading(tmp_path):
    path = tmp_path / "big.md"
    with open(path, "wb") as handle:
        handle.truncate(3 << 20)
    message = _error(read_text, path, limit=1 << 20, what="a SKILL.md")
    assert message == f"{path}: 3 MB, over the 1 MB cap for a SKILL.md"
    assert read_bytes(path, limit=4 << 20) == bytes(3 << 20)
    assert size_text(512) == "512 bytes" and size_text(1536) == "1.5 KB"


def test_writes_stay_inside_the_root(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / "away")
    with pytest.raises(UnsafePath, match="away is a symbolic link to"):
        atomic_write_text(root / "away/file", "x", root=root)
    with pytest.raises(UnsafePath):
        make_folders(root, root / "away/deeper")
    assert list(outside.iterdir()) == []
    atomic_write_text(root / "new/deeper/file", "x", root=root)
    assert (root / "new/deeper/file").read_text() == "x"


def test_a_file_link_staying_inside_is_written_through(tmp_path):
    root = tmp_path / "repo"
    (root / "real").mkdir(parents=True)
    (root / "real/settings.json").write_text("old")
    os.symlink("real/settings.json", root / "settings.json")
    atomic_write_text(root / "settings.json", "new", root=root)
    assert (root / "settings.json").is_symlink()
    assert (root / "real/settings.json").read_text() == "new"
    os.symlink(tmp_path / "victim", root / "leaving.json")
    with pytest.raises(UnsafePath, match="leaving.json is a symbolic link to"):
        atomic_write_text(root / "leaving.json", "x", root=root)
    assert not (tmp_path / "victim").exists()


def test_lock_files_are_never_followed(tmp_path):
    victim = tmp_path / "victim"
    os.symlink(victim, tmp_path / "skills.json.flock")
    with pytest.raises(UnsafePath, match=r"skills.json.flock: is a symbolic link \(→ .*victim\)"):
        with exclusive(tmp_path / "skills.json", root=tmp_path):
            pass
    assert not victim.exists()
    fifo = tmp_path / "ledger.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePath, match="is a FIFO"):
        lock_fd(fifo, os.O_WRONLY | os.O_APPEND, 1, "the ledger", root=tmp_path)
