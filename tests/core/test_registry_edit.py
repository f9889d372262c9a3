import json
import os
import threading
import time

import pytest

from exobrain.errors import InputFileError, OperationFailed, UsageError
from exobrain.registry.editor import edit_registry, ordered_entry, with_key, without_key
from exobrain.util.jsonfile import update_json_file
from exobrain.util.locking import exclusive as file_lock
from tests.support.helpers import exobrain

OVERRIDE = {"name": "tidy", "from": "groups/acme", "tier": "always"}


def repo(tmp_path, registries=None):
    return exobrain(
        tmp_path / "x",
        registries=registries or {},
        scopes=["groups/acme", "people/alice", "people/alice/hosts/laptop"],
        commit=False,
    )


@pytest.mark.parametrize(
    "scope, schema",
    [
        ("global", "skills.schema.json"),
        ("groups/acme", "../../skills.schema.json"),
        ("people/alice/hosts/laptop", "../../../../skills.schema.json"),
    ],
)
def test_new_file_gets_house_style_and_relative_schema(tmp_path, scope, schema):
    root = repo(tmp_path)
    (root / "skills.json").unlink()  # no registry anywhere yet
    with edit_registry(root, scope) as edit:
        assert edit.entries == [] and edit.original is None
        edit.upsert(
            {"tier": "always", "from": "groups/acme", "name": "tidy"},
            name="tidy",
            **{"from": "groups/acme"},
        )
    path = (root if scope == "global" else root / scope) / "skills.json"
    assert edit.written and path.read_text() == (
        '{\n  "$schema": "' + schema + '",\n  "skills": [\n'
        '    { "name": "tidy", "from": "groups/acme", "tier": "always" }\n  ]\n}\n'
    )
    assert not path.with_name("skills.json.flock").exists()


def test_no_entries_no_new_file_and_no_write_when_unchanged(tmp_path):
    root = repo(tmp_path, {"people/alice": [OVERRIDE]})
    with edit_registry(root, "groups/acme") as edit:
        pass
    assert not (root / "groups/acme/skills.json").exists() and not edit.written
    path = root / "people/alice/skills.json"
    os.utime(path, ns=(1, 1))
    with edit_registry(root, "people/alice") as edit:
        before, after = edit.upsert(dict(OVERRIDE), **{"name": "tidy", "from": "groups/acme"})
    assert before == after == OVERRIDE and not edit.changed and not edit.written
    assert path.stat().st_mtime_ns == 1


def test_upsert_updates_in_place_keeping_other_keys_and_order(tmp_path):
    entry = {
        "name": "tidy",
        "notes": "mine",
        "from": "groups/acme",
        "tier": "optional",
        "agent": "claude",
    }
    root = repo(
        tmp_path, {"people/alice": [{"name": "a", "owner": "alice", "tier": "always"}, entry]}
    )
    with edit_registry(root, "people/alice") as edit:
        before, after = edit.upsert(OVERRIDE, name="tidy", **{"from": "groups/acme"})
    assert before == entry and list(after.items()) == [
        ("name", "tidy"),
        ("notes", "mine"),
        ("from", "groups/acme"),
        ("tier", "always"),
        ("agent", "claude"),
    ]
    assert json.loads((root / "people/alice/skills.json").read_text())["skills"][1] == after


def test_key_order_helpers():
    assert list(ordered_entry({"tier": "off", "owner": "o", "from": "external", "name": "n"})) == [
        "name",
        "from",
        "owner",
        "tier",
    ]
    assert list(
        with_key({"name": "n", "owner": "o", "tier": "always", "notes": "x"}, "force", True)
    ) == ["name", "owner", "tier", "force", "notes"]
    assert without_key({"name": "n", "force": True}, "force") == {"name": "n"}


@pytest.mark.parametrize(
    "text, reason",
    [
        ('{"skills": [', "invalid JSON"),
        ("", "empty file"),
        ('{"skills": [{"name": "tidy", "tier": "always"}]}', "needs an owner"),
        ('{"skills": [], "extra": 1}', "unknown top-level key(s) extra"),
        ('{"skills": {}}', '"skills" list'),
        (b'{"skills": [], "$schema": "\xff"}', "not UTF-8"),
    ],
)
def test_refuses_a_broken_file_and_leaves_it_untouched(tmp_path, text, reason):
    root = repo(tmp_path)
    path = root / "groups/acme/skills.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    ran = []
    with pytest.raises(InputFileError) as err, edit_registry(root, "groups/acme") as edit:
        ran.append(edit)
    assert not ran and reason in str(err.value) and "groups/acme/skills.json" in str(err.value)
    assert "nothing was changed" in str(err.value) or "not UTF-8" in str(err.value)
    assert path.read_bytes() == (text if isinstance(text, bytes) else text.encode())
    assert sorted(p.name for p in path.parent.iterdir()) == ["AGENTS.md", "skills.json"]


def test_result_that_breaks_the_schema_is_not_written(tmp_path):
    root = repo(tmp_path, {"people/alice": [OVERRIDE]})
    path = root / "people/alice/skills.json"
    original = path.read_bytes()
    with pytest.raises(
        UsageError, match=r"people/alice/skills.json:\d+ #1 x: .*nothing was written"
    ):
        with edit_registry(root, "people/alice") as edit:
            edit.entries.append({"name": "x", "from": "global", "tier": "always", "force": True})
    assert path.read_bytes() == original


def test_exception_in_the_block_writes_nothing(tmp_path):
    root = repo(tmp_path, {"people/alice": [OVERRIDE]})
    path = root / "people/alice/skills.json"
    original = path.read_bytes()
    with pytest.raises(RuntimeError), edit_registry(root, "people/alice") as edit:
        edit.remove(name="tidy")
        raise RuntimeError("boom")
    assert path.read_bytes() == original and not (path.parent / "skills.json.flock").exists()


def test_missing_file_with_create_false(tmp_path):
    root = repo(tmp_path)
    with pytest.raises(UsageError, match="groups/acme/skills.json does not exist"):
        with edit_registry(root, "groups/acme", create=False):
            pass


def test_dry_run_renders_but_writes_and_locks_nothing(tmp_path):
    root = repo(tmp_path, {"people/alice": []})
    path = root / "people/alice/skills.json"
    original = path.read_bytes()
    with file_lock(path, timeout=1, root=root):  # a dry run does not wait for writers
        with edit_registry(root, "people/alice", dry_run=True) as edit:
            edit.entries.append(OVERRIDE)
    assert edit.changed and not edit.written and '"tidy"' in edit.text
    assert path.read_bytes() == original


def test_lock_timeout_names_the_file_and_writes_nothing(tmp_path):
    root = repo(tmp_path, {"people/alice": []})
    path = root / "people/alice/skills.json"
    original = path.read_bytes()
    with file_lock(path, root=root):
        started = time.monotonic()
        with pytest.raises(
            OperationFailed,
            match=r"people/alice/skills.json: another process "
            r"kept skills.json.flock locked for over 0.2s",
        ):
            with edit_registry(root, "people/alice", timeout=0.2) as edit:
                edit.entries.append(OVERRIDE)
        assert time.monotonic() - started >= 0.2
    assert path.read_bytes() == original


def test_waiting_writer_gets_the_lock_when_it_is_released(tmp_path):
    root = repo(tmp_path, {"people/alice": []})
    path = root / "people/alice/skills.json"
    release = threading.Event()

    def hold():
        with file_lock(path, root=root):
            held.set()
            release.wait(5)

    held = threading.Event()
    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    threading.Timer(0.1, release.set).start()
    with edit_registry(root, "people/alice", timeout=5) as edit:
        edit.entries.append(OVERRIDE)
    holder.join()
    assert json.loads(path.read_text())["skills"] == [OVERRIDE]


def test_stale_lock_file_and_orphan_temp_files_are_handled(tmp_path):
    root = repo(tmp_path, {"groups/acme": []})
    folder = root / "groups/acme"
    (folder / "skills.json.flock").write_text("")  # a writer died holding it
    (folder / ".skills.json.k1d2.tmp").write_text("half")  # and left its temp file
    (folder / ".other.json.k1d2.tmp").write_text("not ours to judge")
    with edit_registry(root, "groups/acme", timeout=1) as edit:
        edit.entries.append(OVERRIDE)
    assert sorted(p.name for p in folder.iterdir()) == [
        ".other.json.k1d2.tmp",
        "AGENTS.md",
        "skills.json",
    ]


def test_failed_rename_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    root = repo(tmp_path, {"groups/acme": []})
    path = root / "groups/acme/skills.json"
    original = path.read_bytes()

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OperationFailed, match="groups/acme/skills.json: cannot write .*unchanged"):
        with edit_registry(root, "groups/acme") as edit:
            edit.entries.append(OVERRIDE)
    assert path.read_bytes() == original
    assert sorted(p.name for p in path.parent.iterdir()) == ["AGENTS.md", "skills.json"]


def test_symlinked_registry_stays_a_symlink(tmp_path):
    root = repo(tmp_path, {"groups/acme": []})
    link = root / "people/alice/skills.json"
    link.symlink_to("../../groups/acme/skills.json")
    with edit_registry(root, "people/alice") as edit:
        edit.entries.append(OVERRIDE)
    assert link.is_symlink()
    assert json.loads((root / "groups/acme/skills.json").read_text())["skills"] == [OVERRIDE]


def test_update_json_file_generic(tmp_path):
    path = tmp_path / "skills.lock.json"
    with update_json_file(path, root=tmp_path, default=dict) as doc:
        doc.data["tidy"] = {"version": "1.0.0"}
    assert doc.written and path.read_text() == '{\n  "tidy": {\n    "version": "1.0.0"\n  }\n}\n'
    path.write_text('{\n    "tidy": {"version": "1.0.0"}\n}')
    with update_json_file(path, root=tmp_path) as doc:
        doc.data["tidy"]["version"] = "1.1.0"
    assert path.read_text() == '{\n    "tidy": {\n        "version": "1.1.0"\n    }\n}'

    def check(data):
        if not isinstance(data, dict):
            raise InputFileError(f"{path}: expected an object")

    path.write_text("[1]\n")
    with pytest.raises(InputFileError, match="expected an object"):
        with update_json_file(path, root=tmp_path, check=check):
            pass
    assert path.read_text() == "[1]\n"
    with pytest.raises(InputFileError, match="no such file"):
        with update_json_file(tmp_path / "missing.json", root=tmp_path):
            pass
    with update_json_file(path, root=tmp_path, dry_run=True) as doc:
        doc.data.append(2)
    assert doc.changed and not doc.written and path.read_text() == "[1]\n"
