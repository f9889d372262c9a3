"""The real agent programs, as they load (issue 34): Claude Code, Codex and Gemini CLI, run
offline against clones where connect-agent connected two or three of them, list each skill
the resolver gave them exactly once, with no conflict warning.

The programs are npm packages (``@anthropic-ai/claude-code``, ``@openai/codex``,
``@google/gemini-cli``). The suite never installs them: a test uses them when they are on
PATH and is skipped otherwise, except under CI (``CI`` or ``EXOBRAIN_REQUIRE_AGENTS=1``),
where ``.ci/run`` installs them and a missing one is a failure. What each prints, and why it
can be read offline: ``gemini skills list`` (the skills it discovered, and "Skill conflict
detected" when two folders hold one name), ``codex debug prompt-input`` (the model-visible
prompt, whose skills section lists every skill), ``claude -p --debug-file LOG`` (it stops at
"Not logged in", after logging "Loaded N unique skills (… project: P …)").
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.agents import get_agent
from exobrain.cli.connect import main as connect_cmd
from tests.support.helpers import exobrain, skill_md

PROGRAMS = ("claude", "codex", "gemini")
COMBOS = (("claude", "codex"), ("codex", "gemini"), ("claude", "gemini"), PROGRAMS)
#: what each agent must list from the repository: every skill is for everyone but gem-only
SKILLS = ("tidy", "lint-prose", "gem-only")
EXPECTED = {
    "claude": ["lint-prose", "tidy"],
    "codex": ["lint-prose", "tidy"],
    "gemini": ["gem-only", "lint-prose", "tidy"],
}
#: an optional skill: not linked, listed in each agent's index (Codex: AGENTS.override.md)
OPTIONAL = "brew-tea"
TIMEOUT = 120


def _required() -> bool:
    return os.environ.get("EXOBRAIN_REQUIRE_AGENTS") == "1" or os.environ.get("CI", "").lower() in (
        "1",
        "true",
        "yes",
    )


@pytest.fixture(scope="module")
def programs() -> dict[str, str]:
    found = {name: shutil.which(name) for name in PROGRAMS}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        message = f"agent programs not on PATH: {', '.join(missing)} (npm install -g …)"
        if _required():
            pytest.fail(message + "; .ci/run installs them")
        pytest.skip(message)
    return {name: str(path) for name, path in found.items()}


def _clone(base: Path, combo: tuple[str, ...]) -> Path:
    def entry(name: str, **more: object) -> dict[str, object]:
        return {"name": name, "owner": "al", "tier": "always", "force": True, **more}

    root = exobrain(
        base / ("-".join(combo) or "none"),
        registries={
            "global": [
                entry("tidy"),
                entry("lint-prose"),
                entry("gem-only", agent="gemini"),
                {**entry(OPTIONAL), "tier": "optional"},
            ]
        },
        scopes=["people/al"],
        skills={
            f"global/{n}": skill_md(n, f"Use {n} when the user asks to {n}.")
            for n in (*SKILLS, OPTIONAL)
        },
        connection={"connected_scopes": ["people/al"], "person": "al"},
    )
    for agent in combo:
        done = CliRunner().invoke(connect_cmd, [agent, "--repo", str(root)])
        assert done.exit_code == 0, done.output
    return root


def _trust_for_gemini(roots: list[Path]) -> None:
    """Gemini CLI loads no project skill in a folder the user has not trusted: the one step
    its user takes (here for every clone at once), and its update check off."""
    home = Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini"
    home.mkdir(parents=True, exist_ok=True)
    trusted = {str(root): "TRUST_FOLDER" for root in roots}
    (home / "trustedFolders.json").write_text(json.dumps(trusted))
    settings = {"general": {"disableAutoUpdate": True, "disableUpdateNag": True}}
    (home / "settings.json").write_text(json.dumps(settings))


def _argv(program: str, path: str, log: Path) -> list[str]:
    if program == "gemini":
        return [path, "skills", "list"]
    if program == "codex":
        return [path, "debug", "prompt-input", "hello"]
    return [path, "-p", "--debug-file", str(log), "hi"]


@pytest.fixture(scope="module")
def loaded(programs, tmp_path_factory) -> dict[tuple[tuple[str, ...], str], str]:
    """Every program's output on every clone of its combinations, the programs run at once
    (they mostly wait: Gemini CLI for its network checks)."""
    base = tmp_path_factory.mktemp("real-agents")
    clones = {combo: _clone(base, combo) for combo in COMBOS}
    _trust_for_gemini(list(clones.values()))
    Path(os.environ["CODEX_HOME"]).mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    running = {}
    for combo, root in clones.items():
        for program in combo:
            log = base / f"{'-'.join(combo)}.{program}.log"
            running[(combo, program)] = (
                subprocess.Popen(
                    _argv(program, programs[program], log),
                    cwd=root,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                ),
                log,
            )
    outputs = {}
    for key, (process, log) in running.items():
        out, _ = process.communicate(timeout=TIMEOUT)
        outputs[key] = log.read_text() if key[1] == "claude" and log.exists() else out
    return outputs


def listed(program: str, output: str) -> list[str]:
    """The repository's skills a program lists, as often as it lists them."""
    if program == "gemini":
        names = re.findall(r"^(\S+) \[(?:Enabled|Disabled)\]", output, re.MULTILINE)
    else:
        names = re.findall(r"- ([\w.-]+): Use [\w.-]+ when the user asks", output)
    return sorted(n for n in names if n.split(".")[0] in SKILLS)


@pytest.mark.slow
@pytest.mark.parametrize("combo", COMBOS, ids="+".join)
def test_each_program_lists_each_of_its_skills_once(loaded, combo):
    for program in combo:
        output = loaded[(combo, program)]
        if program == "claude":
            match = re.search(r"Loaded (\d+) unique skills \(.*project: (\d+)", output)
            assert match, output[-2000:]
            assert int(match.group(2)) == len(EXPECTED["claude"]), match.group(0)
            continue
        if program == "gemini":
            assert "Skill conflict detected" not in output, output[-2000:]
        assert listed(program, output) == EXPECTED[program], output[-3000:]
        if program == "codex":  # the index reaches the model too, inside Codex's budget
            index = _codex_index(output)
            assert OPTIONAL in index, output[-3000:]
            assert len(index.encode()) <= get_agent("codex").budget.size


def _codex_index(output: str) -> str:
    """The text of AGENTS.override.md as Codex put it in the model's prompt."""
    texts = [str(item.get("text", "")) for item in _items(json.loads(output[output.index("[") :]))]
    found = [t for t in texts if "exobrain" in t and OPTIONAL in t]
    return found[0] if found else ""


def _items(value: object) -> list[dict[str, object]]:
    if isinstance(value, dict):
        return [value, *(i for v in value.values() for i in _items(v))]
    if isinstance(value, list):
        return [i for v in value for i in _items(v)]
    return []


# --- the MCP server, started by each program ------------------------------------------------


def _steps(root: Path) -> None:
    """The steps connect-agent prints for Codex and Gemini CLI, taken as a user would."""
    codex = Path(os.environ["CODEX_HOME"]) / "config.toml"
    codex.write_text(f'[projects.{json.dumps(str(root))}]\ntrust_level = "trusted"\n')
    _trust_for_gemini([root])


@pytest.mark.slow
def test_after_connect_mcp_and_the_printed_step_each_program_starts_the_server(programs, tmp_path):
    root = _clone(tmp_path, ())
    Path(os.environ["CODEX_HOME"]).mkdir(parents=True, exist_ok=True)
    printed = {}
    for agent in PROGRAMS:
        done = CliRunner().invoke(connect_cmd, [agent, "--mcp", "--repo", str(root)])
        assert done.exit_code == 0, done.output
        printed[agent] = done.output
    assert "claude starts it in this folder" in printed["claude"]
    assert 'trust_level = "trusted"' in printed["codex"]
    assert "TRUST_FOLDER" in printed["gemini"]
    _steps(root)
    env = {
        **os.environ,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    shown = {}
    for agent in PROGRAMS:
        done = subprocess.run(
            [programs[agent], "mcp", "list"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        shown[agent] = done.stdout + done.stderr
    assert re.search(r"^exobrain: .*Connected", shown["claude"], re.M), shown["claude"]
    assert re.search(r"^exobrain .*\benabled\b", shown["codex"], re.M), shown["codex"]
    assert re.search(r"exobrain: .*Connected", shown["gemini"]), shown["gemini"]
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in status.splitlines():  # nothing git would commit holds this machine's paths
        path = root / line[3:]
        assert path.is_dir() or str(root) not in path.read_text(errors="replace"), line
