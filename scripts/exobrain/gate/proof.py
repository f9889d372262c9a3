"""What counts as proof that a shared skill earns its reach, judged by name *and* content.

A file in the skill's own folder is proof when it is one of these and holds what it claims:

* a test — named ``test_*``, ``*_test.*`` or ``*.test.*`` in any language (``test_tidy.py``,
  ``test_tidy.sh``, ``tidy_test.go``, ``tidy.test.ts``), or any file under a ``tests/`` folder
  — that is not empty and not a document (``test_selection_guide.md`` is prose about tests);
* an eval — a ``.json`` file under an ``evals/`` folder, or ``*.eval.json`` — that parses as
  JSON and is not empty;
* an A/B result — ``ab-results.json`` in the shape the skill-authoring skill documents
  (``{"runs": [{"prompt": …, "winner": "with"|"without"|"tie"}, …], "summary": {…}}``) with at
  least one run, its ``summary`` (when present) agreeing with the runs.

A job in ``crons.json`` naming the skill is proof too (the gate checks that itself). Anything
else is not proof, and :func:`judge` says why: an empty test, an eval that does not parse, an
``ab-results.json`` of another shape, or a name that only looks like proof (``latest.txt``
holds "test" but is no test). Pure: contents come from git blobs or the disk, as the caller has.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

TEST, EVAL, AB = "test", "eval", "A/B result"
AB_FILE = "ab-results.json"
WINNERS = ("with", "without", "tie")
#: The largest proof file read: proof is small; a bigger file is judged by its name only.
MAX_PROOF_BYTES = 1 << 20

PROOF_RULES = (
    "a test: test_*, *_test.*, *.test.* (any language) or a file under tests/, not empty and "
    "not a document (.md, .txt, …)",
    "an eval: evals/*.json or <case>.eval.json that parses as JSON",
    f"an A/B result: {AB_FILE} with at least one run "
    '({"runs": [{"prompt": …, "winner": "with"|"without"|"tie"}], "summary": {…}})',
)


@dataclass(frozen=True)
class Verdict:
    """One file of a skill folder as proof: what it claims to be and whether it counts."""

    path: str  # inside the skill folder
    kind: str | None  # TEST, EVAL, AB, or None for a name that only looks like proof
    counts: bool
    why: str = ""  # why it does not count

    def describe(self) -> str:
        return f"{self.path}: {self.why}"


#: Prose and page formats: a document named like a test (``test_selection_guide.md``, a
#: ``tests/README.md``) describes tests, it runs none.
DOCUMENT_SUFFIXES = frozenset(
    {".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".html", ".htm"}
    | {".pdf", ".doc", ".docx", ".odt", ".rtf", ".tex"}
)


def is_document(inside: str) -> bool:
    """Whether the file is prose by its suffix (see :data:`DOCUMENT_SUFFIXES`)."""
    return PurePosixPath(inside).suffix.lower() in DOCUMENT_SUFFIXES


def kind_of(inside: str) -> str | None:
    """What a path inside a skill folder claims to be by its name alone (a document is never
    a test, whatever its name)."""
    kind = _named(inside)
    return None if kind == TEST and is_document(inside) else kind


def _named(inside: str) -> str | None:
    """What the name says, documents included."""
    path = PurePosixPath(inside)
    name, folders = path.name, path.parts[:-1]
    if name == AB_FILE:
        return AB
    if name.endswith(".eval.json") or ("evals" in folders and name.endswith(".json")):
        return EVAL
    if "tests" in folders:
        return TEST
    stem = name.split(".", 1)[0]
    if (stem.startswith("test_") and len(stem) > 5) or (stem.endswith("_test") and "." in name):
        return TEST
    if len(name.split(".")) > 2 and "test" in name.split(".")[1:-1]:
        return TEST
    return None


def looks_like_proof(inside: str) -> bool:
    """A path worth judging: proof by its name, or a name that someone may take for proof."""
    lowered = inside.lower()
    return kind_of(inside) is not None or any(
        word in lowered for word in ("test", "eval", "ab-result")
    )


def judge(inside: str, content: bytes | None) -> Verdict:
    """Whether the file at ``inside`` (its ``content``; None when it was not read) is proof."""
    kind = kind_of(inside)
    if kind is None and _named(inside) == TEST:
        return Verdict(
            inside,
            None,
            False,
            "a document, not a test: proof is a test that runs (test_*.py, *_test.sh, a "
            "tests/ script), an eval or an A/B result",
        )
    if kind is None:
        return Verdict(
            inside,
            None,
            False,
            "the name is not a test, eval or A/B result (test_*, *_test.*, *.test.*, "
            f"tests/…, evals/*.json, *.eval.json, {AB_FILE})",
        )
    if content is None:
        return Verdict(inside, kind, True)
    if kind == TEST:
        if not content.strip():
            return Verdict(inside, kind, False, "an empty test proves nothing")
        return Verdict(inside, kind, True)
    try:
        data = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return Verdict(inside, kind, False, f"does not parse as JSON ({exc})")
    if kind == EVAL:
        if data in ({}, [], None, ""):
            return Verdict(inside, kind, False, "an empty eval proves nothing")
        return Verdict(inside, kind, True)
    problem = ab_shape_problem(data)
    return Verdict(inside, kind, problem is None, problem or "")


def ab_shape_problem(data: Any) -> str | None:
    """Why ``data`` is not an ``ab-results.json`` as documented, or None."""
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, list):
        return 'not the documented shape: expected {"runs": [...], "summary": {...}}'
    if not runs:
        return "no runs recorded yet (record one with skill-authoring's scripts/ab_record.py)"
    for index, run in enumerate(runs):
        if not (
            isinstance(run, dict)
            and isinstance(run.get("prompt"), str)
            and run["prompt"].strip()
            and run.get("winner") in WINNERS
        ):
            return f'runs[{index}] needs a "prompt" and a "winner" of with, without or tie'
    summary = data.get("summary")
    if summary is not None:
        counts = {w: sum(1 for r in runs if r["winner"] == w) for w in WINNERS}
        expected = {"runs": len(runs), **counts}
        if not isinstance(summary, dict) or any(summary.get(k) != v for k, v in expected.items()):
            return f"summary does not agree with the runs (they give {expected})"
    return None


def judge_folder(contents: dict[str, bytes | None]) -> list[Verdict]:
    """Every file of a skill folder that is or looks like proof (path inside → content)."""
    return [judge(inside, content) for inside, content in sorted(contents.items())]
