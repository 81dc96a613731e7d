"""Identification of the dynamic parameters from measured data: an estimator object.

One pipeline, Gautier's method (Khalil & Dombre, identification of the dynamic parameters;
Gautier & Khalil 1990; Gautier 1997):

data (:class:`~.data.MeasuredData`, :func:`~.data.load_log`) -> processing (zero-phase filter
at a cut-off chosen by cross-validation in time, :mod:`.cutoff`; differentiation; parallel
filtering and decimation, :mod:`.processing`) -> model (:class:`~.model.IdentificationModel`:
every standard parameter of every moving link unless fixed, base parameters, offsets) ->
estimator (weighted least squares, :mod:`.solver`; essential parameters, Pham & Gautier 1991)
-> consistency (:func:`~.consistency.consistent_fit`) -> robot (:meth:`~DynamicIdentification.
to_robot`).

The estimator looks like scikit-learn's: ``__init__`` stores the settings, ``fit(data)``
builds the model and fits it, fitted attributes end with an underscore (``params_``,
``std_``, ``model_``, ``processed_``, ...), ``predict(q, qd, qdd)``, ``report()``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..description.arguments import (checked_options, keyword_defaults, keyword_options,
                                     robot_argument)
from ..errors import ArgumentError, RobmodError
from .cutoff import choose_cutoff
from .data import MeasuredData, clean
from .model import identification_model
from .parameters import split_name
from .processing import process
from .solver import one_blas_thread, parameters_html, solve


@dataclass(frozen=True)
class Validation:
    """Per-joint errors of predicted torques against measured ones."""

    rms: np.ndarray            # RMS of tau - tau_hat, per joint
    relative: np.ndarray       # |tau - tau_hat| / |tau| per joint
    total_relative: float      # |tau - tau_hat| / |tau| over all joints
    tau: np.ndarray
    tau_hat: np.ndarray
    t: np.ndarray

    def __str__(self):
        rows = ["joint    rms error   relative error"]
        rows += [f"{j + 1:5d} {r:12.4g} {100 * e:12.2f} %"
                 for j, (r, e) in enumerate(zip(self.rms, self.relative))]
        rows.append(f"  all {np.sqrt(np.mean(self.rms ** 2)):12.4g} "
                    f"{100 * self.total_relative:12.2f} %")
        return "\n".join(rows)

    def _repr_html_(self):
        from ..description.table import html_table

        rows = [[j + 1, f"{r:.4g}", f"{100 * e:.2f} %"]
                for j, (r, e) in enumerate(zip(self.rms, self.relative))]
        rows.append(["all", f"{np.sqrt(np.mean(self.rms ** 2)):.4g}",
                     f"{100 * self.total_relative:.2f} %"])
        return html_table(["joint", "rms error", "relative error"], rows,
                          caption="predicted vs measured torques")

    def plot(self, path=None, *, ax=None):
        """:func:`robmod.plot.identification_plot` of this validation: measured and predicted
        torques and the residuals, one row per joint."""
        from ..plot.identification import identification_plot   # declared in pyproject.toml

        return identification_plot(self, path, ax=ax)


def _validation(tau, tau_hat, t) -> Validation:
    """The :class:`Validation` of predicted torques ``tau_hat`` against ``tau`` (N, n)."""
    err = tau - tau_hat
    rms = np.sqrt(np.mean(err ** 2, axis=0))
    rel = np.linalg.norm(err, axis=0) / np.maximum(np.linalg.norm(tau, axis=0), 1e-300)
    total = float(np.linalg.norm(err) / max(np.linalg.norm(tau), 1e-300))
    return Validation(rms, rel, total, tau, tau_hat, t)


class DynamicIdentification:
    """The dynamic parameters of ``robot`` (only its geometry is used) from measured data.

    Settings (stored by ``__init__``, used by :meth:`fit`): ``method`` 'wls' (Gautier's
    weighting), 'ols' or 'huber'; ``friction`` (FC, FV), ``rotor`` (IA), ``offsets`` (one
    torque offset per joint): which parameters of every moving link are identified (all by
    default, whatever the description holds); ``known`` {name: value} and ``fixed`` [names]
    (at the description's values): parameters moved to the known side; ``cutoff``: 'auto'
    (cross-validation over ``folds`` contiguous time blocks, :mod:`.cutoff`), a frequency in
    Hz or None; ``decimate``: 'auto' (Gautier's rule) or a factor; ``use_measured_velocity``.
    """

    @keyword_options()
    def __init__(self, robot, *, method: str = "wls", friction: bool = True, rotor: bool = True,
                 offsets: bool = True, known=None, fixed=None, cutoff="auto", decimate="auto",
                 use_measured_velocity: bool = True, folds: int = 5, seed: int = 0):
        self.robot = robot
        self.method, self.friction, self.rotor, self.offsets = method, friction, rotor, offsets
        self.known, self.fixed = known, fixed
        self.cutoff, self.decimate, self.folds = cutoff, decimate, folds
        self.use_measured_velocity = use_measured_velocity
        self.seed = seed

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, data: MeasuredData) -> "DynamicIdentification":
        """Build the model of the robot and fit it to ``data`` (see the module's notes)."""
        with one_blas_thread():
            return self._fit(data)

    def _fit(self, data):
        if self.method not in ("wls", "ols", "huber"):
            raise RobmodError(f"method must be 'wls', 'ols' or 'huber', got {self.method!r}")
        if not isinstance(data, MeasuredData):
            raise RobmodError("fit expects MeasuredData (see robmod.identification.load_log)")
        model = identification_model(self.robot, rotor=self.rotor, friction=self.friction,
                                     offsets=self.offsets, known=self.known, fixed=self.fixed,
                                     seed=self.seed)
        if data.n_joints != model.n_joints:
            raise RobmodError(f"the data have {data.n_joints} joints, the robot "
                              f"{model.n_joints}")
        data = _finite(data)
        choice, cutoff = None, self.cutoff
        if isinstance(cutoff, str):
            if cutoff != "auto":
                raise RobmodError(f"cutoff must be 'auto', a frequency in Hz or None, got "
                                  f"{cutoff!r}")
            choice = choose_cutoff(model, data, folds=self.folds, method=self.method,
                                   use_measured_velocity=self.use_measured_velocity)
            cutoff = choice.chosen
        p = process(data, cutoff=cutoff, decimate=self.decimate,
                    use_measured_velocity=self.use_measured_velocity)
        notes = tuple(data.notes)
        self.model_ = model
        self.processed_ = dataclasses.replace(
            p, choice=choice, notes=notes + ((choice.note(),) if choice else ())
            + p.notes)
        W, y, _ = model.observation(self.processed_)
        self._W, self._y = W, y
        self.columns_ = np.arange(len(model.names))
        self._store(solve(W, y, model.n_joints, method=self.method, names=model.names))
        return self

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
        """The values of every parameter of the model (``model_.names``; 0 for those the
        essential model left out)."""
        self._fitted()
        beta = np.zeros(len(self.model_.names))
        beta[self.columns_] = self.params_
        return beta

    def predict(self, q, qd, qdd) -> np.ndarray:
        """Torques (..., n) of the identified model (the known parameters' included)."""
        self._fitted()
        return self.model_.predict(q, qd, qdd, self.full_params(), still=self.processed_.still)

    def validate(self, data: MeasuredData, params=None) -> Validation:
        """Predicted against measured torques on (other) data, processed like the fit data
        (filtered, not decimated); ``params`` (of ``model_.names``) instead of the fit's."""
        self._fitted()
        p = process(_finite(data), cutoff=self.processed_.cutoff, decimate=1,
                    use_measured_velocity=self.use_measured_velocity)
        if p.tau is None:
            raise RobmodError("validation data need torques")
        beta = self.full_params() if params is None else np.asarray(params, float)
        return _validation(p.tau, self.model_.predict(p.q, p.qd, p.qdd, beta,
                                                      still=self.processed_.still), p.t)

    def essential(self, max_relative_std: float = 1.0, tolerance: float = 0.05,
                  candidates: int = 8) -> "DynamicIdentification":
        """Essential parameters (Pham & Gautier 1991): parameters are removed one at a time,
        the one with the largest %sigma first among those whose removal keeps the relative
        residual within ``tolerance`` (relative) of the full model's, while a parameter with
        %sigma above ``max_relative_std`` (%) remains; ``candidates``: how many of the
        largest %sigma are tried at each step.  Returns a new fitted estimator restricted to
        the essential parameters (its ``names_``, ``params_``, ``columns_``)."""
        self._fitted()
        limit = self.relative_residual_ * (1 + tolerance)
        est = self
        while len(est.columns_) > 1 and est.relative_std_.max() > max_relative_std:
            for c in np.argsort(-est.relative_std_)[:candidates]:
                if est.relative_std_[c] <= max_relative_std:
                    return est
                trial = np.delete(est.columns_, c)
                new = _subset(est, trial)
                if new.relative_residual_ <= limit:
                    est = new
                    break
            else:
                return est
        return est

    # -- printing -------------------------------------------------------------------------------
    def report(self) -> str:
        self._fitted()
        lines = [f"{len(self.names_)} parameters from {self.n_equations_} equations "
                 f"({self.method.upper()}); condition number {self.condition_:.4g}; relative "
                 f"residual {100 * self.relative_residual_:.3g} %",
                 *("  " + x for x in self.model_.describe()),
                 f"  {'parameter':<12} {'value':>14} {'std':>12} {'%std':>9}  regrouping"]
        rel = self.model_.relations()
        for name, v, s, r in zip(self.names_, self.params_, self.std_, self.relative_std_):
            lines.append(f"  {name:<12} {v:>14.6g} {s:>12.3g} {r:>8.2f}%  {rel.get(name, '')}")
        if self.condition_ > 1e4:
            lines.append(f"warning: condition number {self.condition_:.3g}: the motion excites "
                         "some parameters poorly (see %std)")
        lines += ["", "data processing:", *("  " + n for n in self.processed_.notes)]
        return "\n".join(lines)

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

        With ``consistent`` (a :func:`~robmod.identification.consistency.consistent_fit`
        result): its physically consistent standard parameters.  Without: each base
        parameter on its standard column and the parameters regrouped into it set to zero
        (the same torques as the identified model), which the description's validation
        refuses when a link is then not a rigid body (zero mass with first moments): use the
        consistent estimate then.  Torque offsets are not part of a robot description.
        """
        import sympy as sp

        from ..description.validation import validate

        self._fitted()
        model = self.model_
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
        robot = dataclasses.replace(model.robot, links=links, values=MappingProxyType({}))
        try:
            validate(robot)
        except RobmodError as e:
            raise RobmodError(f"the identified base parameters are not a physical robot "
                              f"({e.message}): use to_robot(consistent_fit(estimator))") from None
        return robot

    def _fitted(self):
        if not hasattr(self, "params_"):
            raise RobmodError("the estimator is not fitted: call fit(data) first")

    def __repr__(self):
        name = getattr(self.robot, "name", "?")
        state = f", {len(self.names_)} parameters, fitted" if hasattr(self, "params_") else ""
        return f"DynamicIdentification({name}, {self.method}{state})"


def _finite(data: MeasuredData) -> MeasuredData:
    """``data`` without the samples holding NaN or infinite values (cleaned: the rows dropped
    are noted; the fit never sees them)."""
    arrays = [v for v in (data.q, data.qd, data.tau) if v is not None]
    ok = np.all(np.isfinite(np.column_stack([data.t[:, None]] + arrays)), axis=1)
    return data if ok.all() else clean(data)


def _subset(est, keep):
    new = object.__new__(type(est))
    new.__dict__.update(est.__dict__)
    new.columns_ = np.asarray(keep)
    names = tuple(est.model_.names[k] for k in keep)
    new._store(solve(est._W[:, keep], est._y, est.model_.n_joints, method=est.method,
                     names=names))
    return new


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


__all__ = ["DynamicIdentification", "Validation", "cross_validate"]
