"""Identification of the dynamic parameters from measured data: an estimator object.

One pipeline, Gautier's method (Khalil & Dombre, identification of the dynamic parameters;
Gautier & Khalil 1990; Gautier 1997):

data (:class:`~.data.MeasuredData`, :func:`~.data.load_log`; several logs fitted together,
:func:`~.data.join_logs`) -> processing (zero-phase filter at a cut-off chosen by
cross-validation in time, :mod:`.cutoff`, or none for a log filtered before; differentiation;
parallel filtering and decimation, :mod:`.processing`; the filters' transients trimmed) ->
model
(:class:`~.model.IdentificationModel`: every standard parameter of every moving link unless
fixed, base parameters, offsets; the classes of friction, offset and rotor parameters kept
when the data show them, :mod:`.selection`) -> estimates (weighted least squares,
:mod:`.solver`; physically consistent, :mod:`.consistency`; essential parameters, Pham &
Gautier 1991) -> the one that predicts best handed over, compared on held-out blocks ->
robot (:meth:`~DynamicIdentification.to_robot`).  The stages are in :mod:`.fitting`.

The estimator looks like scikit-learn's: ``__init__`` stores the settings, ``fit(data)``
builds the model and fits it, fitted attributes end with an underscore (``params_``,
``std_``, ``model_``, ``processed_``, ...), ``predict(q, qd, qdd)``, ``report()``.
"""
from __future__ import annotations

import dataclasses
import warnings
from types import MappingProxyType

import numpy as np

from ..description.arguments import (checked_options, keyword_defaults, keyword_options,
                                     robot_argument)
from ..errors import ArgumentError, RobmodError, RobmodWarning
from . import fitting
from .data import MeasuredData, clean, join_logs
from .model import identification_model, stack
from .parameters import split_name
from .processing import motion_bandwidth, prefiltered, process
from .report import excitation, report_text
from .solver import one_blas_thread, parameters_html, solve
from .validation import Validation, validation_of

_ESTIMATES = ("auto", "consistent", "essential", "ls")
_SWITCH = ("auto", True, False)


class DynamicIdentification:
    """The dynamic parameters of ``robot`` (only its geometry is used; its inertial values, when
    it has them, are the prior of the physically consistent estimate) from measured data.

    Settings (stored by ``__init__``, used by :meth:`fit`):

    * ``estimate``: what :meth:`fit` hands over (``params_``, :meth:`predict`,
      :meth:`validate`, :meth:`to_robot`): ``'auto'`` -- the estimate that predicts best on
      held-out blocks of the log, the physically consistent one (:mod:`.consistency`)
      preferred within noise when the description gives a prior, the essential parameters
      (Pham & Gautier 1991) preferred otherwise, least squares beside them as a diagnostic;
      ``'consistent'``, ``'essential'``; ``'ls'``: the raw least squares of every parameter
      of the switches below, without selection;
    * ``friction`` (Coulomb FC and viscous FV), ``rotor`` (IA), ``offsets`` (one torque offset
      per joint): ``'auto'`` (each class kept when the data show it: held-out prediction or
      well identified, :mod:`.selection`), True (always), False (never);
    * ``torque``: where the torques are measured, ``'motor'`` (motor currents: rotor inertia
      and gear friction in them) or ``'link'`` (joint torque sensors after the gear: no rotor
      inertia is identified); None: what the data say (``MeasuredData.torque``), else motor;
    * ``method``: the least squares, ``'wls'`` (Gautier's weighting), ``'ols'`` or
      ``'huber'``; ``tolerance``: the consistent estimate's residual may exceed least
      squares' by this fraction; ``known`` {name: value} and ``fixed`` [names] (at the
      description's values): parameters moved to the known side;
    * ``cutoff``: ``'auto'`` (none for a log filtered before, else cross-validation over
      ``folds`` held-out blocks of the motion, :mod:`.cutoff`), a frequency in Hz or None;
      ``decimate``: 'auto' (Gautier's rule) or a factor; ``use_measured_velocity``;
      ``equations``: a floating robot's (:mod:`.floating`): ``'base'`` (its base's six
      equations: logs without joint torques, Ayusawa et al. 2014) or ``'all'`` (and the
      joint torques); by default, those the data have (MeasuredData with ``floating=True``).
    """

    @keyword_options()
    def __init__(self, robot, *, estimate: str = "auto", method: str = "wls",
                 friction="auto", rotor="auto", offsets="auto", torque: str | None = None,
                 known=None, fixed=None, cutoff="auto", decimate="auto",
                 use_measured_velocity: bool = True, folds: int = 5, seed: int = 0,
                 equations: str | None = None, tolerance: float = 0.05):
        self.robot = robot
        self.estimate, self.equations, self.torque = estimate, equations, torque
        self.method, self.friction, self.rotor, self.offsets = method, friction, rotor, offsets
        self.known, self.fixed, self.tolerance = known, fixed, tolerance
        self.cutoff, self.decimate, self.folds = cutoff, decimate, folds
        self.use_measured_velocity = use_measured_velocity
        self.seed = seed

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, data) -> "DynamicIdentification":
        """Build the model of the robot and fit it to ``data`` (:class:`MeasuredData`, or a
        list of logs fitted together: :func:`~.data.join_logs`); see the class's notes."""
        with one_blas_thread():
            return self._fit(data)

    def _settings(self):
        if self.method not in ("wls", "ols", "huber"):
            raise RobmodError(f"method must be 'wls', 'ols' or 'huber', got {self.method!r}")
        if self.estimate not in _ESTIMATES:
            raise ArgumentError(f"estimate must be one of {', '.join(map(repr, _ESTIMATES))}, "
                                f"got {self.estimate!r}")
        for name in ("friction", "rotor", "offsets"):
            v = getattr(self, name)
            if not any(v is x or (isinstance(v, str) and v == x) for x in _SWITCH):
                raise ArgumentError(f"{name} must be 'auto', True or False, got {v!r}")
        if self.torque not in (None, "link", "motor"):
            raise ArgumentError(f"torque must be 'link', 'motor' or None, got {self.torque!r}")
        if not 0 <= float(self.tolerance) < 10:
            raise ArgumentError(f"tolerance must be a fraction >= 0, got {self.tolerance!r}")

    def _fit(self, data):
        self._settings()
        if isinstance(data, (list, tuple)):
            data = join_logs(data)
        if not isinstance(data, MeasuredData):
            raise RobmodError("fit expects MeasuredData or a list of them (see "
                              "robmod.identification.load_log)")
        floating = getattr(self.robot, "base_kind", "fixed") == "floating"
        if data.floating != floating:
            raise RobmodError(f"the robot {'has' if floating else 'has no'} floating base, the "
                              f"data {'are' if data.floating else 'are not'} a floating robot's "
                              "(MeasuredData(..., floating=True): q with the base's pose)")
        equations = self.equations
        if floating and equations is None and data.tau is not None:
            equations = "base" if data.tau.shape[1] == 6 else "all"
        side = self.torque or data.torque
        raw = self.estimate == "ls"
        switch = {k: (True if raw and v == "auto" else v) for k, v in (
            ("friction", self.friction), ("rotor", self.rotor), ("offsets", self.offsets))}
        side_notes = []
        if side == "link" and switch["rotor"] is not False:
            if switch["rotor"] is True:
                side_notes.append("rotor inertias identified although the torques are "
                                  "measured on the link side (rotor=True)")
            else:
                switch["rotor"] = False
                side_notes.append("torques measured on the link side (joint torque sensors "
                                  "after the gear): they see no rotor inertia, none identified")
        model = identification_model(self.robot, rotor=switch["rotor"] is not False,
                                     friction=switch["friction"] is not False,
                                     offsets=switch["offsets"] is not False, known=self.known,
                                     fixed=self.fixed, seed=self.seed, equations=equations)
        if data.n_joints != model.n_joints:
            raise RobmodError(f"the data have {data.n_joints} joints, the robot "
                              f"{model.n_joints}")
        data = _finite(data)
        cutoff, band, choice, filter_notes = fitting.filtering(
            model, data, cutoff=self.cutoff, folds=self.folds, method=self.method,
            use_measured_velocity=self.use_measured_velocity)
        p = process(data, cutoff=cutoff, decimate=self.decimate, band=band,
                    use_measured_velocity=self.use_measured_velocity)
        rows, W, y, index = fitting.observation(model, p)
        self.model_ = model
        self.processed_ = dataclasses.replace(
            p, choice=choice, notes=tuple(data.notes) + ((choice.note(),) if choice else ())
            + tuple(filter_notes) + p.notes + tuple(side_notes))
        self._W, self._y = stack(W), y.T.reshape(-1)
        if not np.any(self._y) and floating:
            raise RobmodError("the base's equations of a robot without external wrench (in "
                              "flight, in space) are homogeneous: they give the parameters up to "
                              "a common factor; fix the scale with a known base parameter, e.g. "
                              "the total mass (known={'MR0': ...}), or measure the contact "
                              "wrench")
        self.columns_ = np.arange(len(model.names))
        self.consistent_, self.choice_, self.structure_, self.structure_notes_ = \
            None, None, None, []
        self._store(solve(self._W, self._y, model.n_rows, method=self.method,
                          names=model.names))
        if raw:
            self.estimate_ = "least squares"
        else:
            self._choose(W, y, index, data, p,
                         {"Coulomb friction": switch["friction"],
                          "viscous friction": switch["friction"],
                          "torque offsets": switch["offsets"], "rotor inertia": switch["rotor"]})
        self.excitation_ = excitation(self.result_.factor, self.result_.names)
        if self.excitation_.poor:
            warnings.warn(RobmodWarning("; ".join(self.excitation_.lines(
                getattr(self.robot, "name", "robot"))[:1]) + ": record an exciting trajectory "
                "(robmod.identification.exciting_trajectory); est.report() has the details"),
                stacklevel=3)
        return self

    def _choose(self, W, y, index, data, p, switches):
        """The structure and the estimate handed over (see :mod:`.fitting`)."""
        folds, note = fitting.folds_of(W, y, index, data, p, self.folds, self.method)
        if note:
            self.processed_ = dataclasses.replace(self.processed_,
                                                  notes=self.processed_.notes + (note,))
        columns, self.structure_ = fitting.structure(self.model_, folds, switches,
                                                     self.result_)
        self.structure_notes_ = self.structure_.notes() if self.structure_ else []
        if len(columns) < len(self.model_.names):
            self.columns_ = np.asarray(columns)
            self._store(solve(self._W[:, columns], self._y, self.model_.n_rows,
                              method=self.method, names=tuple(self.model_.names[c]
                                                              for c in columns)))
        prior = dict(self.model_.prior)
        if self.estimate == "consistent":
            from .consistency import consistent_fit

            self.consistent_ = consistent_fit(self, tolerance=self.tolerance)
            chosen = "consistent"
        elif self.estimate == "essential":
            chosen, essential = "essential parameters", self.essential()
        else:
            self.choice_, essential = fitting.candidates(self, folds, prior,
                                                         tolerance=self.tolerance)
            chosen = self.choice_.chosen
        if chosen == "essential parameters" and essential is not None:
            self.columns_ = essential.columns_
            self._store(essential.result_)
        self.estimate_ = "essential parameters" if chosen.startswith("essential") else chosen
        if self.estimate_ == "consistent":
            self._hand_over(self.consistent_.params[self.columns_])

    def _hand_over(self, values):
        """``values`` (of ``names_``) become the estimate handed over; least squares stays in
        ``result_`` (the diagnostic)."""
        self.params_ = np.asarray(values, float)
        self.residual_ = self._y - self._W[:, self.columns_] @ self.params_
        self.relative_residual_ = float(np.linalg.norm(self.residual_) / max(
            np.linalg.norm(self._y), 1e-300))

    def _store(self, res):
        self.result_ = res
        self.names_ = tuple(res.names)
        self.params_, self.std_, self.relative_std_ = res.beta, res.std, res.relative_std
        self.covariance_, self.condition_ = res.covariance, res.condition
        self.sigma_joint_ = res.sigma_joint
        W = self._W[:, self.columns_]
        self.residual_ = self._y - W @ res.beta
        self.observed_ = self._y
        self.relative_residual_ = float(np.linalg.norm(self.residual_) / max(
            np.linalg.norm(self._y), 1e-300))
        self.n_equations_ = W.shape[0]

    # -- fitted model ---------------------------------------------------------------------------
    @property
    def n_joints_(self) -> int:
        return self.model_.n_joints

    @property
    def num_(self):
        """The robot with its numeric geometry (the model's)."""
        return self.model_.robot

    @property
    def base_(self):
        """The numeric base parameters of the identified set (names, K, relations)."""
        return self.model_.base

    def regressor(self, q, qd, qdd) -> np.ndarray:
        """W (..., n, p) of the fitted model: base columns, then offsets."""
        self._fitted()
        return self.model_.regressor(q, qd, qdd)

    def full_params(self) -> np.ndarray:
        """The values of every parameter of the model (``model_.names``) handed over: 0 for
        those the structure or the essential model left out."""
        self._fitted()
        beta = np.zeros(len(self.model_.names))
        beta[self.columns_] = self.params_
        return beta

    def ls_params(self) -> np.ndarray:
        """:meth:`full_params` of least squares (the diagnostic beside the estimate handed
        over)."""
        self._fitted()
        beta = np.zeros(len(self.model_.names))
        beta[self.columns_] = self.result_.beta
        return beta

    @property
    def least_squares_(self):
        """The least-squares :class:`~.solver.Identification` of the model's structure:
        values, standard deviations, condition number (the diagnostic)."""
        self._fitted()
        return self.result_

    def predict(self, q, qd, qdd) -> np.ndarray:
        """Torques (..., n) of the identified model (the known parameters' included)."""
        self._fitted()
        return self.model_.predict(q, qd, qdd, self.full_params())

    def validate(self, data, params=None) -> Validation:
        """Predicted against measured torques on (other) data (:class:`MeasuredData` or a
        list of logs), processed like the fit data (filtered, not decimated) -- not filtered
        again when the log was filtered before, never below its motion's band; ``params`` (of
        ``model_.names``) instead of the fit's."""
        self._fitted()
        data = _finite(join_logs(data) if isinstance(data, (list, tuple)) else data)
        cutoff, band = self._validation_filter(data)
        p = process(data, cutoff=cutoff, decimate=1, band=band,
                    use_measured_velocity=self.use_measured_velocity)
        if p.tau is None:
            raise RobmodError("validation data need torques")
        beta = self.full_params() if params is None else np.asarray(params, float)
        tau_hat = self.model_.predict(p.q, p.qd, p.qdd, beta, still=p.still)
        return validation_of(p.tau[:, :self.model_.n_rows], tau_hat, p.t)

    def _validation_filter(self, data):
        """(cutoff, band) for other data: none for a log filtered before, else the fit's
        low-pass, raised to the other motion's band when that is faster (a filter that cuts
        into the motion distorts what is predicted)."""
        if not isinstance(data, MeasuredData):
            raise ArgumentError(f"validate: data must be MeasuredData (load_log), got "
                                f"{type(data).__name__}")
        tau_band, acc_band = prefiltered(data, self.use_measured_velocity)
        if tau_band and acc_band:
            return None, max(tau_band, acc_band)
        cutoff = self.processed_.smoothing
        if cutoff:
            rate = data.sampling_rate
            cutoff = min(max(cutoff, motion_bandwidth(data.q, rate)), 0.4 * rate)
        return cutoff, None

    def essential(self, max_relative_std: float = 1.0, tolerance: float = 0.05,
                  candidates: int = 8) -> "DynamicIdentification":
        """Essential parameters (Pham & Gautier 1991): parameters are removed one at a time,
        the one with the largest %sigma first among those whose removal keeps the relative
        residual within ``tolerance`` (relative) of the full model's, while a parameter with
        %sigma above ``max_relative_std`` (%) remains; ``candidates``: how many of the
        largest %sigma are tried at each step.  Returns a new fitted estimator restricted to
        the essential parameters (its ``names_``, ``params_``, ``columns_``)."""
        self._fitted()
        W = self._W[:, self.columns_]
        limit = float(np.linalg.norm(self._y - W @ self.result_.beta) / max(
            np.linalg.norm(self._y), 1e-300)) * (1 + tolerance)
        est = self if getattr(self, "estimate_", "least squares") == "least squares" else \
            _subset(self, self.columns_)
        while len(est.columns_) > 1 and est.relative_std_.max() > max_relative_std:
            for c in np.argsort(-est.relative_std_)[:candidates]:
                if est.relative_std_[c] <= max_relative_std:
                    return _essential(self, est)
                new = _subset(est, np.delete(est.columns_, c))
                if new.relative_residual_ <= limit:
                    est = new
                    break
            else:
                break
        return _essential(self, est)

    # -- printing -------------------------------------------------------------------------------
    def report(self) -> str:
        """The estimate handed over and why, the model's structure and the evidence, the
        values (and least squares' beside them), the excitation, the processing."""
        self._fitted()
        return report_text(self)

    def _repr_html_(self):
        from html import escape

        if not hasattr(self, "params_"):
            return f"<p>{escape(repr(self))}</p>"
        return parameters_html(
            self.names_, self.params_, self.std_, self.relative_std_,
            f"{self.num_.name}: {len(self.names_)} parameters from {self.n_equations_} "
            f"equations ({self.method.upper()}); condition number {self.condition_:.4g}; "
            f"relative residual {100 * self.relative_residual_:.3g} %",
            {k: str(v) for k, v in self.model_.relations().items()})

    # -- the robot ------------------------------------------------------------------------------
    def to_robot(self, consistent=None):
        """The robot with the identified values, as a description any model can use.

        By default, the estimate handed over (``estimate_``): the physically consistent
        standard parameters when it is the consistent one.  With ``consistent`` (a
        :func:`~robmod.identification.consistency.consistent_fit` result): those.  A
        least-squares estimate puts each base parameter on its standard column and the
        parameters regrouped into it to zero (the same torques as the identified model),
        which the description's validation refuses when a link is then not a rigid body
        (zero mass with first moments): use the consistent estimate then.  Torque offsets are
        not part of a robot description.
        """
        import sympy as sp

        from ..description.validation import validate

        self._fitted()
        model = self.model_
        if consistent is None and self.estimate_ == "consistent":
            consistent = self.consistent_
        if consistent is not None:
            values = dict(consistent.standard)
        else:
            values = dict(model.known)
            values.update(zip(model.columns, self.full_params()[:len(model.columns)]))
        fields = {}
        for name in model.standard:
            field, j = split_name(name)
            fields.setdefault(j, {})[field] = sp.Float(float(values.get(name, 0.0)))
        links = tuple(dataclasses.replace(link, **fields.get(link.j, {}))
                      for link in model.robot.links)
        robot = dataclasses.replace(model.robot, links=links, values=MappingProxyType({}),
                                    base_link=dataclasses.replace(model.robot.base_link,
                                                                  **fields.get(0, {})),
                                    inertia_check="error")
        try:
            validate(robot)
        except RobmodError as e:
            fix = ("to_robot(est.consistent_), the physically consistent estimate"
                   if self.consistent_ is not None else "to_robot(consistent_fit(est))")
            raise RobmodError(f"the least-squares base parameters are not a physical robot "
                              f"({e.message}): use {fix}") from None
        return robot

    def _fitted(self):
        if not hasattr(self, "params_"):
            raise RobmodError("the estimator is not fitted: call fit(data) first")

    def __repr__(self):
        name = getattr(self.robot, "name", "?")
        state = (f", {len(self.names_)} parameters, {self.estimate_}" if hasattr(self, "params_")
                 else "")
        return f"DynamicIdentification({name}, {self.method}{state})"


def _finite(data: MeasuredData) -> MeasuredData:
    """``data`` without the samples holding NaN or infinite values (cleaned: the rows dropped
    are noted; the fit never sees them)."""
    arrays = [v for v in (data.q, data.qd, data.tau) if v is not None]
    ok = np.all(np.isfinite(np.column_stack([data.t[:, None]] + arrays)), axis=1)
    return data if ok.all() else clean(data)


def _subset(est, keep):
    """A copy of ``est`` with the least squares of the columns ``keep`` handed over."""
    new = object.__new__(type(est))
    new.__dict__.update(est.__dict__)
    new.estimate_ = "least squares"
    new.columns_ = np.asarray(keep)
    names = tuple(est.model_.names[k] for k in keep)
    new._store(solve(est._W[:, keep], est._y, est.model_.n_rows, method=est.method,
                     names=names))
    return new


def _essential(start, est):
    """``est`` named for what it holds when parameters of ``start`` were removed."""
    if len(est.columns_) < len(start.columns_):
        est.estimate_ = "essential parameters"
    return est


@keyword_options(folds=5, **keyword_defaults(DynamicIdentification, exclude=("folds",)))
def cross_validate(robot, data: MeasuredData, **options) -> list:
    """K-fold cross-validation over time: the log is cut into ``folds`` contiguous blocks;
    each block is predicted by the model fitted on the others (the remaining pieces are
    separate segments, filtered apart), a :class:`DynamicIdentification` of the other
    options.  Returns the :class:`Validation` of each block."""
    options = checked_options(cross_validate, options)
    robot_argument(robot)
    if not isinstance(data, MeasuredData):
        raise ArgumentError(f"cross_validate: data must be MeasuredData (load_log), got "
                            f"{type(data).__name__}")
    folds = options.pop("folds")
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or folds < 2:
        raise RobmodError(f"folds must be a whole number >= 2, got {folds!r}")
    N = data.n_samples
    edges = np.linspace(0, N, int(folds) + 1).astype(int)
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        keep = np.r_[0:a, b:N]
        train = dataclasses.replace(data.select(keep), segments=tuple(
            s for s in ((0, a), (a, a + N - b)) if s[1] > s[0]))
        est = DynamicIdentification(robot, **options).fit(train)
        out.append(est.validate(data.select(slice(a, b))))
    return out


__all__ = ["DynamicIdentification", "cross_validate"]
