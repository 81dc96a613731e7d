"""The forward recursion of link kinematics, written once (Khalil & Dombre (7.51)-(7.57)).

Every model that needs the velocities and accelerations of the links -- the Newton-Euler
inverse dynamic model, the identification regressor, the second-order kinematic model J̇q̇
((5.46)-(5.47)), the rotor terms and the direct dynamic model -- runs this recursion, over
context scalars (symbolic: the customized model's intermediate variables WI, W, WP, VSP, VP,
DV, U; numeric: batched arrays).  For frame j with antecedent a = a(j), in frame j::

    WI_j  = jR_a W_a                                                     (7.51)
    W_j   = WI_j + sigma_bar_j qd_j a_j                                  (7.52)
    WP_j  = jR_a WP_a + sigma_bar_j (qdd_j a_j + WI_j x qd_j a_j)        (7.53)
    U_a   = hat(WP_a) + hat(W_a) hat(W_a),  DV_ik = W_i W_k              (7.57)
    VSP_j = VP_a + U_a aP_j
    VP_j  = jR_a VSP_j + sigma_j (qdd_j a_j + 2 WI_j x qd_j a_j)         (7.54)

with W_0, WP_0, VP_0 the base motion and gravity taken as an acceleration of the base,
VP_0 - 0g ((7.47)): a fixed base's constants (the robot's W0, WP0, VP0), or a mobile or
floating base's state (:func:`base_start`, docs/floating.md)::

    W_0 = W0,  WP_0 = WP0,  VP_0 = VD0 + W0 x V0 - 0g

``robot.gravity`` is the world's gravity g; the recursion takes it in frame 0, 0g = 0R_f g
(:func:`gravity_in_frame0`: Z = fT0 places frame 0 in the world; a mobile or floating base's
orientation is its configuration's) -- the one place where gravity enters the models.  The
velocity of the origin O_j, for the kinetic energy ((7.18); Gautier & Khalil (1990) (10)), on
demand::

    VI_j  = jR_a (V_a + W_a x aP_j),   V_j = VI_j + sigma_j qd_j a_j      (7.18)

from V_0 the base's.  Fixed frames (sigma = 2) move with their antecedent.  ``U`` is built
lazily (only for the frames that need it) and the products DV are kept with it: the Euler
terms of the links ((7.56)) are written with them.
"""
from __future__ import annotations

from ..description.robot import FIXED, PRISMATIC, REVOLUTE
from ..geometry.direct import frame_matrix
from ..symbolic.algebra import add, cross, mul
from ..description.arguments import keyword_options
from ..errors import RobmodError

_ZERO3 = (0, 0, 0)


def rot_t(R, v):
    """R^T v (R as rows of a 3x3 or 3x4 nested list)."""
    return [add(mul(R[0][k], v[0]), mul(R[1][k], v[1]), mul(R[2][k], v[2])) for k in range(3)]


def rot(R, v):
    """R v."""
    return [add(mul(R[r][0], v[0]), mul(R[r][1], v[1]), mul(R[r][2], v[2])) for r in range(3)]


def named(ctx, vec, name, j):
    """The elements of ``vec`` as the intermediate variables ``{name}{k}{j}``."""
    return [ctx.var(x, f"{name}{k + 1}{j}") for k, x in enumerate(vec)]


@keyword_options()
def u_matrix(ctx, w, wp, *, j):
    """(U_j, DV_j): U_j = hat(WP_j) + hat(W_j)^2 ((7.57)) from the products DV_ik = W_i W_k
    (DV_ii = -W_i^2 on the diagonal, so that U_11 = DV22 + DV33)."""
    dv = {}
    for i in range(3):
        for k in range(i, 3):
            prod = mul(w[i], w[k])
            dv[i, k] = ctx.var(-prod if i == k else prod, f"DV{i + 1}{k + 1}{j}")
    u = [[add(dv[1, 1], dv[2, 2]), add(dv[0, 1], -wp[2]), add(dv[0, 2], wp[1])],
         [add(dv[0, 1], wp[2]), add(dv[0, 0], dv[2, 2]), add(dv[1, 2], -wp[0])],
         [add(dv[0, 2], -wp[1]), add(dv[1, 2], wp[0]), add(dv[0, 0], dv[1, 1])]]
    return [[ctx.var(u[r][c], f"U{r + 1}{c + 1}{j}") for c in range(3)] for r in range(3)], dv


class LinkKinematics:
    """The result of :func:`forward`: per frame j, ``R[j]``, ``P[j]`` (jR_a, aP_j), ``WI[j]``,
    ``W[j]``, ``WP[j]``, ``VP[j]``, ``V[j]`` (frame 0: the base), and ``U(j)`` / ``DV(j)`` on
    demand."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.R, self.P, self.WI, self.W, self.WP, self.VP = {}, {}, {}, {}, {}, {}
        self.V = {}
        self._U, self._DV = {}, {}

    def U(self, j):
        if j not in self._U:
            self._U[j], self._DV[j] = u_matrix(self.ctx, self.W[j], self.WP[j], j=j)
        return self._U[j]

    def DV(self, j):
        self.U(j)
        return self._DV[j]


def gravity_in_frame0(ctx, robot, rotation=None):
    """0g = 0R_f g: the world's gravity (``robot.gravity``) expressed in frame 0, as context
    scalars.  ``rotation``: fR_0, the orientation of frame 0 in the world (context scalars: a
    floating base's, from its quaternion); default: the rotation of the base matrix Z = fT0.

    The one rule of robmod: ``robot.gravity`` is the world's (a URDF's, a MuJoCo's: along -z of
    the world), Z and a floating base's pose place frame 0 in that world, every model uses
    gravity in frame 0.  An identity Z (most robots) gives g itself, with no operation (the
    products by 0 and 1 fold); a Z with other numbers gives numbers; a symbolic Z gives the
    intermediate variables G01, G02, G03 of the customized models.
    """
    p = ctx.param
    g = [p(x) for x in robot.gravity]
    R = rotation if rotation is not None else \
        [[p(robot.Z[r, c]) for c in range(3)] for r in range(3)]
    return [ctx.var(x, f"G0{r + 1}") for r, x in enumerate(rot_t(R, g))]


@keyword_options()
def forward(ctx, robot, frames=None, *, velocity=True, acceleration=True, base_motion=True,
            gravity=True, linear=True, angular_acceleration=True, linear_velocity=False,
            moving=None, names=("WI", "W", "WP"), state=None, start=None) -> LinkKinematics:
    """Run (7.51)-(7.57) over ``frames`` (default: the links of the tree, 1..NL, in order).

    ``velocity`` / ``acceleration``: False sets every qd / qdd to 0; ``base_motion``: W0, WP0,
    VP0 of the base (else 0); ``gravity``: VP_0 -= 0g (:func:`gravity_in_frame0`);
    ``linear``: compute VSP, VP;
    ``angular_acceleration``: compute WP; ``linear_velocity``: compute VI, V (the velocity of
    the frames' origins, (7.18)); ``moving(frame)``: whether a frame's joint moves
    (default: sigma != 2); ``names``: the names of WI, W3 and WP (models that join two
    recursions in one customized model give one of them other names); ``state``: a
    :class:`LinkKinematics` of an earlier call (same options) to continue on further
    ``frames`` (their antecedents computed already): a model that meets the links on demand
    runs the recursion once; ``start``: (W_0, WP_0, VP_0 - g[, V_0]) of a floating or mobile
    base given as inputs (context scalars, in frame 0), instead of the robot's W0, WP0, VP0,
    gravity (and V0, needed with ``linear_velocity``).
    """
    p = ctx.param
    if state is not None:
        return _run(ctx, robot, frames, state, velocity, acceleration, linear,
                    angular_acceleration, linear_velocity, moving, names)
    k = LinkKinematics(ctx)
    if start is not None:
        k.W[0], k.WP[0], k.VP[0] = (list(v) for v in start[:3])
        if linear_velocity:
            if len(start) < 4:
                raise RobmodError("forward: linear_velocity needs the base's V_0 (start = (W_0, "
                                  "WP_0, VP_0 - g, V_0))")
            k.V[0] = list(start[3])
    else:
        k.W[0] = [p(x) for x in robot.W0] if base_motion else list(_ZERO3)
        k.WP[0] = [p(x) for x in robot.WP0] if base_motion else list(_ZERO3)
        vp0 = [p(x) for x in robot.VP0] if base_motion else list(_ZERO3)
        if gravity:
            vp0 = [add(v, -g) for v, g in zip(vp0, gravity_in_frame0(ctx, robot))]
        k.VP[0] = vp0
        if linear_velocity:
            k.V[0] = [p(x) for x in robot.V0] if base_motion else list(_ZERO3)
    if frames is None:
        frames = robot.frames[: robot.n_links]
    return _run(ctx, robot, frames, k, velocity, acceleration, linear, angular_acceleration,
                linear_velocity, moving, names)


def _run(ctx, robot, frames, k, velocity, acceleration, linear, angular_acceleration,
         linear_velocity, moving, names):
    """The recursion (7.51)-(7.57) over ``frames``, adding to ``k``."""
    wi_name, w_name, wp_name = names
    for f in frames:
        j, a = f.j, f.ant
        T = frame_matrix(ctx, robot, j)
        R = k.R[j] = [row[:3] for row in T]
        P = k.P[j] = [row[3] for row in T]
        moves = moving(f) if moving is not None else f.sigma != FIXED
        qd = ctx.joint(j, "qd") if (velocity and moves) else 0
        qdd = ctx.joint(j, "qdd") if (acceleration and moves) else 0
        WI = k.WI[j] = named(ctx, rot_t(R, k.W[a]), wi_name, j)
        revolute = f.sigma == REVOLUTE and moves
        k.W[j] = WI[:2] + [ctx.var(add(WI[2], qd), f"{w_name}3{j}")] if revolute else WI
        if angular_acceleration:
            wp = rot_t(R, k.WP[a])
            if revolute:
                wp = [add(wp[0], mul(WI[1], qd)), add(wp[1], -mul(WI[0], qd)), add(wp[2], qdd)]
            k.WP[j] = named(ctx, wp, wp_name, j)
        if linear_velocity:
            vs = [add(v, c) for v, c in zip(k.V[a], cross(k.W[a], P))]
            VI = named(ctx, rot_t(R, vs), "VI", j)
            k.V[j] = VI[:2] + [ctx.var(add(VI[2], qd), f"V3{j}")] \
                if f.sigma == PRISMATIC and moves else VI
        if linear:
            Ua = k.U(a)
            vsp = named(ctx, [add(k.VP[a][r], mul(Ua[r][0], P[0]), mul(Ua[r][1], P[1]),
                                  mul(Ua[r][2], P[2])) for r in range(3)], "VSP", j)
            vp = rot_t(R, vsp)
            if f.sigma == PRISMATIC and moves:
                vp = [add(vp[0], mul(2, mul(WI[1], qd))), add(vp[1], -mul(2, mul(WI[0], qd))),
                      add(vp[2], qdd)]
            k.VP[j] = named(ctx, vp, "VP", j)
    return k


def _base_gravity(ctx, robot, base, gravity=True):
    """0R_w g: the world's gravity (``robot.gravity``) in frame 0, frame 0 turned by the base's
    orientation (zero without gravity)."""
    if not gravity:
        return [0, 0, 0]
    return gravity_in_frame0(ctx, robot, base.rotation(ctx))


def base_start(ctx, robot, base, *, gravity=True, velocity=True, acceleration=True):
    """(W_0, WP_0, VP_0 - g): the start of the forward recursion from the base's state
    ``base`` (a :class:`~robmod.geometry.floating.BaseState`), in frame 0 (``velocity``: its
    twist, else 0; ``acceleration``: its acceleration, else 0)."""
    zero = [0, 0, 0]
    W0 = base.W if velocity else zero
    wxv = [ctx.var(x, f"WV0{r + 1}") for r, x in enumerate(cross(W0, base.V))] \
        if velocity else zero
    acc = base.acceleration if acceleration else [0] * 6
    g0 = _base_gravity(ctx, robot, base, gravity)
    vp = [ctx.var(add(acc[r], wxv[r], -g0[r]), f"VP{r + 1}0") for r in range(3)]
    return W0, acc[3:], vp


__all__ = ["forward", "LinkKinematics", "u_matrix"]
