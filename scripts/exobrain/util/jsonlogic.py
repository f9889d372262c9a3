"""A small JSONLogic subset for ``exobrain list --filter`` and sort keys for ``--sort``.

Operators: ``==``, ``!=``, ``<``, ``>``, ``<=``, ``>=``, ``in``, ``and``, ``or``, ``!`` and
``var``. ``var`` reads a dotted path of the artifact row, such as ``content.tags`` (the
frontmatter) or ``lifecycle``; a missing path is null. Comparisons are strict about types
(``1 == "1"`` is false, ``"a" < 1`` is false) so a filter never matches by accident;
``in`` tests membership in a list or a substring of a string. A rule is checked in full
before anything is read, so a typo is reported as a usage error, not as an empty result.
"""

from __future__ import annotations

import json
from typing import Any

from exobrain.errors import UsageError
from exobrain.util import boundedjson
from exobrain.util.versions import sort_key

_BINARY = ("==", "!=", "<", ">", "<=", ">=", "in")
_VARIADIC = ("and", "or")
OPERATORS = (*_BINARY, *_VARIADIC, "!", "var")
_HINT = (
    'e.g. --filter \'{"in": ["chemistry", {"var": "content.tags"}]}\' '
    "(operators: " + ", ".join(OPERATORS) + ")"
)


def parse_rule(text: str) -> Any:
    """Parse and check a rule given on the command line."""
    try:
        rule = boundedjson.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"--filter is not JSON: {exc.msg} at column {exc.colno}", hint=_HINT
        ) from exc
    except boundedjson.JsonLimitError as exc:
        raise UsageError(f"--filter refused: {exc}", hint=_HINT) from exc
    check(rule)
    return rule


def check(rule: Any, where: str = "filter") -> None:
    """Refuse unknown operators and wrong argument counts, naming where they are."""
    if isinstance(rule, list):
        for index, item in enumerate(rule):
            check(item, f"{where}[{index}]")
        return
    if not isinstance(rule, dict):
        return  # a literal
    if len(rule) != 1:
        raise UsageError(
            f"{where}: an operation is an object with exactly one operator, not {sorted(rule)}",
            hint=_HINT,
        )
    operator, args = next(iter(rule.items()))
    if operator not in OPERATORS:
        raise UsageError(f"{where}: unknown operator {operator!r}", hint=_HINT)
    if operator == "var":
        path = args[0] if isinstance(args, list) and args else args
        if not isinstance(path, str) or (isinstance(args, list) and len(args) > 2):
            raise UsageError(f'{where}: var takes a dotted path such as "content.tags"', hint=_HINT)
        return
    values = args if isinstance(args, list) else [args]
    if operator in _BINARY and len(values) != 2:
        raise UsageError(f"{where}: {operator} takes two arguments, got {len(values)}", hint=_HINT)
    if operator == "!" and len(values) != 1:
        raise UsageError(f"{where}: ! takes one argument, got {len(values)}", hint=_HINT)
    if operator in _VARIADIC and not values:
        raise UsageError(f"{where}: {operator} needs at least one argument", hint=_HINT)
    for index, item in enumerate(values):
        check(item, f"{where}.{operator}[{index}]")


def variables(rule: Any) -> list[str]:
    """Every dotted path a (checked) rule reads with ``var``, in order."""
    if isinstance(rule, list):
        return [path for item in rule for path in variables(item)]
    if not isinstance(rule, dict) or len(rule) != 1:
        return []
    operator, args = next(iter(rule.items()))
    if operator == "var":
        path = args[0] if isinstance(args, list) and args else args
        return [path] if isinstance(path, str) else []
    return variables(args)


def lookup(row: Any, path: str) -> Any:
    """The value at a dotted path (list items by number), None when any step is missing."""
    value = row
    for part in path.split(".") if path else []:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def evaluate(rule: Any, row: dict[str, Any]) -> Any:
    """The value of a (checked) rule for one row."""
    if isinstance(rule, list):
        return [evaluate(item, row) for item in rule]
    if not isinstance(rule, dict):
        return rule
    operator, args = next(iter(rule.items()))
    if operator == "var":
        path, default = (
            (args[0], args[1] if len(args) > 1 else None)
            if isinstance(args, list)
            else (args, None)
        )
        found = lookup(row, path)
        return default if found is None else found
    values = args if isinstance(args, list) else [args]
    if operator == "and":
        result: Any = True
        for item in values:
            result = evaluate(item, row)
            if not truthy(result):
                return result
        return result
    if operator == "or":
        result = False
        for item in values:
            result = evaluate(item, row)
            if truthy(result):
                return result
        return result
    if operator == "!":
        return not truthy(evaluate(values[0], row))
    left, right = (evaluate(v, row) for v in values)
    if operator == "==":
        return _same(left, right)
    if operator == "!=":
        return not _same(left, right)
    if operator == "in":
        if isinstance(right, list):
            return any(_same(left, item) for item in right)
        return isinstance(right, str) and isinstance(left, str) and left in right
    return _compare(operator, left, right)


def truthy(value: Any) -> bool:
    """JSONLogic truthiness: empty lists and strings, 0 and null are false."""
    return bool(value) and value != [] and value is not None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(left: Any, right: Any) -> bool:
    if _is_number(left) and _is_number(right):
        return float(left) == float(right)
    if isinstance(left, str) and isinstance(right, str):  # enum members are strings too
        return str(left) == str(right)
    return type(left) is type(right) and left == right


def _compare(operator: str, left: Any, right: Any) -> bool:
    comparable = (_is_number(left) and _is_number(right)) or (
        isinstance(left, str) and isinstance(right, str)
    )
    if not comparable:
        return False
    results: dict[str, bool] = {
        "<": left < right,
        ">": left > right,
        "<=": left <= right,
        ">=": left >= right,
    }
    return results[operator]


def parse_sort(specs: tuple[str, ...]) -> list[tuple[str, bool]]:
    """``content.version:desc`` → [("content.version", True)] (``:asc`` is the default)."""
    keys = []
    for spec in specs:
        path, _, direction = spec.partition(":")
        if not path or direction not in ("", "asc", "desc"):
            raise UsageError(f"--sort {spec!r}: write FIELD[:asc|:desc], e.g. content.version:desc")
        keys.append((path, direction == "desc"))
    return keys


def sort_rows(rows: list[dict[str, Any]], keys: list[tuple[str, bool]]) -> list[dict[str, Any]]:
    """Sort by each key in turn (missing values last whatever the direction), then by ref."""
    ordered = sorted(rows, key=lambda r: str(r.get("ref")))
    for path, descending in reversed(keys):
        present = [r for r in ordered if lookup(r, path) is not None]
        missing = [r for r in ordered if lookup(r, path) is None]
        present.sort(key=lambda r: _sort_value(lookup(r, path)), reverse=descending)
        ordered = present + missing
    return ordered


def _sort_value(value: Any) -> tuple[int, tuple[float, ...], str]:
    """Numbers, then strings (semantic versions by their numbers: 1.10.0 after 1.9.0), then
    anything else by its JSON text."""
    if _is_number(value):
        return (0, (float(value),), "")
    if isinstance(value, str):
        return (1, sort_key(value) or (), value)
    return (2, (), json.dumps(value, sort_keys=True, default=str))
