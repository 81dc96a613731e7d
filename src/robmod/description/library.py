"""The library of robots shipped with robmod (data files in ``robmod/robots``)."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import RobmodError
from .arguments import keyword_options


def _dir():
    return resources.files("robmod") / "robots"


def library_names() -> list[str]:
    """Names of the built-in robots."""
    return sorted(p.name[:-5] for p in _dir().iterdir() if p.name.endswith(".yaml"))


def _library_path(name: str) -> Path:
    p = _dir() / f"{name}.yaml"
    if not p.is_file():
        raise RobmodError(f"no robot {name!r} in the library; available: "
                          f"{', '.join(library_names())}")
    return Path(str(p))


@keyword_options()
def load_robot(name_or_path, *, numeric: bool = False):
    """A robot by library name (``'rx90'``) or file path (.yaml, .par, .urdf).

    ``numeric=True`` substitutes the numeric values the description carries.
    """
    from .files import read_robot

    text = str(name_or_path)
    path = Path(text)
    if path.suffix.lower() in (".yaml", ".yml", ".par", ".urdf") or path.exists():
        if not path.exists():
            raise RobmodError(f"file not found: {text}")
        robot = read_robot(path)
    else:
        robot = read_robot(_library_path(text), fmt="yaml")
    return robot.numeric() if numeric else robot


__all__ = ["library_names", "load_robot"]
