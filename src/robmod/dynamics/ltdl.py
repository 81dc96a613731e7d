"""The direct dynamic model as A^-1 (Gamma - H), symbolically (Khalil & Dombre [7.62]-[7.64]).

H is the Newton-Euler inverse model at qdd = 0, A the composite-link inertia matrix; the system
is solved with ``A = L^T D L`` taken from the last joint back to the first (Featherstone's LTDL:
no fill-in for a tree, L has the sparsity of A; :mod:`.factorization`).  With mimic joints the
system is that of the joint variables, (Eᵀ A E) qdd = Gamma - Eᵀ H
(:mod:`robmod.description.mimic`).  Used by
:func:`~robmod.dynamics.ddm_model` with ``method="inverse"``, the default for robots with
mimic joints.
"""
from __future__ import annotations

from ..symbolic.algebra import add
from .factorization import ltdl_solve
from .inertia import inertia_matrix_algorithm
from .newton_euler import idm_algorithm
from .layout import Proxy, coordinates, dofs, reduce_mimic, reduce_mimic_matrix


def ddm_inverse_algorithm(ctx, robot, tau, *, singular, **switches):
    """qdd = A^-1 (Gamma - H) over a context ([7.62]-[7.64]); with mimic joints
    (Eᵀ A E) qdd = Gamma - Eᵀ H over the joint variables.  ``singular(j)``: the error for a
    pivot that is zero at every configuration."""
    h = idm_algorithm(Proxy(ctx, qdd=0), robot, **switches)
    A = inertia_matrix_algorithm(ctx, robot, rotor=switches.get("rotor", True))
    h = {j: h[j - 1] for j in dofs(robot)}
    if robot.mimic:
        h, A = reduce_mimic(robot, h), reduce_mimic_matrix(ctx, robot, A)
    order = coordinates(robot)
    b = {j: ctx.var(add(tau[j], -h[j]), f"GH{j}") for j in order}
    return ltdl_solve(ctx, A, b, order, singular=singular)


__all__ = []
