"""Identification of the base dynamic parameters from measured data: an estimator object.

The identification model Gamma = W(q, qd, qdd) chi (Khalil & Dombre (7.x), Gautier & Khalil
1990) is sampled along a motion and solved in the least-squares sense, as Gautier's method
does it:

* the base parameters (a minimal set, from the numerical rank of the model: QR of a regressor
  stacked at random states) are the unknowns, with per joint the rotor inertia IA, Coulomb and
  viscous friction FC, FV (Khalil & Dombre (7.26)) and a torque offset;
* ordinary least squares first; the residual standard deviation of each joint's equations,
  sigma_j^2 = |rho_j|^2 / (N - b), weights the rows of joint j by 1 / sigma_j (weighted least
  squares, Gautier 1997); the standard deviations of the estimates come from
  cov = sigma^2 (W^T W)^-1 of the *weighted* system with sigma^2 = |rho_w|^2 / (r - b), and
  the relative standard deviation %sigma_i = 100 sigma_i / |chi_i|;
* a robust option (``method='huber'``): iteratively reweighted least squares with Huber's
  weights on the standardized residuals, for logs with outliers;
* essential parameters (Pham & Gautier 1991): parameters with the largest %sigma removed one
  by one while the residual grows by less than a tolerance.

The estimator looks like scikit-learn's: ``fit(data)``, ``predict(q, qd, qdd)``, fitted
attributes with a trailing underscore (``params_``, ``std_``, ...), ``report()``.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..errors import RobmodError
from .base_numeric import numeric_base
from .base_symbolic import split_name
from .data import MeasuredData
from .least_squares import parameters_html
from .processing import Processed, decimate_rows, process
from .regressors import regressor_function, standard_names


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
        rows.append(f"  all {'':12} {100 * self.total_relative:12.2f} %")
        return "\n".join(rows)

    def _repr_html_(self):
        from ..description.table import html_table

        rows = [[j + 1, f"{r:.4g}", f"{100 * e:.2f} %"]
                for j, (r, e) in enumerate(zip(self.rms, self.relative))]
        rows.append(["all", "", f"{100 * self.total_relative:.2f} %"])
        return html_table(["joint", "rms error", "relative error"], rows,
                          caption="predicted vs measured torques")

    def plot(self, path=None, *, ax=None):
        """Measured and predicted torques and the residuals, one panel per joint."""
        from .plots import validation_figure

        return validation_figure(self, path, ax=ax)


class DynamicIdentification:
    """Base parameters of ``robot`` (numeric geometry) identified from measured data.

    ``method``: 'wls' (Gautier's weighting), 'ols' or 'huber'.  ``friction``: identify FC, FV
    (default True); ``rotor``: IA (default True); ``offsets``: one torque offset per joint.
    ``cutoff`` (Hz, 'auto' or None), ``decimate`` ('auto' or a factor) and
    ``use_measured_velocity``: see :func:`~robmod.identification.processing.process`.
    """

    def __init__(self, robot, *, method: str = "wls", friction: bool = True, rotor: bool = True,
                 offsets: bool = True, cutoff="auto", decimate="auto",
                 use_measured_velocity: bool = True, seed: int = 0):
        if method not in ("wls", "ols", "huber"):
            raise RobmodError(f"method must be 'wls', 'ols' or 'huber', got {method!r}")
        self.robot = robot
        self.method, self.friction, self.rotor, self.offsets = method, friction, rotor, offsets
        self.cutoff, self.decimate = cutoff, decimate
        self.use_measured_velocity = use_measured_velocity
        self.seed = seed
        self._setup()

    def _setup(self):
        from .base_numeric import numeric_robot

        syms = sorted(str(s) for s in _geometry_symbols(self.robot))
        if syms:
            raise RobmodError(f"identification needs the robot's geometry in numbers: "
                              f"{', '.join(syms)} are symbolic: call robot.numeric({{...}})")
        self.num_, _ = numeric_robot(self.robot)
        std = standard_names(self.num_, self.rotor, self.friction)
        self.base_ = numeric_base(self.num_, std, seed=self.seed)
        self.n_joints_ = len(self.num_.q)
        self.names_ = tuple(self.base_.base) + (
            tuple(f"OFFSET{j}" for j in range(1, self.n_joints_ + 1)) if self.offsets else ())
        self._phi = regressor_function(self.num_, self.base_.base)
        self.columns_ = np.arange(len(self.names_))

    # -- the model ---------------------------------------------------------------------
    def regressor(self, q, qd, qdd) -> np.ndarray:
        """W (..., n, b): base columns, then the offset columns."""
        q, qd, qdd = (np.ascontiguousarray(x, dtype=float) for x in (q, qd, qdd))
        if q.shape[-1] != self.n_joints_:
            raise RobmodError(f"q must have {self.n_joints_} values per sample, got shape "
                              f"{q.shape}")
        W = self._phi(q, qd, qdd)
        if self.offsets:
            eye = np.broadcast_to(np.eye(self.n_joints_), W.shape[:-2] + (self.n_joints_,) * 2)
            W = np.concatenate([W, eye], axis=-1)
        return W

    def observation(self, processed: Processed):
        """(W, y, rows per joint): the model and the torques, filtered and decimated together
        segment by segment, stacked joint by joint."""
        if processed.tau is None:
            raise RobmodError("the data have no torques (nor motor currents): nothing to fit")
        W = self.regressor(processed.q, processed.qd, processed.qdd)
        Ws, ys = [], []
        for a, b in processed.segments or ((0, processed.t.size),):
            k = processed.decimation
            if (b - a) < 30 * k:
                k = 1
            Ws.append(decimate_rows(W[a:b], k))
            ys.append(decimate_rows(processed.tau[a:b], k))
        W, tau = np.concatenate(Ws), np.concatenate(ys)
        N = W.shape[0]
        Wst = np.transpose(W, (1, 0, 2)).reshape(-1, W.shape[-1])
        return Wst, tau.T.reshape(-1), N

    # -- fitting -------------------------------------------------------------------------
    def fit(self, data: MeasuredData) -> "DynamicIdentification":
        if not isinstance(data, MeasuredData):
            raise RobmodError("fit expects MeasuredData (see robmod.identification.load_log)")
        if data.n_joints != self.n_joints_:
            raise RobmodError(f"the data have {data.n_joints} joints, the robot "
                              f"{self.n_joints_}")
        self.processed_ = process(data, cutoff=self.cutoff, decimate=self.decimate,
                                  use_measured_velocity=self.use_measured_velocity)
        W, y, N = self.observation(self.processed_)
        self._solve(W, y, N)
        return self

    def _solve(self, W, y, N):
        n, b = self.n_joints_, W.shape[1]
        if N * n <= b:
            raise RobmodError(f"{N * n} equations for {b} parameters: record a longer motion")
        check_rank(W, self.names_)
        w = np.ones(W.shape[0])
        beta = np.linalg.lstsq(W, y, rcond=None)[0]
        rho = (y - W @ beta).reshape(n, N)
        sig = np.sqrt((rho ** 2).sum(1) / max(N - b, 1))
        self.sigma_joint_ = sig
        if self.method in ("wls", "huber"):
            sig = np.where(sig > 0, sig, max(sig.max(), 1e-300))
            w = np.repeat(1.0 / sig, N)
        if self.method == "huber":
            w = _huber_weights(W, y, w)
        Ww, yw = W * w[:, None], y * w
        beta = np.linalg.lstsq(Ww, yw, rcond=None)[0]
        res = yw - Ww @ beta
        s2 = float((res ** 2).sum() / max(W.shape[0] - b, 1))
        cov = s2 * np.linalg.inv(Ww.T @ Ww)
        self.params_ = beta
        self.std_ = np.sqrt(np.abs(np.diag(cov)))
        self.relative_std_ = 100 * self.std_ / np.maximum(np.abs(beta), 1e-300)
        self.covariance_ = cov
        norms = np.linalg.norm(Ww, axis=0)
        self.condition_ = float(np.linalg.cond(Ww / np.where(norms > 0, norms, 1.0)))
        self.residual_ = y - W @ beta
        self.observed_ = y
        self.relative_residual_ = float(np.linalg.norm(self.residual_) / np.linalg.norm(y))
        self.n_equations_ = W.shape[0]
        self._W, self._y, self._N = W, y, N

    # -- using the model -------------------------------------------------------------------
    def predict(self, q, qd, qdd) -> np.ndarray:
        """Torques (..., n) of the identified model."""
        self._fitted()
        W = self.regressor(q, qd, qdd)[..., self.columns_]
        return np.einsum("...ij,j->...i", W, self.params_)

    def validate(self, data: MeasuredData) -> Validation:
        """Predicted against measured torques on (other) data, processed like the fit data
        (filtered, not decimated)."""
        self._fitted()
        p = process(data, cutoff=self.processed_.cutoff, decimate=1,
                    use_measured_velocity=self.use_measured_velocity)
        if p.tau is None:
            raise RobmodError("validation data need torques")
        tau_hat = self.predict(p.q, p.qd, p.qdd)
        err = p.tau - tau_hat
        rms = np.sqrt(np.mean(err ** 2, axis=0))
        rel = np.linalg.norm(err, axis=0) / np.maximum(np.linalg.norm(p.tau, axis=0), 1e-300)
        total = float(np.linalg.norm(err) / np.linalg.norm(p.tau))
        return Validation(rms, rel, total, p.tau, tau_hat, p.t)

    def essential(self, max_relative_std: float = 1.0, tolerance: float = 0.05,
                  candidates: int = 8) -> "DynamicIdentification":
        """Essential parameters (Pham & Gautier 1991): parameters are removed one at a time,
        the one with the largest %sigma first among those whose removal keeps the relative
        residual within ``tolerance`` (relative) of the full model's, while a parameter with
        %sigma above ``max_relative_std`` (%) remains; ``candidates``: how many of the
        largest %sigma are tried at each step.  Returns a new fitted estimator restricted to
        the essential parameters (its ``names_``, ``params_``, ``columns_``)."""
        self._fitted()
        keep = list(range(len(self.names_)))
        W, y, N = self._W, self._y, self._N
        limit = self.relative_residual_ * (1 + tolerance)
        est = self
        while len(keep) > 1 and est.relative_std_.max() > max_relative_std:
            order = np.argsort(-est.relative_std_)[:candidates]
            for c in order:
                if est.relative_std_[c] <= max_relative_std:
                    break
                trial = [k for k in keep if k != keep[c]]
                new = _subset(self, trial)
                new._solve(W[:, trial], y, N)
                if new.relative_residual_ <= limit:
                    keep, est = trial, new
                    break
            else:
                break
            if est is not new:
                break
        return est

    def report(self) -> str:
        self._fitted()
        lines = [f"{len(self.names_)} parameters from {self.n_equations_} equations "
                 f"({self.method.upper()}); condition number {self.condition_:.4g}; relative "
                 f"residual {100 * self.relative_residual_:.3g} %",
                 f"  {'parameter':<12} {'value':>14} {'std':>12} {'%std':>9}  regrouping"]
        rel = self.base_.relations()
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
            {k: str(v) for k, v in self.base_.relations().items()})

    def to_robot(self, consistent=None):
        """The robot with the identified values, as a description any model can use.

        With ``consistent`` (a :func:`~robmod.identification.consistency.consistent_fit`
        result): its physically consistent standard parameters.  Without: each base
        parameter on its standard column and the parameters regrouped into it set to zero
        (the same torques as the identified model), which the description's validation
        refuses when a link is then not a rigid body (zero mass with first moments): use the
        consistent estimate then.  Torque offsets are not part of a robot description.
        """
        import dataclasses

        import sympy as sp

        from ..description.validation import validate

        self._fitted()
        values = dict(zip(self.names_, self.params_))
        if consistent is not None:
            values = dict(consistent.standard)
        std = self.base_.standard
        links = []
        for link in self.num_.links:
            kw = {}
            for name in std:
                field, j = split_name(name)
                if j == link.j:
                    kw[field] = sp.Float(float(values.get(name, 0.0)))
            links.append(dataclasses.replace(link, **kw))
        robot = dataclasses.replace(self.num_, links=tuple(links), values=MappingProxyType({}))
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
        state = f"{len(self.names_)} parameters" + (", fitted" if hasattr(self, "params_")
                                                    else "")
        return f"DynamicIdentification({self.num_.name}, {self.method}, {state})"


def _geometry_symbols(robot):
    """The geometry's symbols that have no value."""
    known = {str(k) for k in robot.values}
    return {s for s in robot.geometry_symbols if str(s) not in known}


def _subset(est, keep):
    new = object.__new__(type(est))
    new.__dict__.update(est.__dict__)
    new.names_ = tuple(est.names_[k] for k in keep)
    new.columns_ = np.asarray(keep)
    return new


def check_rank(W, names, tol: float = 1e-9):
    """Refuse a rank-deficient observation matrix, naming the parameters it cannot see."""
    norms = np.linalg.norm(W, axis=0)
    dead = [n for n, v in zip(names, norms) if v == 0]
    if dead:
        raise RobmodError(f"the data do not excite {', '.join(dead)} (zero columns): a joint "
                          "that does not move or a motion too poor; use an exciting trajectory")
    Wn = W / norms
    U, s, Vt = np.linalg.svd(Wn, full_matrices=False)
    rank = int((s > tol * s[0]).sum())
    if rank < W.shape[1]:
        null = Vt[rank:]
        weight = (null ** 2).sum(0)
        unseen = [n for n, v in sorted(zip(names, weight), key=lambda x: -x[1]) if v > 0.1]
        raise RobmodError(
            f"the data excite only {rank} of the {W.shape[1]} parameters (condition number "
            f"{s[0] / s[-1]:.3g}): cannot separate {', '.join(unseen[:8])}; record a richer "
            "motion (robmod.identification.exciting_trajectory)")
    return float(s[0] / s[-1])


def _huber_weights(W, y, w, k: float = 1.345, iterations: int = 20):
    """IRLS with Huber's weights on the residuals standardized by their MAD."""
    wh = w.copy()
    for _ in range(iterations):
        beta = np.linalg.lstsq(W * wh[:, None], y * wh, rcond=None)[0]
        r = (y - W @ beta) * w
        scale = 1.4826 * np.median(np.abs(r - np.median(r))) or 1.0
        u = np.abs(r) / scale
        new = w * np.where(u <= k, 1.0, k / np.maximum(u, 1e-300))
        if np.allclose(new, wh, rtol=1e-6):
            break
        wh = new
    return wh


@dataclass(frozen=True)
class PayloadEstimate:
    """The 10 inertial parameters of a payload fixed to the terminal link (Khalil's standard
    parameters XX..M, in the terminal frame), their standard deviations, mass and centre."""

    names: tuple
    values: np.ndarray
    std: np.ndarray

    @property
    def mass(self) -> float:
        return float(self.values[-1])

    @property
    def centre_of_mass(self) -> np.ndarray:
        return self.values[6:9] / self.values[-1]


def identify_payload(est: "DynamicIdentification", data: MeasuredData) -> PayloadEstimate:
    """The payload's inertial parameters from a log recorded with the payload, the robot's own
    model being ``est`` (fitted without it): the torques the robot model does not explain
    are linear in the payload's 10 parameters, the columns of the terminal link's standard
    parameters in the regressor (the payload is a rigid body added to link n)."""
    from .regressors import regressor_function
    from ..description.robot import INERTIAL

    est._fitted()
    j = est.num_.frames[est.num_.n_links - 1].j
    names = tuple(f"{k}{j}" for k in INERTIAL)
    phi = regressor_function(est.num_, names)
    p = process(data, cutoff=est.processed_.cutoff, decimate=1,
                use_measured_velocity=est.use_measured_velocity)
    if p.tau is None:
        raise RobmodError("the payload log needs torques")
    residual = p.tau - est.predict(p.q, p.qd, p.qdd)
    W = np.transpose(phi(p.q, p.qd, p.qdd), (1, 0, 2)).reshape(-1, len(names))
    y = residual.T.reshape(-1)
    check_rank(W, names)
    x, *_ = np.linalg.lstsq(W, y, rcond=None)
    s2 = float(((y - W @ x) ** 2).sum() / max(len(y) - len(names), 1))
    std = np.sqrt(np.abs(np.diag(s2 * np.linalg.inv(W.T @ W))))
    return PayloadEstimate(names, x, std)


def cross_validate(robot, data: MeasuredData, folds: int = 5, **options) -> list:
    """K-fold cross-validation over time: the log is cut into ``folds`` contiguous blocks;
    each block is predicted by the model fitted on the others (the remaining pieces are
    separate segments, filtered apart).  Returns the :class:`Validation` of each block."""
    from dataclasses import replace

    if int(folds) < 2:
        raise RobmodError(f"folds must be >= 2, got {folds}")
    N = data.n_samples
    edges = np.linspace(0, N, int(folds) + 1).astype(int)
    out = []
    for a, b in zip(edges[:-1], edges[1:]):
        keep = np.r_[0:a, b:N]
        train = replace(data.select(keep), segments=tuple(
            s for s in ((0, a), (a, a + N - b)) if s[1] > s[0]))
        est = DynamicIdentification(robot, **options).fit(train)
        out.append(est.validate(data.select(slice(a, b))))
    return out


__all__ = ["DynamicIdentification", "Validation", "check_rank", "cross_validate",
           "PayloadEstimate", "identify_payload"]
