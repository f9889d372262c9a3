import pytest

from exobrain.errors import UsageError
from exobrain.refs import canonical, parse_ref
from exobrain.workspace import find_declaration, open_workspace
from tests.support.helpers import exobrain

SRC = {"repo": "https://example.com/x.git", "path": "s", "ref": "main"}


def repo(tmp_path, connection=None):
    return exobrain(
        tmp_path / "x",
        scopes=["groups/a", "groups/b", "people/al"],
        registries={
            "global": [
                {"name": "t", "owner": "o", "tier": "optional"},
                {"name": "ext", "owner": "ant", "tier": "optional", "source": SRC},
            ],
            "groups/a": [
                {"name": "t", "owner": "o", "tier": "optional"},
                {"name": "u", "owner": "o", "tier": "optional"},
            ],
            "groups/b": [
                {"name": "u", "owner": "o", "tier": "optional"},
                {"name": "only", "owner": "o", "tier": "optional"},
            ],
        },
        connection=connection,
    )


def test_parse_and_render():
    assert str(parse_ref("skill:tidy@groups/acme")) == "skill:tidy@groups/acme"
    assert parse_ref("tidy").home is None
    for bad in ("skill:Bad", "skill:x@../y", "skill:x@a__b", ""):
        with pytest.raises(UsageError):
            parse_ref(bad)


def test_nearest_in_chain_explicit_home_unique_and_ambiguous(tmp_path):
    ws = open_workspace(repo(tmp_path, {"connected_scopes": ["groups/a"]}))
    assert canonical(find_declaration(ws, parse_ref("t"))) == "skill:t@groups/a"
    assert canonical(find_declaration(ws, parse_ref("t@global"))) == "skill:t@global"
    assert canonical(find_declaration(ws, parse_ref("only"))) == "skill:only@groups/b"
    assert (
        canonical(find_declaration(ws, parse_ref("ext@external/ant"))) == "skill:ext@external/ant"
    )
    guest = open_workspace(repo(tmp_path / "g"))
    with pytest.raises(UsageError, match="several scopes"):
        find_declaration(guest, parse_ref("u"))
    with pytest.raises(UsageError, match="no skill named"):
        find_declaration(guest, parse_ref("nope"))
