"""One controller on many plants: runs that differ by the robot's parameters.

A payload mass, a friction coefficient, a link's inertia known within a tolerance: how does a
controller (with its own, fixed model) behave on each plant?  ``simulate(...,
parameters={name: values})`` runs one simulation per set of values of the named parameters --
KK link parameters by name and frame, ``M7``, ``MX7``, ``ZZ3``, ``IA1``, ``FV2``, ``FC4``...
(Khalil & Dombre §7.2-7.3, (7.26)).  With robmod's controllers the whole batch is one call of
the compiled loop (:mod:`.compiled_loop`) on the plant's direct dynamic model customized with
those parameters left as symbols (the customizing engine keeps them as inputs, §7.5.2): one
compilation for every set, each run reading its own values.  Otherwise (a controller written
in Python, a closed-loop robot, no compiler) a run per set.  This module holds the sets; the
runs are :func:`robmod.control.simulate`'s.
"""
from __future__ import annotations

import copy
import dataclasses
import re

import numpy as np
import sympy as sp

from ..errors import ArgumentError

_NAME = re.compile(r"^([A-Z]+)(\d+)$")
_FIELDS = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M", "IA", "FC", "FV", "FST",
           "BST", "FX", "FY", "FZ", "CX", "CY", "CZ")


def parameter_table(robot, parameters):
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


def robot_with(robot, values: dict):
    """The robot with link parameters replaced (symbols, or numbers)."""
    values = {k: v if isinstance(v, sp.Basic) else sp.Float(float(v)) for k, v in values.items()}
    links = []
    for link in robot.links:
        mine = {m.group(1): v for k, v in values.items()
                for m in [_NAME.match(k)] if int(m.group(2)) == link.j}
        links.append(dataclasses.replace(link, **mine) if mine else link)
    return dataclasses.replace(robot, links=tuple(links))


def one_set(controller, b, B):
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


class _PlantParameters:
    """The plant of parameter sets: the robot with the named parameters as symbols, their
    values (B, p), and the plant's customized direct model of that robot, generated only when
    a loop is compiled for it (``model()``)."""

    def __init__(self, plant, names, table):
        self.symbolic = robot_with(plant.robot, {k: sp.Symbol(k) for k in names})
        self.names, self.table = tuple(names), table
        self._recipe, self._model = plant.recipes["ddm"], None

    @property
    def key(self):
        return (self.symbolic.content_key, tuple(sorted(self.names)))

    def model(self):
        if self._model is None:
            self._model = self._recipe(self.symbolic)
        return self._model

    def values(self, order):
        """The values (B, p) in the order of the model's parameters ``order`` (names)."""
        return np.ascontiguousarray(self.table[:, [self.names.index(k) for k in order]])


def plant_parameters(plant, names, table):
    """The :class:`_PlantParameters` of a tree's plant (None for a closed-loop robot, whose
    plant is not one customized model)."""
    return None if plant.robot.n_loops else _PlantParameters(plant, names, table)


__all__ = []
