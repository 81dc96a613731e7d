"""One controller on many plants: runs that differ by the robot's parameters.

A payload mass, a friction coefficient, a link's inertia known within a tolerance: how does a
controller (with its own, fixed model) behave on each plant?  :func:`simulate_parameter_sets`
runs one simulation per set of values of the named parameters -- KK link parameters by name
and frame, ``M7``, ``MX7``, ``ZZ3``, ``IA1``, ``FV2``, ``FC4``... (Khalil & Dombre §7.2-7.3,
(7.26)).  With robmod's controllers the whole batch is one call of the compiled loop
(:mod:`.compiled_loop`) on the plant's direct dynamic model customized with those parameters
left as symbols (the customizing engine keeps them as inputs, §7.5.2): one compilation for
every set, each run reading its own values.  Otherwise (a controller written in Python, a
closed-loop robot, no compiler) it runs :func:`~robmod.control.simulate` once per set.
"""
from __future__ import annotations

import copy
import dataclasses
import re

import numpy as np
import sympy as sp

from ..description.arguments import keyword_options
from ..dynamics.direct import ddm_model
from ..dynamics.simulation import SimulationResult
from ..errors import ArgumentError
from .compiled_loop import PLANT_PARAMETERS, NotCompiled
from .plant import Dynamics, numeric_only
from .reference import Reference
from .simulation import simulate

_NAME = re.compile(r"^([A-Z]+)(\d+)$")
_FIELDS = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M", "IA", "FC", "FV", "FST",
           "BST", "FX", "FY", "FZ", "CX", "CY", "CZ")


def _values(robot, parameters):
    """(names, values (B, p)) checked: known link parameters, B finite values each."""
    if not isinstance(parameters, dict) or not parameters:
        raise ArgumentError("parameters: expected {name: values}, e.g. {'M7': [1.0, 1.5, 2.0]}")
    names, cols = [], []
    frames = {link.j for link in robot.links}
    for name, vals in parameters.items():
        m = _NAME.match(str(name))
        if m is None or m.group(1) not in _FIELDS or int(m.group(2)) not in frames:
            raise ArgumentError(f"parameters: {name!r} is not a link parameter of "
                                f"{robot.name!r} (a field of {', '.join(_FIELDS)} and a frame "
                                f"number, e.g. M{max(frames)})")
        v = np.asarray(vals, dtype=float)
        if v.ndim != 1 or not np.all(np.isfinite(v)):
            raise ArgumentError(f"parameters: {name} needs a 1-D array of finite values")
        names.append(str(name))
        cols.append(v)
    if len({len(c) for c in cols}) != 1:
        raise ArgumentError("parameters: every parameter needs as many values (one per run)")
    return names, np.column_stack(cols)


def _with(robot, values: dict):
    """The robot with link parameters replaced (numbers or symbols)."""
    links = []
    for link in robot.links:
        mine = {m.group(1): v for k, v in values.items()
                for m in [_NAME.match(k)] if int(m.group(2)) == link.j}
        links.append(dataclasses.replace(link, **mine) if mine else link)
    return dataclasses.replace(robot, links=tuple(links))


def _one_set(controller, b, B):
    """The controller with gain set b of gains given per parameter set."""
    per_set = {k: g[b] for k in ("kp", "kd", "ki", "lam")
               for g in [getattr(controller, k, None)]
               if isinstance(g, np.ndarray) and g.shape[:-1] == (B,)}
    if not per_set:
        return controller
    one = copy.copy(controller)
    for k, g in per_set.items():
        setattr(one, k, g)
    return one


@keyword_options()
def simulate_parameter_sets(robot, controller, reference, duration, *, parameters, x0=None,
                            substeps: int = 1, step: float | None = None, saturation=True,
                            noise=None, quantization=None, delay: int = 0,
                            seed: int = 0, record_every: int = 1) -> SimulationResult:
    """Simulate ``controller`` on ``robot`` with each set of ``parameters`` ({name: B values},
    e.g. ``{"M7": [1.0, 1.5, 2.0]}``): a :class:`~robmod.control.SimulationResult` whose
    batch axis (after time) is the set.  ``x0``: one initial state (2n) or one per set
    (B, 2n), default the reference at t = 0; the controller's gains: one set or one per
    parameter set; the other options are those of :func:`~robmod.control.simulate` (noise is
    drawn for the whole batch as a batched run draws it).  The controller keeps its own
    model."""
    options = dict(substeps=substeps, step=step, saturation=saturation, noise=noise,
                   quantization=quantization, delay=delay, seed=seed,
                   record_every=record_every)
    nominal = numeric_only(robot)
    names, table = _values(nominal, parameters)
    B = len(table)
    n = Dynamics.of(nominal, "plant").n
    if x0 is None:
        d = Reference(reference, n)(0.0)
        x0 = np.concatenate([d.q, d.qd])
    x0 = np.asarray(x0, dtype=float)
    if x0.shape not in ((2 * n,), (B, 2 * n)):
        raise ArgumentError(f"x0: expected {2 * n} values or one row per set ({B}, {2 * n}), "
                            f"got shape {x0.shape}")
    for k in ("kp", "kd", "ki", "lam"):
        g = getattr(controller, k, None)
        if isinstance(g, np.ndarray) and g.shape[:-1] not in ((), (B,)):
            raise ArgumentError(f"the controller's {k} has shape {g.shape}: one gain set, or "
                                f"one per parameter set ({B}, n)")
    x0 = np.ascontiguousarray(np.broadcast_to(x0, (B, 2 * n)))
    symbolic = _with(nominal, {k: sp.Symbol(k) for k in names})
    token = None
    if not symbolic.n_loops:
        model = ddm_model(symbolic, method="fewest")
        order = [names.index(str(s)) for s in model.parameters]
        token = PLANT_PARAMETERS.set((symbolic, model, table[:, order]))
    try:
        if token is not None:
            return simulate(nominal, controller, reference, duration, x0=x0, **options)
    except NotCompiled:
        pass
    finally:
        if token is not None:
            PLANT_PARAMETERS.reset(token)
    runs = [simulate(_with(nominal, {k: sp.Float(v) for k, v in zip(names, row)}),
                     _one_set(controller, b, B), reference, duration, x0=x0[b], **options)
            for b, row in enumerate(table)]
    first = runs[0]
    stack = [np.stack([getattr(r, k) for r in runs], axis=1) for k in ("q", "qd", "tau")]
    z = np.stack([r.controller_state for r in runs], axis=0)
    return SimulationResult(first.t, *stack, nominal, reference=first.reference,
                            controller=controller, controller_state=z, tau_limit=first.tau_limit)


__all__ = ["simulate_parameter_sets"]
