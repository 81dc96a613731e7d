"""Robot descriptions in Khalil-Kleinfinger notation: data, validation, files, library."""
from .expr import parse_expression, symbol
from .files import read_robot, write_robot
from .library import library_names, load_robot
from .robot import (FIXED, PRISMATIC, REVOLUTE, Frame, JointLimits, Link, Robot, Tool,
                    joint_acceleration, joint_variable, joint_velocity, make_robot)
from .validate import validate

__all__ = ["Frame", "Link", "JointLimits", "Tool", "Robot", "make_robot", "validate",
           "REVOLUTE", "PRISMATIC", "FIXED", "joint_variable", "joint_velocity",
           "joint_acceleration", "parse_expression", "symbol", "read_robot", "write_robot",
           "load_robot", "library_names"]
