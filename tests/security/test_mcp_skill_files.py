"""The MCP Skills extension against a skill folder that is not what it seems (issue 40): a
folder that is a link leading outside the repository is served by no method (skills-validate
calls it an error; the server refuses it the same way), and a skill over the extension's
16 MB limit is refused from the sizes the walk saw, before any file of it is hashed — a
286 MB file is never read to be counted. Each test drives the real server process over its
stdin and stdout, as an agent does."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from exobrain.cli.validate import main as validate
from tests.security.test_mcp_protocol import Server
from tests.support.helpers import build_tree, skill_md

#: A file far over the extension's 16 MB per skill (sparse: it takes no room on the disk).
HUGE = 286 << 20
#: The server, with every file over 16 MB hashed for an entry of the skills extension noted on
#: its log (the search index hashes a skill folder once per change for its rows: not counted).
COUNTED = """
import os, sys, traceback
from exobrain.util import dirhash
from exobrain.mcp.__main__ import main

hash_file = dirhash.sized_digest

def counted(path, blob=None):
    entries = [f for f in traceback.extract_stack() if f.filename.endswith("mcp/skills.py")]
    if os.path.getsize(path) > 16 << 20 and any(f.name == "entry" for f in entries):
        print(f"hashed a big file for the skills extension: {path}", file=sys.stderr)
    return hash_file(path, blob)

dirhash.sized_digest = counted
main(sys.argv[1:])
"""


def declare(root, name: str) -> None:
    registry = root / "skills.json"
    data = json.loads(registry.read_text())
    data["skills"].append({"name": name, "owner": "team", "tier": "optional", "force": True})
    registry.write_text(json.dumps(data))


@pytest.fixture
def linked(sandbox):
    """``skills/far`` is a link to a skill folder outside the repository (with a file
    nobody meant to share beside its SKILL.md)."""
    outside = sandbox.scratch / "far"
    build_tree(
        outside,
        {"SKILL.md": skill_md("far", "Use far to reach far."), "secret.txt": "not for agents\n"},
    )
    (sandbox.root / "skills/far").symlink_to(outside, target_is_directory=True)
    declare(sandbox.root, "far")
    return sandbox


def test_validate_calls_a_skill_folder_linked_outside_an_error(linked):
    done = CliRunner().invoke(validate, ["--repo", str(linked.root)])
    assert done.exit_code != 0
    assert "skills/far" in done.output and "outside the repository" in done.output


def test_a_skill_folder_linked_outside_the_repository_is_served_by_no_method(linked):
    server = Server(linked.root)
    listed = server.request("skills/list", {})["result"]["skills"]
    got = server.request("skills/get", {"uri": "skill://global/far/SKILL.md"})
    secret = server.request("resources/read", {"uri": "skill://global/far/secret.txt"})
    skill = server.request("resources/read", {"uri": "skill://global/far/SKILL.md"})
    log = server.close()
    assert "far" not in {e["frontmatter"]["name"] for e in listed}
    assert {e["frontmatter"]["name"] for e in listed} >= {"hello", "world"}
    for answer in (got, secret, skill):
        assert answer["error"]["code"] == -32602, answer
        assert "not for agents" not in json.dumps(answer)
    assert "outside the repository" in got["error"]["message"]
    assert "warning: skill left out: skills/far" in log and "outside the repository" in log


def test_a_skill_over_the_size_limit_is_refused_before_it_is_hashed(sandbox):
    folder = sandbox.root / "skills/heavy"
    build_tree(folder, {"SKILL.md": skill_md("heavy", "Use heavy for weights.")})
    with open(folder / "weights.bin", "wb") as handle:
        os.truncate(handle.fileno(), HUGE)
    declare(sandbox.root, "heavy")
    server = Server(sandbox.root, COUNTED)
    listed = server.request("skills/list", {})["result"]["skills"]
    got = server.request("skills/get", {"uri": "skill://global/heavy/SKILL.md"})
    again = server.request("skills/list", {})["result"]["skills"]
    log = server.close()
    assert "heavy" not in {e["frontmatter"]["name"] for e in listed + again}
    assert got["error"]["code"] == -32602
    assert "over the skills extension's limits" in got["error"]["message"]
    assert "hashed a big file" not in log  # refused from the walk's sizes, never read
