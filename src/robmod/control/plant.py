"""The robot's compiled dynamic models, as controllers and simulations call them per sample.

Khalil & Dombre §9.4.2.5 (practical computation of the computed-torque law): the control
torque is one call of the customized inverse dynamic model per sample.  robmod generates the
customized Newton-Euler IDM, the direct dynamic model and the gravity torques of a
*numeric* robot once, compiles them (cached on disk) and calls their single-configuration
entry points; batches of states (leading dimensions) go through the batched kernels.

A closed-loop robot (parallelogram, SR400) gets the dynamics of its actuated joints instead
(:class:`~robmod.control.closed_plant.ClosedLoopDynamics`, Siciliano et al. §7.3.3).

Coulomb friction under a digital controller: the term F_C sign(qd) of (7.26) is discontinuous,
so compensating it with the *measured* velocity makes the torque chatter at rest and at every
velocity reversal (the sign flips from sample to sample).  :meth:`Dynamics.idm_compensated`
evaluates the Coulomb (and Stribeck) term at the *desired* velocity instead, as the predictive
law (9.31) evaluates the whole model on the desired motion, or on a smooth sign
tanh(qd / width) of the measured one; the viscous term F_V qd stays on the measured velocity.
"""
from __future__ import annotations

import numpy as np

from ..description.arguments import (keyword_options, number_array, positive_scalar,
                                     require_numeric, robot_argument)
from ..description.base import moving_base
from ..dynamics.derivatives import ddm_derivatives
from ..dynamics.direct import ddm_model, singular_inertia_error
from ..dynamics.inertia import inertia_matrix
from ..dynamics.lagrange import gravity_torques_model
from ..dynamics.newton_euler import idm_model
from ..dynamics.layout import dofs, joint_limit_vector  # noqa: F401 (used by control)
from ..errors import ArgumentError, RobmodError
from ..symbolic.cache import cached
from .base import sample_time

#: how the controllers compensate Coulomb friction: at the desired velocity (default), at the
#: measured one (the model's own sign), or with a smooth sign tanh(qd / width)
COULOMB_MODES = ("desired", "measured", "smooth")


def coulomb_option(coulomb, width, dt):
    """(mode, width) of a controller's ``coulomb=`` and ``coulomb_width=`` options, checked.
    ``None`` (the default) is ``'desired'`` for a digital law (dt > 0) and ``'measured'`` for
    a continuous one (dt = 0: evaluated at every integration stage, the measured sign then
    cancels the plant's friction exactly and nothing is held between samples)."""
    dt = sample_time(dt)
    if coulomb is None:
        coulomb = "desired" if dt > 0 else "measured"
    if not isinstance(coulomb, str):
        raise RobmodError(f"coulomb must be one of {', '.join(map(repr, COULOMB_MODES))}, "
                          f"got {coulomb!r}")
    if coulomb not in COULOMB_MODES:
        raise RobmodError(f"coulomb must be one of {', '.join(map(repr, COULOMB_MODES))}, "
                          f"got {coulomb!r}")
    try:
        width = float(width)
    except (TypeError, ValueError):
        raise RobmodError(f"coulomb_width: expected a velocity (rad/s or m/s), got {width!r}") \
            from None
    if not np.isfinite(width) or width <= 0:
        raise RobmodError(f"coulomb_width must be a positive velocity, got {width}")
    return coulomb, width


@keyword_options()
def coulomb_torque(fc, fst, bst, v, *, width=0.0):
    """F_C s + (F_ST - F_C) s exp(-|v| B_ST) of (7.26) with s = sign(v), or tanh(v / width)."""
    fc, fst, bst, v = (number_array(x, name) for x, name in
                       ((fc, "fc"), (fst, "fst"), (bst, "bst"), (v, "v")))
    width = positive_scalar("width", width, allow_zero=True)
    s = np.sign(v) if width == 0.0 else np.tanh(v / width)
    out = fc * s
    if np.any(fst):
        out = out + np.where(fst != 0, (fst - fc) * s * np.exp(-np.abs(v) * bst), 0.0)
    return out


def numeric_only(robot, what: str = "robot"):
    """The robot with its values substituted; refused (naming the symbols left) unless every
    parameter a dynamic model reads is a number."""
    return require_numeric(robot.numeric(), what)


class CompiledFunction:
    """A compiled model called on one state (1-D inputs) or on a batch (leading dimensions)."""

    def __init__(self, model):
        self.model = model
        self.f = model.compile()
        self.single = self.f.single

    def __getstate__(self):   # pickled as its model: compiled (or loaded) again where it lands
        return {"model": self.model}

    def __setstate__(self, state):
        self.__init__(state["model"])

    def __call__(self, *args):
        if args[0].ndim == 1:
            return self.single(*args)
        return self.f(*args)


#: the plant of each kind of robot that is not a tree on a fixed base, handed over by
#: :mod:`.closed_plant` ("closed"), :mod:`.floating_plant` ("floating") and
#: :mod:`.mobile_plant` ("mobile") when the package is imported, so that this module imports
#: none of them (they import it)
PLANT_KINDS: dict = {}

#: the customized models the controllers and the plant call per sample, by name (the compiled
#: closed loop prints the same ones: one recipe each)
MODELS = {
    "ddm": lambda robot: ddm_model(robot, method="fewest"),
    "idm": lambda robot: idm_model(robot),
    "idm_nc": lambda robot: idm_model(robot, name="idm_no_coulomb", friction=False),
    "vel": lambda robot: idm_model(robot, name="velocity_torques", gravity=False,
                                   friction=False, rotor=False, wrench=False),
    "grav": lambda robot: gravity_torques_model(robot),
}


class Dynamics:
    """Compiled IDM, DDM and gravity torques of a numeric robot (joint vectors of ``n``).

    ``idm(q, qd, qdd)`` (Khalil & Dombre (7.51)-(7.61), with rotor inertia and friction),
    ``ddm(q, qd, tau)`` (of the recursive direct model, §7.6.2, and A^-1 (Γ - H), [7.62]-[7.64],
    the customized model with fewer operations: :func:`~robmod.dynamics.ddm_model` with
    ``method="fewest"``) and ``gravity(q)``, each on arrays of shape (n,) or (..., n).
    """

    #: the state's space: the joints, the same in q and qd
    floating = False

    @classmethod
    def of(cls, robot, what: str = "robot") -> "Dynamics":
        """The (shared) compiled models of ``robot``, keyed by the robot's content (the one
        cache, :mod:`robmod.symbolic.cache`): a :class:`~robmod.control.ClosedLoopDynamics`
        for a closed-loop robot (its actuated joints), a :class:`~robmod.control.
        FloatingDynamics` for a floating one (the joints, the base free), a
        :class:`~robmod.control.MobileDynamics` for a mobile one (the joints, the base's
        motion given), else this class (a fixed base)."""
        from ..description.mimic import refuse as refuse_mimic

        refuse_mimic(robot_argument(robot, "the robot of a controller or a simulation"),
                     "closed-loop simulation and control")

        if robot.n_loops and moving_base(robot):
            raise ArgumentError(
                f"the simulations and controllers take a closed-loop robot on a fixed base: "
                f"{robot.name!r} has closed loops on a {robot.base_kind} base (not supported "
                "yet; robot.with_base('fixed') bolts it down)")

        def make():
            kind = PLANT_KINDS["closed"] if robot.n_loops else \
                PLANT_KINDS[robot.base_kind] if moving_base(robot) else Dynamics
            return kind(robot, what)

        return cached(("plant", robot.content_key), make)

    def __getstate__(self):   # the robot only: models are rebuilt lazily where it lands
        return {"robot": self.robot}

    def __setstate__(self, state):
        self.__init__(state["robot"])

    def __init__(self, robot, what: str = "robot"):
        self.robot = numeric_only(robot_argument(robot, what), what)
        self.n = self.nq = self.nv = len(dofs(self.robot))
        self._models, self._compiled, self._ddm = {}, {}, None
        links = [self.robot.link(j) for j in dofs(self.robot)]
        self.fc, self.fv, self.fst, self.bst = (np.array([float(getattr(l, k)) for l in links])
                                                for k in ("FC", "FV", "FST", "BST"))
        self.has_coulomb = bool(np.any(self.fc) or np.any(self.fst))

    def limits(self, field: str):
        """The ``field`` limit (qmin, qmax, qdmax, qddmax, taumax) of each joint of the state
        vector, or None if one is missing."""
        return joint_limit_vector(self.robot, field)

    def singular_error(self, q):
        """The RobmodError naming the joint if the inertia matrix is singular at q (one state
        or a batch), else None."""
        q = np.asarray(q, dtype=float)
        if not np.all(np.isfinite(q)):
            return None
        A = inertia_matrix(self.robot, q).reshape((-1, self.n, self.n))
        scale = np.maximum(np.abs(np.diagonal(A, axis1=-2, axis2=-1)).max(axis=-1), 1.0)
        if np.all(np.linalg.eigvalsh(A)[..., 0] > 1e-12 * scale):
            return None
        return singular_inertia_error(self.robot, q)

    def start_configuration(self) -> np.ndarray:
        """A default configuration to start from: 0, or the middle of the joint's range for a
        joint whose range (qmin, qmax) excludes 0 (a closed loop's ranges keep it away from its
        singular configurations)."""
        return start_configuration(self)

    recipes = MODELS

    def model(self, which: str):
        """The customized model ``which`` (a name of :data:`MODELS`) of the robot, generated
        once."""
        hit = self._models.get(which)
        if hit is None:
            hit = self._models[which] = self.recipes[which](self.robot)
        return hit

    def compiled(self, which: str) -> "CompiledFunction":
        """The compiled model ``which``, compiled (or loaded from the disk cache) once."""
        hit = self._compiled.get(which)
        if hit is None:
            hit = self._compiled[which] = CompiledFunction(self.model(which))
        return hit

    def initial_state(self, q, qd):
        """The state (q, qd) of the plant whose joints are at (q, qd) (a floating robot's
        base at the origin, at rest)."""
        return q, qd

    def state_of_joints(self, q, qd):
        """The state of the plant at which the joints move as (q, qd) (..., n): here the
        same (a floating robot's base at the origin with no momentum)."""
        return q, qd

    def derivatives(self, q, qd, tau):
        """(dqdd_dq, dqdd_dqd, dqdd_dtau) (..., n, n) of the joints' accelerations at the
        joints' state (q, qd) and torques tau (a :class:`~robmod.dynamics.DDMDerivatives`):
        the analytical derivatives of the direct model."""
        return ddm_derivatives(self.robot, q, qd, tau)

    @property
    def idm(self):
        return self.compiled("idm")

    @property
    def ddm(self):
        if self._ddm is None:
            try:
                self._ddm = CheckedDDM(self.compiled("ddm"),
                                       lambda q: singular_inertia_error(self.robot, q))
            except ZeroDivisionError:     # a pivot that is 0 for every configuration
                raise singular_inertia_error(self.robot, np.zeros(self.n)) from None
        return self._ddm

    def idm_compensated(self, q, qd, qdd, qd_des, *, coulomb="desired", width=1e-2):
        """IDM(q, qd, qdd) with its Coulomb and Stribeck terms evaluated at the desired
        velocity ``qd_des`` (``coulomb='desired'``), at the measured one (``'measured'``: the
        plain IDM) or with the smooth sign tanh(qd / width) (``'smooth'``)."""
        if coulomb == "measured" or not self.has_coulomb:
            return self.idm(q, qd, qdd)
        v, w = (np.broadcast_to(qd_des, np.shape(qd)), 0.0) if coulomb == "desired" \
            else (qd, width)
        return self.compiled("idm_nc")(q, qd, qdd) + self.fv * qd + self.coulomb(v, w)

    def coulomb(self, v, width):
        """The Coulomb and Stribeck torques of the joints at the velocities v (width 0: the
        sign, else tanh(v / width))."""
        return coulomb_torque(self.fc, self.fst, self.bst, v, width=width)

    @property
    def gravity(self):
        return self.compiled("grav")

    def coriolis_times(self, q, qd, v):
        """C(q, qd) v with Christoffel's C (so that dA/dt - 2C is skew-symmetric).

        The Christoffel symbols c_ijk are symmetric in j, k, so C(q, a) b is a symmetric
        bilinear form in (a, b), and with h(v) = C(q, v) v = IDM(q, v, 0) - Q(q) (no
        friction): C(q, a) b = (h(a + b) - h(a) - h(b)) / 2 (Khalil & Dombre (7.13)-(7.15)).
        """
        z = np.zeros_like(q)
        h = self._velocity_model()
        return 0.5 * (h(q, qd + v, z) - h(q, qd, z) - h(q, v, z))

    def _velocity_model(self):
        return self.compiled("vel")


def start_configuration(dyn) -> np.ndarray:
    lo, hi = (dyn.limits(f) if dyn.limits(f) is not None else _partial(dyn, f)
              for f in ("qmin", "qmax"))
    q = np.zeros(dyn.n)
    outside = np.isfinite(lo) & np.isfinite(hi) & ((lo > 0) | (hi < 0))
    q[outside] = 0.5 * (lo[outside] + hi[outside])
    return q


def _partial(dyn, field):
    """The ``field`` limits of the joints that have one, NaN elsewhere."""
    joints = getattr(dyn, "joints", None) or dofs(dyn.robot)
    vals = [getattr(dyn.robot.link(j).limits, field) for j in joints]
    return np.array([np.nan if v is None else float(v) for v in vals])


class CheckedDDM:
    """The compiled direct model, refusing a singular inertia matrix with a RobmodError (the
    compiled kernel would return inf or NaN accelerations): ``error_at(q)`` names the
    joint."""

    def __init__(self, f, error_at):
        self.f, self.error_at = f, error_at

    def __call__(self, q, qd, tau, *given):     # given: a mobile base's acceleration
        out = self.f(q, qd, tau, *given)
        if not np.all(np.isfinite(out)) and np.all(np.isfinite(q)) and np.all(np.isfinite(qd)):
            raise self.error_at(q) or RobmodError(
                "ddm: the direct dynamic model gave accelerations that are not finite")
        return out


__all__ = ["Dynamics", "COULOMB_MODES", "coulomb_option", "coulomb_torque"]
