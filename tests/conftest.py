"""Every test runs with HOME, git configuration and agent folders inside tmp_path."""

from __future__ import annotations

import pytest

AGENT_VARS = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENCLAW_WORKSPACE")
#: The repository declares an external skill on GitHub (skill-creator); a test that connects an
#: agent there must not reach the network, so git is sent to a closed local port instead.
NO_NETWORK = '[url "https://127.0.0.1:9/"]\n\tinsteadOf = https://github.com/\n'


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n" + NO_NETWORK
    )
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name, value in (
        ("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z"),
        ("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("OPENCLAW_WORKSPACE", str(home / ".openclaw" / "workspace"))
    return home
