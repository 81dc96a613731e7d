"""Robot descriptions in Khalil-Kleinfinger notation: data, validation, files, library."""
# the data type first, then what builds, checks (validation) and prints it (table): these hand
# their functions to the data type when imported (robot.provide)
from .robot import (Frame, Link, JointLimits, Tool, Robot, REVOLUTE, PRISMATIC, FIXED,
                    joint_variable, joint_velocity, joint_acceleration)
from . import table as _table  # noqa: F401  (registers str(robot) and the notebook tables)
from .build import make_robot
from .base import with_base, configuration_size, velocity_size, BASE_KINDS, WORLD
from .contacts import ContactPoint, ContactSurface, Plane, Box, ground
from .scene import Scene, Solid
from .expr import parse_expression, symbol
from .files import read_robot, write_robot, dumps_robot
from .io_mjcf import to_mjcf, MJCF, INERTIA_BOUND
from .mjcf_reader import read_mjcf, loads_mjcf
from .io_par import read_par, loads_par, dumps_par, write_par
from .io_urdf import read_urdf, loads_urdf, dumps_urdf, write_urdf
from .io_yaml import read_yaml, loads_yaml, dumps_yaml, write_yaml
from .library import library_names, load_robot, planar3r
from .serial import end_frame, joint_chain, structure_text
from .urdf_visuals import Visual
from .validation import validate

__all__ = [
    # robot
    "Frame", "Link", "JointLimits", "Tool", "Robot", "REVOLUTE", "PRISMATIC", "FIXED",
    "joint_variable", "joint_velocity", "joint_acceleration",
    # build
    "make_robot",
    # base
    "with_base", "configuration_size", "velocity_size", "BASE_KINDS", "WORLD",
    # contacts
    "ContactPoint", "ContactSurface", "Plane", "Box", "ground",
    # scene
    "Scene", "Solid",
    # expr
    "parse_expression", "symbol",
    # files
    "read_robot", "write_robot", "dumps_robot",
    # io_mjcf
    "to_mjcf", "MJCF", "INERTIA_BOUND",
    # mjcf_reader
    "read_mjcf", "loads_mjcf",
    # urdf_visuals
    "Visual",
    # io_par
    "read_par", "loads_par", "dumps_par", "write_par",
    # io_urdf
    "read_urdf", "loads_urdf", "dumps_urdf", "write_urdf",
    # io_yaml
    "read_yaml", "loads_yaml", "dumps_yaml", "write_yaml",
    # library
    "library_names", "load_robot", "planar3r",
    # serial
    "joint_chain", "end_frame", "structure_text",
    # validation
    "validate",
]
