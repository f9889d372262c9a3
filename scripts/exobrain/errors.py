"""The one domain error family, turned into a message and an exit code at the CLI edge.

Exit codes follow the design: 0 fine, 1 findings or a failed operation, 2 bad usage or bad
input files. Library code raises; only ``exobrain.cli`` decides how to print.
"""

from __future__ import annotations


class ExobrainError(Exception):
    """Base class: a message a person can act on, plus the exit code it maps to."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\n  fix: {self.hint}"
        return self.message


class UsageError(ExobrainError):
    """The command line asked for something impossible (unknown agent, bad flag combination)."""

    exit_code = 2


class InputFileError(ExobrainError):
    """A file the user owns cannot be read, parsed or fails its schema."""

    exit_code = 2


class OperationFailed(ExobrainError):
    """A well-formed request that could not be carried out (a fetch failed, a lock timed out)."""

    exit_code = 1


def denied(exc: PermissionError) -> InputFileError:
    """A ``PermissionError`` no reader named itself, as the bad input it is: the path, and
    how to look at its permissions (the command line exits 2, the MCP server answers with
    it; never a traceback)."""
    where = exc.filename if exc.filename is not None else "a file or folder"
    return InputFileError(
        f"{where}: {exc.strerror or 'permission denied'}",
        hint=f"check the permissions of {where} and of the folders above it (ls -ld)",
    )
