"""vercel's skills-lock.json (lock version 1), the pure reader and writer: the sample the real
``skills`` 1.5.18 wrote is read and rewritten byte for byte, its hashes are recomputed from the
same files, bad entries are named one by one, and sources map as the tool maps them."""

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from exobrain.interop.formats import skills_lock
from exobrain.interop.formats.skills_lock import LockEntry, LockFormatError

FIXTURE = Path(__file__).parents[1] / "fixtures" / "locks" / "skills-1.5.18.json"

#: The files of the repository the sample lock was written from (see the fixtures' README);
#: None marks the symbolic link ``link.md -> Zeta.md``.
SAMPLE = {
    "skills/alpha/SKILL.md": "---\nname: alpha\ndescription: The first sample skill.\n---\n\n"
    "Do alpha.\n",
    "skills/beta/SKILL.md": "---\nname: beta\ndescription: The second sample skill, with "
    "files.\n---\n\nDo beta; run scripts/run.sh.\n",
    "skills/beta/scripts/run.sh": "echo beta\n",
    "skills/beta/Zeta.md": "# Zeta\n",
    "skills/beta/a_b.md": "under score\n",
    "skills/beta/node_modules/dep/index.js": "module.exports = 1;\n",
}


def sample_files(skill: str) -> list[tuple[str, bytes]]:
    """The files of one sample skill as the tool hashes them (node_modules left out)."""
    prefix = f"skills/{skill}/"
    return [
        (path.removeprefix(prefix), text.encode())
        for path, text in SAMPLE.items()
        if path.startswith(prefix) and "/node_modules/" not in path
    ]


def test_the_real_tools_lock_reads_and_renders_back_byte_for_byte():
    text = FIXTURE.read_text(encoding="utf-8")
    parsed = skills_lock.parse(text)
    assert parsed.problems == []
    by_name = {e.name: e for e in parsed.entries}
    assert by_name["alpha"] == LockEntry(
        name="alpha",
        source="team/skills",
        source_type="github",
        ref="v1",
        skill_path="skills/alpha/SKILL.md",
        computed_hash=by_name["alpha"].computed_hash,
    )
    assert by_name["beta"].source_url == "https://git.example.test/team/skills.git"
    assert skills_lock.render(reversed(parsed.entries)) == text


def test_computed_hash_is_the_tools_for_the_same_files():
    parsed = {e.name: e for e in skills_lock.parse(FIXTURE.read_text()).entries}
    for name in ("alpha", "beta"):
        assert skills_lock.folder_hash(sample_files(name)) == parsed[name].computed_hash
    # the order matters: byte order would put SKILL.md before a_b.md and give another digest
    files = sample_files("beta")
    assert skills_lock.folder_hash(files) != _bytewise_hash(files)


def _bytewise_hash(files):
    import hashlib

    digest = hashlib.sha256()
    for path, content in sorted(files):
        digest.update(path.encode())
        digest.update(content)
    return digest.hexdigest()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_file_order_is_nodes_localecompare():
    rng = random.Random(33)
    alphabet = "aAbBzZ09_-.~ /é"
    names = sorted(
        {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(400)}
    )
    script = (
        "const n = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(n.sort((a, b) => a.localeCompare(b))));"
    )
    done = subprocess.run(
        ["node", "-e", script], input=json.dumps(names), capture_output=True, text=True, check=True
    )
    assert sorted(names, key=skills_lock.collation_key) == json.loads(done.stdout)


def test_bad_entries_are_named_one_by_one_and_good_ones_kept():
    good = {"source": "o/r", "sourceType": "github", "ref": "v1", "computedHash": "a" * 64}
    text = json.dumps(
        {
            "version": 1,
            "skills": {
                "ok": good,
                "no-source": {"sourceType": "github"},
                "odd-type": {**good, "sourceType": "ftp"},
                "short-hash": {**good, "computedHash": "abc"},
                "escape": {**good, "skillPath": "../../etc/SKILL.md"},
                "control": {**good, "ref": "v1\x1b[2J"},
                "not-object": "o/r",
            },
        }
    )
    parsed = skills_lock.parse(text)
    assert [e.name for e in parsed.entries] == ["ok"]
    assert parsed.problems == [
        "no-source: source is missing",
        "odd-type: sourceType must be one of github, gitlab, git, local, well-known, node_modules",
        "short-hash: computedHash must be 64 lower-case hex digits",
        "escape: skillPath must be a relative path to a SKILL.md without '..'",
        "control: ref must be printable text of at most 2048 chars",
        "not-object: the entry must be an object",
    ]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "is not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"version": 2, "skills": {}}', "only lock version 1 is read"),
        ('{"version": true, "skills": {}}', "only lock version 1 is read"),
        ('{"version": 1}', 'has no "skills" object'),
        (" " * (skills_lock.MAX_TEXT + 1), "is larger than"),
        ("[" * 100_000, "is not valid JSON"),
    ],
)
def test_an_unreadable_file_is_one_clear_error(text, why):
    with pytest.raises(LockFormatError, match=why):
        skills_lock.parse(text)


@pytest.mark.parametrize(
    ("repo", "expected"),
    [
        ("https://github.com/team/skills.git", ("team/skills", "github", None)),
        ("https://github.com/team/skills", ("team/skills", "github", None)),
        ("ssh://git@github.com/team/skills.git", ("team/skills", "github", None)),
        ("git@github.com:team/skills.git", ("git@github.com:team/skills.git", "git", "=")),
        ("git@host.test:team/skills", ("git@host.test:team/skills", "git", "=")),
        ("https://gitlab.com/g/sub/skills", ("https://gitlab.com/g/sub/skills.git", "gitlab", "=")),
        ("https://git.example.test/t/s.git", ("https://git.example.test/t/s.git", "git", "=")),
        ("ssh://git@host.test/t/s.git", ("ssh://git@host.test/t/s.git", "git", "=")),
    ],
)
def test_sources_map_as_the_tool_maps_them(repo, expected):
    source, kind, url = expected
    assert skills_lock.lock_source(repo) == (source, kind, source if url == "=" else None)


@pytest.mark.parametrize(
    ("repo", "why"),
    [
        ("https://git.example.test/t/s", "does not end in .git"),
        ("ssh://host.test/t/s", "does not end in .git"),
        ("file:///srv/skills.git", "is a local repository"),
        ("deploy@host.test:t/s.git", "reads a ref only after git@"),
    ],
)
def test_sources_the_tool_cannot_restore_at_a_ref_are_refused(repo, why):
    with pytest.raises(LockFormatError, match=why):
        skills_lock.lock_source(repo)


def test_render_refuses_two_skills_of_one_name():
    entry = LockEntry("x", "o/r", "github", "v1", None, "SKILL.md", "0" * 64)
    with pytest.raises(LockFormatError, match="two entries named 'x'"):
        skills_lock.render([entry, entry])


def test_skill_path_of_a_root_skill_and_a_nested_one():
    assert skills_lock.skill_path(".") == "SKILL.md"
    assert skills_lock.skill_path("skills/pdf") == "skills/pdf/SKILL.md"
