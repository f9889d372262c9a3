"""Real processes against one registry: concurrent writers lose nothing, a killed writer harms
nothing."""

import contextlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time

from click.testing import CliRunner

import exobrain.registry.editor as registry_edit
import exobrain.util.jsonfile as jsonfile
from tests.support.helpers import exobrain

ROUNDS = 20
FORK = multiprocessing.get_context("fork")


def sample(tmp_path, count):
    """groups/acme declares a0..a{n}, b0..b{n}; alice is connected and owns a house-style file."""
    names = [f"{p}{i}" for i in range(count) for p in "ab"]
    root = exobrain(
        tmp_path / "x",
        registries={
            "groups/acme": [{"name": n, "owner": "acme", "tier": "optional"} for n in names]
        },
        scopes=["groups/acme", "people/alice"],
        connection={"connected_scopes": ["people/alice"]},
        commit=False,
    )
    (root / "people/alice/skills.json").write_text(
        '{\n  "$schema": "../../skills.schema.json",\n  "skills": [\n'
        '    { "name": "keep", "from": "global", "tier": "off" }\n  ]\n}\n'
    )
    return root


def worker(root, prefix, rounds, start, inside, locked):
    """Promote {prefix}{i} each round, all processes released together by ``start``.

    Between reading and writing the file each writer sleeps 20 ms (widening the window a
    lost update needs) or, with ``inside``, waits on that barrier so both writers are inside
    the read-modify-write window at once; ``locked=False`` replaces the lock by nothing.
    """
    from exobrain.cli.promote import main

    real_write = jsonfile.atomic_write_text

    def slow_write(path, text, **options):
        if inside is not None:
            inside.wait(timeout=5)
        else:
            time.sleep(0.02)
        real_write(path, text, **options)

    jsonfile.atomic_write_text = slow_write
    if not locked:  # the orphan sweep trusts the lock, so it goes too
        registry_edit.exclusive = lambda path, timeout=0, root=None: contextlib.nullcontext()
        registry_edit.sweep_temp_files = lambda path: None
    failures = 0
    for i in range(rounds):
        start.wait(timeout=30)
        result = CliRunner().invoke(
            main, [f"{prefix}{i}", "--from", "groups/acme", "--to", "always", "--repo", str(root)]
        )
        failures += result.exit_code != 0
    os._exit(failures)


def race(root, rounds, *, locked, meet_inside):
    start = FORK.Barrier(2)
    inside = FORK.Barrier(2) if meet_inside else None
    procs = [
        FORK.Process(target=worker, args=(root, p, rounds, start, inside, locked)) for p in "ab"
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    return [proc.exitcode for proc in procs]


def overrides(root):
    return {
        e["name"] for e in json.loads((root / "people/alice/skills.json").read_text())["skills"]
    }


def test_two_processes_promoting_into_one_file_lose_no_entry(tmp_path):
    root = sample(tmp_path, ROUNDS)
    assert race(root, ROUNDS, locked=True, meet_inside=False) == [0, 0]
    assert overrides(root) == {"keep"} | {f"{p}{i}" for i in range(ROUNDS) for p in "ab"}
    assert sorted(os.listdir(root / "people/alice")) == ["AGENTS.md", "skills.json"]


def test_without_the_lock_the_same_race_loses_entries(tmp_path):
    """The control: it proves the race above really overlaps two read-modify-write cycles."""
    root = sample(tmp_path, 3)
    assert race(root, 3, locked=False, meet_inside=True) == [0, 0]
    assert len(overrides(root)) < 7  # each round, the second write drops the first's entry


KILL_BEFORE_RENAME = textwrap.dedent("""
    import os, signal, sys
    os.replace = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
    from exobrain.cli.promote import main
    main(sys.argv[1:])
""")


def test_a_writer_killed_before_the_rename_leaves_the_old_file(tmp_path):
    root = sample(tmp_path, 1)
    path = root / "people/alice/skills.json"
    original = path.read_bytes()
    args = ["a0", "--from", "groups/acme", "--to", "always", "--repo", str(root)]
    done = subprocess.run([sys.executable, "-c", KILL_BEFORE_RENAME, *args], capture_output=True)
    assert done.returncode == -signal.SIGKILL
    assert path.read_bytes() == original
    leftovers = sorted(os.listdir(path.parent))
    assert "skills.json.flock" in leftovers and any(
        n.startswith(".skills.json.") for n in leftovers
    )
    # the next writer is not blocked by the dead one, and cleans up after it
    done = subprocess.run(["skills-promote", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert overrides(root) == {"keep", "a0"}
    assert sorted(os.listdir(path.parent)) == ["AGENTS.md", "skills.json"]
