"""Evolution: deprecate active skills whose signals stayed low over a window.

A skill is deprecated when, over the whole window (``--window`` days, default in
``signals/weights.json``):

1. its quality score stayed under ``sweep.quality_below`` — the score is recomputed from the
   ledgers as they stood at every ``sweep.sample_days`` step of the window (signals after a
   step do not count for it), and the highest must be under the threshold;
2. it was used fewer than ``sweep.usage_below`` times in the window;
3. it has been declared, unchanged, for at least the whole window (the committed versions of
   its registry, read as JSON whatever their layout: a new skill, or one just moved to
   ``active``, gets a full window first).

Only ``active`` declarations are considered (seed/ is left out). The write goes through the
lifecycle table (:mod:`exobrain.lifecycle`: active → deprecated) and the registry editor
(locked, schema-checked, style-preserving, atomic) and changes nothing but
``"lifecycle": "deprecated"``; a deprecated skill still resolves, flagged, and ranks lower.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from exobrain.errors import ExobrainError
from exobrain.paths import shown
from exobrain.registry.entries import Entry, Registry
from exobrain.signals.aggregate import Aggregate, Folder, aggregate, file_records
from exobrain.signals.lines import Record, read_ledger_text
from exobrain.signals.quality import DAY, Decay, Weights, quality
from exobrain.signals.timestamps import day_number, format_ts, ts_ms
from exobrain.signals.voters import repository_ledgers
from exobrain.util.repository import Repository

if TYPE_CHECKING:
    from exobrain.workspace import Workspace

#: Versions of a registry read per git call while looking for when an entry last changed.
_BATCH = 32


@dataclass
class Decision:
    """One low-signal skill the sweep looked at closely, and what it decided."""

    ref: str
    entry: Entry
    deprecate: bool
    reason: str
    quality_now: float
    uses_in_window: int
    peak_quality: float | None = None
    declared_since: float | None = None  # epoch seconds; None: not committed

    def as_json(self) -> dict[str, Any]:
        return {
            "skill": self.ref,
            "registry": self.entry.scope,
            "deprecate": self.deprecate,
            "reason": self.reason,
            "quality_now": round(self.quality_now, 6),
            "peak_quality": None if self.peak_quality is None else round(self.peak_quality, 6),
            "uses_in_window": self.uses_in_window,
            "declared_since": None
            if self.declared_since is None
            else format_ts(self.declared_since),
        }


def _ref(entry: Entry) -> str:
    from exobrain.refs import canonical

    return canonical(entry)


def plan_sweep(
    ws: Workspace, weights: Weights, now: float, window_days: float, agg: Aggregate | None = None
) -> list[Decision]:
    """Every active skill whose signals are low now, with the decision and its reason."""
    settings = weights["sweep"]
    threshold, minimum = settings["quality_below"], settings["usage_below"]
    start = now - window_days * DAY
    agg = agg or aggregate(ws)
    decay = Decay(now, weights.half_life_days)
    first_day = day_number(format_ts(start))
    low: list[tuple[str, Entry, float, int]] = []
    registries = {r.scope: r for r in ws.all_registries(include_seed=False)}
    for registry in registries.values():
        for entry in registry.entries:
            if entry.is_override or entry.lifecycle != "active":
                continue
            ref = _ref(entry)
            score = quality(agg, ref, weights, now, decay).score
            uses = sum(n for day, n in agg.usage.get(ref, {}).items() if day >= first_day)
            if score < threshold and uses < minimum:
                low.append((ref, entry, score, uses))
    since = declaration_times(ws.root, [registries[s] for s in {e.scope for _, e, _, _ in low}])
    old_enough = [
        item for item in low if (since.get((item[1].scope, item[1].index)) or now) <= start
    ]
    peaks = peak_quality(
        ws.root,
        repository_ledgers(ws).counted,
        {ref for ref, *_ in old_enough},
        weights,
        start,
        now,
        settings["sample_days"],
    )
    window = f"{window_days:g} days"
    decisions = []
    for ref, entry, score, uses in low:
        declared = since.get((entry.scope, entry.index))
        peak = peaks.get(ref)
        usage = f"{uses} use(s) in {window} (minimum {minimum:g})"
        if declared is None or declared > start:
            when = (
                "not committed yet" if declared is None else f"changed {format_ts(declared)[:10]}"
            )
            decisions.append(
                Decision(
                    ref,
                    entry,
                    False,
                    f"kept: declared less than {window} ago ({when})",
                    score,
                    uses,
                    None,
                    declared,
                )
            )
        elif peak is not None and peak >= threshold:
            decisions.append(
                Decision(
                    ref,
                    entry,
                    False,
                    f"kept: quality reached {peak:.3f} within {window} (threshold {threshold:g})",
                    score,
                    uses,
                    peak,
                    declared,
                )
            )
        else:
            decisions.append(
                Decision(
                    ref,
                    entry,
                    True,
                    f"quality stayed under {threshold:g} for "
                    f"{window} (peak {peak:.3f}, now {score:.3f}); {usage}",
                    score,
                    uses,
                    peak,
                    declared,
                )
            )
    return sorted(decisions, key=lambda d: (not d.deprecate, d.ref))


def peak_quality(
    root: Path,
    files: list[Path],
    refs: set[str],
    weights: Weights,
    start: float,
    now: float,
    step_days: float,
) -> dict[str, float]:
    """The highest score each skill had at the sample times ``start, start+step, …, now``,
    each computed only from the signals recorded up to that time in ``files`` (the ledgers
    that count)."""
    if not refs:
        return {}
    history: dict[str, list[Record]] = {ref: [] for ref in refs}
    problems: list[str] = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        text = read_ledger_text(path, rel, problems)
        for record in file_records(text, rel, problems, refs) if text is not None else []:
            history[record[1]].append(record)
    times = [start + k * step_days * DAY for k in range(int((now - start) / (step_days * DAY)) + 1)]
    times = [t for t in times if t < now] + [now]
    peaks = {}
    for ref, records in history.items():
        records.sort(key=lambda r: r[2])
        folder, position, peak = Folder(Aggregate()), 0, 0.0
        for moment in times if records else [now]:
            while position < len(records) and ts_ms(records[position][2]) <= moment * 1000:
                folder.add(records[position])
                position += 1
            peak = max(peak, quality(folder.finish(), ref, weights, moment).score)
        peaks[ref] = peak
    return peaks


def declaration_times(root: Path, registries: list[Registry]) -> dict[tuple[str, int], float]:
    """(scope, entry index) → when the entry got the content it has now (committer time).

    Read from the registry's committed versions, parsed, so the file's layout does not matter
    (several entries on one line, a reformatted file): walking ``git log`` of the file from
    the newest commit, the entry's time is that of the oldest commit in the unbroken run of
    versions where it reads as it does on disk. An entry that differs from the last commit
    (not committed yet) has no time; a registry git does not track gives none.
    """
    try:
        git = Repository(root)
    except ExobrainError:
        return {}
    found: dict[tuple[str, int], float] = {}
    for registry in registries:
        skills = registry.data.get("skills") if isinstance(registry.data, dict) else None
        if not isinstance(skills, list):
            continue
        rel = shown(registry.path, root)
        log = git.run("log", "--format=%H %ct", "--", rel, check=False).split()
        history = list(zip(log[0::2], map(float, log[1::2]), strict=True))
        now = {i: (_key(raw), raw) for i, raw in enumerate(skills) if _key(raw) is not None}
        since = _entry_times(git, rel, history, now)
        found.update({(registry.scope, i): t for i, t in since.items()})
    return found


def _key(raw: Any) -> tuple[str, str] | None:
    """Which declaration an entry is, across versions of one registry (None: an override)."""
    if not isinstance(raw, dict) or "from" in raw or not isinstance(raw.get("name"), str):
        return None
    return raw["name"], str(raw.get("owner", "")) if "source" in raw else ""


def _entry_times(
    git: Repository,
    rel: str,
    history: list[tuple[str, float]],
    now: dict[int, tuple[tuple[str, str] | None, Any]],
) -> dict[int, float]:
    """index → time for the entries of ``now``, walking ``history`` (newest first) a batch of
    versions at a time until every entry's run of equal versions has ended."""
    open_entries = dict(now)
    times: dict[int, float] = {}
    last: dict[int, float] = {}
    for start in range(0, len(history), _BATCH):
        batch = history[start : start + _BATCH]
        blobs = git.read({commit: f"{commit}:{rel}" for commit, _ in batch})
        for commit, moment in batch:
            version = _declarations(blobs.get(commit))
            for index, (key, raw) in list(open_entries.items()):
                if version.get(key) == raw:
                    last[index] = moment
                    continue
                if index in last:
                    times[index] = last[index]
                del open_entries[index]  # changed here (or never committed as it is now)
            if not open_entries:
                return times
    times.update({i: last[i] for i in open_entries if i in last})
    return times


def _declarations(blob: bytes | None) -> dict[tuple[str, str] | None, Any]:
    """The declarations of one committed version of a registry, by :func:`_key`."""
    try:
        data = json.loads(blob or b"")
    except ValueError:
        return {}
    skills = data.get("skills") if isinstance(data, dict) else None
    found: dict[tuple[str, str] | None, Any] = {}
    for raw in skills if isinstance(skills, list) else []:
        key = _key(raw)
        if key is not None:
            found.setdefault(key, raw)
    return found


def apply_sweep(root: Path, decisions: list[Decision]) -> list[str]:
    """Write ``lifecycle: deprecated`` for every decision to deprecate; returns the registry
    files changed. Under each registry's lock the entry is re-read and moved only if the
    lifecycle table still allows it (someone may have archived it since the plan)."""
    from exobrain.model import transition_problem
    from exobrain.registry.editor import edit_registry, with_key

    changed = []
    for scope in sorted({d.entry.scope for d in decisions if d.deprecate}):
        with edit_registry(root, scope, create=False) as edit:
            for decision in (d for d in decisions if d.deprecate and d.entry.scope == scope):
                identity: dict[str, Any] = {"name": decision.entry.name, "from": None}
                if decision.entry.source:
                    identity["owner"] = decision.entry.owner
                for index in edit.find(**identity):
                    current = edit.entries[index].get("lifecycle", "active")
                    if (
                        current != "deprecated"
                        and transition_problem(current, "deprecated") is None
                    ):
                        edit.entries[index] = with_key(
                            edit.entries[index], "lifecycle", "deprecated"
                        )
        if edit.written:
            changed.append(edit.rel)
    return changed
