"""This machine's trust in executables: exact content, by real path, outside the repository."""

import json

import pytest

from exobrain.connect import trust
from exobrain.errors import InputFileError, UsageError


def script(tmp_path, text="#!/bin/sh\necho hi\n"):
    path = tmp_path / "repo/groups/acme/scripts/connect-agent"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_trust_is_for_exact_content_at_a_real_path(tmp_path, isolated_home):
    path = script(tmp_path)
    assert trust.state_of(path, trust.load_trust()) == trust.NEW
    [(_, digest, before)] = trust.trust([path])
    assert before == trust.NEW and trust.is_trusted(path, digest)
    assert trust.trust_file() == isolated_home / ".config/exobrain/trust.json"
    assert trust.state_of(path, trust.load_trust()) == trust.TRUSTED
    link = tmp_path / "link"
    link.symlink_to(path)
    assert trust.state_of(link, trust.load_trust()) == trust.TRUSTED  # its target is trusted
    path.write_text("#!/bin/sh\necho other\n")
    assert trust.state_of(path, trust.load_trust()) == trust.CHANGED
    assert not trust.is_trusted(path, digest)
    assert trust.untrust([path]) == [(path, True)]
    assert trust.load_trust() == {}


def test_only_regular_files_can_be_trusted(tmp_path):
    with pytest.raises(UsageError, match="not a readable regular file"):
        trust.trust([tmp_path])
    assert trust.state_of(tmp_path / "gone", {}) == trust.MISSING


@pytest.mark.parametrize(
    "text", ["[]", '{"version": 2, "files": {}}', '{"version": 1, "files": {"x": 1}}']
)
def test_a_trust_file_of_another_shape_is_refused_never_rewritten(tmp_path, isolated_home, text):
    store = isolated_home / ".config/exobrain/trust.json"
    store.parent.mkdir(parents=True)
    store.write_text(text)
    with pytest.raises(InputFileError, match="trust.json"):
        trust.load_trust()
    with pytest.raises(InputFileError):
        trust.trust([script(tmp_path)])
    assert store.read_text() == text
    warnings: list[str] = []
    assert trust.load_trust_or_warn(warnings) == {} and "nothing is trusted" in warnings[0]


def test_the_trust_file_is_versioned_json(tmp_path, isolated_home):
    trust.trust([script(tmp_path)])
    data = json.loads(trust.trust_file().read_text())
    assert data["version"] == 1 and list(data["files"]) == [
        str((tmp_path / "repo/groups/acme/scripts/connect-agent").resolve())
    ]
