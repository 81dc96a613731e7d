"""Robot descriptions in Khalil-Kleinfinger notation: data, validation, files, library."""
# robot first: robot.py re-exports build.make_robot
from .robot import (Frame, Link, JointLimits, Tool, Robot, REVOLUTE, PRISMATIC, FIXED,
                    joint_variable, joint_velocity, joint_acceleration)
from .build import make_robot
from .expr import parse_expression, symbol
from .files import read_robot, write_robot, dumps_robot
from .io_mjcf import to_mjcf, MJCF, INERTIA_BOUND
from .io_par import read_par, loads_par, dumps_par, write_par
from .io_urdf import read_urdf, loads_urdf, dumps_urdf, write_urdf
from .io_yaml import read_yaml, loads_yaml, dumps_yaml, write_yaml
from .library import library_names, load_robot, planar3r
from .validation import validate

__all__ = [
    # robot
    "Frame", "Link", "JointLimits", "Tool", "Robot", "REVOLUTE", "PRISMATIC", "FIXED",
    "joint_variable", "joint_velocity", "joint_acceleration",
    # build
    "make_robot",
    # expr
    "parse_expression", "symbol",
    # files
    "read_robot", "write_robot", "dumps_robot",
    # io_mjcf
    "to_mjcf", "MJCF", "INERTIA_BOUND",
    # io_par
    "read_par", "loads_par", "dumps_par", "write_par",
    # io_urdf
    "read_urdf", "loads_urdf", "dumps_urdf", "write_urdf",
    # io_yaml
    "read_yaml", "loads_yaml", "dumps_yaml", "write_yaml",
    # library
    "library_names", "load_robot", "planar3r",
    # validation
    "validate",
]
