"""Ownership records: per folder, per exobrain, written only when they change."""

import json

from exobrain.util import ownership


def test_a_missing_record_is_not_found_and_then_written(tmp_path):
    records, folder = tmp_path / "records", tmp_path / "skills"
    owned = ownership.load(records, folder)
    assert not owned.found and owned.mine(ownership.LINKS, tmp_path / "repo") == {}
    ownership.record(records, folder, ownership.LINKS, tmp_path / "repo", {"tidy": "../x"})
    again = ownership.load(records, folder)
    assert again.found and again.mine(ownership.LINKS, tmp_path / "repo") == {"tidy": "../x"}


def test_entries_of_other_exobrains_are_kept(tmp_path):
    records, folder = tmp_path / "records", tmp_path / "skills"
    one, two = tmp_path / "one", tmp_path / "two"
    ownership.record(records, folder, ownership.LINKS, one, {"a": "1"})
    ownership.record(records, folder, ownership.LINKS, two, {"b": "2"})
    ownership.record(records, folder, ownership.LINKS, one, {})
    owned = ownership.load(records, folder)
    assert owned.mine(ownership.LINKS, one) == {} and owned.mine(ownership.LINKS, two) == {"b": "2"}


def test_an_unchanged_record_is_not_rewritten(tmp_path):
    records, folder = tmp_path / "records", tmp_path / "skills"
    ownership.record(records, folder, ownership.INSTALLS, tmp_path, {"pdf.anthropic": ""})
    path = ownership.record_path(records, folder)
    stamp = path.stat().st_mtime_ns, sorted(p.name for p in records.iterdir())
    ownership.record(records, folder, ownership.INSTALLS, tmp_path, {"pdf.anthropic": ""})
    assert (path.stat().st_mtime_ns, sorted(p.name for p in records.iterdir())) == stamp


def test_a_broken_or_foreign_record_owns_nothing(tmp_path):
    records, folder = tmp_path / "records", tmp_path / "skills"
    path = ownership.record_path(records, folder)
    records.mkdir()
    path.write_text("{not json")
    owned = ownership.load(records, folder)
    assert owned.found and owned.mine(ownership.LINKS, tmp_path) == {}  # no adoption either
    path.write_text(json.dumps({"tool": "exobrain-skills", "folder": "/elsewhere", "links": {}}))
    assert ownership.load(records, folder).mine(ownership.LINKS, tmp_path) == {}
