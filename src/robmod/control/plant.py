"""The robot's compiled dynamic models, as controllers and simulations call them per sample.

Khalil & Dombre §9.4.2.5 (practical computation of the computed-torque law): the control
torque is one call of the customized inverse dynamic model per sample.  robmod generates the
customized Newton-Euler IDM, the recursive direct dynamic model and the gravity torques of a
*numeric* robot once, compiles them (cached on disk) and calls their single-configuration
entry points; batches of states (leading dimensions) go through the batched kernels.
"""
from __future__ import annotations

import numpy as np

from ..dynamics.direct import ddm_model
from ..dynamics.lagrange import gravity_model
from ..dynamics.newton_euler import idm_model
from ..dynamics.spatial import dofs, joint_limit_vector  # noqa: F401 (used by control)
from ..description.arguments import require_numeric


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


class Dynamics:
    """Compiled IDM, DDM and gravity torques of a numeric robot (joint vectors of ``n``).

    ``idm(q, qd, qdd)`` (Khalil & Dombre (7.51)-(7.61), with rotor inertia and friction),
    ``ddm(q, qd, tau)`` (the recursive direct model, §7.6.2) and ``gravity(q)``, each on
    arrays of shape (n,) or (..., n).
    """

    _cache: dict = {}

    @classmethod
    def of(cls, robot, what: str = "robot") -> "Dynamics":
        """The (shared) compiled models of ``robot``, keyed by the robot's content."""
        from ..description.mimic import refuse as refuse_mimic

        refuse_mimic(robot, "closed-loop simulation and control")
        key = robot.content_key
        hit = cls._cache.get(key)
        if hit is None:
            if len(cls._cache) >= 16:
                cls._cache.pop(next(iter(cls._cache)))
            hit = cls._cache[key] = cls(robot, what)
        return hit

    def __getstate__(self):   # the robot only: models are rebuilt lazily where it lands
        return {"robot": self.robot}

    def __setstate__(self, state):
        self.robot = state["robot"]
        self.n = len(dofs(self.robot))
        self._idm = self._ddm = self._grav = self._vel = None

    def __init__(self, robot, what: str = "robot"):
        self.robot = numeric_only(robot, what)
        self.n = len(dofs(self.robot))
        self._idm = self._ddm = self._grav = self._vel = None

    @property
    def idm(self):
        if self._idm is None:
            self._idm = CompiledFunction(idm_model(self.robot))
        return self._idm

    @property
    def ddm(self):
        if self._ddm is None:
            self._ddm = CompiledFunction(ddm_model(self.robot))
        return self._ddm

    @property
    def gravity(self):
        if self._grav is None:
            self._grav = CompiledFunction(gravity_model(self.robot))
        return self._grav

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
        if self._vel is None:
            self._vel = CompiledFunction(idm_model(self.robot, name="velocity_torques", gravity=False,
                                         friction=False, rotor=False, wrench=False))
        return self._vel


__all__ = ["Dynamics"]
