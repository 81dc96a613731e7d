"""robmod: modelling, identification and control of robot manipulators.

>>> import robmod
>>> robot = robmod.load_robot("rx90")

The packages hold the models by layer (``robmod.description``, ``robmod.symbolic``,
``robmod.geometry``, ``robmod.kinematics``, ``robmod.dynamics``, ``robmod.identification``,
``robmod.trajectory``, ``robmod.control``, ``robmod.plot``, ``robmod.viewer``); this namespace
gives the robot descriptions, the errors, the switches of the fast path and ``view`` (the
robot in the browser).
"""
from .description import (Frame, JointLimits, Link, Robot, Tool, library_names, load_robot,
                          make_robot, read_robot, symbol, write_robot)
from .errors import (ArgumentError, DescriptionError, ExpressionError, FileFormatError, Location,
                     RobmodError, RobmodWarning, UnknownNameError)
from .dynamics.siciliano import (SicilianoArm, SicilianoLink, SicilianoMotor,
                                 from_siciliano, to_siciliano)
from .dynamics.compilation import warmup
from .symbolic.fastpath import set_backend
from .version import __version__
from .viewer import view

__all__ = [
    # description
    "Frame", "Link", "JointLimits", "Tool", "Robot", "make_robot", "load_robot", "read_robot",
    "write_robot", "library_names", "symbol",
    # errors
    "RobmodError", "DescriptionError", "FileFormatError", "ExpressionError", "ArgumentError",
    "UnknownNameError", "Location", "RobmodWarning",
    # dynamics
    "SicilianoArm", "SicilianoLink", "SicilianoMotor", "from_siciliano", "to_siciliano", "warmup",
    # symbolic
    "set_backend",
    # viewer (MeshCat, the viewer extra)
    "view",
]
