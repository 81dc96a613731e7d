"""robmod: modelling, identification and control of robot manipulators.

>>> import robmod
>>> robot = robmod.load_robot("rx90")
"""
from .description import (Frame, JointLimits, Link, Robot, Tool, library_names, load_robot,
                          make_robot, read_robot, symbol, write_robot)
from .errors import RobmodError
from .dynamics.siciliano import (SicilianoArm, SicilianoLink, SicilianoMotor,  # noqa: E402
                                    from_siciliano, to_siciliano)
from .dynamics.warmup import warmup  # noqa: E402
from .symbolic.fastpath import set_backend  # noqa: E402

from .version import __version__  # noqa: E402
__all__ = ["Frame", "Link", "JointLimits", "Tool", "Robot", "make_robot", "load_robot",
           "read_robot", "write_robot", "library_names", "symbol", "RobmodError",
           "SicilianoArm", "SicilianoLink", "SicilianoMotor", "from_siciliano", "to_siciliano",
           "warmup", "set_backend"]
