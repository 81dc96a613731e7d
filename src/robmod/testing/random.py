"""Random robots for property tests: random Khalil-Kleinfinger tables and consistent inertias."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy as sp

from ..description.build import make_robot
from ..description.robot import JOINT_DYNAMIC, Link

_ANGLES = [0, sp.pi / 2, -sp.pi / 2, sp.pi]


def random_inertial(rng, scale: float = 1.0) -> dict:
    """Physically consistent Khalil parameters (XX..M) of a random rigid body."""
    m = float(rng.uniform(0.5, 5.0))
    # principal moments satisfying the triangle inequality
    a, b = rng.uniform(0.01, 0.2, 2) * scale
    c = float(rng.uniform(abs(a - b), a + b))
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    JG = Q @ np.diag([a, b, c]) @ Q.T
    com = rng.uniform(-0.3, 0.3, 3) * scale
    J = JG + m * (com @ com * np.eye(3) - np.outer(com, com))
    ms = m * com
    vals = dict(XX=J[0, 0], XY=J[0, 1], XZ=J[0, 2], YY=J[1, 1], YZ=J[1, 2], ZZ=J[2, 2],
                MX=ms[0], MY=ms[1], MZ=ms[2], M=m)
    return {k: sp.Float(float(v)) for k, v in vals.items()}


def with_random_dynamics(robot, rng, gravity=(0.0, 0.0, -9.81), rotor=True, friction=False):
    """The robot with random numeric link parameters (and numeric gravity)."""
    links = []
    for link in robot.links:
        kw = random_inertial(rng)
        kw.update({k: sp.Integer(0) for k in JOINT_DYNAMIC})
        if rotor:
            kw["IA"] = sp.Float(float(rng.uniform(0.0, 0.5)))
        if friction:
            kw["FC"] = sp.Float(float(rng.uniform(0.0, 1.0)))
            kw["FV"] = sp.Float(float(rng.uniform(0.0, 1.0)))
        links.append(replace(link, **kw))
    new = replace(robot, links=tuple(links), gravity=tuple(sp.Float(g) for g in gravity))
    return new


def random_robot(rng, n: int = 6, tree: bool = False, prismatic: bool = True,
                 general: bool = False, dynamics: bool = True, name: str = "random"):
    """A random numeric robot with n joints (serial, or a tree with gamma/b).

    ``general``: angles uniformly random instead of multiples of pi/2.
    """
    frames = []
    for j in range(1, n + 1):
        ant = j - 1 if (not tree or j <= 2) else int(rng.integers(0, j))
        sigma = int(rng.random() < 0.25) if prismatic else 0

        def angle():
            if general:
                return sp.Float(float(rng.uniform(-np.pi, np.pi)))
            return _ANGLES[int(rng.integers(0, len(_ANGLES)))]

        def length():
            return sp.Float(float(rng.uniform(-0.5, 0.5))) if rng.random() < 0.7 else 0

        row = dict(j=j, ant=ant, sigma=sigma, alpha=angle(), d=length(), r=length(),
                   theta=angle())
        if tree and ant != j - 1:
            row.update(gamma=angle(), b=length())
        frames.append(row)
    robot = make_robot(name, frames, links=[Link(j=j) for j in range(1, n + 1)])
    if dynamics:
        robot = with_random_dynamics(robot, rng)
    return robot


__all__ = ["random_robot", "with_random_dynamics", "random_inertial"]
