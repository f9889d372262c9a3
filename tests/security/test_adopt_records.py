"""The records exobrain adopt reads are other tools' files, so anyone's: whatever JSON a lock
or a plugin record holds, and whatever gh metadata a SKILL.md carries, reading them ends in
entries or named problems — never an exception — and the command in a message and exit 1."""

from __future__ import annotations

import json
from datetime import timedelta

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exobrain.cli.umbrella import main as umbrella
from exobrain.interop.adopt_records import gh_origin, vercel_origin
from exobrain.interop.formats import skills_lock
from tests.support.helpers import build_tree, exobrain

FUZZ = settings(
    max_examples=200,
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=40),
    st.sampled_from(["github", "git", "local", "../../x/SKILL.md", "a" * 64, "acme/skills"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=12,
)
keys = st.sampled_from(
    ["source", "sourceType", "sourceUrl", "ref", "skillPath", "computedHash", "skillFolderHash"]
)
entries = st.one_of(values, st.dictionaries(keys, values, max_size=7))
locks = st.one_of(
    values,
    st.fixed_dictionaries(
        {
            "version": st.one_of(st.just(1), st.just(3), values),
            "skills": st.dictionaries(st.text(max_size=20), entries, max_size=5),
        }
    ),
)


@FUZZ
@given(data=locks, user=st.booleans())
def test_a_lock_of_any_shape_reads_as_entries_or_problems(data, user):
    found, problems = skills_lock.read_lock(data, user=user)
    assert all(isinstance(p.why, str) and p.why for p in problems)
    for entry in found.values():
        origin = vercel_origin(entry, "skills-lock.json")
        assert origin.path is None or ".." not in origin.path.split("/")
        assert entry.source_type in skills_lock.SOURCE_TYPES


@FUZZ
@given(
    metadata=st.dictionaries(
        st.sampled_from(["github-repo", "github-path", "github-ref", "github-tree-sha", "x"]),
        values,
    )
)
def test_gh_metadata_of_any_shape_is_a_record_none_or_a_named_problem(tmp_path, metadata):
    folder = tmp_path / "skill"
    folder.mkdir(exist_ok=True)
    front = json.dumps({"name": "x", "description": "d", "metadata": metadata})
    (folder / "SKILL.md").write_text(f"---\n{front}\n---\nBody.\n")
    try:
        origin = gh_origin(folder, "SKILL.md")
    except ValueError as exc:
        assert str(exc)
    else:
        assert origin is None or (origin.repo or "").startswith("https://")


def test_hostile_lock_files_end_in_messages(tmp_path):
    root = exobrain(tmp_path / "brain", {"people/alice": []}, scopes=["people/alice"])
    build_tree(root, {".claude/skills/hello/SKILL.md": "---\nname: hello\ndescription: d\n---\n"})
    for text in (
        "[" * 100_000,
        '{"version": 1, "skills": {"hello": {"sourceType": "git", "source": 1e999}}}',
        '{"version": 1, "skills": {"hello": {"sourceType": "git", "source": "x", "ref": '
        + '"'
        + "r" * 5000
        + '"}}}',
        '{"version": 99999999999999999999999999999999999999999999999999999999999999999}',
        "\udcff",
    ):
        (root / "skills-lock.json").write_text(text, errors="surrogateescape")
        result = CliRunner().invoke(
            umbrella, ["adopt", "--repo", str(root), "--into", "people/alice", "--owner", "a"]
        )
        assert result.exit_code == 1, (text[:40], result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert "skip      hello  .claude/skills/hello (claude): skills-lock.json" in result.output
