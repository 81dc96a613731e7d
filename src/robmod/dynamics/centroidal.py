"""Centre of mass, its Jacobian and the centroidal momentum matrix (Orin, Goswami & Lee 2013).

All three come from the composite inertias of :mod:`~robmod.dynamics.inertia`: the composite
inertia IC_0 = (M, MS, J) of the whole robot about O_0 (link 0, the base, included) gives the
centre of mass c = MS / M; the momentum of the robot at O_0, in frame 0, is

    h_0 = IC_0 [V0; W0] + sum_j (IC_j a_j moved to O_0) qd_j

(the base rows of the inertia matrix: Orin & Goswami's composite-rigid-body derivation), and
the centroidal momentum is h_G = [p; n_0 - c x p] (linear momentum, angular momentum about the
centre of mass).  The centroidal momentum matrix A_G is the map qd -> h_G, the centre of mass
Jacobian its first three rows over the total mass.

The results are expressed in frame ``i`` (default 0, or a frame's number or name, or
``"world"``: for a mobile or floating robot, the pose of frame 0 is its configuration's; for a
fixed one, the constant Z); the columns are the robot's velocity coordinates: the base's twist
first for a mobile or floating robot (6 + n_q, as Pinocchio's ``centerOfMass``,
``jacobianCenterOfMass`` and ``ccrba`` in the world frame), else its joints (n_q).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_vector, keyword_options,
                                     require_numeric, robot_arrays)
from ..description.base import moving_base
from ..errors import ArgumentError
from ..geometry.direct import dgm_algorithm
from ..kinematics.jacobians import joint_columns
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, dot, mul, stack
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .composite import composite_columns, composite_inertias
from .bodies import spatial_matrix
from .layout import dofs, geometry, model_inputs


def _com(ctx, comp0):
    M, MS, _ = comp0
    minv = ctx.var(1 / M, "MI0")
    return minv, [ctx.var(mul(MS[r], minv), f"C0{r + 1}") for r in range(3)]


def _pose(ctx, robot, i):
    """iT0 (3x4 rows) of the frame ``i`` (a frame or the world), or None for frame 0."""
    if i == 0:
        return None
    return dgm_algorithm(ctx, robot, j=0, i=i)


def _expressed(ctx, T, vec, name, point=False):
    """``vec`` (in frame 0) in the frame of iT0 = ``T`` (a point: moved too)."""
    if T is None:
        return vec
    out = [dot(T[r][:3], vec) for r in range(3)]
    if point:
        out = [add(out[r], T[r][3]) for r in range(3)]
    return [ctx.var(x, f"{name}{r + 1}") for r, x in enumerate(out)]


@keyword_options()
def center_of_mass_algorithm(ctx, robot, *, i=0):
    """The centre of mass of the robot (link 0 included) in frame ``i``; 3 context scalars."""
    comp = composite_inertias(ctx, robot, geometry(ctx, robot), root=True)
    _, c = _com(ctx, comp[0])
    return _expressed(ctx, _pose(ctx, robot, i), c, "CW", point=True)


@keyword_options()
def centroidal_momentum_matrix_algorithm(ctx, robot, *, i=0):
    """A_G, 6 rows (linear momentum, angular momentum about the centre of mass, in frame
    ``i``) over the velocities: the base's twist then the joints of :func:`dofs` (a mobile or
    floating robot) or the joints only; nested list of context scalars."""
    return _momentum_matrix(ctx, robot, i)[0]


def _momentum_matrix(ctx, robot, i):
    """(A_G, 1 / the robot's mass): one composite pass for both (the centre of mass's
    Jacobian is A_G's linear rows over the mass)."""
    _, B, comp = composite_columns(ctx, robot, rotor=False, root=True)
    minv, c = _com(ctx, comp[0])
    cols = [B[j] for j in dofs(robot)]
    if moving_base(robot):
        I0 = spatial_matrix(comp[0])
        cols = [[I0[r][k] for r in range(6)] for k in range(6)] + cols
    T = _pose(ctx, robot, i)
    out = []
    for k, col in enumerate(cols):
        p, n = col[:3], col[3:]
        cxp = cross(c, p)
        ng = [add(n[r], -cxp[r]) for r in range(3)]
        p, ng = _expressed(ctx, T, p, f"HP{k + 1}_"), _expressed(ctx, T, ng, f"HN{k + 1}_")
        out.append([ctx.var(x, f"AG{r + 1}{k + 1}") for r, x in enumerate(p + ng)])
    return [[out[k][r] for k in range(len(out))] for r in range(6)], minv


@keyword_options()
def center_of_mass_jacobian_algorithm(ctx, robot, *, i=0):
    """The Jacobian of the centre of mass (3 rows, in frame ``i``; columns as
    :func:`centroidal_momentum_matrix_algorithm`): its linear momentum rows over the mass."""
    AG, minv = _momentum_matrix(ctx, robot, i)
    return [[ctx.var(mul(x, minv), f"JC{r + 1}{k + 1}") for k, x in enumerate(AG[r])]
            for r in range(3)]


# -- plain functions and customized models -------------------------------------------------

def _arrays(robot, q):
    if robot.n_loops:
        raise ArgumentError(f"robot {robot.name!r} has closed loops: the centroidal models "
                            "take trees")
    return robot_arrays(robot, q=q)


def _plain_rows(robot, rows):
    """The rows over the algorithm's columns (the base's, then :func:`dofs`) over the plain
    API's (a mimic joint's column added to its leader's)."""
    head = 6 if moving_base(robot) else 0
    at = {j: head + k for k, j in enumerate(dofs(robot))}
    frames = [list(row[:head]) + [row[at[j]] if j in at else 0
                                  for j in range(1, robot.n_joints + 1)] for row in rows]
    return joint_columns(robot, frames, head)


def _plain(name, algorithm, shape):
    def numpy(robot, i, q):
        (q,) = _arrays(robot, q)
        require_numeric(robot, name, scope="floating")
        rows = algorithm(NumericContext(robot, q=q), robot, i=i)
        if shape == "vector":
            return np.stack(np.broadcast_arrays(*rows, np.zeros(q.shape[:-1]))[:3], axis=-1)
        return stack(_plain_rows(robot, rows), q.shape[:-1])

    def build(robot, i):
        return _model(robot, algorithm, f"{name}_fast", shape, i=i, plain=True)

    return fastpath.Spec(build, lambda robot, q: _arrays(robot, q), numpy)


def _model(robot, algorithm, name, shape, title="", *, i=0, plain=False):
    def alg(ctx):
        rows = algorithm(ctx, robot, i=i)
        if shape == "vector":
            return [Output.vector("C", rows)]
        return [Output.matrix(name.split("_")[0].upper()[:2],
                              _plain_rows(robot, rows) if plain else rows)]

    return customize(f"{robot.name}_{name}", alg, robot, inputs=model_inputs(robot, ("q",)),
                     title=title)


_COM = _plain("center_of_mass", center_of_mass_algorithm, "vector")
_JCOM = _plain("center_of_mass_jacobian", center_of_mass_jacobian_algorithm, "matrix")
_AG = _plain("centroidal_momentum_matrix", centroidal_momentum_matrix_algorithm, "matrix")


def _frame(fn, options):
    return checked_options(fn, options)["i"] if options else 0


@keyword_options(i=0)
def center_of_mass(robot, q, **options) -> np.ndarray:
    """The centre of mass (..., 3) of the robot, link 0 included, at its configuration q, in
    frame ``i`` (default 0; ``"world"``)."""
    i = _frame(center_of_mass, options)
    return fastpath.evaluate(robot, ("com", i), _COM, i, q)


@keyword_options(i=0)
def center_of_mass_jacobian(robot, q, **options) -> np.ndarray:
    """The Jacobian (..., 3, n_v) of the centre of mass in frame ``i``: n_v = 6 + n_q for a
    mobile or floating robot (the base's twist first), else n_q."""
    i = _frame(center_of_mass_jacobian, options)
    return fastpath.evaluate(robot, ("jcom", i), _JCOM, i, q)


@keyword_options(i=0)
def centroidal_momentum_matrix(robot, q, **options) -> np.ndarray:
    """A_G (..., 6, n_v): the linear momentum and the angular momentum about the centre of
    mass, in frame ``i``, from the velocity qd (Orin, Goswami & Lee 2013; Pinocchio's ``ccrba``
    with ``i="world"``), the base's twist first for a mobile or floating robot."""
    i = _frame(centroidal_momentum_matrix, options)
    return fastpath.evaluate(robot, ("AG", i), _AG, i, q)


@keyword_options()
def centroidal_momentum(robot, q, qd, *, i=0) -> np.ndarray:
    """h_G = A_G qd (..., 6): the linear momentum and the angular momentum about the centre of
    mass in frame ``i`` (in the world frame, conserved by a free-floating robot without
    gravity; under gravity, the angular one)."""
    A = centroidal_momentum_matrix(robot, q, i=i)
    qd = finite_vector("qd", qd, A.shape[-1], "velocities")
    return np.einsum("...ij,...j->...i", A, qd)


@keyword_options()
def center_of_mass_model(robot, *, i=0):
    """Customized centre of mass (outputs C1..C3, in frame ``i``)."""
    return _model(robot, center_of_mass_algorithm, "center_of_mass", "vector",
                  f"Centre of mass of {robot.name}", i=i)


@keyword_options()
def center_of_mass_jacobian_model(robot, *, i=0):
    """Customized Jacobian of the centre of mass (3 x n_v, in frame ``i``)."""
    return _model(robot, center_of_mass_jacobian_algorithm, "com_jacobian", "matrix",
                  f"Jacobian of the centre of mass of {robot.name}", i=i)


@keyword_options()
def centroidal_momentum_matrix_model(robot, *, i=0):
    """Customized centroidal momentum matrix A_G (6 x n_v, in frame ``i``; Orin, Goswami & Lee
    2013)."""
    return _model(robot, centroidal_momentum_matrix_algorithm, "ag_matrix", "matrix",
                  f"Centroidal momentum matrix of {robot.name} (composite rigid bodies)", i=i)


__all__ = ["center_of_mass", "center_of_mass_model", "center_of_mass_algorithm",
           "center_of_mass_jacobian", "center_of_mass_jacobian_model",
           "center_of_mass_jacobian_algorithm", "centroidal_momentum_matrix",
           "centroidal_momentum_matrix_model", "centroidal_momentum_matrix_algorithm",
           "centroidal_momentum"]
