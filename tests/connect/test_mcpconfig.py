"""connect-agent AGENT --mcp: one entry of ours in each agent's MCP configuration, the user's
servers and keys kept."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.connect import main as connect
from exobrain.connect.mcpconfig import PLACES, config_file, is_ours, register, servers_keys
from tests.support.helpers import exobrain

THEIRS = {"command": "npx", "args": ["-y", "@acme/other-server"]}


@pytest.fixture
def root(tmp_path):
    return exobrain(tmp_path / "repo", scopes=["people/al"])


def servers_of(agent: str, data: dict, user: bool, root: Path) -> dict:
    for key in servers_keys(agent, root, user):
        data = data[key]
    return data


def seed_json(agent: str, path: Path, user: bool, root: Path) -> str:
    """The user's own file: another server and another setting, in json.dumps style."""
    data: dict = {"theme": "dark"}
    node = data
    for key in servers_keys(agent, root, user):
        node = node.setdefault(key, {})
    node["other"] = THEIRS
    text = json.dumps(data, indent=2) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return text


@pytest.mark.parametrize("user", [False, True], ids=["project", "user"])
@pytest.mark.parametrize("agent", sorted(a for a in PLACES if a != "codex"))
def test_each_json_agent_gets_exactly_one_entry_and_keeps_the_rest(root, agent, user):
    if agent == "openclaw" and not user:
        pytest.skip("OpenClaw has only its user configuration")
    path, _ = config_file(agent, root, user)
    seed_json(agent, path, user, root)
    first = register(agent, root, user=user)
    assert first.changed and first.path == path
    data = json.loads(path.read_text())
    servers = servers_of(agent, data, user, root)
    assert data["theme"] == "dark" and servers["other"] == THEIRS
    assert list(servers) == ["other", "exobrain"]
    ours = servers["exobrain"]
    assert is_ours(ours)
    words = ours["command"] if agent == "opencode" else [ours["command"], *ours["args"]]
    assert words == [
        sys.executable,
        "-I",
        "-m",
        "exobrain.mcp",
        "--repo",
        str(root),
        "--agent",
        agent,
    ]
    before = path.read_bytes()
    assert not register(agent, root, user=user).changed
    assert path.read_bytes() == before
    # taking our entry out again gives back the user's file byte for byte
    del servers["exobrain"]
    assert json.dumps(data, indent=2) + "\n" == seed_json(agent, path, user, root)


def test_an_entry_of_an_older_toolkit_is_updated_to_the_safe_command(root):
    """Entries written before ``-P`` ran the server with the repository first on the import
    path: they are still ours, and a new run rewrites them."""
    old = {"command": sys.executable, "args": ["-m", "exobrain.mcp", "--repo", str(root)]}
    path = root / ".cursor/mcp.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"mcpServers": {"exobrain": old}}))
    assert register("cursor", root).changed
    entry = json.loads(path.read_text())["mcpServers"]["exobrain"]
    assert entry["args"][:3] == ["-I", "-m", "exobrain.mcp"]


def test_codex_toml_keeps_every_other_byte_and_the_users_additions(root):
    path, _ = config_file("codex", root, False)
    path.parent.mkdir(parents=True)
    head = '# my settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "npx"  # theirs\n'
    tail = '\n[profiles.fast]\nmodel = "mini"\n'
    path.write_text(head + tail)
    assert register("codex", root).changed
    text = path.read_text()
    assert text.startswith(head + tail)
    data = tomllib.loads(text)
    assert data["mcp_servers"]["other"] == {"command": "npx"}
    assert data["mcp_servers"]["exobrain"]["args"][:3] == ["-I", "-m", "exobrain.mcp"]
    # a setting the user added to our table survives an update of the command
    path.write_text(
        text.replace('"--agent", "codex"]', '"--agent", "old"]\nstartup_timeout_sec = 20')
    )
    assert register("codex", root).changed
    again = tomllib.loads(path.read_text())["mcp_servers"]["exobrain"]
    assert again["startup_timeout_sec"] == 20 and again["args"][-1] == "codex"
    assert path.read_text().startswith(head + tail)
    before = path.read_bytes()
    assert not register("codex", root).changed and path.read_bytes() == before


def test_an_entry_we_cannot_edit_safely_is_refused_and_kept(root, tmp_path):
    from exobrain.errors import InputFileError

    path, _ = config_file("codex", root, False)
    path.parent.mkdir(parents=True)
    path.write_text('mcp_servers = { exobrain = { command = "x", args = ["exobrain.mcp"] } }\n')
    with pytest.raises(InputFileError, match="does not change"):
        register("codex", root)
    claw, _ = config_file("openclaw", root, True)
    claw.parent.mkdir(parents=True)
    claw.write_text("{ // JSON5\n  mcp: { servers: {} },\n}\n")
    with pytest.raises(InputFileError) as raised:
        register("openclaw", root, user=True)
    assert "openclaw mcp set exobrain" in str(raised.value)
    assert claw.read_text() == "{ // JSON5\n  mcp: { servers: {} },\n}\n"


def test_a_users_own_exobrain_server_is_kept(root):
    path = root / ".cursor/mcp.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"mcpServers": {"exobrain": THEIRS}}))
    done = register("cursor", root)
    assert done.skipped and not done.changed
    assert json.loads(path.read_text()) == {"mcpServers": {"exobrain": THEIRS}}


def test_connect_agent_mcp_registers_once(root):
    runner = CliRunner()
    first = runner.invoke(connect, ["gemini", "--person", "al", "--mcp", "--repo", str(root)])
    assert first.exit_code == 0, first.output
    assert "+ mcp server   .gemini/settings.json" in first.stdout
    again = runner.invoke(connect, ["gemini", "--relink", "--mcp", "--repo", str(root)])
    assert "✓ mcp server   .gemini/settings.json" in again.stdout
    wrong = runner.invoke(connect, ["agents", "--mcp", "--repo", str(root)])
    assert wrong.exit_code == 2 and "has no MCP configuration" in wrong.stderr


GEMINI_SETTINGS = """{
    // my Gemini settings: comments and trailing commas, as Gemini CLI accepts them
    "theme":   "GitHub",
    /* servers I run, in my order */
    "mcpServers": {
        "other": { "command": "npx", "args": ["-y", "@acme/other-server",], }, // theirs
    },
    "general": {"vimMode": true,},
}
"""


def test_a_gemini_settings_file_with_comments_keeps_every_byte_outside_our_entry(root):
    path, _ = config_file("gemini", root, False)
    path.parent.mkdir(parents=True)
    path.write_text(GEMINI_SETTINGS)
    assert register("gemini", root).changed
    text = path.read_text()
    theirs = (
        '        "other": { "command": "npx", "args": ["-y", "@acme/other-server",], }, // theirs\n'
    )
    at = GEMINI_SETTINGS.index(theirs) + len(theirs)
    assert text.startswith(GEMINI_SETTINGS[:at])  # every byte before our entry
    tail = '    },\n    "general": {"vimMode": true,},\n}\n'
    assert text.endswith(tail) and text[at:].startswith(
        '        "exobrain": {\n            "command": '
    )
    ours = text[at : len(text) - len(tail)]
    assert text.replace(ours, "", 1) == GEMINI_SETTINGS  # taking ours out gives theirs back
    entry = json.loads(ours.strip().removeprefix('"exobrain":').rstrip(","))
    assert entry["args"][:3] == ["-I", "-m", "exobrain.mcp"]
    before = path.read_bytes()
    assert not register("gemini", root).changed and path.read_bytes() == before


def test_an_odd_mcp_file_gets_only_our_entry_replaced(root):
    """Three-space indentation, CRLF, keys in the user's order and an entry of ours from an
    older toolkit: only that entry's value changes."""
    old = f'{{"command": "{sys.executable}", "args": ["-m", "exobrain.mcp"]}}'
    original = (
        '{\r\n   "mcpServers" : {\r\n      "zeta": {"command": "z"},\r\n'
        f'      "exobrain" : {old},\r\n      "alpha": {{"command": "a"}}\r\n   }}\r\n}}'
    )
    path = root / ".cursor/mcp.json"
    path.parent.mkdir()
    path.write_bytes(original.encode())
    assert register("cursor", root).changed
    text = path.read_bytes().decode()
    start = original.index(old)
    assert text[:start] == original[:start]
    assert text.endswith(original[start + len(old) :])
    ours = text[start : len(text) - len(original) + start + len(old)]
    assert ours.startswith('{\r\n         "command": ')
    assert json.loads(ours)["args"][:3] == ["-I", "-m", "exobrain.mcp"]


@pytest.mark.parametrize(
    "text",
    ["{'mcpServers': {}}\n", '{"mcpServers": {}\n', '{"a": 1} /* never closed\n', "[]\n"],
)
def test_a_file_that_is_not_json_or_jsonc_is_refused_and_kept(root, text):
    from exobrain.errors import InputFileError

    path = root / ".cursor/mcp.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(InputFileError, match=r"mcp\.json"):
        register("cursor", root)
    assert path.read_text() == text


def test_machine_paths_stay_out_of_git_and_each_agent_says_if_it_starts_the_server(root):
    """Issue 34 item 4: Claude's entry goes in its local scope (the user's .claude.json, under
    this project: no approval prompt, nothing in the repository); Codex's and Gemini's project
    files are kept out of git by the clone's .git/info/exclude, and connect-agent says which
    trust step each needs until the user has taken it."""
    from exobrain.testkit import git

    claude = register("claude", root)
    assert not (root / ".mcp.json").exists() and claude.start.starts is True
    codex = register("codex", root)
    gemini = register("gemini", root)
    assert codex.excluded and gemini.excluded
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    assert codex.start.starts is False and 'trust_level = "trusted"' in str(codex.start.step)
    assert gemini.start.starts is False and "TRUST_FOLDER" in str(gemini.start.step)
    # the steps as printed: Codex's trust in its config, Gemini's trusted folders
    codex_config = Path(os.environ["CODEX_HOME"]) / "config.toml"
    codex_config.parent.mkdir(parents=True, exist_ok=True)
    codex_config.write_text(f'[projects.{json.dumps(str(root))}]\ntrust_level = "trusted"\n')
    trusted = Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir(parents=True, exist_ok=True)
    trusted.write_text(json.dumps({str(root.parent): "TRUST_FOLDER"}))
    assert register("codex", root).start.starts is True
    assert register("gemini", root).start.starts is True
    trusted.write_text(json.dumps({str(root.parent): "TRUST_FOLDER", str(root): "DO_NOT_TRUST"}))
    assert register("gemini", root).start.starts is False  # the closest rule decides
    again = CliRunner().invoke(connect, ["gemini", "--mcp", "--person", "al", "--repo", str(root)])
    assert "gemini will not start it yet; one step:" in again.output, again.output
