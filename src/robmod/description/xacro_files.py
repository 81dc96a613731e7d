"""xacro files (``.xacro``, ``.urdf.xacro``): expanded by the ``xacro`` package (the
``robmod[xacro]`` extra), then read as the URDF (or MJCF) text they give.

``xacro_args`` are xacro's arguments (``<xacro:arg name= default=>``, ``$(arg name)``), as
``xacro file.xacro name:=value`` takes them.  ``$(find PKG)`` is the folder of the ROS package
PKG, looked for as the URDF reader looks for ``package://`` meshes (an ancestor folder of the
file named PKG or holding PKG, then ``$ROS_PACKAGE_PATH``) when ROS's package index is not
installed.  A xacro file is a program: its ``${...}`` expressions are Python, evaluated by
xacro (with Python's builtins removed, which is no sandbox): expand only files you trust.
"""
from __future__ import annotations

from pathlib import Path
from xml.parsers import expat

from ..errors import ArgumentError, FileFormatError, Location, RobmodError
from .urdf_visuals import package_roots


def _xacro():
    try:
        import xacro
    except ImportError:
        raise RobmodError("reading a .xacro file needs the xacro package: pip install "
                          "'robmod[xacro]'") from None
    return xacro


def _check_xacro_args(xacro_args) -> dict:
    """``xacro_args`` as a dict of strings (None: empty); an ArgumentError otherwise."""
    if xacro_args is None:
        return {}
    if not hasattr(xacro_args, "items"):
        raise ArgumentError("xacro_args must be a mapping of argument names to values, got "
                            f"{type(xacro_args).__name__}")
    out = {}
    for k, v in xacro_args.items():
        if not isinstance(k, str) or not k or not isinstance(v, (str, int, float, bool)):
            raise ArgumentError(f"xacro_args: {k!r}: {v!r} must be a name and a string (or a "
                                "number)")
        out[k] = str(v).lower() if isinstance(v, bool) else str(v)
    return out


def _finder(near: Path):
    def find(pkg: str) -> str:
        for root in package_roots(near):
            if root.name == pkg:
                return str(root)
            if (root / pkg).is_dir():
                return str(root / pkg)
        raise FileFormatError(f"$(find {pkg}): no folder of package {pkg!r} above the file nor "
                              "in $ROS_PACKAGE_PATH", Location(file=str(near)))
    return find


def expand_xacro(path, xacro_args=None) -> tuple[str, str]:
    """(XML text, its root element's tag) of the xacro file ``path`` expanded with
    ``xacro_args``."""
    xacro = _xacro()
    from xacro import substitution_args

    args = _check_xacro_args(xacro_args)
    path = Path(path)
    saved = substitution_args._eval_find
    try:
        import ament_index_python  # noqa: F401  (ROS's own package index, when installed)
    except ImportError:
        substitution_args._eval_find = _finder(path)
    try:
        doc = xacro.process_file(str(path), mappings=args)
        return doc.toxml(), doc.documentElement.tagName
    except expat.ExpatError as e:
        raise FileFormatError(f"XML syntax error: {expat.ErrorString(e.code)}",
                              Location(file=_where(xacro, path), line=e.lineno)) from None
    except xacro.XacroException as e:    # xacro wraps every fault of a file (an undefined
        # property, macro or argument, a bad expression, a missing include) in this one class
        raise FileFormatError(f"xacro: {e}",
                              Location(file=_where(xacro, path))) from None
    finally:
        substitution_args._eval_find = saved


def _where(xacro, path: Path) -> str:
    """The file xacro was reading when it stopped (an included one), else ``path``."""
    stack = [f for f in (getattr(xacro, "filestack", None) or []) if f]
    return str(stack[-1]) if stack else str(path)


__all__ = []
