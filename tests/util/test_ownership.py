"""Ownership records: per folder and per exobrain, written only when they change."""

import json

from exobrain.util import ownership


def test_an_exobrain_that_never_recorded_owns_none_yet_then_what_it_records(tmp_path):
    records, folder, repo = tmp_path / "records", tmp_path / "skills", tmp_path / "repo"
    assert ownership.load(records, folder).mine(ownership.LINKS, repo) is None
    ownership.record(records, folder, ownership.LINKS, repo, {"tidy": "../x"})
    owned = ownership.load(records, folder)
    assert owned.mine(ownership.LINKS, repo) == {"tidy": "../x"}
    assert owned.mine(ownership.INSTALLS, repo) is None  # the fetcher has not said yet
    ownership.record(records, folder, ownership.LINKS, repo, {})
    assert ownership.load(records, folder).mine(ownership.LINKS, repo) == {}


def test_each_exobrain_keeps_its_own_entries(tmp_path):
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


def test_a_broken_or_foreign_record_is_read_as_empty(tmp_path):
    records, folder = tmp_path / "records", tmp_path / "skills"
    path = ownership.record_path(records, folder)
    records.mkdir()
    path.write_text("{not json")
    assert ownership.load(records, folder).mine(ownership.LINKS, tmp_path) is None
    claim = {"tool": "exobrain-skills", "folder": "/elsewhere", "links": {str(tmp_path): {}}}
    path.write_text(json.dumps(claim))
    assert ownership.load(records, folder).mine(ownership.LINKS, tmp_path) is None
