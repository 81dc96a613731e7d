"""The library of robots shipped with robmod (data files in ``robmod/robots``) and the robot
factories (:func:`planar3r`: a robot of the book built from its lengths)."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import RobmodError, UnknownNameError
from ..arguments import keyword_options
from .io_yaml import loads_yaml


def _dir():
    return resources.files("robmod") / "robots"


def library_names() -> list[str]:
    """Names of the built-in robots."""
    return sorted(p.name[:-5] for p in _dir().iterdir() if p.name.endswith(".yaml"))


def _library_path(name: str) -> Path:
    p = _dir() / f"{name}.yaml"
    if not p.is_file():
        raise UnknownNameError(f"no robot {name!r} in the library; available: "
                          f"{', '.join(library_names())}")
    return Path(str(p))


@keyword_options()
def load_robot(name_or_path, *, numeric: bool = False, base: str | None = None,
               xacro_args=None, root: str | None = None):
    """A robot by library name (``'rx90'``) or file path (.yaml, .par, .urdf, MJCF .xml,
    .xacro).

    ``numeric=True`` substitutes the numeric values the description carries; ``base``: the
    base kind (``"fixed"``, ``"mobile"``, ``"floating"``; None: the file's, a URDF's root
    link fixed), as :func:`~robmod.description.read_robot`; ``xacro_args``: a .xacro file's
    arguments; ``root``: the top-level body of an MJCF file holding several robots.
    """
    from .files import read_robot

    text = str(name_or_path)
    path = Path(text)
    if path.suffix.lower() in (".yaml", ".yml", ".par", ".urdf", ".xml", ".mjcf", ".xacro") \
            or path.exists():
        if not path.exists():
            raise RobmodError(f"file not found: {text}")
        robot = read_robot(path, base=base, xacro_args=xacro_args, root=root)
    else:
        robot = read_robot(_library_path(text), fmt="yaml", base=base, xacro_args=xacro_args,
                           root=root)
    return robot.numeric() if numeric else robot


_PLANAR3R_YAML = """\
robmod: 1
name: planar3r
description: "Three-link planar arm (Khalil & Dombre Figs 6.3-6.4); tool 'tip' at the end of link 3"
frames:
  - {{j: 1, ant: 0, sigma: 0, mu: 1, alpha: 0, d: 0,  theta: q1, r: 0}}
  - {{j: 2, ant: 1, sigma: 0, mu: 1, alpha: 0, d: L1, theta: q2, r: 0}}
  - {{j: 3, ant: 2, sigma: 0, mu: 1, alpha: 0, d: L2, theta: q3, r: 0}}
link_defaults: zero
joints:
{joints}tools:
  - {{name: tip, frame: 3, d: L3}}
values:
  L1: {l1}
  L2: {l2}
  L3: {l3}
"""


@keyword_options()
def planar3r(*, l1=1.0, l2=1.0, l3=0.5, qmin=None, qmax=None, numeric=True):
    """The planar 3R arm of Khalil & Dombre's Figs 6.3-6.4 (axes along z0, in the plane x0 y0,
    links ``l1``, ``l2``, ``l3``), tool ``tip`` at the end.

    Tasks: ``rows=(0, 1)`` (position of the tip: redundant, Fig. 6.4) or
    ``rows=(0, 1, 5)`` (position and orientation: square, singular when
    sin(q2) = 0, Fig. 6.3).  ``qmin``/``qmax``: joint limits (3 values each).
    """
    joints = ""
    if qmin is not None or qmax is not None:
        lo = np.broadcast_to(np.asarray(-np.pi if qmin is None else qmin, float), (3,))
        hi = np.broadcast_to(np.asarray(np.pi if qmax is None else qmax, float), (3,))
        joints = "".join(f"  - {{j: {k + 1}, qmin: {float(lo[k])!r}, qmax: {float(hi[k])!r}}}\n"
                         for k in range(3))
    text = _PLANAR3R_YAML.format(l1=float(l1), l2=float(l2), l3=float(l3), joints=joints)
    if not joints:
        text = text.replace("joints:\n", "")
    robot = loads_yaml(text, "<planar3r>")
    return robot.numeric() if numeric else robot


__all__ = ["library_names", "load_robot", "planar3r"]
