"""Reading and writing robot files in any supported format, chosen by extension."""
from __future__ import annotations

from pathlib import Path

from ..errors import ArgumentError, FileFormatError, Location
from ..arguments import keyword_options, path_argument, robot_argument
from .io_common import write_text_atomic

_FORMATS = {".yaml": "yaml", ".yml": "yaml", ".par": "par", ".urdf": "urdf"}


def _format_of(path) -> str:
    ext = Path(path_argument(path)).suffix.lower()
    if ext not in _FORMATS:
        raise FileFormatError(
            f"unknown file type {ext or '(none)'!r}; use one of {', '.join(sorted(_FORMATS))}",
            Location(file=str(path)))
    return _FORMATS[ext]


@keyword_options()
def read_robot(path, *, fmt: str | None = None, base: str | None = None,
               inertia_check: str | None = None):
    """Read a robot from a YAML, SYMORO .par or URDF file.

    ``base``: the base kind, ``"fixed"``, ``"mobile"`` or ``"floating"`` (None: the file's;
    a URDF file is read with a fixed base unless told, as Pinocchio's ``buildModelFromUrdf``
    takes its root joint: ``read_robot(path, base="floating")``, or unless a floating joint
    attaches its robot to its root link).
    ``inertia_check``: what to do with a physically impossible inertia, "error" or "warn"
    (keep it, with a :class:`~robmod.errors.RobmodWarning`); default: "warn" for URDF files
    (CAD exports often carry such values), "error" for robmod's YAML and SYMORO's .par.
    """
    from .base import check_kind

    fmt = fmt or _format_of(path)
    if base is not None:
        check_kind(base, "argument base")
    if fmt == "urdf":
        from .io_urdf import read_urdf

        return read_urdf(path, base=base, inertia_check=inertia_check or "warn")
    if fmt == "yaml":
        from .io_yaml import read_yaml

        robot = read_yaml(path, inertia_check=inertia_check or "error")
    elif fmt == "par":
        from .io_par import read_par

        robot = read_par(path, inertia_check=inertia_check or "error")
    else:
        raise FileFormatError(f"unknown format {fmt!r}", Location(file=str(path)))
    return robot if base is None or base == robot.base_kind else robot.with_base(base)

def dumps_robot(robot, fmt: str) -> str:
    """The text of ``robot`` in the format ``fmt`` ("yaml", "par", "urdf")."""
    robot_argument(robot)
    if not isinstance(fmt, str):
        raise ArgumentError(f"fmt must be one of 'yaml', 'par', 'urdf', got {fmt!r}")
    if robot.mimic and fmt in ("par", "urdf"):
        raise FileFormatError(f"robot {robot.name!r} has mimic joints, which robmod writes only "
                              "in its YAML format (.yaml) so far")
    if fmt == "yaml":
        from .io_yaml import dumps_yaml

        return dumps_yaml(robot)
    if fmt == "par":
        from .io_par import dumps_par

        return dumps_par(robot)
    if fmt == "urdf":
        from .io_urdf import dumps_urdf

        return dumps_urdf(robot)
    raise FileFormatError(f"unknown format {fmt!r}")


@keyword_options()
def write_robot(robot, path, *, fmt: str | None = None) -> None:
    """Write ``robot`` to ``path`` in the format its extension names (all-or-nothing)."""
    fmt = fmt or _format_of(path)
    write_text_atomic(path, dumps_robot(robot, fmt))


__all__ = ["read_robot", "write_robot", "dumps_robot"]
