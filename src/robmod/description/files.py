"""Reading and writing robot files in any supported format, chosen by extension."""
from __future__ import annotations

from pathlib import Path

from ..errors import ArgumentError, FileFormatError, Location
from ..arguments import keyword_options, path_argument, robot_argument
from .io_common import write_text_atomic

_FORMATS = {".yaml": "yaml", ".yml": "yaml", ".par": "par", ".urdf": "urdf", ".xml": "mjcf",
            ".mjcf": "mjcf", ".xacro": "xacro"}
#: the formats robmod writes
_WRITTEN = {"yaml", "par", "urdf"}


def _format_of(path) -> str:
    ext = Path(path_argument(path)).suffix.lower()
    if ext not in _FORMATS:
        raise FileFormatError(
            f"unknown file type {ext or '(none)'!r}; use one of {', '.join(sorted(_FORMATS))}",
            Location(file=str(path)))
    return _FORMATS[ext]


@keyword_options()
def read_robot(path, *, fmt: str | None = None, base: str | None = None,
               inertia_check: str | None = None, root: str | None = None,
               xacro_args=None):
    """Read a robot from a YAML, SYMORO .par, URDF, MJCF (MuJoCo's ``.xml``) or xacro file.

    ``base``: the base kind, ``"fixed"``, ``"mobile"`` or ``"floating"`` (None: the file's;
    a URDF file is read with a fixed base unless told, as Pinocchio's ``buildModelFromUrdf``
    takes its root joint: ``read_robot(path, base="floating")``, or unless a floating joint
    attaches its robot to its root link; an MJCF file's is floating when its top-level body
    has a free joint).
    ``inertia_check``: what to do with a physically impossible inertia, "error" or "warn"
    (keep it, with a :class:`~robmod.errors.RobmodWarning`); default: "warn" for URDF and
    MJCF files (CAD exports often carry such values), "error" for robmod's YAML and SYMORO's
    .par.  ``root``: an MJCF file's top-level body to read when it holds several robots.
    ``xacro_args``: the arguments of a ``.xacro`` file (``{"name": "value"}``; the
    ``robmod[xacro]`` extra expands it).
    """
    from .base import check_kind

    fmt = fmt or _format_of(path)
    if base is not None:
        check_kind(base, "argument base")
    if root is not None and fmt not in ("mjcf", "xacro"):
        raise ArgumentError(f"root= chooses the top-level body of an MJCF file, not of a "
                            f"{fmt} file")
    if xacro_args is not None and fmt != "xacro":
        raise ArgumentError(f"xacro_args= are the arguments of a .xacro file, not of a {fmt} "
                            "file")
    if fmt == "xacro":
        return _read_xacro(path, xacro_args, base=base, root=root,
                           inertia_check=inertia_check or "warn")
    if fmt == "mjcf":
        from .mjcf_reader import read_mjcf

        return read_mjcf(path, base=base, root=root, inertia_check=inertia_check or "warn")
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

def _read_xacro(path, xacro_args, *, base, root, inertia_check):
    """A .xacro file expanded, then read as the URDF (``<robot>``) or MJCF (``<mujoco>``)
    text it gives."""
    from .xacro_files import expand_xacro

    path = Path(path_argument(path))
    text, tag = expand_xacro(path, xacro_args)
    if tag == "mujoco":
        from .mjcf_reader import loads_mjcf

        return loads_mjcf(text, str(path), base=base, root=root, inertia_check=inertia_check,
                          base_dir=path.parent)
    if root is not None:
        raise ArgumentError("root= chooses the top-level body of an MJCF file; this xacro "
                            "file gives URDF")
    from .io_urdf import loads_urdf

    return loads_urdf(text, str(path), base=base or "fixed", inertia_check=inertia_check)


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
    if fmt not in _WRITTEN:
        raise FileFormatError(f"robmod reads {fmt.upper()} files but does not write them "
                              "(to_mjcf gives a robot's MJCF text); write .yaml, .par or .urdf",
                              Location(file=str(path)))
    write_text_atomic(path, dumps_robot(robot, fmt))


__all__ = ["read_robot", "write_robot", "dumps_robot"]
