"""Inverse dynamic model by Newton-Euler, in Khalil's practical form (Khalil & Dombre [7.51]-[7.61]).

Written once over context scalars: run symbolically it gives the customized
model of the books (intermediate variables WI, W, WP, DV, U, VSP, VP, F, PIS,
No, E, N, FDI, GAM, Khalil & Dombre §7.5.2 and Appendix); run on NumPy arrays it is the
batched numeric IDM.  Serial and tree structures (antecedent a(j)); fixed
frames (sigma = 2) are rigid links.

Forward recursion, j = 1..n (velocities and accelerations in frame j)::

    WI_j  = jR_a(j) W_a(j)                                               [7.51]
    W_j   = WI_j + sigma_bar_j QP_j a_j                                  [7.52]
    WP_j  = jR_a WP_a + sigma_bar_j (QDP_j a_j + WI_j x QP_j a_j)        [7.53]
    U_j   = hat(WP_j) + hat(W_j) hat(W_j)  (with DV_ik = W_i W_k)         [7.57]
    VSP   = VP_a + U_a aP_j;   VP_j = jR_a VSP + sigma_j (QDP_j a_j + 2 WI_j x QP_j a_j)  [7.54]
    F_j   = M_j VP_j + U_j MS_j                                          [7.55]
    No_j  = I_j WP_j + W_j x (I_j W_j)     (Euler terms from the DV products)

Backward recursion, j = n..1::

    E_j   = F_j + sum_k FDI_k + FE_j              (FDI_k = jR_k E_k)       [7.58]-[7.59]
    N_j   = No_j + MS_j x VP_j + sum_k (jR_k N_k + jP_k x FDI_k) + CE_j    [7.60]
    GAM_j = (sigma_j E_j + sigma_bar_j N_j) . a_j + IA_j QDP_j + friction [7.61]

with VP_0 = VP0 - g (gravity through the base acceleration, [7.47]) and the
friction model of [7.26]: FC sign(QP) + FV QP + (FST - FC) sign(QP) exp(-|QP| BST).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_output, keyword_options,
                                     require_numeric, robot_argument, robot_arrays, switched_off,
                                     switches_set)
from ..description.base import moving_base
from ..description.robot import FIXED, FLOATING_BASE, PRISMATIC
from ..errors import ArgumentError
from ..geometry.floating import BaseState
from ..kinematics.recursion import base_start, forward, named, rot
from ..symbolic.algebra import add, cross, mul
from ..symbolic.model import Output, customize
from ..symbolic import fastpath
from ..symbolic.context import NumericContext
from .base_motion import ACCELERATION_NAMES, WRENCH_NAMES, free_floating
from .friction import friction_torque
from .layout import coordinates, joint_vector, model_inputs, reduce_mimic


#: the switches of the Newton-Euler model and their defaults (every term in)
SWITCHES = dict(gravity=True, rotor=True, friction=True, wrench=True, velocity=True,
                base_motion=True, acceleration=True)
#: the variants of the inverse model: Newton-Euler, free-floating (a floating base)
METHODS = ("ne", "free_floating")


@keyword_options()
def idm_algorithm(ctx, robot, *, method="ne", gravity=True, rotor=True, friction=True,
                  wrench=True, velocity=True, base_motion=True, acceleration=True):
    """Joint torques GAM_j (j = 1..NL, fixed frames give None) over context scalars; a mobile
    or floating base (:mod:`~robmod.dynamics.base_motion`): its six entries first, the wrench
    on link 0 (E_0, N_0), the base's motion read from ``ctx`` (``ctx.base``).

    ``method``: ``"ne"`` (Newton-Euler, the base's acceleration given) or
    ``"free_floating"`` (a floating base: no wrench on it, the joint accelerations given; its
    six entries are then the base's acceleration VD0, WP0).  Switches (used by the models
    derived from the IDM, e.g. [7.64]); each False is the model of the robot with those
    parameters set to zero: ``gravity`` (g), ``rotor`` (IA QDP), ``friction`` (FC, FV,
    Stribeck), ``wrench`` (FX..CZ), ``velocity`` (QP; False sets the velocities to 0, a
    moving base's twist included), ``base_motion`` (W0, WP0, VP0 of a fixed base),
    ``acceleration`` (False sets the accelerations to 0).
    """
    sw = dict(gravity=gravity, rotor=rotor, friction=friction, wrench=wrench,
              velocity=velocity, acceleration=acceleration)
    _check_method("idm_algorithm", robot, method, base_motion)
    if not moving_base(robot):
        return _newton_euler(ctx, robot, base_motion=base_motion, **sw)[0]
    free = method == "free_floating"
    start = base_start(ctx, robot, BaseState.of(ctx), gravity=gravity, velocity=velocity,
                       acceleration=acceleration and not free)
    gam, E, N, kin = _newton_euler(ctx, robot, start=start, root=True, **sw)
    if free:
        a0, gam = free_floating(ctx, robot, gam, E, N, kin)
        return list(a0) + gam
    return E[0] + N[0] + gam


def _check_method(what, robot, method, base_motion=True):
    if method not in METHODS:
        raise ArgumentError(f"{what}: method must be 'ne' or 'free_floating', got {method!r}")
    if method == "free_floating" and robot.base_kind != FLOATING_BASE:
        raise ArgumentError(f"{what}: method='free_floating' is the inverse model of a floating "
                            f"base; robot {robot.name!r} has a {robot.base_kind} base")
    if not base_motion and moving_base(robot):
        raise ArgumentError(f"{what}: base_motion is a fixed base's W0, WP0, VP0; robot "
                            f"{robot.name!r} has a {robot.base_kind} base, whose motion is in "
                            "q, qd, qdd (velocity=False, acceleration=False set them to 0)")


def _newton_euler(ctx, robot, *, gravity=True, rotor=True, friction=True, wrench=True,
                 velocity=True, base_motion=True, acceleration=True, start=None, root=False):
    """The recursions of `idm_algorithm`: (GAM list over frames 1..NL, E, N, the
    :class:`~robmod.kinematics.recursion.LinkKinematics`).

    ``start``: (W_0, WP_0, VP_0 - g) of a mobile or floating base as inputs (see
    :func:`~robmod.kinematics.recursion.forward`); ``root``: link 0 (the base,
    ``robot.base_link``) is a body too: E[0], N[0] are then the force and moment exerted on
    it by the world (its actuator, a vehicle), at O_0 in frame 0.
    """
    p = ctx.param
    n = robot.n_links  # closed loops: the equivalent tree
    frames = robot.frames[:n]
    zero3 = [0, 0, 0]
    kin = forward(ctx, robot, frames, velocity=velocity, acceleration=acceleration,
                  base_motion=base_motion, gravity=gravity, start=start)
    WP, VP, Rm, Pm = kin.WP, kin.VP, kin.R, kin.P
    bodies = [(0, robot.base_link)] if root else []
    bodies += [(f.j, robot.link(f.j)) for f in frames]
    # link wrenches
    F, No, MS = {}, {}, {}
    for j, link in bodies:
        MS[j] = [p(link.MX), p(link.MY), p(link.MZ)]
        M = p(link.M)
        Uj = kin.U(j)
        fu = [add(*[mul(Uj[r][c], MS[j][c]) for c in range(3)]) for r in range(3)]
        F[j] = named(ctx, [add(mul(M, VP[j][r]), fu[r]) for r in range(3)], "F", j)
        No[j] = named(ctx, _euler(ctx, link, Uj, kin.DV(j), WP[j], j), "No", j)
    # backward recursion (7.58)-(7.60): the link wrenches plus the external ones
    force, moment = {}, {}
    for j, link in bodies:
        fe = [p(link.FX), p(link.FY), p(link.FZ)] if wrench else zero3
        ce = [p(link.CX), p(link.CY), p(link.CZ)] if wrench else zero3
        force[j] = [F[j], fe]
        moment[j] = [No[j], cross(MS[j], VP[j]), ce]
    E, N = backward(ctx, robot, frames, Rm, Pm, force, moment, root=root)
    gam = [None] * n
    for f in frames:
        j = f.j
        link = robot.link(j)
        if f.sigma == FIXED:
            continue
        g = E[j][2] if f.sigma == PRISMATIC else N[j][2]          # (7.61)
        qd = ctx.joint(j, "qd") if velocity else 0
        qdd = ctx.joint(j, "qdd") if acceleration else 0
        extra = []
        if rotor:
            extra.append(mul(p(link.IA), qdd))
        if friction and velocity:
            extra.append(friction_torque(ctx, link, qd))
        gam[j - 1] = ctx.var(add(g, *extra), f"GAM{j}")
    return gam, E, N, kin


def backward(ctx, robot, frames, R, P, force, moment, names=("E", "N", "FDI"), root=False):
    """The backward recursion of forces, written once (Khalil & Dombre (7.58)-(7.60)), from
    the last link to the first: the force and moment each link j transmits to its antecedent,
    in frame j::

        E_j   = sum(force[j]) + sum_k FDI_k,      FDI_k = jR_k E_k   (children k of j)
        N_j   = sum(moment[j]) + sum_k (jR_k N_k + jP_k x FDI_k)

    ``force[j]`` / ``moment[j]``: lists of 3-vectors applied to link j (missing: none);
    ``R[j]``, ``P[j]``: jR_a(j)... as :func:`robmod.kinematics.recursion.forward` gives them;
    ``names``: of E, N, FDI (a second recursion joined in one customized model, the rotors',
    names its own); ``root``: also E_0, N_0, the wrench on link 0 (a mobile or floating
    base: ``force[0]``, ``moment[0]`` its own).  Returns (E, N), dicts over the frames.
    """
    en, nn, fn = names
    children = {}
    for f in frames:
        children.setdefault(f.ant, []).append(f.j)
    E, N, FDI = {}, {}, {}
    for j, a in [(f.j, f.ant) for f in reversed(frames)] + ([(0, None)] if root else []):
        kids = children.get(j, [])
        e = [add(*[v[r] for v in force.get(j, ())], *[FDI[k][r] for k in kids])
             for r in range(3)]
        E[j] = named(ctx, e, en, j)
        terms = [[v[r] for v in moment.get(j, ())] for r in range(3)]
        for k in kids:
            rn = rot(R[k], N[k])
            pxf = cross(P[k], FDI[k])
            for r in range(3):
                terms[r] += [rn[r], pxf[r]]
        N[j] = named(ctx, [add(*t) for t in terms], nn, j)
        if a or (root and a == 0):
            FDI[j] = named(ctx, rot(R[j], E[j]), fn, j)
    return E, N


def _nonzero(x) -> bool:
    from ..symbolic.algebra import numeric_constant

    c = numeric_constant(x)
    return c is None or c != 0


def _euler(ctx, link, U, dvs, wp, j):
    """I WP + W x (I W), written with the elements of U_j and the products DV (Khalil's form).

    Component 1 is ``XX WP1 - XY U31 + XZ U21 + YZ (DV33 - DV22) + (ZZ - YY) DV23``
    (and circular permutations): 15 multiplications and 15 additions for a general
    inertia tensor, sharing U with F_j; ``PISkj`` are constants.
    """
    p = ctx.param
    XX, XY, XZ, YY, YZ, ZZ = (p(link.XX), p(link.XY), p(link.XZ), p(link.YY), p(link.YZ),
                              p(link.ZZ))
    d12, d13, d23 = dvs[0, 1], dvs[0, 2], dvs[1, 2]
    d11, d22, d33 = dvs[0, 0], dvs[1, 1], dvs[2, 2]
    pis1 = ctx.var(add(ZZ, -YY), f"PIS1{j}")
    pis2 = ctx.var(add(XX, -ZZ), f"PIS2{j}")
    pis3 = ctx.var(add(YY, -XX), f"PIS3{j}")

    def diff(a, b, coef):
        return mul(coef, add(a, -b)) if _nonzero(coef) else 0

    n1 = add(mul(XX, wp[0]), -mul(XY, U[2][0]), mul(XZ, U[1][0]), diff(d33, d22, YZ),
             mul(pis1, d23))
    n2 = add(mul(YY, wp[1]), mul(XY, U[2][1]), -mul(YZ, U[0][1]), diff(d11, d33, XZ),
             mul(pis2, d13))
    n3 = add(mul(ZZ, wp[2]), -mul(XZ, U[1][2]), mul(YZ, U[0][2]), diff(d22, d11, XY),
             mul(pis3, d12))
    return [n1, n2, n3]


_IDM, _DEFAULTS = ("idm", ()), {}


@keyword_options(method="ne", **SWITCHES)
def idm(robot, q, qd, qdd, **options) -> np.ndarray:
    """Numeric inverse dynamics: the generalized forces at the robot's q, qd, qdd (its
    configuration, velocity and acceleration: :mod:`robmod.description.base`), batched.

    A fixed base: the joint torques (..., n_q) (one entry per joint variable, ``robot.joints``
    order, fixed frames excluded).  A mobile or floating base: the wrench the world exerts on
    link 0 (force then moment at O_0 in frame 0) then the joint torques, (..., 6 + n_q)
    (Pinocchio's ``rnea`` with a free-flyer); ``method="free_floating"`` (a floating base):
    qdd holds the joint accelerations only (..., n_q), no wrench acts on the base, and the
    result is the base's acceleration [VD0, WP0] then the torques.  The switches are those of
    :func:`idm_algorithm` (keyword-only, checked: a misspelt one is an ArgumentError naming
    the closest).
    """
    if options:
        opts = switches_set(idm, checked_options(idm, options))
        if opts:
            _check_method("idm", robot_argument(robot), opts.get("method", "ne"),
                          opts.get("base_motion", True))
            key = ("idm", tuple(sorted(opts.items())))
            spec = _FREE_SPEC if opts.get("method") == "free_floating" else _IDM_SPEC
            return fastpath.evaluate(robot, key, spec, opts, q, qd, qdd)
    return fastpath.evaluate(robot, _IDM, _IDM_SPEC, _DEFAULTS, q, qd, qdd)


def _arrays(robot, opts, q, qd, qdd):
    joint_only = ("qdd",) if opts.get("method") == "free_floating" else ()
    return robot_arrays(robot, joint_only, q=q, qd=qd, qdd=qdd)


def _idm_numpy(robot, opts, q, qd, qdd):
    require_numeric(robot, "idm", scope="floating" if moving_base(robot) else "geometry")
    q, qd, qdd = _arrays(robot, opts, q, qd, qdd)
    if opts.get("method") == "free_floating":      # the base's entries unused: zeros
        qdd = np.concatenate([np.zeros(qdd.shape[:-1] + (6,)), qdd], axis=-1)
    ctx = NumericContext(robot, q=q, qd=qd, qdd=qdd)
    out = joint_vector(robot, idm_algorithm(ctx, robot, **opts), q.shape)
    return finite_output("idm", out, q=q, qd=qd, qdd=qdd)


@keyword_options()
def idm_model(robot, *, method="ne", gravity=True, rotor=True, friction=True, wrench=True,
              velocity=True, base_motion=True, acceleration=True, name="idm",
              title="Inverse dynamic model"):
    """Customized symbolic inverse dynamic model (outputs GAM1..GAMn, after the base wrench
    E10..N30 for a mobile or floating base, or its acceleration VD01..WP03 with
    ``method="free_floating"``; inputs the base's entries then the joints'); ``method`` and
    the switches of :func:`idm_algorithm`, ``name`` and ``title`` those of the generated
    model."""
    opts = switched_off(idm_model, gravity=gravity, rotor=rotor, friction=friction,
                        wrench=wrench, velocity=velocity, base_motion=base_motion,
                        acceleration=acceleration)
    _check_method("idm_model", robot, method, base_motion)
    if method != "ne":
        opts["method"] = method
        name = "free_floating_idm" if name == "idm" else name
    return _idm_model(robot, opts, name, title)


def _idm_model(robot, opts, name="idm", title="Inverse dynamic model", *, every_input=False):
    """The customized IDM over the joint variables (``every_input``: every input group,
    those the switches make unused included: the plain function's model)."""
    free = opts.get("method") == "free_floating"
    groups = ["q"]
    if every_input or opts.get("velocity", True):
        groups.append("qd")
    if every_input or opts.get("acceleration", True):
        groups.append("qdd")
    inputs = model_inputs(robot, groups, ("q", "qd") if free else ("q", "qd", "qdd"))
    heads = ((ACCELERATION_NAMES if free else WRENCH_NAMES) if moving_base(robot) else ())
    joints = coordinates(robot)

    def algorithm(ctx):
        gam = idm_algorithm(ctx, robot, **opts)
        head, gam = gam[:len(heads)], gam[len(heads):]
        red = reduce_mimic(robot, {j: g for j, g in enumerate(gam, start=1)})
        return [Output.vector("GAM", list(head) + [red[j] for j in joints],
                              list(heads) + [f"GAM{j}" for j in joints])]

    kind = f" with a {robot.base_kind} base" if moving_base(robot) else ""
    return customize(f"{robot.name}_{name}", algorithm, robot, inputs=inputs,
                     title=f"{title} of {robot.name}{kind} (Newton-Euler)")


def _fast_idm_model(robot, opts):
    """The IDM model whose output is the plain function's (every input group)."""
    return _idm_model(robot, opts, every_input=True)


_IDM_SPEC = fastpath.Spec(_fast_idm_model, lambda robot, *xs: _arrays(robot, {}, *xs),
                          _idm_numpy)
_FREE_SPEC = fastpath.Spec(_fast_idm_model,
                           lambda robot, *xs: _arrays(robot, {"method": "free_floating"}, *xs),
                           _idm_numpy)


_CCG = dict(acceleration=False, rotor=False, friction=False, wrench=False)


def ccg_algorithm(ctx, robot):
    """Coriolis, centrifugal and gravity torques C(q, qd) qd + Q(q) over context scalars: the
    IDM at qdd = 0 without friction, rotor inertia or external wrench (Khalil & Dombre
    [7.1]); list over frames 1..NL (None for fixed frames)."""
    return idm_algorithm(ctx, robot, **_CCG)


def ccg(robot, q, qd) -> np.ndarray:
    """Numeric C(q, qd) qd + Q(q) at the robot's q, qd: (..., n_q), after the base's six for a
    mobile or floating base (Pinocchio's ``nonLinearEffects``) (:func:`ccg_algorithm`)."""
    return fastpath.evaluate(robot, ("ccg",), _CCG_SPEC, _CCG, q, qd)


@keyword_options()
def ccg_model(robot):
    """Customized C(q, qd) qd + Q(q) (outputs GAM1..GAMn, inputs q and qd)."""
    return _idm_model(robot, _CCG, name="ccg", title="Coriolis, centrifugal and gravity torques")


def _ccg_numpy(robot, opts, q, qd):
    require_numeric(robot, "ccg", scope="floating" if moving_base(robot) else "geometry")
    q, qd = robot_arrays(robot, q=q, qd=qd)
    gam = idm_algorithm(NumericContext(robot, q=q, qd=qd), robot, **opts)
    return finite_output("ccg", joint_vector(robot, gam, q.shape), q=q, qd=qd)


_CCG_SPEC = fastpath.Spec(lambda robot, opts: ccg_model(robot),
                          lambda robot, q, qd: robot_arrays(robot, q=q, qd=qd), _ccg_numpy)

__all__ = ["idm", "idm_model", "idm_algorithm", "ccg", "ccg_model", "ccg_algorithm"]
