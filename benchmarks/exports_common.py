"""What benchmarks/bench_exports.py shares: the robots read by robmod and adam-robotics
(example-robot-data's files, the Panda without its fingers), timing alternated between the
libraries, the rows of the table."""
from __future__ import annotations

import glob
import os
import tempfile
import time
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from robmod.description.mimic import frame_matrix_E  # noqa: E402
from robmod.dynamics import idm_derivatives_model, idm_model, inertia_matrix_model  # noqa: E402

FILES = {"panda": "panda_description/urdf/panda.urdf",
         "ur5": "ur_description/urdf/ur5_robot.urdf"}


def robots_dir():
    import cmeel

    for d in glob.glob(os.path.join(os.path.dirname(os.path.dirname(cmeel.__file__)),
                                    "cmeel.prefix", "share", "example-robot-data", "robots")):
        return d
    raise SystemExit("example-robot-data is not installed (pip install example-robot-data)")


def arm_file(path, workdir):
    """A copy of the URDF ``path`` without its prismatic joints and the links they carry (a
    gripper's fingers): adam 0.5 does not model prismatic joints (its motion subspace and joint
    transform of one fail to build), so both libraries read this copy (the Panda's 7-joint arm
    and hand)."""
    tree = ET.parse(path)
    root = tree.getroot()
    drop = {j.find("child").get("link") for j in root.iter("joint")
            if j.get("type") == "prismatic"}
    if not drop:
        return path
    for j in list(root.iter("joint")):
        if j.find("child").get("link") in drop:
            root.remove(j)
    for link in list(root.iter("link")):
        if link.get("name") in drop:
            root.remove(link)
    out = os.path.join(workdir, os.path.basename(path).replace(".urdf", "_arm.urdf"))
    tree.write(out)
    return out


class Setup:
    """One URDF read by both libraries: robmod's robot and models, adam's joints and the
    mimic map q_adam = E q + c."""

    def __init__(self, name):
        self.name = name
        self.path = arm_file(os.path.join(robots_dir(), FILES[name]),
                             tempfile.mkdtemp(prefix="rm_bench_urdf_"))
        self.robot = robmod.read_robot(self.path)
        movable = {j.get("name") for j in ET.parse(self.path).getroot().iter("joint")
                   if j.get("type") != "fixed"}
        frames = sorted(self.robot.frame_names[j] for j in movable)
        names = {v: k for k, v in self.robot.frame_names.items() if k in movable}
        self.joints = [names[f] for f in frames]
        self.E = frame_matrix_E(self.robot, frames)
        self.c = np.array([self.robot.mimic[f][2] if f in self.robot.mimic else 0.0
                           for f in frames])
        # adam's gravity: a 6-vector (linear, angular) in the world frame, robmod's the file's
        self.gravity = np.array([float(g) for g in self.robot.gravity] + [0.0, 0.0, 0.0])
        t0 = time.perf_counter()
        # adam models no joint friction (the Panda's file has a damping): the terms both have
        self.models = {"IDM": idm_model(self.robot, friction=False),
                       "M": inertia_matrix_model(self.robot)}
        self.t_models = time.perf_counter() - t0
        self.derivatives = None

    def derivative_model(self):
        if self.derivatives is None:
            t0 = time.perf_counter()
            self.derivatives = idm_derivatives_model(self.robot, friction=False)
            self.t_derivative_model = time.perf_counter() - t0
        return self.derivatives


def best(fn, repeat, number=1):
    out = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        out = min(out, (time.perf_counter() - t0) / number)
    return out


def alternated(fns, repeat, number=1):
    """The best time of each function, the functions run in turn (same machine load)."""
    out = [np.inf] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            out[k] = min(out[k], (time.perf_counter() - t0) / number)
    return out


ROWS = []


def row(robot, framework, quantity, what, robmod_value, adam_value, unit, better="lower"):
    ratio = (adam_value / robmod_value if better == "lower" else robmod_value / adam_value) \
        if robmod_value and adam_value and np.isfinite(adam_value) else float("nan")
    ROWS.append((robot, framework, quantity, what, robmod_value, adam_value, unit, ratio))
    print(f"  {framework:7s} {quantity:12s} {what:24s} robmod {fmt(robmod_value, unit):>12s}  "
          f"adam {fmt(adam_value, unit):>12s}  adam/robmod {ratio:8.1f}", flush=True)


def fmt(v, unit):
    if v is None or not np.isfinite(v):
        return "n/a"
    if unit == "s":     # two significant digits below 10 ms (builds of a few milliseconds)
        if v < 0.01:
            return f"{v * 1e3:.2g} ms"
        return f"{v * 1e3:.0f} ms" if v < 0.1 else f"{v:.2f} s"
    if unit == "us":
        return f"{v * 1e6:.1f} us"
    if unit == "ns":
        return f"{v * 1e9:.0f} ns"
    return f"{int(v)}"
