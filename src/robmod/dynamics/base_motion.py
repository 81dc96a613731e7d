"""The base of a mobile or floating robot in the recursions of the dynamic models: link 0 is
their first body, its motion their start (docs/floating.md; the start itself,
:func:`robmod.kinematics.recursion.base_start`, is the forward recursion's).

The configuration, velocity and acceleration of such a robot are those of
:mod:`robmod.description.base`: ``q = [P, Q, q_j]`` (7 + n), ``qd = [V0, W0, qd_j]`` and
``qdd = [VD0, WP0, qdd_j]`` (6 + n), the base's twist in frame 0 and its time derivative.  The
Newton-Euler recursions are the fixed base's (Khalil & Dombre (7.51)-(7.61)), started from the
base's motion::

    W_0 = W0,  WP_0 = WP0,  VP_0 = VD0 + W0 x V0 - 0R_w g     (g: the world's gravity)

and continued to link 0: the backward recursion gives the wrench the world (a vehicle, the
ground) exerts on it, E_0, N_0 at O_0 in frame 0 (Pinocchio's ``rnea`` with a free-flyer).

A free-floating robot with the joint accelerations given (SYMORO's floating inverse model,
Khalil, Gallot & Boyer 2007): no wrench on the base but its own external one (FX0..CZ0); the
base's acceleration follows from the equation of the composite body of the whole robot,
IC_0 a_0 = -f_0* (f_0*: the base wrench of the recursion run at a zero base acceleration,
IC_0: the composite inertia of the robot about O_0), then the torques
GAM_j = GAM_j* + (IC_j a_j) . (jS_0 a_0) (Featherstone 2008, §9.4: the torques are affine in a_0
and the composite inertias give their slopes; one recursion, not two).
"""
from __future__ import annotations

from ..symbolic.algebra import add, cross, dot, mul
from .bodies import twist_down
from .composite import composite_inertias, unit_wrench
from .factorization import ltdl_solve

#: the names of the base's entries of the generalized forces (the wrench on link 0) and of the
#: accelerations in the customized models' outputs
WRENCH_NAMES = ("E10", "E20", "E30", "N10", "N20", "N30")
ACCELERATION_NAMES = ("VD01", "VD02", "VD03", "WP01", "WP02", "WP03")


def free_floating(ctx, robot, gam, E, N, kin):
    """(a_0 = [VD0; WP0], the torques over frames 1..NL) of a free-floating robot from the
    recursions run at a zero base acceleration (``gam``, ``E``, ``N``, ``kin``: those of
    :func:`~robmod.dynamics.newton_euler.newton_euler` with ``root=True``)."""
    geo = {f.j: (kin.R[f.j], kin.P[f.j]) for f in robot.frames[:robot.n_links]}
    comp = composite_inertias(ctx, robot, geo, root=True)
    a0 = _rigid_body_solve(ctx, comp[0], [-x for x in E[0]], [-x for x in N[0]], "AB0")
    acc = {0: a0}
    out = list(gam)
    for f in robot.frames[:robot.n_links]:
        j = f.j
        R, P = geo[j]
        acc[j] = twist_down(ctx, R, P, acc[f.ant], "AC", j)
        if gam[j - 1] is None:
            continue
        F = unit_wrench(comp[j], f.sigma)
        out[j - 1] = ctx.var(add(gam[j - 1], dot(F, acc[j])), f"GAM{j}")
    return a0, out


def _rigid_body_solve(ctx, body, f, n, name):
    """[a; alpha] with jI_j [a; alpha] = [f; n] for a rigid (or composite) body (M, MS, J)
    about O_j: alpha = J_G^-1 (n - c x f), a = f / M + c x alpha, c = MS / M, J_G = J + hat(MS)^2
    / M the inertia about the centre of mass (Khalil & Dombre (7.21))."""
    M, MS, J = body
    minv = ctx.var(1 / M, f"{name}MI")
    c = [ctx.var(mul(MS[r], minv), f"{name}C{r + 1}") for r in range(3)]
    cf = cross(c, f)
    rhs = {r: ctx.var(add(n[r], -cf[r]), f"{name}R{r + 1}") for r in range(3)}
    JG = {}
    for r in range(3):
        for k in range(r + 1):
            # J + hat(MS) hat(c): diagonal J_rr - (c.MS - c_r MS_r), off-diagonal J_rk + c_r MS_k
            extra = -add(*[mul(c[i], MS[i]) for i in range(3) if i != r]) if r == k \
                else mul(c[k], MS[r])
            JG[r, k] = ctx.var(add(J[r][k], extra), f"{name}J{r + 1}{k + 1}")
    alpha = ltdl_solve(ctx, JG, rhs, [0, 1, 2], names=(f"{name}D", f"{name}L", f"{name}A",
                                                       f"{name}Y", f"{name}W"))
    alpha = [alpha[r] for r in range(3)]
    ca = cross(c, alpha)
    a = [ctx.var(add(mul(f[r], minv), ca[r]), f"{name}V{r + 1}") for r in range(3)]
    return a + alpha


__all__ = []
