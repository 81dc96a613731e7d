"""Linear analysis of a closed loop about an equilibrium (set point, zero velocity).

The continuous-time closed loop x' = f(x) with x = (q, qd, z) (z the controller's state),
f = (qd, DDM(q, qd, Gamma(q, qd, z)), dz/dt), is linearized about q = q*, qd = 0 and the
controller state z* that holds the robot there: the plant on the analytical derivatives of its
direct model (:func:`~robmod.dynamics.ddm_derivatives`), the controller's law by central
differences unless it gives its own (``law_derivatives``, :mod:`.linearization`) (for a PID without
gravity compensation the integral must carry the gravity torques: KI z* = Q(q*)).  The
eigenvalues of the Jacobian are the closed loop's poles: for computed torque with an exact
model they are those designed by (9.26), for the PID of (9.10) near the triple pole -omega.
The state matrix can be handed to python-control (``control.ss(A, B, C, D)``) for more analysis.

Coulomb and Stribeck friction (7.26) are discontinuous at rest (qd = 0, where the set point
is): they have no linearization there, so both the plant and the controller's law are
linearized without them (viscous friction kept): the plant's are set to zero, and a controller
with a ``coulomb`` option is evaluated with its compensation at the desired velocity, zero at
a set point.  The poles are those of the smooth closed loop.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import numpy as np
import sympy as sp

from ..description.arguments import finite_array, keyword_options
from ..errors import RobmodError
from ..kinematics.motion import Sample
from .linearization import closed_loop_matrix
from .plant import Dynamics


@dataclass(frozen=True)
class LinearizedLoop:
    """x' = A (x - x*) about x* = (q*, 0, z*)."""

    A: np.ndarray
    x_eq: np.ndarray
    poles: np.ndarray

    @property
    def stable(self) -> bool:
        return bool(np.all(self.poles.real < 0))


@keyword_options()
def linearize(robot, controller, q_eq, *, eps: float = 1e-6) -> LinearizedLoop:
    """The closed loop of ``controller`` on ``robot`` linearized about the set point ``q_eq``
    (the controller treated as continuous; ``eps``: the step of the central differences of a
    law without ``law_derivatives``)."""
    zero_fc = {"FC": sp.Integer(0), "FST": sp.Integer(0)}
    smooth = replace(robot, links=tuple(replace(link, **zero_fc) for link in robot.links))
    plant = Dynamics.of(smooth, "plant")
    if getattr(controller, "coulomb", None) is not None:
        controller = copy.copy(controller)
        controller.coulomb = "desired"
    n = plant.n
    q_eq = finite_array("q_eq", q_eq, shape_text=f"{n} joint values")
    if q_eq.shape != (n,) or not np.all(np.isfinite(q_eq)):
        raise RobmodError(f"q_eq: expected {n} finite joint values, got shape {q_eq.shape}")
    ref = Sample(q_eq, np.zeros(n), np.zeros(n))
    zero = np.zeros(n)
    m = controller.state_size()
    z = np.zeros(m)
    if m:  # the state that holds the robot at rest at q_eq: Gamma(z) = IDM(q_eq, 0, 0)
        state = plant.state_of_joints(q_eq, zero)      # a floating robot's: base at rest
        need = plant.idm(*state, zero)
        g0 = controller.output(0.0, *state, ref, z)
        G = np.column_stack([(controller.output(0.0, *state, ref, np.eye(m)[k]) - g0)
                             for k in range(m)])
        z = np.linalg.lstsq(G, need - g0, rcond=None)[0]
    x0 = np.concatenate([q_eq, zero, z])
    A = closed_loop_matrix(plant, controller, ref, x0, eps)
    return LinearizedLoop(A, x0, np.linalg.eigvals(A))


def closed_loop_poles(robot, controller, q_eq) -> np.ndarray:
    """Eigenvalues of :func:`linearize`'s state matrix, sorted by real part."""
    p = linearize(robot, controller, q_eq).poles
    return p[np.argsort(p.real)]


__all__ = ["linearize", "LinearizedLoop", "closed_loop_poles"]
