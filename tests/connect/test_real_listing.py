"""The real loaders' own skill listings (issue 34, "budgets from the loaders"): the figures of
the agent table's ``listing`` rows, and ``--native-tiers``, checked on Claude Code and Codex.

Run offline. Claude Code is pointed at a stand-in for its API on a local port
(``ANTHROPIC_BASE_URL``) that records each request and answers "ok": the request is what the
model would read, skill listing included; its debug log says how many skills it loaded and
when the listing is over budget. Codex prints the model-visible prompt with
``codex debug prompt-input``. The programs are used when they are on PATH and skipped
otherwise, except under CI (``CI`` or ``EXOBRAIN_REQUIRE_AGENTS=1``), where a missing one is a
failure (tests/connect/test_real_agents.py says how they are installed).
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner

from exobrain.agents import get_agent
from exobrain.cli.connect import main as connect_cmd
from tests.connect.test_real_agents import TIMEOUT, _items, _required
from tests.support.helpers import exobrain, skill_md

ENV = {"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}


def program(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        message = f"{name} is not on PATH (npm install -g …)"
        if _required():
            pytest.fail(message + "; .ci/run installs it")
        pytest.skip(message)
    return path


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Records each request body and answers with a one-word message."""

    bodies: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        self.bodies.append(json.loads(self.rfile.read(size) or b"{}"))
        reply = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "stand-in",
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api() -> Iterator[tuple[str, list[dict]]]:
    """A local stand-in for the Anthropic API: its URL and the request bodies it received."""
    bodies: ClassVar[list[dict]] = []
    handler = type("Recorder", (_Recorder,), {"bodies": bodies})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()


def run_claude(claude: str, root: Path, url: str, log: Path, *extra: str) -> str:
    env = {**os.environ, **ENV, "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-stand-in"}
    done = subprocess.run(
        [claude, "-p", "--debug-file", str(log), *extra, "hi"],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert log.exists(), done.stdout + done.stderr
    return log.read_text()


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def skill_listing(bodies: list[dict]) -> str:
    """The skill listing of the first request that has one (from its heading on)."""
    heading = "skills are available for use with the Skill tool"
    for text in _strings(bodies):
        if heading in text:
            return text[text.index(heading) :]
    return ""


def clone(base: Path, skills: dict[str, tuple[str, str]], *args: str, agent: str = "claude"):
    """An exobrain with ``skills`` (name → (tier, description)), connected for ``agent``."""
    root = exobrain(
        base / "repo",
        registries={
            "global": [
                {"name": n, "owner": "al", "tier": tier, "force": True}
                for n, (tier, _d) in skills.items()
            ]
        },
        scopes=["people/al"],
        skills={f"global/{n}": skill_md(n, d) for n, (_t, d) in skills.items()},
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )
    done = CliRunner().invoke(connect_cmd, [agent, *args, "--repo", str(root)])
    assert done.exit_code == 0, done.output
    return root, " ".join(done.stderr.split())


def test_claude_lists_the_native_tiers_as_written(tmp_path, api):
    claude = program("claude")
    url, bodies = api
    cap = get_agent("claude").listing.entry  # type: ignore[union-attr]
    skills = {
        "tidy": ("always", "Use tidy when the user asks to tidy."),
        "long-one": ("always", ("Long " * 500)[:2000].strip()),
        "brew-tea": ("optional", "Use brew-tea when the user asks to brew tea."),
        "secret-sauce": ("unlisted", "Use secret-sauce when the user asks for the sauce."),
    }
    root, warned = clone(tmp_path, skills, "--native-tiers")
    assert f"long-one (1,999): longer than the {cap:,} characters claude lists" in warned
    log = run_claude(claude, root, url, tmp_path / "claude.log")
    loaded = re.search(r"Loaded (\d+) unique skills \(.*project: (\d+)", log)
    assert loaded and loaded.group(2) == "4", log[-2000:]  # all four linked
    listing = skill_listing(bodies)
    assert "- tidy: Use tidy when the user asks to tidy." in listing, listing
    assert re.search(r"^- brew-tea$", listing, re.M), listing  # name-only: no description
    assert "secret-sauce" not in listing  # user-invocable-only: not the model's
    long = re.search(r"^- long-one: (.*)$", listing, re.M)  # cut at the table's cap
    assert long and len(long.group(1)) == cap and long.group(1).endswith("…"), listing
    request = json.dumps(bodies)
    assert "| brew-tea | skills/brew-tea/SKILL.md | Use brew-tea" in request  # the index too


def test_claudes_listing_budget_is_the_tables(tmp_path, api):
    claude = program("claude")
    url, bodies = api
    listing = get_agent("claude").listing
    assert listing is not None
    words = "Tidy the results of an experiment into tables when the user asks for it. "
    skills = {f"skill-{i:02d}": ("always", (words * 5)[:300].strip()) for i in range(40)}
    root, warned = clone(tmp_path, skills)
    assert "the 40 skills linked for claude take" in warned
    # a 200K-context model counted at 4 characters a token: the table's figure
    log = run_claude(claude, root, url, tmp_path / "claude.log", "--model", "claude-sonnet-4-5")
    over = re.search(r"Skill listing over budget: \d+ skills, \d+ chars > (\d+) budget", log)
    assert over and int(over.group(1)) == listing.size, log[-2000:]
    shown = skill_listing(bodies)
    full = re.findall(r"^- skill-\d\d: ", shown, re.M)
    bare = re.findall(r"^- skill-\d\d$", shown, re.M)
    assert full and bare and len(full) + len(bare) == 40, shown  # the rest: by name only
    # what the table leaves for ours (less what its own skills take) is what it listed in full
    assert len(full) * (300 + 13) <= listing.size - listing.reserved + 400


def _codex_skills(codex: str, root: Path, *config: str) -> list[str]:
    done = subprocess.run(
        [codex, "debug", "prompt-input", *config, "hello"],
        cwd=root,
        env={**os.environ, **ENV},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    prompt = json.loads(done.stdout[done.stdout.index("[") :])
    texts = [str(i.get("text", "")) for i in _items(prompt)]
    section = next((t for t in texts if "<skills_instructions>" in t), "")
    return re.findall(r"^- (skill-\d\d: .*)$", section, re.M)


def test_codex_lists_skills_within_the_tables_figures(tmp_path):
    codex = program("codex")
    Path(os.environ["CODEX_HOME"]).mkdir(parents=True, exist_ok=True)
    listing = get_agent("codex").listing
    assert listing is not None
    skills = {f"skill-{i:02d}": ("always", ("word " * 300)[:1100].strip()) for i in range(60)}
    root, warned = clone(tmp_path, skills, agent="codex")
    assert "the 60 skills linked for codex take" in warned
    assert "longer than the 1,024 characters codex lists" in warned
    # a large window: every description whole up to the cap
    roomy = _codex_skills(codex, root, "-c", "model_context_window=1000000")
    assert len(roomy) == 60
    assert {len(line.split(": ", 1)[1].rsplit(" (file: ", 1)[0]) for line in roomy} == {
        listing.entry
    }
    # 2% of a 100K window, 4 characters a token: the table's 8,000 characters for the list
    tight = _codex_skills(codex, root, "-c", "model_context_window=100000")
    size = sum(len(f"- {line}") + 1 for line in tight)
    assert size <= listing.size < sum(len(f"- {line}") + 1 for line in roomy)
    assert size + listing.reserved >= listing.size * 0.9  # most of the budget, our skills' share
