"""Compile a robot's plain-API models ahead of time (see :mod:`robmod.symbolic.fastpath`).

``warmup(robot)`` generates and compiles the customized models behind ``dgm``, ``jacobian``,
``jdot_qdot``, ``idm``, ``inertia_matrix``, ``gravity_torques`` and ``ddm`` (default options),
so that the first calls of a control loop or a simulation are already compiled; the shared
objects stay in the disk cache for later processes.  CLI: ``robmod warmup ROBOT``.  (The
identification regressor, a layer above, is compiled by its first calls like any plain
function: after one second of NumPy time, or at once when an earlier run compiled it.)
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..geometry.direct import dgm
from ..kinematics.jacobians import jacobian
from ..kinematics.second_order import jdot_qdot
from ..symbolic import fastpath
from .direct import ddm
from .inertia import inertia_matrix
from .lagrange import gravity_torques
from .newton_euler import idm
from ..description.arguments import keyword_options
from ..description.base import velocity_size
from ..geometry.floating import neutral

#: plain function name -> (function, its arguments: the robot's configuration "q", a velocity
#: or acceleration "v", joint torques "tau"; fast-path key)
MODELS = {
    "dgm": (dgm, "q", ("dgm", None, 0, None)),
    "jacobian": (jacobian, "q", ("jacobian", None, 0, None)),
    "jdot_qdot": (jdot_qdot, "qv", ("jdot_qdot", None, 0, None)),
    "idm": (idm, "qvv", ("idm", ())),
    "inertia_matrix": (inertia_matrix, "q", ("A", True)),
    "gravity_torques": (gravity_torques, "q", ("Q",)),
    "ddm": (ddm, "qvt", ("ddm",)),
}

#: the models from the longest to compile to the shortest (the Panda's, gcc and zig alike)
LONGEST_FIRST = ("ddm", "idm", "inertia_matrix", "jdot_qdot", "jacobian", "dgm",
                 "gravity_torques")


@keyword_options()
def warmup(robot, *, models=tuple(MODELS)) -> dict:
    """Compile ``models`` (names of :data:`MODELS`) of ``robot``; returns, per model, the
    seconds it took and whether the compiled path is in use (False: no C compiler, or the
    model does not apply to this robot, e.g. closed loops for the dynamic models)."""
    from ..errors import RobmodError

    unknown = [m for m in models if m not in MODELS]
    if unknown:
        raise RobmodError(f"warmup: unknown model(s) {', '.join(unknown)}; expected some of "
                          f"{', '.join(MODELS)}")
    args = {"q": neutral(robot), "v": np.zeros(velocity_size(robot)), "t": np.zeros(robot.n_q)}

    def one(name):
        fn, kinds, key = MODELS[name]
        t0 = time.perf_counter()
        try:
            fn(robot, *(args[k] for k in kinds))
        except RobmodError:
            pass    # e.g. a singular inertia matrix at q = 0: the model is compiled anyway
        e = fastpath.entry(robot, key)
        return name, (time.perf_counter() - t0, e.fn is not None)

    old = fastpath.set_backend("compiled")
    try:   # the compilers run in parallel (one per core) while the next model is generated;
        # the longest first, so that no core waits for a long compile started last
        workers = max(1, min(len(models), os.cpu_count() or 1))
        with ThreadPoolExecutor(workers) as pool:
            done = dict(pool.map(one, sorted(models, key=LONGEST_FIRST.index)))
    finally:
        fastpath.set_backend(old)
    return {name: done[name] for name in models}


__all__ = ["warmup"]
