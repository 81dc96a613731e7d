"""Inverse dynamics and inertia matrix of a robot with a floating (or mobile) base.

The base is link 0 with its inertial parameters (``robot.base_link``); the configuration,
velocity and acceleration are those of :mod:`robmod.description.base`:
``q = [P, Q, q_j]`` (7 + n), ``qd = [V0, W0, qd_j]`` and ``qdd = [VD0, WP0, qdd_j]`` (6 + n),
the base's twist in frame 0 and its time derivative.  The Newton-Euler recursions are the
fixed base's (Khalil & Dombre (7.51)-(7.61)), started from the base's motion::

    W_0 = W0,  WP_0 = WP0,  VP_0 = VD0 + W0 x V0 - 0R_w g     (g: the world's gravity)

Two inverse models:

* :func:`floating_idm` -- the base's acceleration given (a mobile base, or a floating one
  whose motion is imposed): the joint torques and the wrench (E_0, N_0) the world must exert
  on link 0 at O_0, in frame 0, from the backward recursion continued to link 0 (Pinocchio's
  ``rnea`` with a free-flyer: the same 6 + n numbers).
* :func:`free_floating_idm` -- SYMORO's floating inverse model (Khalil, Gallot & Boyer 2007):
  no wrench on the base but its own external one (FX0..CZ0), the joint accelerations given; the
  base's acceleration follows from the equation of the composite body of the whole robot,
  IC_0 a_0 = -f_0* (f_0*: the base wrench of the recursion run at a zero base acceleration,
  IC_0: the composite inertia of the robot about O_0), then the torques
  GAM_j = GAM_j* + (IC_j a_j) . (jS_0 a_0) (Featherstone 2008, §9.4: the torques are affine in
  a_0 and the composite inertias give their slopes; one recursion, not two).

The inertia matrix (6 + n)^2 is the composite-link one (:mod:`~robmod.dynamics.inertia`)
with the composite inertia of the whole robot IC_0 as its base block and the composite wrenches
IC_j a_j moved to O_0 as its base rows (Featherstone's CRBA with a floating base).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_output, floating_arrays,
                                     keyword_options, require_numeric, switched_off)
from ..description.mimic import frame_matrix_E
from ..geometry.floating import BaseState, floating_context, floating_inputs
from ..kinematics.recursion import gravity_in_frame0
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, dot, mul
from ..symbolic.model import Output, customize
from .factorization import ltdl_solve
from .inertia import composite_columns, composite_inertias, unit_wrench
from .newton_euler import newton_euler
from .bodies import spatial_matrix, twist_down
from .layout import dofs, joint_vector, plain_layout

#: the switches of the floating models (the base's motion is an input: no ``base_motion``)
SWITCHES = dict(gravity=True, rotor=True, friction=True, wrench=True, velocity=True,
                acceleration=True)


def base_gravity(ctx, robot, base, gravity=True):
    """0R_w g: the world's gravity (``robot.gravity``) in frame 0, frame 0 turned by the base's
    orientation (zero without gravity)."""
    if not gravity:
        return [0, 0, 0]
    return gravity_in_frame0(ctx, robot, base.rotation(ctx))


def base_start(ctx, robot, base, *, gravity=True, velocity=True, acceleration=True):
    """(W_0, WP_0, VP_0 - g) of a floating base for the forward recursion, in frame 0, and
    W0 x V0 (Khalil's VP0 = VD0 + W0 x V0)."""
    zero = [0, 0, 0]
    W0 = base.W if velocity else zero
    wxv = [ctx.var(x, f"WV0{r + 1}") for r, x in enumerate(cross(W0, base.V))] \
        if velocity else zero
    acc = base.acceleration if acceleration and base.acceleration is not None else [0] * 6
    g0 = base_gravity(ctx, robot, base, gravity)
    vp = [ctx.var(add(acc[r], wxv[r], -g0[r]), f"VP{r + 1}0") for r in range(3)]
    return (W0, acc[3:], vp), wxv


@keyword_options()
def floating_idm_algorithm(ctx, robot, base, *, gravity=True, rotor=True, friction=True,
                           wrench=True, velocity=True, acceleration=True):
    """(base wrench [E_0; N_0] (6), GAM over frames 1..NL): the inverse model of a floating
    or mobile base whose acceleration is given (``base``: a :class:`BaseState` with its
    twist and acceleration); switches as :func:`~robmod.dynamics.idm_algorithm`'s."""
    start, _ = base_start(ctx, robot, base, gravity=gravity, velocity=velocity,
                          acceleration=acceleration)
    gam, E, N, _ = newton_euler(ctx, robot, gravity=gravity, rotor=rotor, friction=friction,
                             wrench=wrench, velocity=velocity, acceleration=acceleration,
                             base=start, root=True)
    return E[0] + N[0], gam


@keyword_options()
def free_floating_idm_algorithm(ctx, robot, base, *, gravity=True, rotor=True, friction=True,
                                wrench=True, velocity=True, acceleration=True):
    """(base acceleration [VD0; WP0] (6), GAM over frames 1..NL) of a free-floating robot
    (no wrench on link 0 but FX0..CZ0), at given joint accelerations (``ctx``'s qdd;
    ``acceleration=False``: zero); ``base``: a :class:`BaseState` with its twist."""
    start, _ = base_start(ctx, robot, BaseState(base.position, base.quaternion, base.twist),
                          gravity=gravity, velocity=velocity)
    gam, E, N, kin = newton_euler(ctx, robot, gravity=gravity, rotor=rotor, friction=friction,
                                  wrench=wrench, velocity=velocity, acceleration=acceleration,
                                  base=start, root=True)
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


@keyword_options()
def floating_inertia_matrix_algorithm(ctx, robot, *, rotor=True):
    """Lower triangle ``{(i, j): scalar}`` of the (6 + n)^2 inertia matrix of a floating
    robot, over the labels ``"b1".."b6"`` (the base's twist) then the frames of :func:`dofs`:
    the composite inertia IC_0 of the robot about O_0, the composite wrenches IC_j a_j moved
    to O_0, and A (``rotor``: the rotor inertias on its diagonal)."""
    A, B, comp = composite_columns(ctx, robot, rotor=rotor, root=True)
    I0 = spatial_matrix(comp[0])
    labels = _BASE
    out = {}
    for r in range(6):
        for c in range(r + 1):
            out[labels[r], labels[c]] = I0[r][c]
    for j, col in B.items():
        for r in range(6):
            out[j, labels[r]] = col[r]
    out.update(A)
    return out


_BASE = tuple(f"b{k}" for k in range(1, 7))


def _order(robot):
    return _BASE + dofs(robot)


# -- plain functions and customized models -------------------------------------------------

def _switches(fn, options):
    return {k: v for k, v in checked_options(fn, options).items() if v is not True}


def _check(*names, joint_only=()):
    return lambda robot, *xs: floating_arrays(robot, joint_only, **dict(zip(names, xs)))


def _joint_outputs(robot, gam):
    return [g for g in gam if g is not None], [f"GAM{j}" for j, g in
                                               enumerate(gam, start=1) if g is not None]


def _idm_model(robot, switches, free=False, name=None):
    groups = ("q", "qd", "qdd") if switches.get("acceleration", True) else ("q", "qd")
    if not switches.get("velocity", True):
        groups = tuple(g for g in groups if g != "qd")
    inputs = floating_inputs(robot, groups, base_qdd=not free)
    alg = free_floating_idm_algorithm if free else floating_idm_algorithm

    def algorithm(ctx):
        base = BaseState.symbols("qd" in groups, not free and "qdd" in groups)
        head, gam = alg(ctx, robot, base, **switches)
        vals, names = _joint_outputs(robot, gam)
        first = ["VD01", "VD02", "VD03", "WP01", "WP02", "WP03"] if free else \
            ["E10", "E20", "E30", "N10", "N20", "N30"]
        return [Output.vector("GAM", list(head) + vals, first + names)]

    what = "free-floating inverse dynamic model" if free else \
        "Inverse dynamic model with a floating base"
    return customize(f"{robot.name}_{name or ('free_floating_idm' if free else 'floating_idm')}",
                     algorithm, robot, inputs=inputs,
                     title=f"{what[0].upper()}{what[1:]} of {robot.name} (Newton-Euler)")


def _fast(build):
    def make(robot, switches):
        if not plain_layout(robot) or not switches.get("velocity", True) \
                or not switches.get("acceleration", True):
            return None
        return build(robot, switches)
    return make


def _idm_numpy(robot, switches, q, qd, qdd, free=False):
    require_numeric(robot, "floating_idm", scope="floating")
    q, qd, qdd = floating_arrays(robot, ("qdd",) if free else (), q=q, qd=qd, qdd=qdd)
    ctx, base = floating_context(robot, q, qd, qdd, base_qdd=not free)
    alg = free_floating_idm_algorithm if free else floating_idm_algorithm
    head, gam = alg(ctx, robot, base, **switches)
    shape = q.shape[:-1]
    out = np.concatenate([np.stack(np.broadcast_arrays(*head, np.zeros(shape))[:6], axis=-1),
                          joint_vector(robot, gam, shape + (robot.n_q,))], axis=-1)
    return finite_output("floating_idm", out, q=q, qd=qd, qdd=qdd)


_IDM_SPEC = fastpath.Spec(_fast(lambda r, s: _idm_model(r, s)), _check("q", "qd", "qdd"),
                          _idm_numpy)
_FREE_SPEC = fastpath.Spec(_fast(lambda r, s: _idm_model(r, s, True)), _check("q", "qd", "qdd", joint_only=("qdd",)),
                           lambda robot, s, q, qd, qdd: _idm_numpy(robot, s, q, qd, qdd, True))


@keyword_options(**SWITCHES)
def floating_idm(robot, q, qd, qdd, **switches) -> np.ndarray:
    """Inverse dynamics of a floating (or mobile) base whose acceleration is given: the base
    wrench (force then moment exerted on link 0 by the world, at O_0 in frame 0) and the
    joint torques, (..., 6 + n_q), at q (..., 7 + n_q), qd and qdd (..., 6 + n_q) (the base's
    entries first: :mod:`robmod.description.base`); Pinocchio's ``rnea`` with a free-flyer.
    Switches: those of :func:`~robmod.dynamics.idm` but ``base_motion`` (the base's motion
    is an input here)."""
    sw = _switches(floating_idm, switches) if switches else {}
    return fastpath.evaluate(robot, ("floating_idm", tuple(sorted(sw.items()))), _IDM_SPEC, sw,
                             q, qd, qdd)


@keyword_options(**SWITCHES)
def free_floating_idm(robot, q, qd, qdd, **switches) -> np.ndarray:
    """SYMORO's inverse dynamics of a free-floating robot: at q (..., 7 + n_q), qd (..., 6 +
    n_q) and the *joint* accelerations qdd (..., n_q), with no wrench on the base but its
    external one (FX0..CZ0 of link 0), the base's acceleration [VD0; WP0] and the joint
    torques, (..., 6 + n_q) (Khalil, Gallot & Boyer 2007).  Switches: as
    :func:`floating_idm`."""
    sw = _switches(free_floating_idm, switches) if switches else {}
    return fastpath.evaluate(robot, ("free_floating_idm", tuple(sorted(sw.items()))),
                             _FREE_SPEC, sw, q, qd, qdd)


@keyword_options()
def floating_idm_model(robot, *, gravity=True, rotor=True, friction=True, wrench=True,
                       velocity=True, acceleration=True):
    """Customized inverse dynamic model of a floating or mobile base whose acceleration is
    given: inputs the base's pose (PB, QB), twist (V0, W0), acceleration (VD0, WP0) and the
    joints'; outputs the base wrench E10..E30, N10..N30 and GAM1..GAMn."""
    return _idm_model(robot, switched_off(floating_idm_model, gravity=gravity, rotor=rotor,
                                          friction=friction, wrench=wrench, velocity=velocity,
                                          acceleration=acceleration))


@keyword_options()
def free_floating_idm_model(robot, *, gravity=True, rotor=True, friction=True, wrench=True,
                            velocity=True, acceleration=True):
    """Customized free-floating inverse dynamic model (SYMORO's): inputs the base's pose and
    twist and the joints' q, qd, qdd; outputs the base acceleration VD01..WP03 and
    GAM1..GAMn."""
    return _idm_model(robot, switched_off(free_floating_idm_model, gravity=gravity,
                                          rotor=rotor, friction=friction, wrench=wrench,
                                          velocity=velocity, acceleration=acceleration), True)


def _inertia_numpy(robot, rotor, q):
    (q,) = floating_arrays(robot, q=q)
    require_numeric(robot, "floating_inertia_matrix", scope="floating")
    ctx, _ = floating_context(robot, q)
    A = floating_inertia_matrix_algorithm(ctx, robot, rotor=rotor)
    order = _order(robot)
    n = len(order)
    out = np.zeros(q.shape[:-1] + (n, n))
    for r, i in enumerate(order):
        for c, j in enumerate(order[: r + 1]):
            out[..., r, c] = out[..., c, r] = A.get((i, j), 0)
    if robot.mimic:      # dependent joints: E^T A E, E = d(base, q_frames) / d(base, q)
        E = np.zeros((n, 6 + robot.n_q))
        E[:6, :6] = np.eye(6)
        E[6:, 6:] = frame_matrix_E(robot, dofs(robot))
        out = np.einsum("ri,...rs,sj->...ij", E, out, E)
    return out


def _inertia_model(robot, rotor, full=True):
    order = _order(robot)

    def algorithm(ctx):
        A = floating_inertia_matrix_algorithm(ctx, robot, rotor=rotor)
        if full:
            return [Output.matrix("A", [[A.get((max(i, j, key=order.index),
                                               min(i, j, key=order.index)), 0)
                                         for j in order] for i in order])]
        pairs = [(order[r], order[c]) for r in range(len(order)) for c in range(r + 1)]
        return [Output.vector("A", [A.get(p, 0) for p in pairs],
                              [f"A{i}{j}".replace("b", "B") for i, j in pairs])]

    return customize(f"{robot.name}_floating_inertia{'_full' if full else ''}", algorithm,
                     robot, inputs=floating_inputs(robot),
                     title=f"Inertia matrix with the floating base of {robot.name} "
                           "(composite links)")


_INERTIA_SPEC = fastpath.Spec(lambda robot, rotor: _inertia_model(robot, rotor)
                              if plain_layout(robot) else None, _check("q"), _inertia_numpy)


@keyword_options(rotor=True)
def floating_inertia_matrix(robot, q, **options) -> np.ndarray:
    """The (6 + n_q)^2 inertia matrix of a floating robot at q (..., 7 + n_q) (independent of
    the base's pose), for qd = [V0, W0, joint velocities]: Pinocchio's ``crba`` with a
    free-flyer; ``rotor``: the rotor inertias on the joints' diagonal."""
    rotor = checked_options(floating_inertia_matrix, options)["rotor"] if options else True
    return fastpath.evaluate(robot, ("floating_A", rotor), _INERTIA_SPEC, rotor, q)


@keyword_options()
def floating_inertia_matrix_model(robot, *, rotor=True):
    """Customized (6 + n)^2 inertia matrix of a floating robot: outputs its lower triangle
    (``AB11..AB66`` the base block, ``AjBr`` the base rows, ``Aij`` the joints')."""
    return _inertia_model(robot, rotor, full=False)


__all__ = ["floating_idm", "floating_idm_model", "floating_idm_algorithm", "free_floating_idm",
           "free_floating_idm_model", "free_floating_idm_algorithm", "floating_inertia_matrix",
           "floating_inertia_matrix_model", "floating_inertia_matrix_algorithm"]
