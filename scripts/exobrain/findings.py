"""Findings: what validators and loaders report, in one shape for text and ``--json`` output."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from exobrain.util.terminal import safe_text

ERROR = "error"
INFO = "info"
WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One problem or remark about one file (and, when known, one entry in it).

    ``bad_input`` marks problems with the file itself (unreadable, unparseable, against its
    schema): commands exit 2 for those, 1 for other errors.
    """

    level: str
    code: str
    file: str
    message: str
    entry: str | None = None
    line: int | None = None
    bad_input: bool = False

    def where(self) -> str:
        place = self.file + (f":{self.line}" if self.line else "")
        return f"{place} {self.entry}" if self.entry else place

    def render(self) -> str:
        """The finding as a line for a terminal: its file, entry and message may quote what
        a file holds, so they are shown through the one output filter."""
        return safe_text(f"{self.level.upper():7} {self.code}: {self.where()}: {self.message}")

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def from_error(
    code: str, rel: str, message: str, path: Path, *, level: str = ERROR, bad_input: bool = True
) -> Finding:
    """A finding (by default a bad-input error) from an error message of the form
    ``<path>[:line[:col]]: text``."""
    line = None
    prefix = str(path)
    if message.startswith(prefix):
        rest = message[len(prefix) :]
        match = re.match(r"^:(\d+)(?::\d+)?: ", rest)
        if match:
            line, rest = int(match.group(1)), rest[match.end() :]
        message = rest.lstrip(": ")
    return Finding(level, code, rel, message, line=line, bad_input=bad_input)
