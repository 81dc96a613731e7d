"""Energy functions of the standard parameters (Gautier & Khalil (1990) §4, appendix; with the errata).

The total energy H = E + U of a robot is linear in the standard parameters:
``E = sum DE_i X_i`` and ``U = sum DU_i X_i`` (Gautier & Khalil (1990) (10), (11)), with, for
link j (velocities of link j and of the origin O_j, in frame j)::

    DE = [w1^2/2, w1 w2, w1 w3, w2^2/2, w2 w3, w3^2/2,
          w3 V2 - w2 V3, w1 V3 - w3 V1, w2 V1 - w1 V2, V.V/2]      (DE7..DE9 signs corrected)
    DU = [0, 0, 0, 0, 0, 0, -(0A_j^T g)^T, -g . 0P_j]                 (Gautier & Khalil (1990) (9))

    jw_j = jR_a w_a + sigma_bar_j qd_j z,   jV_j = jR_a (V_a + w_a x aP_j) + sigma_j qd_j z

(the forward recursion of :func:`robmod.kinematics.forward`, with the linear velocities)

and for the rotor of joint j, DE(IA_j) = qd_j^2 / 2.  Written once over a
context (see :mod:`robmod.symbolic.context`): it serves the symbolic
determination of the base parameters (:mod:`.base_symbolic`) and the numeric
energy identification model (:mod:`.regressor`).
"""
from __future__ import annotations

import re

import sympy as sp

from ..description.robot import INERTIAL
from ..kinematics.recursion import forward, gravity_in_frame0
from ..symbolic.algebra import add, dot, htm_identity, mul

_HALF = sp.Rational(1, 2)


def energy_functions(ctx, robot, links=None, gravity=True):
    """{j: (DE, DU)} for the links ``links`` (ancestor-closed; default all), each a list of 10.

    Also returns ``{j: (w_j, V_j)}`` as a second result.
    """
    rec = EnergyRecursion(ctx, robot, gravity=gravity)
    wanted = None if links is None else set(links)
    for f in robot.frames[:robot.n_links]:
        if wanted is None or f.j in wanted:
            rec.link(f.j)
    return rec.out, rec.kin


class EnergyRecursion:
    """The energy functions link by link, each computed when first asked for (after its
    antecedents): an analysis that needs only the links near the base does not pay for the
    whole tree.  The velocities w_j, V_j come from the ONE forward recursion
    (:func:`robmod.kinematics.recursion.forward`, continued on the frames still missing)."""

    def __init__(self, ctx, robot, gravity=True):
        self.ctx, self.robot = ctx, robot
        self.half = ctx.const(_HALF)
        self.g = gravity_in_frame0(ctx, robot) if gravity else [0, 0, 0]   # 0g
        self.lk = None          # the forward recursion's state (LinkKinematics)
        self.T0 = {0: htm_identity()}
        self.out, self.kin = {}, {}

    def link(self, j):
        """(DE, DU) of link j."""
        chain, k = [], j
        while k != 0 and k not in self.out:
            chain.append(k)
            k = self.robot.frame(k).ant
        frames = [self.robot.frame(k) for k in reversed(chain)]
        if frames:
            # w_j, V_j: the forward recursion of link kinematics (fixed base), continued
            self.lk = forward(self.ctx, self.robot, frames, acceleration=False,
                              base_motion=False, gravity=False, linear=False,
                              angular_acceleration=False, linear_velocity=True,
                              names=("W", "W", "WP"), state=self.lk)
        for f in frames:
            self._compute(f)
        return self.out[j]

    def _compute(self, f):
        ctx, half, g = self.ctx, self.half, self.g
        j, a = f.j, f.ant
        R, P = self.lk.R[j], self.lk.P[j]
        T = [list(R[r]) + [P[r]] for r in range(3)]
        w, v = self.lk.W[j], self.lk.V[j]
        # 0T_j for the potential energy
        Ta = self.T0[a]
        T0 = self.T0[j] = [[ctx.var(add(dot(Ta[r][:3], [T[0][c], T[1][c], T[2][c]]),
                                        Ta[r][3] if c == 3 else 0), f"T0{j}{r + 1}{c + 1}")
                            for c in range(4)] for r in range(3)]
        w1, w2, w3 = w
        v1, v2, v3 = v
        de = [mul(half, mul(w1, w1)), mul(w1, w2), mul(w1, w3), mul(half, mul(w2, w2)),
              mul(w2, w3), mul(half, mul(w3, w3)),
              add(mul(w3, v2), -mul(w2, v3)), add(mul(w1, v3), -mul(w3, v1)),
              add(mul(w2, v1), -mul(w1, v2)),
              mul(half, add(mul(v1, v1), mul(v2, v2), mul(v3, v3)))]
        A = [row[:3] for row in T0]
        du = [0] * 6 + [-dot([A[0][k], A[1][k], A[2][k]], g) for k in range(3)]
        du.append(-dot(g, [T0[0][3], T0[1][3], T0[2][3]]))
        self.out[j] = (de, du)
        self.kin[j] = (w, v)


class PlainContext:
    """A symbolic context without intermediate variables, for the energy analysis.

    The sine and cosine of a joint angle theta_j (offset included) are the plain
    symbols ``S{j}``, ``C{j}``; prismatic joint variables stay ``q{j}``; velocities
    are ``QP{j}``.  Constant angles give exact SymPy sines and cosines.
    """

    symbolic = True

    def __init__(self, robot=None):
        self.robot = robot
        self.trig: dict = {}

    def var(self, expr, name):
        return sp.sympify(expr)  # safe: built by robmod algorithms

    def reserve(self, *names):
        pass

    def joint(self, j, group="q"):
        from ..description.robot import joint_acceleration, joint_variable, joint_velocity

        return {"q": joint_variable, "qd": joint_velocity, "qdd": joint_acceleration}[group](j)

    def param(self, expr):
        return expr

    def const(self, value):
        return sp.sympify(value)  # safe: numbers

    def fn(self, name, *args):
        return {"sign": sp.sign, "abs": sp.Abs, "exp": sp.exp, "sqrt": sp.sqrt}[name](*args)

    def sincos(self, angle, tag):
        angle = sp.sympify(angle)  # safe: the description's expressions
        qs = [s for s in angle.free_symbols if re.fullmatch(r"q\d+", str(s))]
        if qs:
            j = int(str(qs[0])[1:])
            out = (sp.Symbol(f"S{j}"), sp.Symbol(f"C{j}"))
            self.trig[out] = angle
            return out
        return sp.sin(angle), sp.cos(angle)


def _parameter_names(j):
    return [f"{k}{j}" for k in INERTIAL]


__all__ = []
