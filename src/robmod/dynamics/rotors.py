"""Siciliano's rotor model: the motor of joint j is carried by link a(j) (Siciliano et al. §7.1.1).

Siciliano et al. places the rotor of motor i on link i-1 (Fig. 7.2) and gives it the
angular velocity (7.23) ``w_mi = w_(i-1) + k_ri qd_i z_mi``; its kinetic
energy (7.21), (7.30) is ``1/2 m_mi |pd_mi|^2 + 1/2 w_mi^T I_mi w_mi``.  With a
rotor symmetric about its axis (7.66), ``I_mi = I_t (1 - z z^T) + I_mi z z^T``
and the energy splits into

* ``1/2 m_mi |pd_mi|^2 + 1/2 I_t |w_(i-1) x z|^2``: a rigid body of link i-1;
  :func:`robmod.dynamics.siciliano.from_siciliano` adds it to the link's
  parameters (XX..M of frame a(j));
* ``T_r = 1/2 I_m s^2`` with the *axial* rate ``s = z . w_a(j) + k_r qd_j``,
  which this module adds to the robot's model.  Expanded (7.64), (7.68):
  ``1/2 k_r^2 I_m qd_j^2`` (Khalil's ``IA_j = k_r^2 I_m`` alone),
  ``+ k_r I_m qd_j z . w_a(j)`` (the gyroscopic coupling giving the ``k_r2 I_m2``
  of b12 in §7.3.2) ``+ 1/2 I_m (z . w_a(j))^2`` (the axial inertia carried by
  link a(j), the ``I_m2`` of b11).

Rotor torques (Newton-Euler form, written once over context scalars): the
rotor's axial angular momentum ``h = I_m s z`` (z fixed in frame a(j)) changes
at ``hd = I_m (sd z + s w_a(j) x z)`` with ``sd = z . wd_a(j) + k_r qdd_j``;
d'Alembert over ``w_m = J_w,a(j) qd + k_r qd_j z`` gives the generalized forces

    GAMR_j += k_r I_m sd                      (through the gear)
    GAMR_p += z_p . hd   for each revolute ancestor p of link a(j) (a pure couple).

``B_r(q) = sum I_m u u^T`` with ``u = J_w,a(j)^T z + k_r e_j``: (7.32) restricted
to these terms.  The Coriolis matrix is the Christoffel form (7.44)-(7.45) of
B_r, obtained exactly by polarization of the velocity torques (as
:func:`robmod.dynamics.coriolis_matrix`).  Everything is linear in the robot,
so Siciliano's complete model is ``idm(robot) + rotor_torques(robot, rotors)``
with ``IA_j = 0`` for the joints that have a rotor here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..description.arguments import check_arrays, keyword_options, records, switched_off
from ..description.expr import as_expr
from ..description.robot import FIXED, REVOLUTE, symbol
from ..errors import ArgumentError, RobmodError
from ..kinematics.recursion import forward, named
from ..symbolic.algebra import add, cross, dot, mul
from ..symbolic.model import Output, customize
from .newton_euler import backward, idm_algorithm
from .layout import dofs, joint_vector, model_inputs, numeric_context


@dataclass(frozen=True)
class Rotor:
    """Rotor of the motor of joint ``j``, carried by link a(j) (Siciliano et al. Fig. 7.2).

    ``I_m``: moment of inertia about its spin axis (7.66); ``k_r``: gear ratio
    (7.22), ``thetad_m = k_r qd_j``; ``axis``: the unit vector z_m of the spin
    axis in frame a(j) (Khalil's frame of the carrier link).  Its mass and
    transverse inertia belong to the carrier link's parameters.
    """

    j: int
    I_m: sp.Expr
    k_r: sp.Expr
    axis: tuple = (0, 0, 1)

    def __post_init__(self):
        object.__setattr__(self, "I_m", as_expr(self.I_m))
        object.__setattr__(self, "k_r", as_expr(self.k_r))
        if len(self.axis) != 3:
            raise RobmodError(f"rotor {self.j}: the axis needs 3 components")
        object.__setattr__(self, "axis", tuple(as_expr(x) for x in self.axis))

    def substitute(self, mapping) -> "Rotor":
        subs = {symbol(k) if isinstance(k, str) else k: as_expr(v) for k, v in mapping.items()}
        return Rotor(self.j, self.I_m.xreplace(subs), self.k_r.xreplace(subs),
                     tuple(x.xreplace(subs) for x in self.axis))


def _check_rotors(robot, rotors) -> tuple:
    """The rotors as a tuple, checked against the robot (tree joints, one rotor per joint)."""
    rotors = () if rotors is None else tuple(records(rotors, "rotors"))
    seen = set()
    for r in rotors:
        if not isinstance(r, Rotor):
            raise ArgumentError(f"expected Rotor objects, got {type(r).__name__}")
        if not 1 <= r.j <= robot.n_links or robot.frame(r.j).sigma == FIXED:
            raise RobmodError(f"rotor {r.j}: robot {robot.name!r} has no moving joint {r.j} "
                              "in its tree structure")
        if r.j in seen:
            raise RobmodError(f"two rotors for joint {r.j}")
        seen.add(r.j)
    return rotors


def _value_map(robot) -> dict:
    """The robot's numeric values resolved to a fixed point (as Robot.numeric does)."""
    syms = {symbol(k): as_expr(v) for k, v in robot.values.items()}
    for _ in range(len(syms) + 1):
        new = {k: v.xreplace(syms) for k, v in syms.items()}
        if new == syms:
            break
        syms = new
    return syms


def _params(ctx, robot, rotor):
    """(I_m, k_r, z) of a rotor as context scalars (numeric: robot.values substituted)."""
    if ctx.symbolic:
        def conv(x):
            return ctx.param(x)
    else:
        vals = _value_map(robot) if robot.values else {}

        def conv(x):
            return ctx.param(x.xreplace(vals) if vals else x)
    return conv(rotor.I_m), conv(rotor.k_r), [conv(x) for x in rotor.axis]


def _angular(ctx, robot, need, velocity, acceleration, base_motion):
    """Angular velocity and acceleration of the frames in ``need`` (in their own frame): the
    forward recursion of :mod:`robmod.kinematics.recursion`, angular part, its variables named
    WIR, WR, WPR (the rotor model is joined to the IDM in one customized model)."""
    frames = [f for f in robot.frames[: robot.n_links] if f.j in need]
    return forward(ctx, robot, frames, velocity=velocity, acceleration=acceleration,
                   base_motion=base_motion, gravity=False, linear=False,
                   names=("WIR", "WR", "WPR"))


def _nonzero(x) -> bool:
    from ..symbolic.algebra import numeric_constant

    cst = numeric_constant(x)
    return cst is None or cst != 0


def _needed(robot, rotors):
    need = set()
    for r in rotors:
        a = robot.frame(r.j).ant
        if a:
            need.update(robot.chain(a))
    return need


@keyword_options()
def rotor_torques_algorithm(ctx, robot, rotors, *, velocity=True, acceleration=True,
                            base_motion=True):
    """Rotor torques GAMR_j (list over frames 1..NL, 0 where none) over context scalars."""
    rotors = _check_rotors(robot, rotors)
    n = robot.n_links
    kin = _angular(ctx, robot, _needed(robot, rotors), velocity, acceleration, base_motion)
    W, WP = kin.W, kin.WP
    tau = {}
    N = {}
    for r in rotors:
        j, c = r.j, robot.frame(r.j).ant
        I, k, z = _params(ctx, robot, r)
        qd = ctx.joint(j, "qd") if velocity else 0
        qdd = ctx.joint(j, "qdd") if acceleration else 0
        ki = ctx.var(mul(k, I), f"KIR{j}")  # constants (parameters only)
        if c == 0 and not any(_nonzero(x) for x in WP[0]):
            tau.setdefault(j, []).append(mul(ctx.var(mul(k, ki), f"IAR{j}"), qdd))
            continue  # rotor on the base: k_r^2 I_m qdd only, the base takes the reaction
        sd = ctx.var(add(dot(z, WP[c]), mul(k, qdd)), f"SDR{j}")
        tau.setdefault(j, []).append(mul(ki, sd))
        if c == 0:
            continue
        s = ctx.var(add(dot(z, W[c]), mul(k, qd)), f"SR{j}")  # axial rate of the rotor
        i_s = ctx.var(mul(I, s), f"ISR{j}")
        i_sd = ctx.var(mul(I, sd), f"ISDR{j}")
        wxz = cross(W[c], z)
        hd = named(ctx, [add(mul(i_sd, z[m]), mul(i_s, wxz[m])) for m in range(3)],
                   f"HR{j}_", c)
        N.setdefault(c, []).append(hd)
    # backward (the shared recursion, couples only): a revolute joint takes their z component
    frames = [f for f in robot.frames[:n] if f.j in kin.R]
    _, NT = backward(ctx, robot, frames, kin.R, kin.P, {}, N, names=("ER", "NR", "FDIR"))
    for f in frames:
        if f.sigma == REVOLUTE and f.j in NT:
            tau.setdefault(f.j, []).append(NT[f.j][2])
    out = [0] * n
    for j, terms in tau.items():
        out[j - 1] = ctx.var(add(*terms), f"GAMR{j}")
    return out


def _rotor_energy_algorithm(ctx, robot, rotors):
    """Kinetic energy of the rotors' axial motion, ``sum 1/2 I_m s^2``."""
    rotors = _check_rotors(robot, rotors)
    W = _angular(ctx, robot, _needed(robot, rotors), True, False, True).W
    terms = []
    for r in rotors:
        c = robot.frame(r.j).ant
        I, k, z = _params(ctx, robot, r)
        s = ctx.var(add(dot(z, W[c]), mul(k, ctx.joint(r.j, "qd"))), f"SR{r.j}")
        terms.append(mul(I, mul(s, s)))
    return ctx.var(mul(sp.Rational(1, 2), add(*terms)), "ER") if terms else 0


# -- numeric (batched) -----------------------------------------------------------------------


@keyword_options()
def rotor_torques(robot, rotors, q, qd, qdd, *, velocity=True, acceleration=True,
                  base_motion=True) -> np.ndarray:
    """GAMR (..., NJ): the rotor terms to add to :func:`robmod.dynamics.idm`."""
    shape, (q, qd, qdd) = check_arrays(robot, q, qd, qdd, names=("q", "qd", "qdd"))
    ctx = numeric_context(robot, q=q, qd=qd, qdd=qdd)
    vals = rotor_torques_algorithm(ctx, robot, rotors, velocity=velocity,
                                   acceleration=acceleration, base_motion=base_motion)
    return joint_vector(robot, vals, shape)


def rotor_kinetic_energy(robot, rotors, q, qd) -> np.ndarray:
    """``T_r = sum 1/2 I_m (z . w_a(j) + k_r qd_j)^2``, shape (...)."""
    shape, (q, qd) = check_arrays(robot, q, qd, names=("q", "qd"))
    E = _rotor_energy_algorithm(numeric_context(robot, q=q, qd=qd), robot, rotors)
    return np.broadcast_to(np.asarray(E, dtype=float), shape[:-1]).copy()


def rotor_inertia_matrix(robot, rotors, q) -> np.ndarray:
    """B_r(q) (..., n, n) over :func:`~robmod.dynamics.layout.dofs` (columns: unit qdd)."""
    shape, (q,) = check_arrays(robot, q, names=("q",))
    order = dofs(robot)
    idx = [robot.joint_index[j] for j in order]
    n, nj = len(order), robot.n_q
    E = np.zeros((n, nj))
    E[np.arange(n), idx] = 1.0
    qq = np.broadcast_to(q[..., None, :], shape[:-1] + (n, nj))
    tau = rotor_torques(robot, rotors, qq, np.zeros(nj), E, velocity=False, base_motion=False)
    return np.swapaxes(tau[..., idx], -1, -2)


def rotor_coriolis_matrix(robot, rotors, q, qd) -> np.ndarray:
    """C_r(q, qd) (..., n, n): Christoffel form (7.45) of B_r, by polarization."""
    shape, (q, qd) = check_arrays(robot, q, qd, names=("q", "qd"))
    order = dofs(robot)
    idx = [robot.joint_index[j] for j in order]
    n, nj = len(order), robot.n_q
    E = np.zeros((n, nj))
    E[np.arange(n), idx] = 1.0
    v = np.concatenate([qd[..., None, :] + E, np.broadcast_to(E, shape[:-1] + (n, nj)),
                        qd[..., None, :]], axis=-2)
    qq = np.broadcast_to(q[..., None, :], v.shape)
    h = rotor_torques(robot, rotors, qq, v, np.zeros(nj), acceleration=False,
                      base_motion=False)[..., idx]
    C = 0.5 * (h[..., :n, :] - h[..., n:2 * n, :] - h[..., 2 * n:, :])
    return np.swapaxes(C, -1, -2)


_MOTION = ("velocity", "acceleration", "base_motion")


@keyword_options()
def idm_with_rotors(robot, rotors, q, qd, qdd, *, gravity=True, rotor=True, friction=True,
                    wrench=True, velocity=True, base_motion=True, acceleration=True) -> np.ndarray:
    """Siciliano's complete inverse dynamics: ``idm(robot) + rotor_torques`` (..., NJ).

    The switches are those of :func:`robmod.dynamics.idm` (``rotor``: Khalil's rotor
    inertias IA of ``robot``, the rotors of ``rotors`` being their own terms); ``velocity``,
    ``acceleration`` and ``base_motion`` apply to the rotor terms too.
    """
    from .newton_euler import idm

    switches = switched_off(idm_with_rotors, gravity=gravity, rotor=rotor, friction=friction,
                            wrench=wrench, velocity=velocity, base_motion=base_motion,
                            acceleration=acceleration)
    keep = {k: v for k, v in switches.items() if k in _MOTION}
    return idm(robot, q, qd, qdd, **switches) + rotor_torques(robot, rotors, q, qd, qdd, **keep)


def inertia_matrix_with_rotors(robot, rotors, q) -> np.ndarray:
    """B(q) of (7.32) with the rotor terms: ``inertia_matrix(robot) + B_r``."""
    from .inertia import inertia_matrix

    return inertia_matrix(robot, q) + rotor_inertia_matrix(robot, rotors, q)


def coriolis_matrix_with_rotors(robot, rotors, q, qd) -> np.ndarray:
    """C(q, qd) of (7.44)-(7.45) for the complete model (Christoffel symbols are linear in B)."""
    from .lagrange import coriolis_matrix

    return coriolis_matrix(robot, q, qd) + rotor_coriolis_matrix(robot, rotors, q, qd)


# -- customized symbolic models --------------------------------------------------------------

@keyword_options()
def rotor_torques_model(robot, rotors, *, name="rotors"):
    """Customized rotor torques (outputs GAMR{j} for the joints of :func:`dofs`)."""
    rotors = _check_rotors(robot, rotors)
    order = dofs(robot)

    def algorithm(ctx):
        vals = rotor_torques_algorithm(ctx, robot, rotors)
        return [Output.vector("GAMR", [vals[j - 1] for j in order], [f"GAMR{j}" for j in order])]

    return customize(f"{robot.name}_{name}", algorithm, robot, inputs=model_inputs(robot),
                     title=f"Rotor torques of {robot.name} (Siciliano's rotor model)")


@keyword_options()
def idm_with_rotors_algorithm(ctx, robot, rotors, *, gravity=True, rotor=True, friction=True,
                              wrench=True, velocity=True, base_motion=True, acceleration=True):
    """Newton-Euler GAM_j + rotor terms GAMR_j (named ``GAMT{j}``; list over frames 1..NL,
    None for fixed frames) over context scalars; the switches of :func:`idm_with_rotors`."""
    switches = switched_off(idm_with_rotors_algorithm, gravity=gravity, rotor=rotor,
                            friction=friction, wrench=wrench, velocity=velocity,
                            base_motion=base_motion, acceleration=acceleration)
    gam = idm_algorithm(ctx, robot, **switches)
    extra = rotor_torques_algorithm(ctx, robot, rotors,
                                    **{k: v for k, v in switches.items() if k in _MOTION})
    return [None if g is None else ctx.var(add(g, extra[j]), f"GAMT{j + 1}")
            for j, g in enumerate(gam)]


@keyword_options()
def idm_with_rotors_model(robot, rotors, *, name="idm_rotors"):
    """Customized complete inverse dynamic model: Newton-Euler GAM_j + rotor terms."""
    rotors = _check_rotors(robot, rotors)
    order = dofs(robot)

    def algorithm(ctx):
        vals = idm_with_rotors_algorithm(ctx, robot, rotors)
        vals = [vals[j - 1] for j in order]
        return [Output.vector("GAM", vals, [f"GAM{j}" for j in order])]

    return customize(f"{robot.name}_{name}", algorithm, robot, inputs=model_inputs(robot),
                     title=f"Inverse dynamic model of {robot.name} with Siciliano's rotors")



__all__ = ["Rotor", "rotor_torques", "rotor_kinetic_energy", "rotor_inertia_matrix",
           "rotor_coriolis_matrix", "idm_with_rotors", "inertia_matrix_with_rotors",
           "coriolis_matrix_with_rotors", "rotor_torques_model", "rotor_torques_algorithm",
           "idm_with_rotors_model", "idm_with_rotors_algorithm"]
