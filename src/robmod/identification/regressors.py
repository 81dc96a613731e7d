"""Identification models, linear in the dynamic parameters (Khalil & Dombre §7.5.3, Siciliano et al. §7.4).

* IDM: ``Gamma = Phi(q, qd, qdd) chi``.  Written once over a context (Newton-Euler
  linear in the parameters): the forward recursion of [7.51]-[7.57] gives W_j,
  WP_j, VP_j (gravity in VP_0) and U_j; the wrench of a unit parameter of link j at
  O_j is, in frame j,

      XX..ZZ: F = 0,       N = I_k WP + W x (I_k W)      (I_k the unit inertia tensor)
      MX, MY, MZ: F = U e_k,   N = e_k x VP
      M:      F = VP,      N = 0

  and its torque at joint i (i = j or an antecedent) is ``Jw_ij . N + Jv_ij . F``
  with (Jv_ij, Jw_ij) the twist of joint i expressed at O_j in frame j (propagated
  like the velocities).  Joint columns: IA_j -> QDP_j, FC_j -> sign(QP_j),
  FV_j -> QP_j.  Symbolically it is a customized model (:func:`regressor_model`),
  numerically a batched NumPy function (:func:`regressor`), and compiled
  (:func:`regressor_function`).  :func:`_regressor_model_derivative` is the same
  model by forward differentiation of the customized IDM (cross-check).
* Base parameters: the columns of the standard parameters that the base
  parameters replace (``BaseParameters.standard_names``): ``Gamma = Phi_b beta``.
* Energy (power) model: ``int_ta^tb Gamma . qd dt = [H(tb) - H(ta)] chi + friction
  integrals`` with H = E + U linear in chi (:mod:`.energy`): :func:`energy_regressor`,
  :func:`energy_identification_rows`.
"""
from __future__ import annotations

import numpy as np
from ..description.arguments import (checked_options, finite_array, finite_output,
                                     joint_arrays, keyword_options, records, require_numeric,
                                     robot_argument, robot_arrays)
from ..description.base import moving_base
from ..description.expr import symbol
from ..description.robot import FIXED, INERTIAL, PRISMATIC, REVOLUTE
from ..dynamics.layout import BASE_LABELS, coordinates, model_inputs, reduce_mimic
from ..errors import ArgumentError
from ..geometry.floating import BaseState
from ..kinematics.recursion import base_start, forward
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross, dot
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .parameters import FIELDS, link_of, split_name

_UNIT_J = {"XX": ((0, 0),), "XY": ((0, 1), (1, 0)), "XZ": ((0, 2), (2, 0)), "YY": ((1, 1),),
           "YZ": ((1, 2), (2, 1)), "ZZ": ((2, 2),)}


@keyword_options()
def standard_names(robot, *, rotor=True, friction=True) -> tuple:
    """Names of the standard parameters present in the description (XXj..Mj, IAj, FCj, FVj;
    link 0's XX0..M0 when the base is mobile or floating)."""
    out = []
    base = [robot.base_link] if robot.base_kind != "fixed" else []
    for link in base + list(robot.links):
        if link.j == 0:
            out += [f"{k}0" for k in INERTIAL if getattr(link, k) != 0]
            continue
        j = link.j
        joint = robot.frame(j).sigma != FIXED
        for k in FIELDS:
            if k == "IA" and not (rotor and joint) or k in ("FC", "FV") and not (friction and joint):
                continue
            v = getattr(link, k)
            if v is not None and v != 0:
                out.append(f"{k}{j}")
    return tuple(out)


def standard_vector(robot, names=None) -> np.ndarray:
    """chi: the numeric values of the standard parameters ``names`` (default: all present)."""
    names = standard_names(robot) if names is None else names
    return np.array([float(getattr(link_of(robot, split_name(n)[1]), split_name(n)[0]))
                     for n in names])


def _columns_of(robot, params):
    if params is None:
        names = standard_names(robot)
    elif hasattr(params, "standard_names"):
        names = params.standard_names
    else:
        names = tuple(params)
    return [(split_name(n)[1], split_name(n)[0]) for n in names], tuple(names)


#: the rows of the regressor: every equation (the base's six, for a mobile or floating base,
#: then the joints'), the base's six only (Ayusawa, Venture & Nakamura 2014: no joint torque
#: needed), the joints' only
EQUATIONS = ("all", "base", "joints")


def _check_equations(what, robot, equations):
    """``equations`` if it is one of :data:`EQUATIONS` (``"base"``: a mobile or floating
    robot's), else an ArgumentError."""
    if equations not in EQUATIONS:
        raise ArgumentError(f"{what}: equations must be one of {', '.join(map(repr, EQUATIONS))}, "
                            f"got {equations!r}")
    if equations == "base" and not moving_base(robot):
        raise ArgumentError(f"{what}: equations='base' are the six equations of a mobile or "
                            f"floating base; robot {robot.name!r} has a fixed base")
    return equations


@keyword_options()
def regressor_algorithm(ctx, robot, *, params=None, gravity=True, equations="all"):
    """Phi as nested lists (one row per equation, one column per parameter): the columns of
    ``params`` (standard parameter names, or a BaseParameters; default every standard
    parameter present).  Returns (rows, row labels).

    The rows (``equations``: :data:`EQUATIONS`): the tree's joints; a mobile or floating base
    (its motion read from ``ctx``: :mod:`robmod.dynamics.base_motion`) adds six rows first,
    ``"b1".."b6"``, the wrench the world exerts on link 0 (those of
    :func:`~robmod.dynamics.idm`), and link 0's parameters (XX0..M0) may be columns;
    ``equations="base"`` computes those six only.
    """
    cols, _ = _columns_of(robot, params)
    moving = moving_base(robot)
    n = robot.n_links
    frames = robot.frames[:n]
    start = base_start(ctx, robot, BaseState.of(ctx), gravity=gravity) if moving else None
    kin = forward(ctx, robot, frames, gravity=gravity, start=start)
    W, WP, VP = kin.W, kin.WP, kin.VP
    U = {}
    # twists of the antecedent joints at O_j in frame j: J[j][i] = (v, w); a floating base's
    # six unit twists are the antecedents of every link
    units = [[1 if r == k else 0 for r in range(6)] for k in range(6)]
    Jt = {0: {b: (e[:3], e[3:]) for b, e in zip(BASE_LABELS, units)} if moving else {}}
    if moving:
        U[0] = kin.U(0)
    joint_rows = equations != "base"
    for f in frames:
        j, a = f.j, f.ant
        R, P = kin.R[j], kin.P[j]

        def rt(v):
            return [dot([R[0][k], R[1][k], R[2][k]], v) for k in range(3)]

        U[j] = kin.U(j)
        # twists of the joints on the chain, at O_j in frame j
        Jt[j] = {}
        for i, (v, om) in Jt[a].items():
            vv = _add_vec(v, cross(om, P))
            Jt[j][i] = ([ctx.var(x, f"JV{k + 1}{i}_{j}") for k, x in enumerate(rt(vv))],
                        [ctx.var(x, f"JW{k + 1}{i}_{j}") for k, x in enumerate(rt(om))])
        if f.sigma == REVOLUTE and joint_rows:
            Jt[j][j] = ([0, 0, 0], [0, 0, 1])
        elif f.sigma == PRISMATIC and joint_rows:
            Jt[j][j] = ([0, 0, 1], [0, 0, 0])
    heads = list(BASE_LABELS) if moving and equations != "joints" else []
    joints = heads + ([f.j for f in frames if f.sigma != FIXED] if joint_rows else [])
    rows = {i: [] for i in joints}
    for (j, k) in cols:
        if k in ("IA", "FC", "FV"):
            if not joint_rows:
                for i in joints:
                    rows[i].append(0)
                continue
            qd = ctx.joint(j, "qd")
            val = {"IA": ctx.joint(j, "qdd"), "FV": qd,
                   "FC": ctx.fn("sign", qd)}[k]
            for i in joints:
                rows[i].append(val if i == j else 0)
            continue
        F, N = _unit_wrench(k, W[j], WP[j], VP[j], U[j])
        for i in joints:
            if i in Jt[j]:
                v, om = Jt[j][i]
                rows[i].append(add(dot(om, N), dot(v, F)))
            else:
                rows[i].append(0)
    if robot.mimic and joint_rows:  # rows of the joint variables: Φ_i + Σ m Φ_j (mimicking i)
        red = [reduce_mimic(robot, {i: rows[i][c] for i in joints[len(heads):]})
               for c in range(len(cols))]
        coords = list(coordinates(robot))
        return ([rows[i] for i in heads]
                + [[red[c][i] for c in range(len(cols))] for i in coords]), heads + coords
    return [rows[i] for i in joints], joints


def _add_vec(a, b):
    return [add(x, y) for x, y in zip(a, b)]


def _unit_wrench(k, w, wp, vp, U):
    if k in _UNIT_J:
        Ik = [[0] * 3 for _ in range(3)]
        for r, c in _UNIT_J[k]:
            Ik[r][c] = 1
        iw = [dot(row, w) for row in Ik]
        iwp = [dot(row, wp) for row in Ik]
        return [0, 0, 0], _add_vec(iwp, cross(w, iw))
    if k in ("MX", "MY", "MZ"):
        c = "XYZ".index(k[1])
        e = [1 if i == c else 0 for i in range(3)]
        return [U[r][c] for r in range(3)], cross(e, vp)
    return list(vp), [0, 0, 0]


@keyword_options(params=None, equations="all")
def regressor(robot, q, qd, qdd, **options) -> np.ndarray:
    """Numeric Phi (..., rows, p) at the robot's q, qd, qdd, batched over leading dimensions:
    the columns of ``params`` (standard parameter names, or a BaseParameters; default every
    standard parameter present), ``idm = Phi chi``.

    One row per joint variable (``robot.joints`` order, fixed frames excluded), after the six
    of the base's wrench for a mobile or floating base (``equations``: ``"all"``, ``"base"``
    those six only, ``"joints"`` the joints' only).  Runs the robot's compiled
    :func:`regressor_model` (the fast path, see :mod:`robmod.symbolic.fastpath`), else the same
    algorithm in NumPy.
    """
    params, equations = None, "all"
    if options:
        opts = checked_options(regressor, options)
        params = opts["params"]
        equations = _check_equations("regressor", robot_argument(robot), opts["equations"])
    key = ("regressor", None if params is None else _columns_of(robot, params)[1], equations)
    return fastpath.evaluate(robot, key, _REGRESSOR_SPEC, (params, equations), q, qd, qdd)


def _regressor_numpy(robot, opts, q, qd, qdd):
    params, equations = opts
    require_numeric(robot, "the regressor", scope="geometry")
    q, qd, qdd = robot_arrays(robot, q=q, qd=qd, qdd=qdd)
    ctx = NumericContext(robot, q=q, qd=qd, qdd=qdd)
    rows, joints = regressor_algorithm(ctx, robot, params=params, equations=equations)
    p = len(rows[0]) if rows else 0
    out = np.zeros(q.shape[:-1] + (len(joints), p))
    for r, row in enumerate(rows):
        for c, x in enumerate(row):
            if not (isinstance(x, (int, float)) and x == 0):
                out[..., r, c] = x
    return finite_output("regressor", out, q=q, qd=qd, qdd=qdd)


_REGRESSOR_SPEC = fastpath.Spec(
    lambda robot, opts: regressor_model(robot, params=opts[0], equations=opts[1],
                                        name="regressor_fast"),
    lambda robot, q, qd, qdd: robot_arrays(robot, q=q, qd=qd, qdd=qdd), _regressor_numpy)


@keyword_options(params=None, equations="all", name="regressor")
def regressor_model(robot, **options):
    """Customized symbolic regressor (output PHI, rows x p): the columns of ``params`` and the
    rows of ``equations`` (see :func:`regressor`), the model named ``{robot}_{name}``."""
    opts = checked_options(regressor_model, options)
    params, name = opts["params"], opts["name"]
    equations = _check_equations("regressor_model", robot_argument(robot), opts["equations"])
    _, names = _columns_of(robot, params)

    def algorithm(ctx):
        rows, js = regressor_algorithm(ctx, robot, params=params, equations=equations)
        el = [f"PHI{str(i).upper()}_{c}" for i in js for c in names]
        return [Output.matrix("PHI", rows, el)]

    kind = f" with a {robot.base_kind} base" if moving_base(robot) else ""
    return customize(f"{robot.name}_{name}", algorithm, robot,
                     inputs=model_inputs(robot, ("q", "qd", "qdd")),
                     title=f"Identification model Gamma = PHI chi of {robot.name}{kind} "
                           f"(columns {', '.join(names)})")


def _regressor_model_derivative(robot, params=None):
    """The regressor as d GAM / d chi of the customized IDM (forward-mode derivative)."""
    from ..dynamics.newton_euler import idm_model
    from ..symbolic.differentiation import derivative

    _, names = _columns_of(robot, params)
    std = standard_names(robot)
    from dataclasses import replace

    present = set(std)
    links = []
    for link in robot.links:
        kw = {k: symbol(f"{k}{link.j}") for k in FIELDS if f"{k}{link.j}" in present}
        kw.update({k: 0 for k in ("FX", "FY", "FZ", "CX", "CY", "CZ")})
        links.append(replace(link, **kw))
    r = replace(robot, links=tuple(links))
    model = derivative(idm_model(r, wrench=False), [symbol(n) for n in names],
                       keep_outputs=False)
    # the IDM is linear in chi: its derivatives do not depend on chi
    return model.substituted({symbol(s): 0 for s in std})


@keyword_options(params=None, equations="all", backend="auto")
def regressor_function(robot, **options):
    """Compiled batched regressor: ``f(q, qd, qdd) -> (..., rows, p)`` (numeric robot; the
    columns of ``params`` and the rows of ``equations``, see :func:`regressor`; ``backend``:
    see ``CustomModel.compile``)."""
    opts = checked_options(regressor_function, options)
    return regressor_model(robot, params=opts["params"],
                           equations=opts["equations"]).compile(backend=opts["backend"])


# -- energy model ------------------------------------------------------------------------------
@keyword_options()
def energy_regressor(robot, q, qd, *, params=None) -> np.ndarray:
    """h(q, qd) with H = E + U = h chi (..., p); friction columns are 0 (see
    :func:`energy_identification_rows`)."""
    from .energy import energy_functions

    require_numeric(robot, "the energy regressor", scope="geometry")
    q, qd = joint_arrays(robot, q=q, qd=qd)
    shape = q.shape
    cols, _ = _columns_of(robot, params)
    ctx = NumericContext(robot, q=q, qd=qd)
    fns, _ = energy_functions(ctx, robot)
    out = np.zeros(shape[:-1] + (len(cols),))
    for c, (j, k) in enumerate(cols):
        if k in INERTIAL:
            i = INERTIAL.index(k)
            out[..., c] = fns[j][0][i] + fns[j][1][i]
        elif k == "IA":
            out[..., c] = 0.5 * qd[..., robot.joint_index[j]] ** 2
    return out


@keyword_options()
def energy_identification_rows(robot, t, q, qd, tau, intervals, *, params=None):
    """Rows of the energy (power) model over the sample intervals ``[(a, b), ...]``:

    ``Y chi = y`` with ``y = int Gamma . qd dt`` (trapezoid), ``Y = h(b) - h(a)`` for the
    inertial and rotor columns and ``int sign(qd_j) qd_j dt``, ``int qd_j^2 dt`` for FC_j, FV_j.
    """
    t = finite_array("t", t, shape_text="the times (N,)")
    q, qd, tau = joint_arrays(robot, q=q, qd=qd, tau=tau)
    intervals = [(int(a), int(b)) for a, b in records(intervals, "intervals")]
    cols, _ = _columns_of(robot, params)
    h = energy_regressor(robot, q, qd, params=params)
    power = (tau * qd).sum(-1)
    Y, y = [], []
    for a, b in intervals:
        s = slice(a, b + 1)
        row = h[b] - h[a]
        for c, (j, k) in enumerate(cols):
            if k == "FC":
                row[c] = _trapz(np.abs(qd[s, robot.joint_index[j]]), t[s])
            elif k == "FV":
                row[c] = _trapz(qd[s, robot.joint_index[j]] ** 2, t[s])
        Y.append(row)
        y.append(_trapz(power[s], t[s]))
    return np.array(Y), np.array(y)


def _trapz(y, x):
    f = getattr(np, "trapezoid", None) or getattr(np, "trapz")
    return float(f(y, x))


@keyword_options()
def base_idm_model(bp, *, gravity=True, rotor=True, friction=True, wrench=True, velocity=True,
                   base_motion=True, acceleration=True):
    """Customized IDM on the base parameters ``bp`` (:func:`base_parameters`): eliminated
    parameters set to 0, grouped ones renamed to their base name (the books' base-parameter
    model, Khalil & Dombre §7.5.3 and Appendix); the switches of
    :func:`~robmod.dynamics.idm_model`.  Numerically it is the IDM of ``bp.base_robot()``
    (:func:`~robmod.dynamics.idm`)."""
    from ..dynamics.newton_euler import idm_model

    return idm_model(bp.base_robot(), name="idm_base",
                     title="Inverse dynamic model on base parameters", gravity=gravity,
                     rotor=rotor, friction=friction, wrench=wrench, velocity=velocity,
                     base_motion=base_motion, acceleration=acceleration)


__all__ = ["regressor", "regressor_model", "regressor_function", "regressor_algorithm",
           "base_idm_model", "energy_regressor", "energy_identification_rows", "standard_names",
           "standard_vector"]
