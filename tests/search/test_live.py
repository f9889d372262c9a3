"""Search kept open between queries: what changed between two calls shows in the next one,
and what did not is not read again."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from exobrain.search.engine import Filters
from exobrain.search.indexfiles import discard, index_path
from exobrain.search.live import Live
from tests.search.test_substrate import SKILLS, root, skill  # noqa: F401  (the fixture)
from tests.support.watch import LimitReached, inotify_available, needs_inotify

SKILL_ONLY = Filters(types=("skill",))


@pytest.fixture(params=[True, False], ids=["watch", "stat"])
def watching(request) -> bool:
    """Each kept-open behaviour holds with a folder watch (Linux) and by asking every file."""
    if request.param and not inotify_available():
        pytest.skip("no inotify here")
    return request.param


def refs(live: Live, query: str) -> list[str]:
    return [h.artifact.ref for h in live.search(query, SKILL_ONLY, k=10, quality=None).hits]


def add_entry(repo, name: str) -> None:
    """Declare a skill the way the toolkit writes a registry: a new file renamed in."""
    path = repo / "skills.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["skills"].append({"name": name, "owner": "ops", "tier": "optional", "force": True})
    (repo / "skills.json.tmp").write_text(json.dumps(data), encoding="utf-8")
    os.replace(repo / "skills.json.tmp", path)


def test_an_unchanged_exobrain_is_not_read_again(root, watching):  # noqa: F811
    live = Live(root, semantic=False, watch=watching)
    first = live.search("dock a ligand", SKILL_ONLY, k=3, quality=None)
    ws = live.workspace()
    again = live.search("dock a ligand", SKILL_ONLY, k=3, quality=None)
    assert live.workspace() is ws
    assert first.update.checked == len(SKILLS)
    assert again.update.checked == 0 and not again.update.rehashed
    assert [h.artifact.ref for h in again.hits] == [h.artifact.ref for h in first.hits]


def test_a_skill_edited_in_place_shows_in_the_next_call(root, watching):  # noqa: F811
    live = Live(root, semantic=False, watch=watching)
    assert refs(live, "zebrafish") == []
    path = root / "skills/prep-receptor/SKILL.md"
    with open(path, "w", encoding="utf-8") as file:  # in place: same inode, as editors do
        file.write(skill("prep-receptor", "Prepare a zebrafish receptor structure."))
    assert refs(live, "zebrafish") == ["skill:prep-receptor@global"]


def test_an_edit_that_keeps_the_size_shows_by_its_mtime(root, watching):  # noqa: F811
    live = Live(root, semantic=False, watch=watching)
    path = root / "skills/old-docking/SKILL.md"
    text = path.read_text(encoding="utf-8")
    assert refs(live, "newts") == []
    path.write_text(text.replace("the old way", "with newts."), encoding="utf-8")
    assert path.stat().st_size == len(text.encode())
    later = path.stat().st_mtime_ns + 2_000_000_000  # a coarse clock cannot hide it
    os.utime(path, ns=(later, later))
    assert refs(live, "newts") == ["skill:old-docking@global"]


def test_a_skill_added_and_declared_between_calls_is_found(root, watching):  # noqa: F811
    live = Live(root, semantic=False, watch=watching)
    assert refs(live, "axolotl") == []
    folder = root / "skills/axolotl-care"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        skill("axolotl-care", "Keep axolotl tanks clean and cool."), encoding="utf-8"
    )
    add_entry(root, "axolotl-care")
    assert refs(live, "axolotl") == ["skill:axolotl-care@global"]


def test_a_connected_scope_created_later_joins_the_chain(root, watching):  # noqa: F811
    (root / ".exobrain.json").write_text(
        json.dumps({"connected_scopes": ["people/ann"], "person": "ann"}), encoding="utf-8"
    )
    live = Live(root, semantic=False, watch=watching)
    assert refs(live, "lichen") == []
    assert [w for f in live.workspace().findings for w in [f.message] if "people/ann" in w]
    scope = root / "people/ann"
    (scope / "skills/lichen-id").mkdir(parents=True)
    (scope / "AGENTS.md").write_text("# ann\n", encoding="utf-8")
    (scope / "skills/lichen-id/SKILL.md").write_text(
        skill("lichen-id", "Identify lichen species from photos."), encoding="utf-8"
    )
    (scope / "skills.json").write_text(
        json.dumps({"skills": [{"name": "lichen-id", "owner": "ann", "tier": "always"}]}),
        encoding="utf-8",
    )
    assert refs(live, "lichen") == ["skill:lichen-id@people/ann"]


def test_a_successor_declared_by_an_edit_takes_over_in_the_next_call(root, watching):  # noqa: F811
    live = Live(root, semantic=False, watch=watching)
    [before] = [h for h in live.search("weekly lab report", SKILL_ONLY, k=10, quality=None).hits
                if h.artifact.name == "dock-report"]  # fmt: skip
    assert before.artifact.resolved is not None and before.artifact.resolved.reason is None
    path = root / "skills/prep-receptor/SKILL.md"
    path.write_text(
        skill(
            "prep-receptor",
            "Prepare a receptor structure for docking.",
            links="{supersedes: ['skill:dock-report']}",
        ),
        encoding="utf-8",
    )
    result = live.search("weekly lab report", SKILL_ONLY, k=10, quality=None)
    [report] = [h for h in result.hits if h.artifact.name == "dock-report"]
    assert report.artifact.resolved is not None
    assert report.artifact.resolved.reason.name == "SUPERSEDED"


def test_an_index_rebuilt_by_another_process_is_opened_again(root, watching):  # noqa: F811
    live = Live(root, semantic=False, watch=watching)
    assert refs(live, "receptor")
    discard(index_path(root))  # what a rebuild does first
    path = root / "skills/dock-report/SKILL.md"
    path.write_text(skill("dock-report", "A receptor summary in a report."), encoding="utf-8")
    assert "skill:dock-report@global" in refs(live, "receptor")
    assert index_path(root).is_file()


EVERYWHERE = Filters(types=("skill",), everywhere=True)


def age(top, seconds: int = 10) -> None:
    """Set every folder's mtime well in the past (a walk right after a change cannot trust
    mtimes: the same clock tick could hide the next change)."""
    past = os.stat(top).st_mtime_ns - seconds * 1_000_000_000
    for folder, _, _ in os.walk(top):
        os.utime(folder, ns=(past, past))


def everywhere(live: Live, query: str) -> list[str]:
    return [h.artifact.ref for h in live.search(query, EVERYWHERE, k=10, quality=None).hits]


def test_all_scopes_is_kept_open_until_a_scope_comes_or_goes(root, watching):  # noqa: F811
    scope = root / "people/bob"
    (scope / "skills/moss-id").mkdir(parents=True)
    (scope / "skills/moss-id/SKILL.md").write_text(
        skill("moss-id", "Identify moss from photos."), encoding="utf-8"
    )
    (scope / "skills.json").write_text(
        json.dumps({"skills": [{"name": "moss-id", "owner": "bob", "tier": "optional"}]}),
        encoding="utf-8",
    )
    live = Live(root, semantic=False, watch=watching)
    assert everywhere(live, "moss") == []  # no AGENTS.md: not a scope yet
    age(root)  # (the first search made .exobrain-cache, which moved the root's mtime)
    everywhere(live, "moss")
    ws = live.workspace()
    assert everywhere(live, "moss") == [] and live.workspace() is ws  # nothing moved: kept
    (scope / "AGENTS.md").write_text("# bob\n", encoding="utf-8")
    assert everywhere(live, "moss") == ["skill:moss-id@people/bob"]
    assert live.workspace() is not ws
    age(root)
    everywhere(live, "moss")
    kept = live.workspace()
    (scope / "AGENTS.md").unlink()
    assert everywhere(live, "moss") == [] and live.workspace() is not kept


def test_a_walk_just_after_a_change_is_not_trusted(root, watching):  # noqa: F811
    live = Live(root, semantic=False, watch=watching)  # the fixture was written a moment ago
    everywhere(live, "dock")
    ws = live.workspace()
    everywhere(live, "dock")
    assert live.workspace() is not ws  # walked again: its folders' mtimes were too recent


def test_kept_open_answers_as_a_command_does_with_the_encoders(root, monkeypatch):  # noqa: F811
    """From the second query on, the query is encoded in a thread while the stats run
    (Encoders.expect): the hits and every score equal those of a fresh search."""
    from exobrain.search.encoders import Encoders
    from exobrain.search.engine import search
    from exobrain.workspace import open_workspace

    early: list[bool] = []
    expect = Encoders.expect

    def spy(self, query):
        expect(self, query)
        early.append(self._early is not None)

    monkeypatch.setattr(Encoders, "expect", spy)
    live = Live(root)
    for query in ("dock a ligand", "prepare the receptor", "dock a ligand", "old way"):
        for everywhere in (False, True):
            filters = Filters(types=("skill",), everywhere=everywhere)
            kept = live.search(query, filters, k=5, quality=None)
            fresh = search(open_workspace(root), query, filters, k=5, quality=None)
            assert kept.encoders == fresh.encoders == ["minilm", "wordllama"]
            assert [(h.artifact.ref, round(h.score, 9)) for h in kept.hits] == [
                (h.artifact.ref, round(h.score, 9)) for h in fresh.hits
            ]
    assert early.count(True) >= 3  # the thread did the encoding on the kept searcher


def counted(monkeypatch) -> dict[str, int]:
    """Count the stat calls a kept-open search makes (artifacts, and everything else)."""
    from exobrain.search import live as module

    calls = {"artifact": 0, "other": 0}
    own_stat, file_stat = module._own_stat, module.file_stat

    def own(path):
        calls["artifact"] += 1
        return own_stat(path)

    def other(path):
        calls["other"] += 1
        return file_stat(path)

    monkeypatch.setattr(module, "_own_stat", own)
    monkeypatch.setattr(module, "file_stat", other)
    return calls


@needs_inotify
def test_a_quiet_watch_spares_every_stat_and_an_edit_still_shows(root, monkeypatch):  # noqa: F811
    expected = everywhere(Live(root, semantic=False, watch=False), "dock")
    age(root)
    live = Live(root, semantic=False)
    everywhere(live, "dock")  # walks, stats every SKILL.md with its folder watched
    everywhere(live, "dock")  # the full check under the watch
    ws, calls = live.workspace(), counted(monkeypatch)
    assert everywhere(live, "dock") == expected
    assert calls["artifact"] == 0 and calls["other"] <= 10  # config files, index, chain
    assert live.workspace() is ws
    path = root / "skills/prep-receptor/SKILL.md"
    with open(path, "w", encoding="utf-8") as file:
        file.write(skill("prep-receptor", "Prepare a zebrafish receptor structure."))
    assert everywhere(live, "zebrafish") == ["skill:prep-receptor@global"]
    assert calls["artifact"] >= len(SKILLS)  # the change made it ask every file again
    before = calls["artifact"]
    assert everywhere(live, "zebrafish") == ["skill:prep-receptor@global"]
    assert calls["artifact"] == before  # quiet again


@needs_inotify
def test_a_removed_skill_folder_brings_a_new_watch(root):  # noqa: F811
    live = Live(root, semantic=False)
    assert "skill:prep-receptor@global" in refs(live, "receptor")
    first = live._watch
    assert first is not None and first.folders > 0
    shutil.rmtree(root / "skills/prep-receptor")  # its watched folder goes
    assert "skill:prep-receptor@global" not in refs(live, "receptor")
    assert first.broken and live._watch is not first and not live._watch.broken
    path = root / "skills/dock-report/SKILL.md"
    path.write_text(skill("dock-report", "A tardigrade census."), encoding="utf-8")
    assert refs(live, "tardigrade") == ["skill:dock-report@global"]  # the new watch works


@needs_inotify
def test_a_watch_refused_by_the_kernel_falls_back_to_asking(root, monkeypatch):  # noqa: F811
    from exobrain.search import live as module
    from exobrain.util.watch import FolderWatch, open_watch

    made: list[FolderWatch] = []

    def refused():
        real = open_watch()
        assert real is not None
        made.append(FolderWatch(LimitReached(), os.dup(real._fd)))  # type: ignore[arg-type]
        real.close()
        return made[-1]

    monkeypatch.setattr(module, "open_watch", refused)
    live = Live(root, semantic=False)
    assert refs(live, "zebrafish") == []
    assert len(made) == 1 and made[0].refused
    path = root / "skills/prep-receptor/SKILL.md"
    with open(path, "w", encoding="utf-8") as file:
        file.write(skill("prep-receptor", "Prepare a zebrafish receptor structure."))
    assert refs(live, "zebrafish") == ["skill:prep-receptor@global"]
    assert len(made) == 1  # never tried again


@needs_inotify
def test_files_on_a_file_system_the_watch_does_not_trust_are_asked_every_time(
    root,  # noqa: F811
    monkeypatch,
):
    import exobrain.util.watch as module

    monkeypatch.setattr(module, "LOCAL_FILE_SYSTEMS", {})  # as on NFS or a FUSE mount
    live = Live(root, semantic=False)
    everywhere(live, "dock")
    age(root)  # (the first search made .exobrain-cache, which moved the root's mtime)
    everywhere(live, "dock")
    ws = live.workspace()
    calls = counted(monkeypatch)
    everywhere(live, "dock")
    assert calls["artifact"] == len(SKILLS) and live.workspace() is ws  # kept, yet asked
    path = root / "skills/prep-receptor/SKILL.md"
    with open(path, "w", encoding="utf-8") as file:
        file.write(skill("prep-receptor", "Prepare a zebrafish receptor structure."))
    assert everywhere(live, "zebrafish") == ["skill:prep-receptor@global"]
    folder = root / "skills/axolotl-care"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill("axolotl-care", "Keep axolotl tanks."), "utf-8")
    add_entry(root, "axolotl-care")  # a registry in an unwatched folder is asked too
    assert everywhere(live, "axolotl") == ["skill:axolotl-care@global"]


WORDS = ("axolotl", "lichen", "tardigrade", "zebrafish", "newts", "moss", "kelp", "urchin")


def _change(repo, rng, step: int) -> str:
    """One change a person or a tool makes between two calls, picked at random; the word it
    brought in."""
    names = sorted(p.name for p in (repo / "skills").iterdir() if (p / "SKILL.md").is_file())
    kind = rng.choice(("in place", "replace", "same size", "new skill", "remove", "touch"))
    name = rng.choice(names)
    path = repo / "skills" / name / "SKILL.md"
    word = rng.choice(WORDS)
    if kind == "in place":
        with open(path, "w", encoding="utf-8") as file:
            file.write(skill(name, f"Look after {word} number {step}."))
    elif kind == "replace":
        (path.parent / "SKILL.md.tmp").write_text(skill(name, f"Count {word}."), encoding="utf-8")
        os.replace(path.parent / "SKILL.md.tmp", path)
    elif kind == "same size":
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(f"Steps for {name}", f"Steps for {word}"), encoding="utf-8")
        later = path.stat().st_mtime_ns + 3_000_000_000
        os.utime(path, ns=(later, later))
    elif kind == "new skill":
        folder = repo / "skills" / f"{word}-{step}"
        folder.mkdir()
        (folder / "SKILL.md").write_text(skill(folder.name, f"All about {word}."), "utf-8")
        add_entry(repo, folder.name)
    elif kind == "remove" and len(names) > 3:
        shutil.rmtree(path.parent)
    else:
        os.utime(path)
    return word


@pytest.mark.parametrize("seed", [1, 2])
def test_kept_open_answers_equal_fresh_ones_through_random_changes(
    root,  # noqa: F811
    watching,
    seed,
    tmp_path,
):
    """Whatever changes between two calls, a kept-open search answers as a fresh search of a
    copy does (the copy has its own index: nothing the fresh search writes reaches the kept
    one), with the folder watch and by asking every file."""
    import random

    rng = random.Random(seed)
    age(root)  # the walk is trusted from the start, so only the checks under test decide
    live = Live(root, semantic=False, watch=watching)
    live.search("dock", EVERYWHERE, k=10, quality=None)
    for step in range(10):
        word = _change(root, rng, step)
        age(root)
        copy = tmp_path / f"copy-{step}"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".exobrain-cache"))
        for filters in (SKILL_ONLY, EVERYWHERE):
            for query in (word, "dock"):
                kept = live.search(query, filters, k=10, quality=None)
                fresh = Live(copy, semantic=False, watch=False).search(
                    query, filters, k=10, quality=None
                )
                assert [h.artifact.ref for h in kept.hits] == [
                    h.artifact.ref for h in fresh.hits
                ], (step, query, filters.everywhere)
