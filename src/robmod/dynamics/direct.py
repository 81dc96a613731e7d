"""Direct dynamic model (Khalil & Dombre §7.6): the accelerations from the torques, two ways.

(a) ``qdd = A^-1 (Gamma - H)`` ([7.62]-[7.64]): H is the NE inverse model at
    qdd = 0, A the composite-link inertia matrix; numerically solved with a
    batched Cholesky factorization, symbolically (customized model) with the
    ``A = L^T D L`` factorization taken from the last joint back to the first
    (no fill-in for trees: L has the sparsity of A; :mod:`.ltdl`).

(b) The recursive O(n) algorithm of §7.6.2 (:mod:`.articulated`).

A mobile or floating base (:mod:`robmod.description.base`) is the first body of both: a
floating base's acceleration [VD0, WP0] is solved with the joints' (Pinocchio's ``aba`` with a
free-flyer), a mobile base's is given (``base_acceleration``).  Both take Gamma of shape
(..., n_q), the joint torques.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_array, keyword_options,
                                     require_numeric, robot_argument, switched_off, switches_set,
                                     tree_arrays)
from ..description.base import configuration_size, moving_base, velocity_size
from ..description.robot import MOBILE_BASE
from ..errors import ArgumentError, RobmodError
from ..geometry.floating import BaseState
from ..symbolic import fastpath
from ..symbolic.cache import cached
from ..symbolic.algebra import add
from ..symbolic.context import NumericContext
from ..symbolic.model import Output, customize
from .articulated import articulated, singular_inertia_error
from .base_motion import ACCELERATION_NAMES
from ..kinematics.recursion import base_start
from .inertia import inertia_matrix
from .integration import configuration_space
from .newton_euler import SWITCHES, idm
from .factorization import cholesky_solve
from .layout import BASE_LABELS, Proxy, coordinates, dofs, model_inputs
from .ltdl import ddm_inverse_algorithm

#: the switches of the direct model (those of the IDM but ``acceleration``, its output)
DDM_SWITCHES = {k: v for k, v in SWITCHES.items() if k != "acceleration"}
METHODS = ("recursive", "inverse")


@keyword_options()
def ddm_algorithm(ctx, robot, tau, *, gravity=True, rotor=True, friction=True, wrench=True,
                  velocity=True, base_motion=True):
    """The accelerations of the recursive algorithm: ``{j: qdd_j}`` over the joint frames,
    after ``{"b1".."b6": [VD0, WP0]}`` for a mobile or floating base (a floating base's solved,
    a mobile base's given: ``ctx.base("qdd")``); ``tau[j]`` = Gamma_j (switches: those of
    :func:`~robmod.dynamics.idm_algorithm` but ``acceleration``)."""
    sw = dict(gravity=gravity, rotor=rotor, friction=friction, wrench=wrench,
              velocity=velocity)
    if not moving_base(robot):
        return articulated(ctx, robot, tau, base_motion=base_motion, **sw)[0]
    _check_base_motion("ddm_algorithm", robot, base_motion)
    base = BaseState.of(ctx)
    mobile = robot.base_kind == MOBILE_BASE
    # the start of the recursions, written once: a mobile base's given acceleration, or (a
    # floating base's) the velocity and gravity terms W0 x V0 - g, its own acceleration solved
    W0, WP0, VPg = base_start(ctx, robot, base, gravity=gravity, velocity=velocity,
                              acceleration=mobile)
    qdd, vd0 = articulated(ctx, robot, tau, start=(W0, VPg + WP0 if mobile else None), **sw)
    head = list(base.acceleration) if mobile else \
        [ctx.var(add(vd0[r], -VPg[r]), f"VD0{r + 1}") for r in range(3)] + list(vd0[3:])
    out = dict(zip(BASE_LABELS, head))
    out.update(qdd)
    return out


def _check_base_motion(what, robot, base_motion):
    if not base_motion and moving_base(robot):
        raise ArgumentError(f"{what}: base_motion is a fixed base's W0, WP0, VP0; robot "
                            f"{robot.name!r} has a {robot.base_kind} base, whose motion is in "
                            "q and qd (velocity=False sets qd to 0)")


_DDM, _NONE = ("ddm",), ("recursive", {}, False)


@keyword_options(method="recursive", base_acceleration=None, **DDM_SWITCHES)
def ddm(robot, q, qd, tau, **options) -> np.ndarray:
    """Numeric direct dynamics: the accelerations at the robot's q, qd under the joint
    torques tau (..., n_q) and the links' external wrenches (FX..CZ, link 0's included), batched.

    A fixed base: qdd (..., n_q).  A mobile or floating base (:mod:`robmod.description.base`):
    (..., 6 + n_q), the base's acceleration [VD0, WP0] then the joints' (Pinocchio's ``aba``
    with a free-flyer): a floating base's follows from the dynamics, a mobile base's is given,
    ``base_acceleration`` (..., 6) (default 0: the base at a constant twist).
    ``method``: ``'recursive'`` (O(n), Khalil & Dombre §7.6.2; a robot with mimic joints takes
    ``'inverse'``) or ``'inverse'`` (A^-1 (Gamma - H)); the switches are those of
    :func:`~robmod.dynamics.idm` but ``acceleration``.  A singular inertia matrix (a joint that
    only moves massless links and has no rotor inertia, IA = 0) raises a RobmodError naming
    the joint.
    """
    if not options:
        return fastpath.evaluate(robot, _DDM, _DDM_SPEC, _NONE, q, qd, tau)
    opts = checked_options(ddm, options)
    robot_argument(robot)
    method, a0 = opts.pop("method"), opts.pop("base_acceleration")
    if method not in METHODS:
        raise ArgumentError(f"ddm: method must be 'recursive' or 'inverse', got {method!r}")
    switches = switches_set(ddm, opts)
    _check_base_motion("ddm", robot, switches.get("base_motion", True))
    if a0 is not None and robot.base_kind != MOBILE_BASE:
        raise ArgumentError(f"ddm: base_acceleration is the given acceleration of a mobile "
                            f"base; robot {robot.name!r} has a {robot.base_kind} base (a "
                            "floating base's follows from the dynamics: with_base('mobile') "
                            "imposes it)")
    given = a0 is not None
    key = ("ddm", method, tuple(sorted(switches.items())), given)
    xs = (q, qd, tau, a0) if given else (q, qd, tau)
    return fastpath.evaluate(robot, key, _DDM_A_SPEC if given else _DDM_SPEC,
                             (method, switches, given), *xs)


def _arrays(robot, q, qd, tau, a0=None):
    return tree_arrays(robot, a0, q=q, qd=qd, tau=tau)


def _ddm_numpy(robot, opts, q, qd, tau, a0=None):
    method, switches, _ = opts
    require_numeric(robot, "ddm", scope="floating" if moving_base(robot) else "dynamics")
    arrays = _arrays(robot, q, qd, tau, a0)
    q, qd, tau = arrays[:3]
    a0 = arrays[3] if len(arrays) > 3 else (
        np.zeros(q.shape[:-1] + (6,)) if robot.base_kind == MOBILE_BASE else None)
    rotor = switches.get("rotor", True)
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if method == "inverse" or robot.mimic:
                out = _inverse_numpy(robot, q, qd, tau, a0, switches)
            else:
                out = _recursive_numpy(robot, q, qd, tau, a0, switches)
    except (ZeroDivisionError, np.linalg.LinAlgError):
        raise singular_inertia_error(robot, q, rotor) from None
    if not np.all(np.isfinite(out)):
        raise singular_inertia_error(robot, q, rotor)
    return out


def _qdd0(robot, q, a0):
    """The accelerations of the model's context: zero but a mobile base's given one."""
    if a0 is None:
        return np.zeros(q.shape[:-1] + ((6 if moving_base(robot) else 0) + robot.n_q,))
    return np.concatenate([a0, np.zeros(q.shape[:-1] + (robot.n_q,))], axis=-1)


def _recursive_numpy(robot, q, qd, tau, a0, switches):
    head = 6 if moving_base(robot) else 0
    ctx = NumericContext(robot, q=q, qd=qd, qdd=_qdd0(robot, q, a0))
    res = ddm_algorithm(ctx, robot, {j: tau[..., robot.joint_index[j]] for j in dofs(robot)},
                        **switches)
    out = np.zeros(q.shape[:-1] + (head + robot.n_q,))
    for j, v in res.items():
        out[..., BASE_LABELS.index(j) if j in BASE_LABELS else head + robot.joint_index[j]] = v
    return out


def _inverse_numpy(robot, q, qd, tau, a0, switches):
    """A^-1 (Gamma - H) (Cholesky; with mimic joints (E^T A E) qdd = Gamma - E^T H); a
    mobile base: the joint rows at its given acceleration."""
    A = inertia_matrix(robot, q, rotor=switches.get("rotor", True))
    H = idm(robot, q, qd, _qdd0(robot, q, a0), **switches)
    if not moving_base(robot):
        return cholesky_solve(A, tau - H)
    if a0 is not None:
        qdd = cholesky_solve(A[..., 6:, 6:], tau - H[..., 6:])
        return np.concatenate([np.broadcast_to(a0, qdd.shape[:-1] + (6,)), qdd], -1)
    return cholesky_solve(A, np.concatenate([-H[..., :6], tau - H[..., 6:]], axis=-1))


def _fast_ddm_model(robot, opts):
    method, switches, given = opts
    return _ddm_model(robot, None if method == "recursive" else method, switches, given)


_DDM_SPEC = fastpath.Spec(_fast_ddm_model, _arrays, _ddm_numpy)
_DDM_A_SPEC = fastpath.Spec(_fast_ddm_model, _arrays, _ddm_numpy)


def _inverse(ctx, robot, tau, **switches):
    """The symbolic A^-1 (Gamma - H) (:mod:`.ltdl`), a zero pivot refused by name."""
    return ddm_inverse_algorithm(ctx, robot, tau,
                                 singular=lambda j: singular_inertia_error(robot, None, joint=j),
                                 **switches)


@keyword_options()
def ddm_model(robot, *, method: str | None = None, gravity=True, rotor=True, friction=True,
              wrench=True, velocity=True, base_motion=True):
    """Customized direct dynamic model: inputs q, qd, GAM (and a mobile base's given
    acceleration VD01..WP03); outputs QDP1..QDPn, after the base's VD01..WP03 for a mobile or
    floating base.

    ``method``: ``'recursive'`` (:func:`ddm_algorithm`, the default), ``'inverse'`` (A^-1
    (Gamma - H), the L^T D L factorization) or ``'fewest'`` (of the two customized models,
    the one with fewer operations: for the six- and seven-axis arms of the library the
    inverse one, about 25 % fewer -- Khalil & Dombre §9.6 compare the two --; the plant of
    :mod:`robmod.control`'s simulations); a robot with mimic joints takes ``'inverse'`` (the
    recursive algorithm has no place for the coupling of its joints).  The switches of
    :func:`ddm`.
    """
    switches = switched_off(ddm_model, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion)
    _check_base_motion("ddm_model", robot, base_motion)
    if method == "fewest":
        return _fewest(robot, switches)[1]
    if method == "recursive" and robot.mimic:
        raise ArgumentError(f"ddm_model: robot {robot.name!r} has mimic joints, which the "
                            "recursive algorithm does not take: use method='inverse' (the "
                            "default for such robots)")
    if method not in (None, "recursive", "inverse"):
        raise ArgumentError(f"ddm_model: method must be 'recursive', 'inverse' or 'fewest', "
                            f"got {method!r}")
    return _ddm_model(robot, method, switches)


def _ddm_model(robot, method, switches, given=True):
    """The customized direct model (``method`` None: the recursive one, or the inverse one
    with mimic joints); ``given``: a mobile base's acceleration is an input (else 0)."""
    if method is None:
        method = "inverse" if robot.mimic else "recursive"
    mobile = robot.base_kind == MOBILE_BASE
    inputs = model_inputs(robot, ("q", "qd", "tau"))
    if mobile and given:
        inputs["qdd"] = model_inputs(robot, ("qdd",))["qdd"][:6]
    heads = ACCELERATION_NAMES if moving_base(robot) else ()
    alg = ddm_algorithm if method == "recursive" else _inverse

    def algorithm(ctx):
        import sympy as sp

        if mobile and not given:
            ctx = Proxy(ctx, qdd=0)
        order = coordinates(robot)
        qdd = alg(ctx, robot, {j: sp.Symbol(f"GAM{j}") for j in order}, **switches)
        return [Output.vector("QDP", [qdd[j] for j in BASE_LABELS[:len(heads)] + order],
                              list(heads) + [f"QDP{j}" for j in order])]

    title = ("recursive Newton-Euler" if method == "recursive" else "A^-1 (Gamma - H), LTDL")
    kind = f" with a {robot.base_kind} base" if moving_base(robot) else ""
    return customize(f"{robot.name}_ddm_{method}", algorithm, robot, inputs=inputs,
                     title=f"Direct dynamic model of {robot.name}{kind} ({title})")


def _fewest(robot, options):
    """(method, its model): 'recursive' or 'inverse', whichever customized direct model of
    ``robot`` has fewer operations ('inverse' with mimic joints); both are generated once per
    robot content and switches (the one cache, :mod:`robmod.symbolic.cache`)."""
    if robot.mimic:
        return "inverse", _ddm_model(robot, "inverse", options)

    def make():
        models = {m: _ddm_model(robot, m, options) for m in ("recursive", "inverse")}
        ops = {m: x.count() for m, x in models.items()}
        method = min(ops, key=lambda m: (ops[m].mults + ops[m].adds, m != "recursive"))
        return method, models[method]

    return cached(("ddm fewest", robot.content_key, tuple(sorted(options.items()))), make)


# -- state space ---------------------------------------------------------------------------

@keyword_options()
def state_derivative(robot, x, tau, *, method: str = "recursive", base_acceleration=None,
                     gravity=True, rotor=True, friction=True, wrench=True, velocity=True,
                     base_motion=True) -> np.ndarray:
    """Khalil & Dombre, eq. (9.65): the state x = [q, qd] -> xdot = [d/dt q, qdd] (``method``,
    ``base_acceleration`` and the switches: those of :func:`ddm`).

    A fixed base: x (..., 2 n_q), d/dt q = qd.  A mobile or floating base: x (..., 13 + 2 n_q),
    the robot's q (7 + n_q) and qd (6 + n_q) (:mod:`robmod.description.base`), d/dt q the
    derivative of its coordinates: d/dt P = R(Q) V0, d/dt Q = Q * (0, W0) / 2 (the
    quaternion's), the joint rates; qdd the base's acceleration and the joints' -- a floating
    base's from the dynamics, a mobile base's its given ``base_acceleration`` (..., 6), zero by
    default (the base at a constant twist).
    """
    switches = switched_off(state_derivative, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion)
    robot_argument(robot)
    nq, nv = configuration_size(robot), velocity_size(robot)
    what = f"a state [q, qd] of shape (..., {nq + nv})"
    x = finite_array("x", x, shape_text=what)
    if x.ndim == 0 or x.shape[-1] != nq + nv:
        detail = f"{nq} configuration values and {nv} velocities" if moving_base(robot) else \
            f"{nq} joint values and {nv} velocities"
        raise ArgumentError(f"argument x must be {what} ({detail}), got shape {x.shape}")
    q, qd = x[..., :nq], x[..., nq:]
    qdd = ddm(robot, q, qd, tau, method=method, base_acceleration=base_acceleration,
              **switches)
    rates = configuration_space(robot, robot.n_q).rates(q, qd)
    return np.concatenate([np.broadcast_to(rates, qdd.shape[:-1] + (nq,)), qdd], axis=-1)


__all__ = ["ddm", "ddm_model", "ddm_algorithm", "state_derivative"]
