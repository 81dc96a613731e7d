"""Time-optimal path parameterization (TOPP) under joint velocity, acceleration and torque
limits, by reachability analysis (TOPP-RA, Pham & Pham 2018).

Along a geometric path q(s), s in [0, 1], a timing s(t) gives (chain rule)::

    q̇ = q'(s) ṡ,    q̈ = q'(s) s̈ + q''(s) ṡ²

and, with the dynamic model Γ = A(q) q̈ + C(q, q̇) q̇ + Q(q) (Khalil & Dombre ch. 7, friction
left out), the torques are linear in the control u = s̈ and the state x = ṡ²::

    Γ = a(s) u + b(s) x + c(s),   a = A q',  b = A q'' + C(q, q') q',  c = Q

computed by the inverse dynamic model, batched over the grid in one compiled call:
a = IDM(q, 0, q') - c, b = IDM(q, q', q'') - c, c = IDM(q, 0, 0) (gravity, and the constant
external wrench of the model if it has one; friction off).
On a grid s_0 .. s_N the constraints at each point (collocation) are

* joint velocity: |q'_j| √x <= q̇max_j, i.e. x <= min_j (q̇max_j / |q'_j|)²;
* joint acceleration: -q̈max <= q' u + q'' x <= q̈max;
* joint torque: -Γmax <= a u + b x + c <= Γmax,

and :mod:`~robmod.trajectory.reachability` gives the controllable sets (backward) and the
greedy maximal s̈ (forward).  The time between grid points, with s̈ constant on each
interval, is Δt_i = 2 Δs_i / (ṡ_i + ṡ_i+1) (exact, and finite at rest where the trapezoidal
rule in 1/ṡ is not).  Only the grid points are constrained: between them the limits hold
up to the discretisation (first order in the grid step with collocation, second order with
the interpolation scheme, which also imposes them at the end of each interval).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..description.arguments import keyword_options, require_numeric
from ..dynamics.newton_euler import idm
from ..dynamics.layout import joint_limit_vector
from ..errors import RobmodError
from .base import Trajectory, limit_vector
from .path import JointPath, path_grid
from .reachability import Infeasible, solve


@dataclass(frozen=True, eq=False)
class ConstraintUse:
    """How much of each limit a timing uses: |q̇| / q̇max, |q̈| / q̈max, |Γ| / Γmax per sample
    and joint (0 for a joint without that limit; ``torque`` None without torque limits)."""

    t: np.ndarray
    s: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    torque: np.ndarray | None

    def peak(self) -> dict:
        """The largest use of each kind of limit per joint."""
        out = {"velocity": self.velocity.max(axis=0),
               "acceleration": self.acceleration.max(axis=0)}
        if self.torque is not None:
            out["torque"] = self.torque.max(axis=0)
        return out

    def __str__(self) -> str:
        rows = [f"{k:>12}: " + " ".join(f"{v:6.3f}" for v in vals)
                for k, vals in self.peak().items()]
        return "peak use of the limits per joint\n" + "\n".join(rows)


@dataclass(frozen=True, eq=False)
class TimeOptimal(Trajectory):
    """The time-optimal motion along ``path``: grid ``s`` (N+1,), path velocities ``sd``
    (N+1,) and accelerations ``sdd`` (N,) (constant on each interval), grid times ``t``."""

    path: JointPath
    s: np.ndarray
    sd: np.ndarray
    sdd: np.ndarray
    t: np.ndarray
    qd_max: np.ndarray
    qdd_max: np.ndarray
    tau_max: np.ndarray | None = None
    discretization: str = "collocation"
    dynamics: object = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return self.path.n

    @property
    def duration(self) -> float:
        return float(self.t[-1])

    @property
    def grid(self) -> np.ndarray:
        return self.s

    @property
    def limits(self):
        """(q̇max, q̈max) for plots (None where a joint has no such limit)."""
        return tuple(v if np.all(np.isfinite(v)) else None for v in (self.qd_max, self.qdd_max))

    def path_state(self, t):
        """(s, ṡ, s̈) at the times ``t`` (any shape; s̈ is the value on the interval that
        starts at or before t)."""
        t = np.asarray(t, dtype=float)
        if not np.all(np.isfinite(t)):
            raise RobmodError("path_state: the times must be finite numbers")
        flat = np.clip(t.ravel(), 0.0, self.duration)
        i = np.clip(np.searchsorted(self.t, flat, side="right") - 1, 0, len(self.sdd) - 1)
        tau = flat - self.t[i]
        u = self.sdd[i]
        sd = np.maximum(self.sd[i] + u * tau, 0.0)
        s = np.clip(self.s[i] + self.sd[i] * tau + 0.5 * u * tau ** 2, self.s[i], self.s[i + 1])
        return s.reshape(t.shape), sd.reshape(t.shape), u.reshape(t.shape)

    def _sample(self, t):
        s, sd, u = self.path_state(t)
        q, dq, ddq, dddq = self.path(s)
        sd, u = sd[:, None], u[:, None]
        # jerk inside the intervals (s̈ constant there; its jumps at the grid points are
        # not impulses of q̈ but steps): d/dt (q' s̈ + q'' ṡ²) = q''' ṡ³ + 3 q'' ṡ s̈
        return (q, dq * sd, dq * u + ddq * sd ** 2, dddq * sd ** 3 + 3 * ddq * sd * u)

    def torques(self, t) -> np.ndarray:
        """Γ = IDM(q, q̇, q̈) (friction off) at the times ``t`` (1-D), (len(t), n)."""
        if self.dynamics is None:
            raise RobmodError("torques: this timing was computed without a robot")
        x = self.sample(np.asarray(t, dtype=float).ravel())
        return self.dynamics(x.q, x.qd, x.qdd)

    def constraint_use(self, t=None) -> ConstraintUse:
        """Use of the limits at the times ``t`` (the sampled motion), or, by default, at the
        N grid points where TOPP-RA imposes them (s_i, ṡ_i, s̈_i), i < N: there every value
        is <= 1 up to rounding."""
        if t is None:
            q, dq, ddq = self.path(self.s[:-1], 2)
            sd, u = self.sd[:-1, None], self.sdd[:, None]
            tt, ss = self.t[:-1], self.s[:-1]
            qd, qdd = dq * sd, dq * u + ddq * sd ** 2
            tau = self.dynamics(q, qd, qdd) if self.dynamics is not None else None
        else:
            tt = np.asarray(t, dtype=float).ravel()
            x = self.sample(tt)
            ss = self.path_state(tt)[0]
            qd, qdd = x.qd, x.qdd
            tau = self.dynamics(x.q, qd, qdd) if self.dynamics is not None else None
        use_tau = None
        if tau is not None and self.tau_max is not None:
            use_tau = np.abs(tau) / self.tau_max
        return ConstraintUse(tt, ss, np.abs(qd) / self.qd_max, np.abs(qdd) / self.qdd_max,
                             use_tau)


def _limits(robot, n, qd_max, qdd_max, tau_max):
    """The three limit vectors (inf: no limit) from the arguments, else the robot's."""
    out = []
    for value, fld, name in ((qd_max, "qdmax", "qd_max"), (qdd_max, "qddmax", "qdd_max"),
                             (tau_max, "taumax", "tau_max")):
        if value is None and robot is not None:
            value = joint_limit_vector(robot, fld)
        out.append(np.full(n, np.inf) if value is None
                   else limit_vector(value, n, name, unbounded=True))
    if not np.any(np.isfinite(out[1])) and not np.any(np.isfinite(out[2])):
        raise RobmodError("topp: an acceleration limit (qdd_max) or a torque limit (tau_max, "
                          "with a robot) is needed; with velocity limits alone the "
                          "time-optimal motion has infinite accelerations")
    if np.any(np.isfinite(out[2])) and robot is None:
        raise RobmodError("topp: torque limits (tau_max) need the robot's dynamic model: "
                          "give robot=")
    return out


def _speed(name, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise RobmodError(f"{name}: expected a path velocity ds/dt >= 0, got {value!r}") from None
    if not (np.isfinite(v) and v >= 0):
        raise RobmodError(f"{name}: expected a path velocity ds/dt >= 0, got {value!r}")
    return v


def _idm_function(robot):
    """The robot's inverse model without friction (the plain ``idm``: compiled when hot), its
    values substituted; a RobmodError if a parameter it reads is symbolic."""
    num = require_numeric(robot.numeric(), "topp with torque limits")
    return lambda q, qd, qdd: idm(num, q, qd, qdd, friction=False)


def _rows(q, dq, ddq, qdd_max, tau_max, idm_fn):
    """Two-sided rows lo <= a u + b x <= hi at every grid point (N+1, p), their names and
    the gravity torques (None without torque limits)."""
    acc, trq = np.flatnonzero(np.isfinite(qdd_max)), np.flatnonzero(np.isfinite(tau_max))
    m, na = len(q), len(acc)
    shape = (m, na + len(trq))
    A, B, LO, HI = np.empty(shape), np.empty(shape), np.empty(shape), np.empty(shape)
    A[:, :na], B[:, :na] = dq[:, acc], ddq[:, acc]
    LO[:, :na], HI[:, :na] = -qdd_max[acc], qdd_max[acc]
    gravity = None
    if len(trq):
        zero = np.zeros_like(q)
        out = idm_fn(np.stack([q, q, q]), np.stack([zero, zero, dq]),
                     np.stack([zero, dq, ddq]))
        gravity = out[0]
        A[:, na:], B[:, na:] = (out[1] - gravity)[:, trq], (out[2] - gravity)[:, trq]
        LO[:, na:], HI[:, na:] = -tau_max[trq] - gravity[:, trq], tau_max[trq] - gravity[:, trq]
    names = [("acceleration", int(j), "") for j in acc] + [("torque", int(j), "") for j in trq]
    return A, B, LO, HI, names, gravity


def _interpolated(a, b, lo, hi, names, delta):
    """The rows of the interpolation scheme (Pham & Pham 2018): at stage i, those of
    s_i+1 with x_i+1 = x_i + 2 Δ_i u_i, i.e. (a_i+1 + 2 Δ_i b_i+1) u + b_i+1 x, added to
    those of s_i (the last stage repeats its own)."""
    d = delta[:, None]
    na = np.concatenate([a[1:] + 2 * d * b[1:], a[-1:]])
    nb, nlo, nhi = (np.concatenate([v[1:], v[-1:]]) for v in (b, lo, hi))
    more = [(kind, j, " (at the next grid point)") for kind, j, _ in names]
    return (np.hstack([a, na]), np.hstack([b, nb]), np.hstack([lo, nlo]), np.hstack([hi, nhi]),
            names + more)


def _describe(names, rows, gravity, tau_max, i):
    words = []
    for k in (k for k in rows if 0 <= k < len(names)):
        kind, j, where = names[k]
        text = f"the {kind} limit of joint {j + 1}{where}"
        if kind == "torque" and gravity is not None:
            g = gravity[min(i + (where != ""), len(gravity) - 1), j]
            beyond = "alone beyond" if abs(g) > tau_max[j] else "within"
            text += f" (gravity torque {g:.4g}, {beyond} the limit {tau_max[j]:.4g})"
        words.append(text)
    return " and ".join(words)


@keyword_options()
def topp(path, robot=None, *, qd_max=None, qdd_max=None, tau_max=None, grid=None,
         end_velocity=0.0, start_velocity=0.0, discretization: str = "collocation",
         compiled: bool = True) -> TimeOptimal:
    """The time-optimal timing of ``path`` under joint velocity, acceleration and torque
    limits (TOPP-RA, Pham & Pham 2018).

    ``path``: a robmod Trajectory (its geometry, s = t / duration) or waypoints (m + 1, n)
    (a cubic spline at s = k / m).  Limits: a scalar or one value per joint, ``inf`` for
    none; by default the robot's (its joints' ``qdmax``, ``qddmax``, ``taumax``).  Torque
    limits use the robot's inverse dynamic model without friction.  ``grid``: the number of
    intervals (200 by default) or the values of s.  ``start_velocity`` and
    ``end_velocity``: the path velocities ds/dt at both ends (0: at rest).
    ``discretization``: 'collocation' (the limits at each grid point with the s̈ of the
    interval that starts there) or 'interpolation' (also at the end of each interval with
    the same s̈: twice the rows, second-order accurate between grid points, and no
    overshoot near zero-inertia points where collocation lets s̈ chatter).  ``compiled``:
    the passes by the compiled kernel when a C compiler is available (else, or when False,
    by NumPy; same results to rounding).
    """
    if discretization not in ("collocation", "interpolation"):
        raise RobmodError(f"discretization must be 'collocation' or 'interpolation', got "
                          f"{discretization!r}")
    jp = JointPath(path)
    n = jp.n
    s = path_grid(grid)
    idm_fn = None
    if robot is not None:
        if not hasattr(robot, "links") or not hasattr(robot, "numeric"):
            raise RobmodError(f"robot: expected a robmod Robot, got {type(robot).__name__}")
        nj = sum(1 for j in robot.joints if j <= robot.n_links)
        if nj != n:
            raise RobmodError(f"robot has {nj} joints, the path {n}")
    qd_lim, qdd_lim, tau_lim = _limits(robot, n, qd_max, qdd_max, tau_max)
    if robot is not None and np.any(np.isfinite(tau_lim)):
        idm_fn = _idm_function(robot)
    elif robot is not None:   # for torques() and constraint_use(), when the model is numeric
        try:
            idm_fn = _idm_function(robot)
        except RobmodError:
            idm_fn = None
    x_start = _speed("start_velocity", start_velocity) ** 2
    x_end = _speed("end_velocity", end_velocity) ** 2
    q, dq, ddq = jp(s, 2)
    if not np.any(dq):
        raise RobmodError("path: the path does not move (q'(s) = 0 at every grid point)")
    with np.errstate(divide="ignore"):
        xmax = np.min((qd_lim / np.abs(dq)) ** 2, axis=1)
    a, b, lo, hi, names, gravity = _rows(q, dq, ddq, qdd_lim, tau_lim, idm_fn)
    delta = np.diff(s)
    if discretization == "interpolation":
        a, b, lo, hi, names = _interpolated(a, b, lo, hi, names, delta)
    try:
        x, u, K = solve(a, b, lo, hi, xmax, delta, x_start, x_end, compiled=compiled)
    except Infeasible as e:
        i = e.stage
        if e.kind == "static":
            raise RobmodError(f"topp: no timing can follow this path: at s = {s[i]:.6g} (grid "
                              f"point {i}) {_describe(names, e.rows, gravity, tau_lim, i)} "
                              f"cannot hold{' together' if len(e.rows) > 1 else ''}, even at "
                              "rest") from None
        if e.kind == "end":
            raise RobmodError(f"end_velocity {np.sqrt(x_end):.6g} is not admissible at the end "
                              f"of the path (ds/dt in [{np.sqrt(e.K[-1, 0]):.6g}, "
                              f"{np.sqrt(e.K[-1, 1]):.6g}])") from None
        if e.kind == "start":
            raise RobmodError(f"start_velocity {np.sqrt(x_start):.6g} is not controllable: "
                              f"from it the path cannot be followed to its end within the "
                              f"limits (ds/dt at s = 0 in [{np.sqrt(e.K[0, 0]):.6g}, "
                              f"{np.sqrt(e.K[0, 1]):.6g}])") from None
        raise RobmodError(f"topp: no timing can follow this path: no admissible motion from "
                          f"s = {s[i]:.6g} (grid point {i}) reaches the velocities from which "
                          f"s = {s[i + 1]:.6g} can go on to the end "
                          f"({_describe(names, e.rows, gravity, tau_lim, i)} binding)") from None
    sd = np.sqrt(x)
    speed = sd[:-1] + sd[1:]
    if np.any(speed <= 0):
        i = int(np.flatnonzero(speed <= 0)[0])
        raise RobmodError(f"topp: the path velocity is zero on [{s[i]:.6g}, {s[i + 1]:.6g}]: "
                          "the limits leave no motion there")
    t = np.concatenate([[0.0], np.cumsum(2 * delta / speed)])
    return TimeOptimal(jp, s, sd, u, t, qd_lim, qdd_lim,
                       tau_lim if np.any(np.isfinite(tau_lim)) else None, discretization, idm_fn)


__all__ = ["topp", "TimeOptimal", "ConstraintUse"]
