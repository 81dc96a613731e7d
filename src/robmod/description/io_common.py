"""Helpers shared by the file readers and writers (YAML, SYMORO .par, URDF)."""
from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..arguments import path_argument
from ..errors import FileFormatError, Location, RobmodError

#: a robot or tool name every format can hold
NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")
#: a symbol name (identifier)
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def sanitize_name(name: str) -> str:
    """``name`` with every character that :data:`NAME_RE` refuses replaced by '_'."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", name)


class FileContext:
    """The file being read, and the locations collected for :func:`validate`."""

    def __init__(self, filename: str):
        self.file = filename
        self.locations = {}

    def loc(self, line=None, frame=None, field=None) -> Location:
        return Location(file=self.file, line=line, frame=frame, field=field)

    def error(self, msg, line=None, frame=None, field=None) -> FileFormatError:
        return FileFormatError(msg, self.loc(line, frame, field))

    @contextmanager
    def located(self, line=None, frame=None, field=None):
        """Fill in the unknown location parts of a :class:`RobmodError` raised in the block."""
        loc = self.loc(line, frame, field)
        try:
            yield loc
        except RobmodError as e:
            raise e.at(loc) from None


def read_text(path, fallback_encoding: str | None = None) -> str:
    """The text of ``path`` (UTF-8, else ``fallback_encoding``); a FileFormatError if unreadable."""
    path = Path(path_argument(path))
    try:
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            if fallback_encoding is None:
                raise
            return path.read_text(encoding=fallback_encoding)
    except (OSError, UnicodeDecodeError) as e:
        raise FileFormatError(f"cannot read file: {e}", Location(file=str(path))) from None


def write_text_atomic(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file: never a half-written file."""
    path = Path(path_argument(path))
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    except OSError as e:
        raise FileFormatError(f"cannot write file: {e}", Location(file=str(path))) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileFormatError(f"cannot write file: {e}", Location(file=str(path))) from None


__all__ = []
