"""Direct dynamics of a robot with a floating (or mobile) base.

``floating_ddm(robot, q, qd, tau)``: the base's and the joints' accelerations (..., 6 + n) of
a free-floating robot from the joint torques and the external wrenches (FX..CZ of the links,
link 0 included), two ways:

* ``method="recursive"`` -- the articulated-body recursion of the fixed base (Khalil & Dombre
  §7.6.2, :func:`~robmod.dynamics.direct.ddm_algorithm`) continued to link 0: its articulated
  inertia I*_0 and bias beta*_0 give the base's acceleration, I*_0 [VP0 - g; WP0] = beta*_0
  (Featherstone 2008, §9.3; SYMORO's floating direct model), then the forward pass as usual:
  O(n) operations;
* ``method="inverse"`` -- M(q)^-1 (S^T tau - h) with the (6 + n)^2 inertia matrix and h the
  floating inverse model at a zero acceleration (Cholesky).

``base_acceleration=`` a given [VD0, WP0] (..., 6): a mobile base, whose motion is imposed:
the joint accelerations of the arm it carries (the recursion started from the given base
acceleration).
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (checked_options, finite_output, floating_arrays,
                                     keyword_options, require_numeric, switched_off)
from ..errors import ArgumentError, RobmodError
from ..geometry.floating import BaseState, floating_context, floating_inputs
from ..symbolic import fastpath
from ..symbolic.algebra import add, cross
from ..symbolic.model import Output, customize
from .direct import articulated
from .factorization import cholesky_solve
from .floating import base_gravity, floating_idm, floating_inertia_matrix
from .layout import dofs, plain_layout

#: the switches of the floating direct model (those of the floating IDM but acceleration)
SWITCHES = dict(gravity=True, rotor=True, friction=True, wrench=True, velocity=True)
METHODS = ("recursive", "inverse")


@keyword_options()
def floating_ddm_algorithm(ctx, robot, base, tau, *, gravity=True, rotor=True, friction=True,
                           wrench=True, velocity=True):
    """(base acceleration [VD0; WP0] (6), ``{j: qdd_j}``) of a floating robot (``base``: a
    :class:`BaseState` with its twist; given its ``acceleration``: a mobile base, whose
    acceleration is returned as it is), ``tau[j]`` = Gamma_j; the recursive O(n) algorithm."""
    zero = [0, 0, 0]
    W0 = base.W if velocity else zero
    V0 = base.V if velocity else zero
    wxv = cross(W0, V0)
    g0 = base_gravity(ctx, robot, base, gravity)
    given = None
    if base.acceleration is not None:
        acc = base.acceleration
        given = [ctx.var(add(acc[r], wxv[r], -g0[r]), f"VP{r + 1}0") for r in range(3)] \
            + list(acc[3:])
    qdd, vd0 = articulated(ctx, robot, tau, gravity=gravity, rotor=rotor, friction=friction,
                           wrench=wrench, velocity=velocity, base=(W0, given))
    if given is not None:
        return list(base.acceleration), qdd
    lin = [ctx.var(add(vd0[r], g0[r], -wxv[r]), f"VD0{r + 1}") for r in range(3)]
    return lin + list(vd0[3:]), qdd


def _numpy(robot, opts, q, qd, tau, base_acc=None):
    method, switches = opts
    require_numeric(robot, "floating_ddm", scope="floating")
    q, qd, tau = floating_arrays(robot, q=q, qd=qd, tau=tau)
    if base_acc is not None:
        base_acc = _base_vector(base_acc)
        q, qd, tau, base_acc = _broadcast(q, qd, tau, base_acc)
    shape = q.shape[:-1]
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if method == "inverse" or robot.mimic:
                out = _inverse(robot, q, qd, tau, base_acc, switches)
            else:
                idx = [robot.joint_index[j] for j in dofs(robot)]
                ctx, base = floating_context(robot, q, qd)
                if base_acc is not None:
                    base.acceleration = [base_acc[..., k] for k in range(6)]
                head, qdd = floating_ddm_algorithm(ctx, robot, base,
                                                   {j: tau[..., k] for j, k in
                                                    zip(dofs(robot), idx)}, **switches)
                out = np.zeros(shape + (6 + robot.n_q,))
                out[..., :6] = np.stack(np.broadcast_arrays(*head, np.zeros(shape))[:6], -1)
                for j, v in qdd.items():
                    out[..., 6 + robot.joint_index[j]] = v
    except (ZeroDivisionError, np.linalg.LinAlgError):
        out = None
    if out is None or not np.all(np.isfinite(out)):
        raise RobmodError(f"floating_ddm: the inertia matrix of {robot.name!r} with its floating "
                          "base is singular at q (a massless base and links, or a joint that "
                          "moves no inertia and has no rotor inertia)")
    return finite_output("floating_ddm", out, q=q, qd=qd, tau=tau)


def _base_vector(a):
    from ..description.arguments import finite_vector

    return finite_vector("base_acceleration", a, 6, "values (VD0, WP0)")


def _broadcast(*arrays):
    try:
        shape = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
    except ValueError:
        raise ArgumentError("floating_ddm: the batch shapes of q, qd, tau and base_acceleration "
                            "do not broadcast together") from None
    return [np.broadcast_to(a, shape + a.shape[-1:]) for a in arrays]


def _inverse(robot, q, qd, tau, base_acc, switches):
    """M^-1 (S^T tau - h) (Cholesky); a given base acceleration: the joint rows only."""
    rotor = switches.get("rotor", True)
    M = floating_inertia_matrix(robot, q, rotor=rotor)
    zero = np.zeros(q.shape[:-1] + (6 + robot.n_q,))
    if base_acc is not None:
        zero[..., :6] = base_acc
    h = floating_idm(robot, q, qd, zero, **switches)
    if base_acc is not None:
        qdd = cholesky_solve(M[..., 6:, 6:], tau - h[..., 6:])
        return np.concatenate([np.broadcast_to(base_acc, qdd.shape[:-1] + (6,)), qdd], -1)
    rhs = np.concatenate([-h[..., :6], tau - h[..., 6:]], axis=-1)
    return cholesky_solve(M, rhs)


def _model(robot, switches, name="floating_ddm"):
    inputs = floating_inputs(robot, ("q", "qd", "tau") if switches.get("velocity", True)
                             else ("q", "tau"))

    def algorithm(ctx):
        import sympy as sp

        base = BaseState.symbols(switches.get("velocity", True), False)
        head, qdd = floating_ddm_algorithm(ctx, robot, base,
                                           {j: sp.Symbol(f"GAM{j}") for j in dofs(robot)},
                                           **switches)
        order = dofs(robot)
        return [Output.vector("QDP", list(head) + [qdd[j] for j in order],
                              ["VD01", "VD02", "VD03", "WP01", "WP02", "WP03"]
                              + [f"QDP{j}" for j in order])]

    return customize(f"{robot.name}_{name}", algorithm, robot, inputs=inputs,
                     title=f"Direct dynamic model with the floating base of {robot.name} "
                           "(recursive Newton-Euler)")


_SPEC = fastpath.Spec(lambda robot, opts: _model(robot, {}) if plain_layout(robot) else None,
                      lambda robot, q, qd, tau: floating_arrays(robot, q=q, qd=qd, tau=tau),
                      _numpy)


@keyword_options(method="recursive", base_acceleration=None, **SWITCHES)
def floating_ddm(robot, q, qd, tau, **options) -> np.ndarray:
    """The accelerations (..., 6 + n_q), base [VD0, WP0] then joints, of a free-floating robot
    at q (..., 7 + n_q), qd (..., 6 + n_q) under the joint torques tau (..., n_q) and the
    links' external wrenches (link 0's included); ``method``: ``"recursive"`` (O(n), compiled
    when hot) or ``"inverse"`` (M^-1 (S^T tau - h)); ``base_acceleration`` (..., 6): a
    mobile base's given acceleration (then only the joints' follow).  Switches: those of
    :func:`~robmod.dynamics.floating_idm` but ``acceleration``."""
    if not options:
        return fastpath.evaluate(robot, ("floating_ddm",), _SPEC, ("recursive", {}), q, qd,
                                 tau)
    opts = checked_options(floating_ddm, options)
    method, base_acc = opts.pop("method"), opts.pop("base_acceleration")
    if method not in METHODS:
        raise ArgumentError(f"floating_ddm: method must be 'recursive' or 'inverse', got "
                            f"{method!r}")
    switches = {k: v for k, v in opts.items() if v is not True}
    if method == "recursive" and not switches and base_acc is None:
        return fastpath.evaluate(robot, ("floating_ddm",), _SPEC, ("recursive", {}), q, qd,
                                 tau)
    return _numpy(robot, (method, switches), q, qd, tau, base_acc)


@keyword_options()
def floating_ddm_model(robot, *, gravity=True, rotor=True, friction=True, wrench=True,
                       velocity=True):
    """Customized direct dynamic model of a free-floating robot (recursive): inputs the
    base's pose and twist, the joints' q, qd and torques GAM; outputs the base acceleration
    VD01..WP03 and QDP1..QDPn."""
    return _model(robot, switched_off(floating_ddm_model, gravity=gravity, rotor=rotor,
                                      friction=friction, wrench=wrench, velocity=velocity))


__all__ = ["floating_ddm", "floating_ddm_model", "floating_ddm_algorithm"]
