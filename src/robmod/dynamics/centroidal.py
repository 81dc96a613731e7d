"""Centre of mass, its Jacobian and the centroidal momentum matrix (Orin, Goswami & Lee 2013).

All three come from the composite inertias of :mod:`~robmod.dynamics.inertia`: the composite
inertia IC_0 = (M, MS, J) of the whole robot about O_0 (link 0, the base, included) gives the
centre of mass c = MS / M; the momentum of the robot at O_0, in frame 0, is

    h_0 = IC_0 [V0; W0] + sum_j (IC_j a_j moved to O_0) qd_j

(the base rows of the inertia matrix: Orin & Goswami's composite-rigid-body derivation), and
the centroidal momentum is h_G = [p; n_0 - c x p] (linear momentum, angular momentum about the
centre of mass).  The centroidal momentum matrix A_G is the map qd -> h_G, the centre of mass
Jacobian its first three rows over the total mass.

A floating robot (:mod:`robmod.description.base`) takes its configuration q (..., 7 + n_q)
and gives them in the world frame's axes, its base's twist included (6 + n_q columns, as
Pinocchio's ``centerOfMass``, ``jacobianCenterOfMass`` and ``ccrba``); any other robot takes
its joints q (..., n_q) and gives them in frame 0 (n_q columns).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (floating_arrays, joint_array, keyword_options,
                                     require_numeric)
from ..description.base import is_floating
from ..geometry.floating import BaseState, floating_context, floating_inputs
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, dot, mul, stack
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .inertia import composite_columns, composite_inertias
from .bodies import spatial_matrix
from .layout import dofs, geometry, model_inputs, plain_layout


def _com(ctx, comp0):
    M, MS, _ = comp0
    minv = ctx.var(1 / M, "MI0")
    return minv, [ctx.var(mul(MS[r], minv), f"C0{r + 1}") for r in range(3)]


def _world(ctx, base, vec, name, point=False):
    R = base.rotation(ctx)
    out = [dot(R[r], vec) for r in range(3)]
    if point:
        out = [add(out[r], base.position[r]) for r in range(3)]
    return [ctx.var(x, f"{name}{r + 1}") for r, x in enumerate(out)]


@keyword_options()
def center_of_mass_algorithm(ctx, robot, *, base=None):
    """The centre of mass of the robot (link 0 included): in the world frame for a floating
    robot (``base``: its :class:`BaseState`), else in frame 0; 3 context scalars."""
    comp = composite_inertias(ctx, robot, geometry(ctx, robot), root=True)
    _, c = _com(ctx, comp[0])
    return c if base is None else _world(ctx, base, c, "CW", point=True)


@keyword_options()
def centroidal_momentum_matrix_algorithm(ctx, robot, *, base=None):
    """A_G, 6 rows (linear momentum, angular momentum about the centre of mass) over the
    velocities: the base's twist then the joints of :func:`dofs` (floating robot, ``base``
    given: world axes) or the joints only (frame 0 axes); nested list of context scalars."""
    return _momentum_matrix(ctx, robot, base)[0]


def _momentum_matrix(ctx, robot, base):
    """(A_G, 1 / the robot's mass): one composite pass for both (the centre of mass's
    Jacobian is A_G's linear rows over the mass)."""
    _, B, comp = composite_columns(ctx, robot, rotor=False, root=True)
    minv, c = _com(ctx, comp[0])
    cols = [B[j] for j in dofs(robot)]
    if base is not None:
        I0 = spatial_matrix(comp[0])
        cols = [[I0[r][k] for r in range(6)] for k in range(6)] + cols
    out = []
    for k, col in enumerate(cols):
        p, n = col[:3], col[3:]
        cxp = cross(c, p)
        ng = [add(n[r], -cxp[r]) for r in range(3)]
        if base is not None:
            p, ng = _world(ctx, base, p, f"HP{k + 1}_"), _world(ctx, base, ng, f"HN{k + 1}_")
        out.append([ctx.var(x, f"AG{r + 1}{k + 1}") for r, x in enumerate(p + ng)])
    return [[out[k][r] for k in range(len(out))] for r in range(6)], minv


@keyword_options()
def center_of_mass_jacobian_algorithm(ctx, robot, *, base=None):
    """The Jacobian of the centre of mass (3 rows; columns as
    :func:`centroidal_momentum_matrix_algorithm`): its linear momentum rows over the mass."""
    AG, minv = _momentum_matrix(ctx, robot, base)
    return [[ctx.var(mul(x, minv), f"JC{r + 1}{k + 1}") for k, x in enumerate(AG[r])]
            for r in range(3)]


# -- plain functions and customized models -------------------------------------------------

def _arrays(robot, q):
    if is_floating(robot):
        return floating_arrays(robot, q=q)
    if robot.n_loops:
        from ..errors import ArgumentError

        raise ArgumentError(f"robot {robot.name!r} has closed loops: the centroidal models "
                            "take trees")
    return [joint_array(robot, "q", q)]


def _context(robot, q):
    if is_floating(robot):
        return floating_context(robot, q)
    return NumericContext(robot, q=q), None


def _columns(robot):
    """(position, factor) of the algorithms' columns (dofs order) in the plain functions'
    (joints; a mimic joint's column adds to its leader's, times the multiplier)."""
    head = [(k, 1.0) for k in range(6)] if is_floating(robot) else []
    k0 = len(head)
    for j in dofs(robot):
        if j in robot.joint_index:
            head.append((k0 + robot.joint_index[j], 1.0))
        else:
            i, m, _ = robot.mimic[j]
            head.append((k0 + robot.joint_index[i], m))
    return head


def _plain(name, algorithm, shape):
    def numpy(robot, _, q):
        (q,) = _arrays(robot, q)
        require_numeric(robot, name, scope="floating")
        ctx, base = _context(robot, q)
        rows = algorithm(ctx, robot, base=base)
        if shape == "vector":
            return np.stack(np.broadcast_arrays(*rows, np.zeros(q.shape[:-1]))[:3], axis=-1)
        out = stack(rows, q.shape[:-1])
        full = np.zeros(out.shape[:-1] + (robot.n_q + (6 if base is not None else 0),))
        for k, (c, m) in enumerate(_columns(robot)):
            full[..., c] += m * out[..., k]
        return full

    def build(robot, _):
        if not plain_layout(robot):
            return None
        return _model(robot, algorithm, f"{name}_fast", shape)

    return fastpath.Spec(build, lambda robot, q: _arrays(robot, q), numpy)


def _model(robot, algorithm, name, shape, title=""):
    floating = is_floating(robot)
    inputs = floating_inputs(robot) if floating else model_inputs(robot, ("q",))

    def alg(ctx):
        rows = algorithm(ctx, robot, base=BaseState.symbols(False, False) if floating else None)
        if shape == "vector":
            return [Output.vector("C", rows)]
        return [Output.matrix(name.split("_")[0].upper()[:2], rows)]

    return customize(f"{robot.name}_{name}", alg, robot, inputs=inputs, title=title)


_COM = _plain("center_of_mass", center_of_mass_algorithm, "vector")
_JCOM = _plain("center_of_mass_jacobian", center_of_mass_jacobian_algorithm, "matrix")
_AG = _plain("centroidal_momentum_matrix", centroidal_momentum_matrix_algorithm, "matrix")


def center_of_mass(robot, q) -> np.ndarray:
    """The centre of mass (..., 3) of the robot, link 0 included: in the world frame for a
    floating robot (q (..., 7 + n_q)), else in frame 0 (q (..., n_q))."""
    return fastpath.evaluate(robot, ("com",), _COM, None, q)


def center_of_mass_jacobian(robot, q) -> np.ndarray:
    """The Jacobian (..., 3, n_v) of the centre of mass: n_v = 6 + n_q for a floating robot
    (world axes, the base's twist first), else n_q (frame 0)."""
    return fastpath.evaluate(robot, ("jcom",), _JCOM, None, q)


def centroidal_momentum_matrix(robot, q) -> np.ndarray:
    """A_G (..., 6, n_v): the linear momentum and the angular momentum about the centre of
    mass from the velocity qd (Orin, Goswami & Lee 2013; Pinocchio's ``ccrba``): world axes
    for a floating robot (its base's twist first), frame 0 otherwise."""
    return fastpath.evaluate(robot, ("AG",), _AG, None, q)


def centroidal_momentum(robot, q, qd) -> np.ndarray:
    """h_G = A_G qd (..., 6): the linear momentum and the angular momentum about the centre of
    mass (conserved by a free-floating robot without gravity; under gravity, the angular
    one)."""
    A = centroidal_momentum_matrix(robot, q)
    from ..description.arguments import finite_vector

    qd = finite_vector("qd", qd, A.shape[-1], "velocities")
    return np.einsum("...ij,...j->...i", A, qd)


@keyword_options()
def center_of_mass_model(robot):
    """Customized centre of mass (outputs C1..C3; world frame for a floating robot)."""
    return _model(robot, center_of_mass_algorithm, "center_of_mass", "vector",
                  f"Centre of mass of {robot.name}")


@keyword_options()
def center_of_mass_jacobian_model(robot):
    """Customized Jacobian of the centre of mass (3 x n_v)."""
    return _model(robot, center_of_mass_jacobian_algorithm, "com_jacobian", "matrix",
                  f"Jacobian of the centre of mass of {robot.name}")


@keyword_options()
def centroidal_momentum_matrix_model(robot):
    """Customized centroidal momentum matrix A_G (6 x n_v; Orin, Goswami & Lee 2013)."""
    return _model(robot, centroidal_momentum_matrix_algorithm, "ag_matrix", "matrix",
                  f"Centroidal momentum matrix of {robot.name} (composite rigid bodies)")


__all__ = ["center_of_mass", "center_of_mass_model", "center_of_mass_algorithm",
           "center_of_mass_jacobian", "center_of_mass_jacobian_model",
           "center_of_mass_jacobian_algorithm", "centroidal_momentum_matrix",
           "centroidal_momentum_matrix_model", "centroidal_momentum_matrix_algorithm",
           "centroidal_momentum"]
