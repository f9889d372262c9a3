"""crons.json: scheduled jobs, their cron expressions, and crontab lines to install them.

``crons.json`` at the repository root holds ``{"jobs": [{name, schedule, command, skill?}]}``.
A job that names a skill is that skill's proof of reach for ``authoring-review`` (a skill a
scheduled job drives pays for itself by running). The file's shape is checked against
``schemas/crons.schema.json``; the schedule's five fields are checked here in Python, because a
regular expression cannot say "day 32 does not exist" or "a range must go upwards".

The cron dialect accepted is the common core of Vixie cron and cronie: ``*``, numbers,
ranges ``a-b``, steps after ``*`` or a range (``*/15``, ``9-17/2``), comma lists, and
three-letter English names for months and weekdays (``jan``, ``mon-fri``); weekday 7 is Sunday
like 0. Nicknames such as ``@daily`` are refused so every job reads the same everywhere.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from exobrain.errors import InputFileError, UsageError
from exobrain.findings import ERROR, Finding, from_error
from exobrain.model import Identity
from exobrain.paths import CONSOLE_SCRIPTS, console_script, packaged
from exobrain.refs import parse_ref
from exobrain.util.fileio import parse_json, read_text
from exobrain.util.jsonstyle import element_lines
from exobrain.util.terminal import unsafe_in

if TYPE_CHECKING:
    from exobrain.workspace import Workspace

CRONS_FILE = "crons.json"
SCHEMA_FILE = "crons.schema.json"
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


@dataclass(frozen=True)
class CronField:
    """One of the five positions of a cron expression: its bounds and optional names."""

    label: str
    low: int
    high: int
    names: tuple[str, ...] = ()
    name_base: int = 0  # the number of the first name (jan = 1, sun = 0)


FIELDS = (
    CronField("minute", 0, 59),
    CronField("hour", 0, 23),
    CronField("day of month", 1, 31),
    CronField("month", 1, 12, MONTHS, 1),
    CronField("day of week", 0, 7, DAYS, 0),
)
_ITEM = re.compile(r"^(?P<range>\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:/(?P<step>[0-9]+))?\Z")


def _value(text: str, spec: CronField) -> int:
    if text.isdigit():
        number = int(text)
        if not spec.low <= number <= spec.high:
            raise ValueError(f"{spec.label} {number} is outside {spec.low}-{spec.high}")
        return number
    lowered = text.lower()
    if spec.names and lowered in spec.names:
        return spec.names.index(lowered) + spec.name_base
    if spec.names:
        raise ValueError(
            f"{spec.label} {text!r} is neither a number nor one of {', '.join(spec.names)}"
        )
    raise ValueError(f"{spec.label} {text!r} is not a number")


def parse_field(text: str, spec: CronField) -> frozenset[int]:
    """The values one field selects; ValueError says which part is wrong and why."""
    values: set[int] = set()
    for item in text.split(","):
        match = _ITEM.match(item)
        if not match:
            raise ValueError(
                f"{spec.label} {item!r} is not a value, range, list or step "
                f"(e.g. 5, 1-5, 1,15 or */10)"
            )
        part, step_text = match.group("range"), match.group("step")
        if part == "*":
            low, high = spec.low, spec.high
        elif "-" in part:
            start, end = part.split("-")
            low, high = _value(start, spec), _value(end, spec)
            if low > high:
                raise ValueError(
                    f"{spec.label} range {part!r} goes backwards; write it low-high or as a list"
                )
        else:
            if step_text is not None:
                raise ValueError(
                    f"{spec.label} {item!r}: a step needs '*' or a range before it "
                    f"(e.g. {part}-{spec.high}/{step_text})"
                )
            low = high = _value(part, spec)
        step = int(step_text) if step_text is not None else 1
        if step < 1 or step > spec.high - spec.low + 1:
            raise ValueError(
                f"{spec.label} step {step} must be between 1 and {spec.high - spec.low + 1}"
            )
        values.update(range(low, high + 1, step))
    if spec.label == "day of week" and 7 in values:
        values = (values - {7}) | {0}
    return frozenset(values)


def parse_schedule(expression: str) -> tuple[frozenset[int], ...]:
    """The five value sets of a cron expression (minute, hour, day, month, weekday)."""
    fields = expression.split()
    if len(fields) != len(FIELDS):
        hint = (
            " (nicknames such as @daily are not accepted: write 0 0 * * *)"
            if expression.strip().startswith("@")
            else ""
        )
        raise ValueError(
            f"expected 5 fields (minute hour day-of-month month day-of-week), "
            f"got {len(fields)}{hint}"
        )
    return tuple(parse_field(text, spec) for text, spec in zip(fields, FIELDS, strict=False))


def schedule_problem(expression: str) -> str | None:
    try:
        parse_schedule(expression)
    except ValueError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class CronJob:
    """One valid job of crons.json."""

    name: str
    schedule: str
    command: str
    skill: str | None
    index: int

    def names_skill(self, name: str, home: str) -> bool:
        """True when the job's ``skill`` is ``name`` (any home) or ``name@home``."""
        if self.skill is None:
            return False
        ref = parse_ref(self.skill)
        return ref.name == name and ref.home in (None, home)


@dataclass
class CronFile:
    """crons.json as read: its valid jobs and a (job index or None, message) per problem."""

    path: Path
    jobs: list[CronJob]
    problems: list[tuple[int | None, str]]
    data: Any = None
    text: str = ""

    def line_of(self, index: int | None) -> int | None:
        if index is None:
            return None
        lines = element_lines(self.text, "jobs")
        return lines[index] if index < len(lines) else None

    def label(self, index: int | None) -> str | None:
        """``#<index> <job name>`` for findings (None for file-level problems)."""
        if index is None:
            return None
        raw = self.data["jobs"][index]
        return f"#{index} {raw.get('name')}" if isinstance(raw, dict) else f"#{index}"


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    schema = json.loads(packaged(SCHEMA_FILE).read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


def check_crons(data: Any) -> list[tuple[int | None, str]]:
    """Every problem in parsed crons.json data: schema violations, then schedules, then names."""
    problems: list[tuple[int | None, str]] = []
    for error in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.path))):
        path = list(error.absolute_path)
        index = path[1] if len(path) > 1 and path[0] == "jobs" else None
        rule = error.schema.get("description") if isinstance(error.schema, dict) else None
        where = ".".join(str(p) for p in path[2:])
        message = rule or error.message
        problems.append((index, f"{where}: {message}" if where else message))
    jobs = data.get("jobs") if isinstance(data, dict) else None
    flagged = {index for index, _ in problems}
    seen: dict[str, int] = {}
    for index, raw in enumerate(jobs if isinstance(jobs, list) else []):
        if not isinstance(raw, dict):
            continue
        if isinstance(raw.get("schedule"), str) and len(raw["schedule"].split()) == 5:
            problem = schedule_problem(raw["schedule"])
            if problem:
                problems.append((index, f"schedule {raw['schedule']!r}: {problem}"))
        skill = raw.get("skill")
        if isinstance(skill, str) and index not in flagged:
            try:
                parse_ref(skill)
            except UsageError as exc:
                problems.append((index, f"skill: {exc.message}"))
        name = raw.get("name")
        if isinstance(name, str) and name in seen:
            problems.append(
                (
                    index,
                    f"job name {name!r} is already used by job #{seen[name]}; "
                    f"give each job its own name",
                )
            )
        elif isinstance(name, str):
            seen[name] = index
    return problems


def parse_crons(text: str, path: Path) -> CronFile:
    """Parse crons.json text; jobs with problems are left out of ``jobs`` and reported."""
    data = parse_json(text, path)
    problems = check_crons(data)
    if any(index is None for index, _ in problems):
        return CronFile(path, [], problems, data, text)
    bad = {index for index, _ in problems}
    jobs = [
        CronJob(raw["name"], raw["schedule"], raw["command"], raw.get("skill"), index)
        for index, raw in enumerate(data["jobs"])
        if index not in bad
    ]
    return CronFile(path, jobs, problems, data, text)


def load_crons(root: Path) -> CronFile | None:
    """The repository's crons.json, or None when there is none (InputFileError if unreadable)."""
    path = root / CRONS_FILE
    if not path.exists() and not path.is_symlink():
        return None
    return parse_crons(read_text(path), path)


def crons_findings(ws: Workspace) -> list[Finding]:
    """skills-validate's findings about crons.json (none when the file does not exist)."""
    try:
        crons = load_crons(ws.root)
    except InputFileError as exc:
        return [from_error("crons-json", CRONS_FILE, exc.message, ws.root / CRONS_FILE)]
    if crons is None:
        return []
    found = [
        Finding(
            ERROR,
            "crons-schema",
            CRONS_FILE,
            message,
            entry=crons.label(index),
            line=crons.line_of(index),
            bad_input=True,
        )
        for index, message in crons.problems
    ]
    known = _known_skills(ws) if any(job.skill for job in crons.jobs) else set()
    for job in crons.jobs:
        if job.skill is not None and not _skill_exists(job.skill, known):
            found.append(
                Finding(
                    ERROR,
                    "crons-unknown-skill",
                    CRONS_FILE,
                    f"job names skill {job.skill!r}, which no skills.json declares "
                    f"and no skills/ folder holds; fix the name or drop 'skill'",
                    entry=f"#{job.index} {job.name}",
                    line=crons.line_of(job.index),
                )
            )
    return found


def _known_skills(ws: Workspace) -> set[Identity]:
    """Every declared skill and every in-tree skill folder holding a SKILL.md (for a scope a
    sparse checkout leaves out, the folders git's tree holds: one outside the cone is not
    unknown)."""
    from exobrain.paths import skill_dir

    known = {e.identity for r in ws.all_registries() for e in r.entries if not e.is_override}
    for scope in ws.scan().scopes:
        if ws.sparse.scope_left_out(scope.path):
            known.update(Identity(scope.path, n) for n in ws.sparse.committed_skills(scope.path))
            continue
        folder = skill_dir(ws.root, scope.path, "x").parent
        if folder.is_dir():
            known.update(
                Identity(scope.path, item.name)
                for item in folder.iterdir()
                if (item / "SKILL.md").is_file()
            )
    return known


def _skill_exists(text: str, known: set[Identity]) -> bool:
    ref = parse_ref(text)
    return any(k.name == ref.name and ref.home in (None, k.ref_home) for k in known)


def crontab_lines(root: Path, jobs: list[CronJob]) -> list[str]:
    """Crontab lines that run each job from the repository root, with absolute paths: cron
    runs commands with a bare ``PATH`` (``/usr/bin:/bin``), where a ``pip install``-ed
    console script is not found. A job whose command starts with one of the toolkit's
    scripts names it by its absolute path, and the folder of those scripts leads ``PATH`` for
    whatever the command runs next.

    ``%`` is special in crontab (it ends the command), so it is escaped as ``\\%``. A job
    whose command holds a character a terminal acts on (ESC, another control, a bidi control;
    its name and skill cannot, by the schema) is refused (:class:`UsageError`): escaped, it
    would no longer be the command crontab runs; raw, it would reach the terminal.
    """
    for job in jobs:
        found = unsafe_in(job.command, lines=True)
        if found is not None:
            raise UsageError(
                f"{CRONS_FILE} #{job.index} {job.name}: the command holds {found}, a character "
                f"a terminal acts on; no crontab lines were printed",
                hint=f"remove it from the command of job {job.name} in {CRONS_FILE}",
            )
    scripts = Path(console_script("exobrain")).parent
    lines = [
        f"# exobrain jobs from {root / CRONS_FILE}",
        "# install: (crontab -l 2>/dev/null; exobrain crons --crontab) | crontab -",
    ]
    for job in jobs:
        about = f" (skill {job.skill})" if job.skill else ""
        first, _, rest = job.command.strip().partition(" ")
        if first in CONSOLE_SCRIPTS:
            first = shlex.quote(console_script(first))
        command = (
            f'cd {shlex.quote(str(root))} && export PATH={shlex.quote(str(scripts))}:"$PATH" '
            f"&& {' '.join(filter(None, (first, rest)))}"
        ).replace("%", "\\%")
        lines += [f"# {job.name}{about}", f"{' '.join(job.schedule.split())} {command}"]
    return lines
