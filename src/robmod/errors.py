"""Errors raised by robmod.

Every problem with a robot description, a file or a value is reported as a
:class:`RobmodError` that names *where* the problem is (file, line, frame,
field) and *what* is wrong, so that the command line can print one clear line
instead of a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Location:
    """Where a value came from: file, line (1-based), frame/link index, field."""

    file: str | None = None
    line: int | None = None
    frame: int | None = None
    field: str | None = None

    def merged(self, other: "Location | None") -> "Location":
        """Fill the unknown parts of ``self`` from ``other``."""
        if other is None:
            return self
        return Location(
            file=self.file if self.file is not None else other.file,
            line=self.line if self.line is not None else other.line,
            frame=self.frame if self.frame is not None else other.frame,
            field=self.field if self.field is not None else other.field,
        )

    def __str__(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
        if self.frame is not None:
            parts.append(f"frame {self.frame}")
        if self.field is not None:
            parts.append(f"field {self.field}")
        return ", ".join(parts)


class RobmodError(ValueError):
    """A user-facing error: bad file, bad value, unsupported request."""

    def __init__(self, message: str, location: Location | None = None, **where):
        loc = location or Location()
        if where:
            loc = replace(loc, **{k: v for k, v in where.items() if v is not None})
        self.message = message
        self.location = loc
        super().__init__(self._text())

    def _text(self) -> str:
        where = str(self.location)
        return f"{where}: {self.message}" if where else self.message

    def at(self, location: Location | None = None, **where) -> "RobmodError":
        """Return a copy whose unknown location parts are filled in."""
        loc = self.location.merged(location)
        if where:
            loc = loc.merged(Location(**where))
        return type(self)(self.message, loc)


class RobmodWarning(UserWarning):
    """A problem robmod accepts and reports: the text names where it is, like the errors'
    (e.g. a URDF file's physically impossible inertia, kept as the file gives it)."""


class DescriptionError(RobmodError):
    """The robot description is inconsistent or a value is invalid."""


class FileFormatError(RobmodError):
    """A file cannot be read: syntax, unknown key, wrong type."""


class ExpressionError(RobmodError):
    """An expression in a file is not allowed by the restricted parser."""


class ArgumentError(RobmodError, TypeError):
    """A bad argument of a function: a value, type or shape it does not take, or a keyword it
    does not have (the message names the argument and what is expected, and the closest
    keyword for a misspelt one).  Also a :class:`TypeError`, the error Python gives for a
    call it cannot bind, so that code written for that one keeps working."""


class UnknownNameError(ArgumentError, KeyError):
    """A name that does not exist where it is looked up (a parameter of a base, a standard
    parameter's name): an :class:`ArgumentError` naming what exists, and a :class:`KeyError`,
    the error of a mapping's missing key."""

    __str__ = Exception.__str__     # the message as written (KeyError would show its repr)


__all__ = ["RobmodError", "DescriptionError", "FileFormatError", "ExpressionError",
           "ArgumentError", "UnknownNameError", "Location", "RobmodWarning"]
