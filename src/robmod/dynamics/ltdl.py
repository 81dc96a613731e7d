"""The direct dynamic model as A^-1 (Gamma - H), symbolically (Khalil & Dombre [7.62]-[7.64]).

H is the Newton-Euler inverse model at qdd = 0, A the composite-link inertia matrix; the system
is solved with ``A = L^T D L`` taken from the last joint back to the first (Featherstone's LTDL:
no fill-in for a tree, L has the sparsity of A; :mod:`.factorization`).  With mimic joints the
system is that of the joint variables, (Eᵀ A E) qdd = Gamma - Eᵀ H
(:mod:`robmod.description.mimic`).  A floating base's six coordinates come first (the root of
the tree: no fill-in either), with no force on them but link 0's external wrench; a mobile
base's acceleration is given (``ctx.base("qdd")``), the joints' rows solved at it.  Used by
:func:`~robmod.dynamics.ddm_model` with ``method="inverse"``, the default for robots with
mimic joints.
"""
from __future__ import annotations

from ..description.base import moving_base
from ..description.robot import MOBILE_BASE
from ..symbolic.algebra import add
from .factorization import ltdl_solve
from .inertia import inertia_matrix_algorithm
from .newton_euler import idm_algorithm
from .layout import (BASE_LABELS, Proxy, coordinates, dofs, labels, reduce_mimic,
                     reduce_mimic_matrix)


def ddm_inverse_algorithm(ctx, robot, tau, *, singular, **switches):
    """qdd = A^-1 (Gamma - H) over a context ([7.62]-[7.64]), ``{label: qdd}`` (the base's
    ``"b1".."b6"`` first for a mobile or floating base); with mimic joints (Eᵀ A E) qdd =
    Gamma - Eᵀ H over the joint variables.  ``singular(j)``: the error for a pivot that is
    zero at every configuration."""
    mobile = robot.base_kind == MOBILE_BASE
    head = 6 if moving_base(robot) else 0
    zero = (lambda j: ctx.base("qdd") if j == "base" else 0) if mobile else 0
    h = idm_algorithm(Proxy(ctx, qdd=zero), robot, **switches)
    A = inertia_matrix_algorithm(ctx, robot, rotor=switches.get("rotor", True))
    h = dict(zip(BASE_LABELS, h[:head])) | {j: h[head + j - 1] for j in dofs(robot)}
    if robot.mimic:
        h, A = reduce_mimic(robot, h), reduce_mimic_matrix(ctx, robot, A)
    order = coordinates(robot) if mobile else labels(robot)
    b = {j: ctx.var(add(tau.get(j, 0), -h[j]), f"GH{j}") for j in order}
    out = ltdl_solve(ctx, A, b, order, singular=singular)
    if mobile:
        out.update(zip(BASE_LABELS, ctx.base("qdd")))
    return out


__all__ = []
