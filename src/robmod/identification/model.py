"""The identification model of a robot: one object for the estimator, the base parameters, the
consistent fit and the design of exciting motions.

``Gamma = W(q, qd, qdd) beta + Gamma_known`` (Khalil & Dombre §7.5.3; Gautier & Khalil 1990):

* the parameter set: by default every standard parameter of every moving link
  (:func:`.parameters.parameter_set`: the description gives the geometry only), minus those the
  user fixes (``known`` values, ``fixed`` names at the description's values), whose columns move
  to the known side ``Gamma_known``; or an explicit set (``params``: names of standard
  parameters, or a symbolic :class:`~.base_symbolic.BaseParameters`);
* the base parameters ``beta = K chi`` of that set, from the rank of its regressor stacked at
  random states (:func:`.base_numeric.numeric_base`): parameters with no effect and those
  regrouped are reported (:meth:`IdentificationModel.describe`), never dropped in silence;
* ``W``: the compiled regressor of the base columns, then one torque offset per joint
  (``offsets``);
* the prior: the description's numeric inertial values, link by link, when it has them.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..description.arguments import (checked_options, keyword_defaults, keyword_options,
                                     robot_argument)
from ..errors import ArgumentError, RobmodError
from .base_numeric import numeric_base, numeric_robot
from .parameters import FIELDS, description_values, known_values, parameter_set, split_name
from .processing import Processed, butter_lowpass
from .regressors import regressor_function
from ..symbolic.cache import cached
from .solver import one_blas_thread


def _numeric_geometry(robot):
    """The robot with numbers for its geometry and gravity (refused when symbolic)."""
    known = {str(k) for k in robot.values}
    syms = sorted({str(s) for s in robot.geometry_symbols if str(s) not in known})
    if syms:
        raise RobmodError(f"identification needs the robot's geometry in numbers: "
                          f"{', '.join(syms)} {'is' if len(syms) == 1 else 'are'} symbolic: "
                          "call robot.numeric({...})")
    num, _ = numeric_robot(robot)
    free = sorted(str(s) for g in num.gravity for s in getattr(g, "free_symbols", ()))
    if free:
        raise RobmodError(f"identification needs the gravity in numbers: {', '.join(free)} is "
                          "symbolic: call robot.numeric({...})")
    return num


class IdentificationModel:
    """``Gamma = W(q, qd, qdd) beta + Gamma_known`` of ``robot`` (see the module's notes).

    Attributes: ``robot`` (numeric geometry), ``n_joints``, ``standard`` (the parameter set),
    ``known`` {name: value}, ``free`` (the unknown standard parameters), ``base`` (a
    :class:`~.base_numeric.NumericBase` over ``free``), ``K`` (beta = K chi_free),
    ``columns`` (the standard columns of the base parameters), ``names`` (base parameters
    then OFFSET1..n), ``prior`` {name: value} of the description's numeric inertial values.
    """

    @keyword_options()
    def __init__(self, robot, *, params=None, rotor: bool = True, friction: bool = True,
                 offsets: bool = True, known=None, fixed=None, seed: int = 0,
                 equations: str | None = None):
        num = _numeric_geometry(robot)
        self.robot = num
        self.n_joints = len(num.joints)
        self.equations = _equations(num, equations)
        #: equations per sample: the joints', or a floating robot's base's six (and joints')
        self.n_rows = {"joints": self.n_joints, "base": 6, "all": 6 + self.n_joints}[
            self.equations]
        joints = self.equations != "base"
        rotor, friction = rotor and joints, friction and joints
        self.offsets = bool(offsets) and joints
        if params is None:
            standard = parameter_set(num, rotor=rotor, friction=friction)
            known = dict(known or {})
            regrouped = {k: known.pop(k) for k in list(known) if k not in standard
                         and _regrouped_name(k)}
            self.known = known_values(num, standard, known, fixed)
            free = tuple(n for n in standard if n not in self.known)
            floating = self.equations if self.equations != "joints" else None
            self.base = _cached(("base", num.content_key, free, seed, floating),
                                lambda: numeric_base(num, free, seed=seed, equations=floating))
            K, columns, names = self.base.K, self.base.base, self.base.names
            for name, value in regrouped.items():    # a known base parameter: MR0, the mass
                if name not in names:
                    raise RobmodError(f"known: {name} is neither a parameter nor a base "
                                      f"parameter of {num.name} (base parameters: "
                                      f"{', '.join(names[:8])}, ...)")
                k = names.index(name)
                self.known.update(known_values(num, standard, {columns[k]: value}))
                K, columns, names = (np.delete(K, k, axis=0), columns[:k] + columns[k + 1:],
                                     names[:k] + names[k + 1:])
        else:
            if known or fixed:
                raise RobmodError("known / fixed parameters go with the default parameter set "
                                  "(params=None)")
            self.known, self.base = {}, None
            if hasattr(params, "standard_names"):        # symbolic BaseParameters
                standard = free = tuple(params.standard)
                K = params.numeric_matrix()
                columns, names = tuple(params.standard_names), tuple(params.names)
            else:
                standard = free = columns = names = tuple(params)
                for n in standard:
                    try:
                        split_name(n)
                    except KeyError:
                        raise RobmodError(f"params: {n!r} is not a standard parameter "
                                          "(XXj..Mj, IAj, FCj, FVj)") from None
                K = np.eye(len(standard))
        self.standard, self.free, self.K = tuple(standard), tuple(free), np.asarray(K, float)
        self.columns = tuple(columns)
        self.names = tuple(names) + (tuple(f"OFFSET{j}" for j in range(1, self.n_joints + 1))
                                     if self.offsets else ())
        self._top = self.n_rows - self.n_joints if self.offsets else 0     # base rows first
        values = description_values(num, self.standard)
        self.prior = {n: v for n, v in values.items()
                      if split_name(n)[0] in FIELDS[:10]
                      and values.get(f"M{split_name(n)[1]}", 0.0) > 0}
        self._known_names = tuple(self.known)
        geometry = _geometry_only(num)
        columns = self.columns + self._known_names
        equations = "all" if self.equations == "joints" else self.equations
        self._phi = _cached(("regressor", geometry.content_key, columns, equations),
                            lambda: regressor_function(geometry, params=columns,
                                                       equations=equations))
        self._known_vec = np.array([self.known[n] for n in self._known_names])
        top = 6 if self.equations == "all" else 0
        self._fc_columns = [(c, top + num.joint_index[split_name(n)[1]])
                            for c, n in enumerate(self.columns + self._known_names)
                            if split_name(n)[0] == "FC"]

    # -- evaluation --------------------------------------------------------------------------
    def _full(self, q, qd, qdd, still=None):
        q, qd, qdd = (np.ascontiguousarray(x, dtype=float) for x in (q, qd, qdd))
        size = self.n_joints + (7 if self.equations != "joints" else 0)
        if q.shape[-1] != size:
            raise RobmodError(f"q must have {size} values per sample, got shape {q.shape}")
        F = self._phi(q, qd, qdd)
        if still is not None and self._fc_columns:      # the joints at rest: sign unknown
            s = _coulomb(qd, still)
            for c, i in self._fc_columns:
                F[..., i, c] = s[..., i]
        return F

    def _split(self, F):
        b = len(self.columns)
        W = F[..., :b]
        if self.offsets:
            eye = np.eye(self.n_rows, self.n_joints, -self._top)
            eye = np.broadcast_to(eye, W.shape[:-2] + eye.shape)
            W = np.concatenate([W, eye], axis=-1)
        known = F[..., b:] @ self._known_vec if self._known_names else \
            np.zeros(F.shape[:-1])
        return W, known

    def regressor(self, q, qd, qdd, *, known: bool = False, still=None):
        """W (..., n, p): the base columns, then the offset columns (and Gamma_known (..., n)
        with ``known=True``); ``still`` (..., n): where a joint is at rest (the sign of its
        velocity unknown: the Coulomb column 0 there), or velocities (n,) below which."""
        W, tau_known = self._split(self._full(q, qd, qdd, still))
        return (W, tau_known) if known else W

    def predict(self, q, qd, qdd, beta, *, still=None, chunk: int = 16384) -> np.ndarray:
        """Torques (N, n) of the parameters ``beta`` (``names``) plus the known ones."""
        q, qd, qdd = (np.asarray(x, dtype=float) for x in (q, qd, qdd))
        flat = q.reshape(-1, q.shape[-1]).shape[0]
        shape = q.shape[:-1]
        q, qd, qdd = (x.reshape(flat, -1) for x in (q, qd, qdd))
        out = np.empty((flat, self.n_rows))
        mask = still is not None and np.ndim(still) == 2 and np.shape(still)[0] == flat
        for a in range(0, flat, chunk):
            W, known = self._split(self._full(q[a:a + chunk], qd[a:a + chunk],
                                              qdd[a:a + chunk],
                                              still[a:a + chunk] if mask else still))
            out[a:a + chunk] = W @ beta + known
        return out.reshape(shape + (self.n_rows,))

    def observation(self, p: Processed, *, rows=None, stacked: bool = True):
        """(W, y, index): the rows of the decimated samples of ``p`` (every
        ``p.decimation``-th of each segment, or ``rows``), stacked joint by joint -- W
        (n N, p), y (n N,) the filtered torques minus the known ones -- and the data samples
        they come from.  The Coulomb columns are sign(qd) filtered like the torques."""
        if p.tau is None:
            raise RobmodError("the data have no torques (nor motor currents): nothing to fit")
        if rows is None:
            rows = np.concatenate([np.arange(a, b, p.decimation) for a, b in p.segments])
        F = self._full(p.q[rows], p.qd[rows], p.qdd[rows], _rows(p.still, rows))
        if p.smoothing and self._fc_columns:
            sign = np.empty((rows.size, p.qd.shape[-1]))
            for a, b in p.segments:
                inside = (rows >= a) & (rows < b)
                if inside.any():
                    s = butter_lowpass(_coulomb(p.qd[a:b], _rows(p.still, slice(a, b))),
                                       p.rate, p.smoothing)
                    sign[inside] = s[rows[inside] - a]
            for c, i in self._fc_columns:
                F[:, i, c] = sign[:, i]
        W, known = self._split(F)
        y = (p.tau_filtered if p.tau_filtered is not None else p.tau)[rows]
        if y.shape[-1] != self.n_rows:
            y = y[..., :self.n_rows] if self.equations == "base" else None
        if y is None:
            raise RobmodError(f"the data have {p.tau.shape[-1]} torque columns, the model "
                              f"{self.n_rows} equations ({self.equations})")
        y = y - known
        index = p.index[rows] if p.index is not None else rows
        if not stacked:
            return W, y, index
        return stack(W), y.T.reshape(-1), index

    # -- description ------------------------------------------------------------------------
    def relations(self) -> dict:
        """{base name: relation} (standard parameters regrouped into each base parameter)."""
        return self.base.relations() if self.base is not None else {}

    def describe(self) -> list:
        """Lines saying which parameters are identified, fixed, regrouped or of no effect."""
        lines = [f"{len(self.standard)} standard parameters of {len(self.robot.joints)} moving "
                 "links" + (f" and {self.n_joints} torque offsets" if self.offsets else "")
                 + f": {len(self.names)} identified ({len(self.columns)} base parameters"
                 + (f" + {self.n_joints} offsets" if self.offsets else "") + ")"]
        if self.known:
            lines.append("fixed (known side): " + ", ".join(
                f"{k} = {v:.6g}" for k, v in self.known.items()))
        if self.base is not None:
            if self.base.regrouped:
                lines.append(f"regrouped into base parameters ({len(self.base.regrouped)}): "
                             + ", ".join(self.base.regrouped))
            if self.base.zero:
                lines.append(f"no effect on the torques ({len(self.base.zero)}): "
                             + ", ".join(self.base.zero))
        return lines

    def __repr__(self):
        return (f"IdentificationModel({self.robot.name}: {len(self.names)} parameters of "
                f"{len(self.standard)} standard)")


def _regrouped_name(name):
    """True for a base parameter's name that holds others (``MR0``, ``ZZR1``: Khalil &
    Dombre §7.5.3)."""
    try:
        field, _ = split_name(name.replace("R", "", 1))
    except KeyError:
        return False
    return f"{field}R" in name


def _equations(num, equations):
    """'joints' for a fixed or mobile base; a floating robot's 'base' (its six equations,
    Ayusawa et al. 2014: no joint torque needed) or 'all' (6 + n)."""
    floating = num.base_kind == "floating"
    if num.base_kind == "mobile":
        raise ArgumentError(f"robot {num.name!r} has a mobile base: the identification model "
                            "takes a fixed or floating one (the base's motion of a mobile one is "
                            "not in the logs it reads)")
    if equations is None:
        return "base" if floating else "joints"
    allowed = ("base", "all") if floating else ("joints",)
    if equations not in allowed:
        raise ArgumentError(f"equations must be {' or '.join(map(repr, allowed))} for robot "
                          f"{num.name!r} ({num.base_kind} base), got {equations!r}")
    return equations


def _coulomb(qd, still):
    """sign(qd), 0 where ``still`` (a mask like qd: the joint at rest) or where |qd| <=
    ``still`` (per joint): the sign of a velocity the data do not resolve is unknown."""
    qd = np.asarray(qd, dtype=float)
    still = np.asarray(still)
    if still.dtype == bool:
        return np.where(still, 0.0, np.sign(qd))
    return np.where(np.abs(qd) > still.astype(float), np.sign(qd), 0.0)


def _rows(still, rows):
    """The rows of a per-sample mask ``still`` (a per-joint threshold as it is)."""
    if still is None or np.ndim(still) < 2:
        return still
    return np.asarray(still)[rows]


def stack(W):
    """(N, n, p) -> (n N, p): the rows of joint 1 for all samples, then joint 2, ..."""
    return np.transpose(W, (1, 0, 2)).reshape(-1, W.shape[-1])


def _geometry_only(num):
    """The robot without link values (the regressor depends on the geometry only), so that
    robots of one geometry share one compiled regressor."""
    import sympy as sp

    links = tuple(replace(link, **{k: sp.Integer(0) for k in FIELDS}) for link in num.links)
    return replace(num, links=links, base_link=replace(num.base_link, **{
        k: sp.Integer(0) for k in FIELDS}))


def _cached(key, make):
    """The rank computation and the compiled regressor, in the one cache
    (:mod:`robmod.symbolic.cache`: a model differing only by its offsets or its prior shares
    them)."""
    def made():
        with one_blas_thread():
            return make()

    return cached(("identification",) + tuple(key), made)


@keyword_options(**keyword_defaults(IdentificationModel))
def identification_model(robot, **options) -> IdentificationModel:
    """:class:`IdentificationModel` of ``robot`` with its options, kept for the robots and
    options last used (building one costs a rank computation and a compiled regressor)."""
    options = checked_options(identification_model, options)
    robot_argument(robot)
    def freeze(v):
        if isinstance(v, dict):
            return tuple(sorted((str(k), float(x)) for k, x in v.items()))
        if isinstance(v, (list, tuple)):
            return tuple(v)
        return v

    if any(hasattr(v, "standard_names") for v in options.values()):
        return IdentificationModel(robot, **options)
    try:
        key = (robot.content_key, tuple(sorted((k, freeze(v)) for k, v in options.items())))
        hash(key)
    except (TypeError, ValueError):
        return IdentificationModel(robot, **options)
    return _cached(("model",) + key, lambda: IdentificationModel(robot, **options))


__all__ = ["IdentificationModel", "identification_model"]
