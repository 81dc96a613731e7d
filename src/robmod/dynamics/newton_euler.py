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

from ..deprecation import renamed
from ..description.mimic import reduce_vector
from ..description.arguments import (checked_options, finite_output, joint_arrays,
                                     keyword_options, require_numeric, switched_off,
                                     switches_set)
from ..description.robot import (FIXED, PRISMATIC, joint_acceleration,
                                 joint_variable, joint_velocity)
from ..kinematics.recursion import forward, named, rot
from ..symbolic.algebra import add, cross, mul
from ..symbolic.model import Output, customize
from ..symbolic import fastpath
from ..symbolic.context import NumericContext
from .friction import friction_torque
from .layout import reduce_mimic


#: the switches of the Newton-Euler model and their defaults (every term in)
SWITCHES = dict(gravity=True, rotor=True, friction=True, wrench=True, velocity=True,
                base_motion=True, acceleration=True)


@keyword_options()
def idm_algorithm(ctx, robot, *, gravity=True, rotor=True, friction=True, wrench=True,
                  velocity=True, base_motion=True, acceleration=True):
    """Joint torques GAM_j (j = 1..NL, fixed frames give None) over context scalars.

    Switches (used by the models derived from the IDM, e.g. [7.64]); each False is the model
    of the robot with those parameters set to zero:
    ``gravity`` (g), ``rotor`` (IA QDP), ``friction`` (FC, FV, Stribeck),
    ``wrench`` (FX..CZ), ``velocity`` (QP; False sets the joint velocities to 0),
    ``base_motion`` (W0, WP0, VP0 of the base), ``acceleration`` (False sets QDP to 0).
    """
    p = ctx.param
    n = robot.n_links  # closed loops: the equivalent tree
    frames = robot.frames[:n]
    zero3 = [0, 0, 0]
    kin = forward(ctx, robot, frames, velocity=velocity, acceleration=acceleration,
                  base_motion=base_motion, gravity=gravity)
    WP, VP, Rm, Pm = kin.WP, kin.VP, kin.R, kin.P
    # link wrenches
    F, No, MS = {}, {}, {}
    for f in frames:
        j = f.j
        link = robot.link(j)
        MS[j] = [p(link.MX), p(link.MY), p(link.MZ)]
        M = p(link.M)
        Uj = kin.U(j)
        fu = [add(*[mul(Uj[r][c], MS[j][c]) for c in range(3)]) for r in range(3)]
        F[j] = named(ctx, [add(mul(M, VP[j][r]), fu[r]) for r in range(3)], "F", j)
        No[j] = named(ctx, _euler(ctx, link, Uj, kin.DV(j), WP[j], j), "No", j)
    # backward recursion (7.58)-(7.60): the link wrenches plus the external ones
    force, moment = {}, {}
    for f in frames:
        j = f.j
        link = robot.link(j)
        fe = [p(link.FX), p(link.FY), p(link.FZ)] if wrench else zero3
        ce = [p(link.CX), p(link.CY), p(link.CZ)] if wrench else zero3
        force[j] = [F[j], fe]
        moment[j] = [No[j], cross(MS[j], VP[j]), ce]
    E, N = backward(ctx, robot, frames, Rm, Pm, force, moment)
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
    return gam


def backward(ctx, robot, frames, R, P, force, moment, names=("E", "N", "FDI")):
    """The backward recursion of forces, written once (Khalil & Dombre (7.58)-(7.60)), from
    the last link to the first: the force and moment each link j transmits to its antecedent,
    in frame j::

        E_j   = sum(force[j]) + sum_k FDI_k,      FDI_k = jR_k E_k   (children k of j)
        N_j   = sum(moment[j]) + sum_k (jR_k N_k + jP_k x FDI_k)

    ``force[j]`` / ``moment[j]``: lists of 3-vectors applied to link j (missing: none);
    ``R[j]``, ``P[j]``: jR_a(j)... as :func:`robmod.kinematics.recursion.forward` gives them;
    ``names``: of E, N, FDI (a second recursion joined in one customized model, the rotors',
    names its own).  Returns (E, N), dicts over the frames.
    """
    en, nn, fn = names
    children = {}
    for f in frames:
        children.setdefault(f.ant, []).append(f.j)
    E, N, FDI = {}, {}, {}
    for f in reversed(frames):
        j = f.j
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
        if f.ant:
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


@keyword_options(**SWITCHES)
def idm(robot, q, qd, qdd, **switches) -> np.ndarray:
    """Numeric inverse dynamics: joint torques (..., n_q) at q, qd, qdd of shape (..., n_q).

    One entry per joint variable (``robot.joints`` order, fixed frames excluded); the
    switches are those of :func:`idm_algorithm` (keyword-only, checked: a misspelt one is an
    ArgumentError naming the closest).
    """
    if switches:
        switches = switches_set(idm, checked_options(idm, switches))
        if switches:
            key = ("idm", tuple(sorted(switches.items())))
            return fastpath.evaluate(robot, key, _IDM_SPEC, switches, q, qd, qdd)
    return fastpath.evaluate(robot, _IDM, _IDM_SPEC, _DEFAULTS, q, qd, qdd)


def _fast_idm_model(robot, switches):
    """The IDM model whose output is the plain function's (one entry per joint variable)."""
    if not switches.get("velocity", True) or not switches.get("acceleration", True):
        return None
    model = _idm_model(robot, switches)
    if (model.inputs["q"] != tuple(joint_variable(j) for j in robot.joints)
            or model.outputs[0].names != tuple(f"GAM{j}" for j in robot.joints)):
        return None
    return model


def _idm_numpy(robot, switches, q, qd, qdd):
    require_numeric(robot, "idm", scope="geometry")
    q, qd, qdd = joint_arrays(robot, q=q, qd=qd, qdd=qdd)
    shape = q.shape
    ctx = NumericContext(robot, q=q, qd=qd, qdd=qdd)
    gam = idm_algorithm(ctx, robot, **switches)
    out = reduce_vector(robot, dict(enumerate(gam, start=1)), shape)   # mimic: Γ_i + m Γ_j
    return finite_output("idm", out, q=q, qd=qd, qdd=qdd)


@keyword_options()
def idm_model(robot, *, gravity=True, rotor=True, friction=True, wrench=True, velocity=True,
              base_motion=True, acceleration=True, name="idm", title="Inverse dynamic model"):
    """Customized symbolic inverse dynamic model (outputs GAM1..GAMn); the switches of
    :func:`idm_algorithm`, ``name`` and ``title`` those of the generated model."""
    switches = switched_off(idm_model, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion,
                            acceleration=acceleration)
    return _idm_model(robot, switches, name, title)


def _idm_model(robot, switches, name="idm", title="Inverse dynamic model"):
    joints = [j for j in robot.joints if j <= robot.n_links]
    inputs = {"q": tuple(joint_variable(j) for j in joints)}
    if switches.get("velocity", True):
        inputs["qd"] = tuple(joint_velocity(j) for j in joints)
    if switches.get("acceleration", True):
        inputs["qdd"] = tuple(joint_acceleration(j) for j in joints)

    def algorithm(ctx):
        gam = idm_algorithm(ctx, robot, **switches)
        if robot.mimic:     # the torques of the joint variables: Γ_i + Σ m Γ_j
            red = reduce_mimic(robot, {j: g for j, g in enumerate(gam, start=1)})
            return [Output.vector("GAM", [red[j] for j in joints], [f"GAM{j}" for j in joints])]
        vals = [g for g in gam if g is not None]
        names = [f"GAM{j}" for j, g in enumerate(gam, start=1) if g is not None]
        return [Output.vector("GAM", vals, names)]

    return customize(f"{robot.name}_{name}", algorithm, robot, inputs=inputs,
                     title=f"{title} of {robot.name} (Newton-Euler)")


_IDM_SPEC = fastpath.Spec(
    _fast_idm_model, lambda robot, q, qd, qdd: joint_arrays(robot, q=q, qd=qd, qdd=qdd),
    _idm_numpy)


_CCG = dict(acceleration=False, rotor=False, friction=False, wrench=False)


def ccg_algorithm(ctx, robot):
    """Coriolis, centrifugal and gravity torques C(q, qd) qd + Q(q) over context scalars: the
    IDM at qdd = 0 without friction, rotor inertia or external wrench (Khalil & Dombre
    [7.1]); list over frames 1..NL (None for fixed frames)."""
    return idm_algorithm(ctx, robot, **_CCG)


def ccg(robot, q, qd) -> np.ndarray:
    """Numeric C(q, qd) qd + Q(q), shape (..., n_q) (:func:`ccg_algorithm`)."""
    return fastpath.evaluate(robot, ("ccg",), _CCG_SPEC, _CCG, q, qd)


@keyword_options()
def ccg_model(robot):
    """Customized C(q, qd) qd + Q(q) (outputs GAM1..GAMn, inputs q and qd)."""
    return _idm_model(robot, _CCG, name="ccg", title="Coriolis, centrifugal and gravity torques")


def _fast_ccg_model(robot, switches):
    model = ccg_model(robot)
    if (model.inputs["q"] != tuple(joint_variable(j) for j in robot.joints)
            or model.outputs[0].names != tuple(f"GAM{j}" for j in robot.joints)):
        return None
    return model


def _ccg_numpy(robot, switches, q, qd):
    require_numeric(robot, "ccg", scope="geometry")
    q, qd = joint_arrays(robot, q=q, qd=qd)
    gam = idm_algorithm(NumericContext(robot, q=q, qd=qd), robot, **switches)
    out = reduce_vector(robot, dict(enumerate(gam, start=1)), q.shape)
    return finite_output("ccg", out, q=q, qd=qd)


_CCG_SPEC = fastpath.Spec(_fast_ccg_model, lambda robot, q, qd: joint_arrays(robot, q=q, qd=qd),
                          _ccg_numpy)

_COMPILED: dict = {}


@keyword_options()
def compiled_idm(robot, *, gravity=True, rotor=True, friction=True, wrench=True, velocity=True,
                 base_motion=True, acceleration=True):
    """The compiled customized IDM of a numeric robot (:class:`~robmod.symbolic.compile.
    CompiledModel`: batched over leading dimensions, ``.single`` for one state), generated and
    compiled once per process for each robot *content* and set of switches (looked up by
    :attr:`Robot.content_hash`, then compared by :attr:`Robot.content_key`, never by id():
    an equal robot built again reuses it, a changed one does not).  The robot's values are
    substituted first (:meth:`Robot.numeric`)."""
    switches = switched_off(compiled_idm, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion,
                            acceleration=acceleration)
    sw = tuple(sorted(switches.items()))
    bucket = _COMPILED.get((robot.content_hash, sw), ())
    for key, fn in bucket:
        if key == robot.content_key:
            return fn
    numeric = require_numeric(robot.numeric(), "compiled_idm")
    fn = _idm_model(numeric, switches).compile()
    if len(_COMPILED) >= 16:
        _COMPILED.pop(next(iter(_COMPILED)))
    _COMPILED[(robot.content_hash, sw)] = bucket + ((robot.content_key, fn),)
    return fn


ne_algorithm = renamed(idm_algorithm, "ne_algorithm")

__all__ = ["idm", "idm_model", "idm_algorithm", "ccg", "ccg_model", "ccg_algorithm"]
