"""How the dynamic models lay out joints and frames, over context scalars (symbolic or numeric).

Vectors of joint quantities are indexed like :func:`~robmod.dynamics.idm`: one entry per frame
1..NJ (entries of fixed frames unused).  Matrices (A, C, ...) are indexed by :func:`dofs`, the
moving joints of the tree structure.  Here: that order, the customized models' input groups,
the frames' (R, P) of the tree, a context with some joint groups replaced (:class:`Proxy`).
"""
from __future__ import annotations

import numpy as np

from ..description.robot import FIXED, PRISMATIC, joint_acceleration, joint_variable, \
    joint_velocity
from ..geometry.direct import frame_matrix
from ..symbolic.algebra import add, mul
from ..symbolic.context import NumericContext


def dofs(robot) -> tuple[int, ...]:
    """Frames carrying the joint coordinates of the tree structure (rows of A)."""
    return tuple(f.j for f in robot.frames[: robot.n_links] if f.sigma != FIXED)


def coordinates(robot) -> tuple[int, ...]:
    """The joint coordinates of the customized models: :func:`dofs` without the mimic joints
    (a dependent joint q_j = m q_i + c has none of its own; see :mod:`robmod.description.mimic`)."""
    return tuple(j for j in dofs(robot) if j not in robot.mimic)


def _mimic_groups(robot) -> dict:
    """{independent joint i: [(i, 1), (j, m), ...]}: the joints that move with q_i, dq_j/dq_i."""
    groups = {i: [(i, 1)] for i in coordinates(robot)}
    for j, (i, m, _) in sorted(robot.mimic.items()):
        groups[i].append((j, m))
    return groups


def reduce_mimic(robot, values: dict) -> dict:
    """{frame: generalized force} of the tree's joints -> {coordinate i: Γ_i + Σ m Γ_j} over the
    joints j mimicking i (virtual work; context scalars)."""
    out = {}
    for i, group in _mimic_groups(robot).items():
        out[i] = add(*[mul(m, values[j]) for j, m in group if values.get(j) is not None])
    return out


def reduce_mimic_matrix(ctx, robot, A: dict, name: str = "AE") -> dict:
    """Lower triangle ``{(i, k): scalar}`` of A over :func:`dofs` -> that of Eᵀ A E over
    :func:`coordinates` (E = ∂q_frames/∂q): entries Σ m_r m_s A_rs over the joints r, s moving
    with q_i, q_k; each one that needs an operation named ``{name}{i}_{k}``."""
    pos = {j: k for k, j in enumerate(dofs(robot))}
    groups = _mimic_groups(robot)

    def get(r, s):
        return A.get((r, s) if pos[r] >= pos[s] else (s, r), 0)

    order = coordinates(robot)
    out = {}
    for a, i in enumerate(order):
        for k in order[: a + 1]:
            v = add(*[mul(mr * ms, get(r, s)) for r, mr in groups[i] for s, ms in groups[k]])
            out[i, k] = ctx.var(v, f"{name}{i}_{k}")
    return out


def plain_layout(robot) -> bool:
    """True when the customized models' joint order (:func:`dofs`) is the plain API's
    (``robot.joints``): a tree whose every joint moves a link (the fast path applies)."""
    return not robot.n_loops and dofs(robot) == tuple(robot.joints)


def joint_limit_vector(robot, field: str) -> np.ndarray | None:
    """The ``field`` limit (qmin, qmax, qdmax, qddmax, taumax) of every joint (in
    :func:`dofs` order), or None if one is missing."""
    vals = []
    for j in dofs(robot):
        v = getattr(robot.link(j).limits, field)
        if v is None:
            return None
        vals.append(float(v))
    return np.array(vals)


def model_inputs(robot, groups=("q", "qd", "qdd")) -> dict:
    """Input groups of a customized model, as :func:`~robmod.dynamics.idm_model` names them."""
    import sympy as sp

    fns = {"q": joint_variable, "qd": joint_velocity, "qdd": joint_acceleration,
           "tau": lambda j: sp.Symbol(f"GAM{j}")}
    return {g: tuple(fns[g](j) for j in coordinates(robot)) for g in groups}


class Proxy:
    """A context whose joint groups are replaced (e.g. ``qd`` and ``qdd`` set to zero)."""

    def __init__(self, ctx, **groups):
        self._ctx = ctx
        self._groups = groups

    def joint(self, j, group="q"):
        if group in self._groups:
            g = self._groups[group]
            return g(j) if callable(g) else g
        return self._ctx.joint(j, group)

    def __getattr__(self, name):
        return getattr(self._ctx, name)


def geometry(ctx, robot):
    """``{j: (R, P)}``: a(j)R_j (rows) and a(j)P_j for the frames of the tree."""
    out = {}
    for f in robot.frames[: robot.n_links]:
        T = frame_matrix(ctx, robot, f.j)
        out[f.j] = ([row[:3] for row in T], [row[3] for row in T])
    return out


def axis_index(sigma) -> int:
    """Index of the joint screw a_j in a 6-vector: 2 (v_z) if prismatic, 5 (w_z) if revolute."""
    return 2 if sigma == PRISMATIC else 5


def numeric_context(robot, q=None, qd=None, qdd=None):
    return NumericContext(robot, q=q, qd=qd, qdd=qdd)


def joint_vector(robot, vals, shape):
    """Values given per frame (1..NL, None for fixed frames) as a joint vector (..., n_q)
    (a mimic joint's value projected on the joint it follows)."""
    from ..description.mimic import reduce_vector

    return reduce_vector(robot, dict(enumerate(vals, start=1)), shape)


__all__ = []
