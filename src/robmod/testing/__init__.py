"""Helpers for tests and benchmarks: peers built from a robmod description (test oracles).

Nothing here is a runtime dependency of robmod: Pinocchio and the Robotics
Toolbox are imported only when these functions are called.
"""
from .measured import simulated_log, sine_motion, arm_urdf, realistic_arm
from .peers import (PinocchioRobot, rtb_robot, toppra_parameterization,
                    to_pinocchio_configuration, from_pinocchio_configuration,
                    example_robot_data)
from .random import random_robot, with_random_dynamics, random_inertial
from .paths import numpy_path
from .engines import BulletRobot, DrakeRobot, stripped_copy, urdf_joint_names
from .mujoco_oracle import MujocoOracle

__all__ = [
    # measured
    "simulated_log", "sine_motion", "arm_urdf", "realistic_arm",
    # peers
    "PinocchioRobot", "rtb_robot", "toppra_parameterization", "to_pinocchio_configuration",
    "from_pinocchio_configuration", "example_robot_data",
    # random
    "random_robot", "with_random_dynamics", "random_inertial",
    # paths
    "numpy_path",
    # engines
    "DrakeRobot", "BulletRobot", "urdf_joint_names", "stripped_copy",
    # mujoco_oracle
    "MujocoOracle",
]
