"""Property-based fuzz of every command that prints what a file holds: whatever text a
committer puts into a SKILL.md's frontmatter and body or into a ledger's free fields (host,
agent, note, a comment, a signal's value), no byte below 0x20 but newline and tab, no DEL,
no C1 control and no bidi control reaches stdout or stderr — decoded as UTF-8 and checked
code point by code point — and each command ends with its own exit code.

Text is drawn from every code point hypothesis makes plus the dangerous ranges, mixed; the
ledger's fields may also hold lone surrogates (JSON's escapes carry them, YAML refuses
them). A few dozen examples, each run through every command of
:data:`tests.support.terminal.COMMANDS` on one exobrain (searches lexical: the encoders are
slow), within a deadline.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exobrain.testkit import isolated_env
from tests.support.hostile import shared_exobrain
from tests.support.terminal import (
    COMMANDS,
    DANGEROUS,
    commit,
    hostile_fields,
    leaked,
    run,
    skill_file,
)

#: Examples (each runs every command once).
EXAMPLES = 30
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=60),  # one example: every command on a loaded machine
    derandomize=True,
    database=None,  # the same examples every run; nothing written into the checkout
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

characters = st.one_of(st.characters(), st.sampled_from(DANGEROUS))
texts = st.text(characters, min_size=1, max_size=24)
#: What a JSON ledger line can hold: the same, and lone surrogates.
json_texts = st.text(
    st.one_of(characters, st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)),
    min_size=1,
    max_size=24,
)


@pytest.fixture(scope="module")
def scene(tmp_path_factory) -> tuple[Path, str]:
    """One exobrain for every example, and the commit before the first (for events)."""
    with pytest.MonkeyPatch.context() as patch:
        base = tmp_path_factory.mktemp("terminal-fuzz")
        for name, value in isolated_env(base / "env", commit_date="2026-01-01T00:00:00Z").items():
            patch.setenv(name, value)
        root = shared_exobrain(base)
        return root, commit(root, "before")


def _ledger(host: str, agent: str, note: str, comment: str, value: str) -> str:
    base = {"ts": "2026-01-01T00:00:00.000Z", "skill": "skill:world@global", "by": "alice"}
    lines = [
        {**base, "kind": "calibration", "value": True, "host": host, "agent": agent, "note": note},
        {**base, "kind": "comment", "value": comment, "id": "c-0123456789ab", "host": host},
        {**base, "kind": "usage", "value": 1, "auto": True, "host": host, "agent": agent},
        {**base, "kind": "vote", "value": value, "host": host},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


@FUZZ
@pytest.mark.slow
@given(
    front=texts,
    name=texts,
    body=texts,
    host=json_texts,
    agent=json_texts,
    note=json_texts,
    comment=json_texts,
    value=json_texts,
)
def test_no_command_lets_a_control_character_through(
    scene, front, name, body, host, agent, note, comment, value
):
    root, before = scene
    fields = {**hostile_fields(front), "name": name}
    (root / "skills/world/SKILL.md").write_text(
        skill_file(fields, f"{body}\n{front}\n"), encoding="utf-8"
    )
    ledger = root / "signals/alice/laptop.jsonl"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(_ledger(host, agent, note, comment, value), encoding="utf-8")
    commit(root, "fuzz")
    for command in COMMANDS:
        result = run(root, command, before)
        assert result.code in (0, 1, 2), (command, result.text)
        assert leaked(result.out) == [] and leaked(result.err) == [], (command, result.text)
