"""How the dynamic models lay out joints and frames, over context scalars (symbolic or numeric).

Vectors of joint quantities are indexed like :func:`~robmod.dynamics.idm`: one entry per frame
1..NJ (entries of fixed frames unused).  Matrices (A, C, ...) are indexed by :func:`dofs`, the
moving joints of the tree structure.  Here: that order, the customized models' input groups,
the frames' (R, P) of the tree, a context with some joint groups replaced (:class:`Proxy`).
"""
from __future__ import annotations

import numpy as np

from ..description.base import BASE_INPUTS, moving_base
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


#: the labels of the base's six velocity coordinates (V0, W0) in the models' dicts
BASE_LABELS = ("b1", "b2", "b3", "b4", "b5", "b6")


def labels(robot) -> tuple:
    """The coordinates of the robot's velocity in the customized models: the base's six
    (:data:`BASE_LABELS`, a mobile or floating base) then :func:`coordinates`."""
    return (BASE_LABELS if moving_base(robot) else ()) + coordinates(robot)


def _frame_labels(robot) -> tuple:
    """:func:`labels` with every joint frame of the tree (:func:`dofs`, mimic joints
    included): the rows of the recursions' inertia matrix."""
    return (BASE_LABELS if moving_base(robot) else ()) + dofs(robot)


def _mimic_groups(robot) -> dict:
    """{coordinate i: [(i, 1), (j, m), ...]}: the joints that move with q_i, dq_j/dq_i (the
    base's coordinates alone)."""
    groups = {i: [(i, 1)] for i in labels(robot)}
    for j, (i, m, _) in sorted(robot.mimic.items()):
        groups[i].append((j, m))
    return groups


def reduce_mimic(robot, values: dict) -> dict:
    """{frame: generalized force} of the tree's joints (and the base's labels) -> {coordinate
    i: Γ_i + Σ m Γ_j} over the joints j mimicking i (virtual work; context scalars)."""
    out = {}
    for i, group in _mimic_groups(robot).items():
        out[i] = add(*[mul(m, values[j]) for j, m in group if values.get(j) is not None])
    return out


def reduce_mimic_matrix(ctx, robot, A: dict, name: str = "AE") -> dict:
    """Lower triangle ``{(i, k): scalar}`` of A over :func:`_frame_labels` -> that of Eᵀ A E
    over :func:`labels` (E = ∂q_frames/∂q): entries Σ m_r m_s A_rs over the joints r, s moving
    with q_i, q_k; each one that needs an operation named ``{name}{i}_{k}``."""
    pos = {j: k for k, j in enumerate(_frame_labels(robot))}
    groups = _mimic_groups(robot)

    def get(r, s):
        return A.get((r, s) if pos[r] >= pos[s] else (s, r), 0)

    order = labels(robot)
    out = {}
    for a, i in enumerate(order):
        for k in order[: a + 1]:
            v = add(*[mul(mr * ms, get(r, s)) for r, mr in groups[i] for s, ms in groups[k]])
            out[i, k] = ctx.var(v, f"{name}{i}_{k}")
    return out


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


def model_inputs(robot, groups=("q", "qd", "qdd"), base_groups=("q", "qd", "qdd")) -> dict:
    """Input groups of a customized model, as :func:`~robmod.dynamics.idm_model` names them:
    the base's entries first for a mobile or floating base (those of ``base_groups``: its
    pose in ``q``, its twist, its acceleration; ``base_groups`` may add a group of its own,
    ``"qdd"`` after ``tau`` for the given acceleration of a mobile base), then the joints'."""
    import sympy as sp

    fns = {"q": joint_variable, "qd": joint_velocity, "qdd": joint_acceleration,
           "tau": lambda j: sp.Symbol(f"GAM{j}")}
    moving = moving_base(robot)
    out = {}
    for g in groups:
        head = BASE_INPUTS.get(g, ()) if moving and g in base_groups else ()
        out[g] = tuple(sp.Symbol(x) for x in head) + tuple(fns[g](j) for j in coordinates(robot))
    return out


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

    def base(self, group="q"):
        """The base's entries of ``group``: replaced as the joints' (a callable is called with
        ``"base"`` and gives the list)."""
        if group in self._groups:
            g = self._groups[group]
            return g("base") if callable(g) else [g] * (7 if group == "q" else 6)
        return self._ctx.base(group)

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
    """Values given per frame (1..NL, None for fixed frames; after the base's six for a mobile
    or floating base) as the robot's vector (..., n_q) or (..., 6 + n_q) (a mimic joint's value
    projected on the joint it follows); ``shape[:-1]`` is the batch (``q.shape``)."""
    from ..description.mimic import reduce_vector

    batch = tuple(shape[:-1])
    if not moving_base(robot):
        return reduce_vector(robot, dict(enumerate(vals, start=1)), batch + (robot.n_q,))
    head = np.stack(np.broadcast_arrays(*vals[:6], np.zeros(batch))[:6], axis=-1)
    return np.concatenate([head, reduce_vector(robot, dict(enumerate(vals[6:], start=1)),
                                               batch + (robot.n_q,))], axis=-1)


__all__ = []
