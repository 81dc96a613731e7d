"""The inverse robot (Khalil & Dombre Appendix 2): the robot whose 0T'n equals (0Tn)^-1.

For a serial robot with parameters (sigma_j, alpha_j, d_j, theta_j, r_j) and
alpha_1 = d_1 = 0, Table A2.2 gives the inverse robot:

    j' = 1:     sigma_n,     alpha' = 0,            d' = 0,            theta' = -theta_n,      r' = -r_n
    j' = k > 1: sigma_n+1-k, alpha' = -alpha_n+2-k, d' = -d_n+2-k,     theta' = -theta_n+1-k,  r' = -r_n+1-k

so that q'_k = -q_(n+1-k).  When frame 1 has gamma, b, alpha or d, the inverse
of ``Rot(z,gamma1) Trans(z,b1) Rot(x,alpha1) Trans(x,d1)`` becomes the inverse
robot's tool frame ``base_inverse``.
"""
from __future__ import annotations


import sympy as sp

from ..description.arguments import keyword_options, number_array
from ..description.build import make_robot
from ..description.robot import Frame, Link, Tool, transform_matrix
from ..errors import ArgumentError, RobmodError


@keyword_options()
def inverse_robot(robot):
    """The inverse robot of a serial robot, with joint variables q' = -reversed(q)."""
    if robot.structure != "serial":
        raise RobmodError("the inverse robot is defined for serial robots")
    n = robot.n_frames
    f = robot.frames
    frames = []
    for k in range(1, n + 1):
        src = f[n - k]  # frame n+1-k gives sigma, theta, r
        if k == 1:
            alpha, d = sp.Integer(0), sp.Integer(0)
        else:
            prev = f[n + 1 - k]  # frame n+2-k gives alpha, d
            alpha, d = -prev.alpha, -prev.d
        frames.append(Frame(j=k, ant=k - 1, sigma=src.sigma, mu=src.mu, alpha=alpha, d=d,
                            theta=-src.theta, r=-src.r))
    first = f[0]
    tools = []
    if any(getattr(first, k) != 0 for k in ("gamma", "b", "alpha", "d")):
        lead = transform_matrix(first.gamma, first.b, first.alpha, first.d, 0, 0)
        tools.append(Tool("base_inverse", n, sp.ImmutableMatrix(_inverse(lead))))
    links = [Link(j=k) for k in range(1, n + 1)]
    return make_robot(f"{robot.name}_inverse", frames, links, tools=tools,
                      values=dict(robot.values), gravity=robot.gravity,
                      source=f"inverse robot of {robot.name} (Khalil & Dombre Appendix 2)")


def inverse_joint_values(q):
    """q' = -reversed(q) (last axis)."""
    q = number_array(q, "q")
    if q.ndim == 0:
        raise ArgumentError(f"q must be joint values (..., n), got shape {q.shape}")
    return -q[..., ::-1]


def _inverse(T):
    R = T[:3, :3]
    P = T[:3, 3]
    out = sp.eye(4)
    out[:3, :3] = R.T
    out[:3, 3] = -R.T * P
    return out


__all__ = ["inverse_robot", "inverse_joint_values"]
