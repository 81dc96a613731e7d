"""Physically consistent identification: standard parameters that are rigid bodies.

Least squares on the base parameters can return values no rigid body has, and the base
parameters do not say how the regrouped masses split between the links.  A set of inertial
parameters of link j is a body (density realisable) iff its pseudo-inertia matrix

    P_j = [[ Sigma_j,  MS_j ],      Sigma_j = tr(J_j)/2 I - J_j  (the second moment of mass)
           [ MS_j^T,   M_j  ]]      (J_j the inertia tensor about O_j, Khalil's XX..ZZ)

is positive semidefinite (Wensing, Kim & Slotine 2017; Sousa & Cortesao 2014).  The
consistent estimate (CVXPY, solved by Clarabel, SCS as a fallback; ``pip install
'robmod[identification]'``) is

    minimize    sum_j  d(P_j, P0_j)          d = tr(P0^-1 P) - log det P (+ const): the log-det
    subject to  rho(K chi, offsets) <= (1 + tolerance)^2 rho_LS        (Bregman) divergence
                P_j >= eps_j I,  IA, FC, FV >= 0,  mass bounds            (Lee, Wensing & Park)
                (by default each mass within a factor 2 of the prior's)

with ``rho`` the weighted residual of the least-squares fit (its triangular factor carries it
without the rows, :mod:`.solver`): among the rigid bodies whose torques fit the data within
``tolerance`` of least squares, those closest to the prior.  The divergence is
coordinate-free (it does not depend on units or frames), which a Euclidean distance on XX..M
is not.  The prior ``P0_j`` is the description's inertial values (URDF, CAD) when it has
them; a link without one is drawn toward a round body of the size the data give it (the
closest consistent fit, solved first, which also measures how far least squares is from a
rigid body: when farther than ``tolerance``, the budget becomes that distance).  The weight of
the prior is thus chosen by the fit: the constraint's multiplier.  The solution is projected
onto P_j >= eps_j I, IA, FC, FV >= 0 (solvers stop within their tolerances), so that
:meth:`~.estimator.DynamicIdentification.to_robot` of it is always a valid robot.  The
programs are in :mod:`.consistency_program`; :func:`fold_errors` solves them on each fold of
a cross-validation (:mod:`.selection`), which is how the estimator judges whether the
consistent estimate predicts as well as least squares.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..description.arguments import keyword_options
from ..errors import RobmodError
from .consistency_program import INERTIA, Programs, cvxpy_module, pseudo_inertia, references
from .parameters import JOINT_FIELDS, split_name
from .solver import one_blas_thread


@dataclass(frozen=True)
class ConsistentEstimate:
    """Standard parameters ``standard`` (name -> value, the known ones included) that are
    rigid bodies, their base parameters ``base``, the ``offsets``, what least squares got
    wrong (``violations``), the solver's ``status``; ``fit_increase``: relative increase of
    the weighted residual RMS over least squares on the fit data; ``prior_masses`` {link:
    mass} of the prior; ``validation``: (least-squares, consistent) RMS on held-out data
    when given."""

    standard: dict
    base: np.ndarray
    offsets: np.ndarray
    violations: tuple
    status: str
    fit_increase: float = 0.0
    prior_masses: dict = field(default_factory=dict)
    validation: tuple | None = None
    notes: tuple = ()
    programs: object = field(default=None, repr=False, compare=False)

    @property
    def params(self) -> np.ndarray:
        """The base parameters and offsets (the order of the estimator's ``model_.names``;
        0 for a class the structure left out)."""
        return np.concatenate([self.base, self.offsets])

    def masses(self) -> dict:
        """{link: mass}."""
        return {split_name(n)[1]: v for n, v in self.standard.items() if split_name(n)[0] == "M"}

    def min_eigenvalues(self) -> dict:
        """Smallest eigenvalue of each link's pseudo-inertia matrix (> 0: a rigid body)."""
        links = sorted({split_name(n)[1] for n in self.standard if split_name(n)[0] in INERTIA})
        return {j: float(np.linalg.eigvalsh(pseudo_inertia(self.standard, j))[0])
                for j in links}

    def summary(self) -> str:
        lines = [f"physically consistent estimate ({self.status}): weighted residual "
                 f"{100 * self.fit_increase:+.3g} % of least squares'"]
        if self.validation is not None:
            ls, c = self.validation
            lines.append(f"held-out RMS: least squares {ls:.4g}, consistent {c:.4g} "
                         f"({100 * (c / ls - 1):+.3g} %)")
        lines.append("link  mass      prior")
        for j, m in self.masses().items():
            p = self.prior_masses.get(j)
            lines.append(f"{j:4d}  {m:<9.4g} {'' if p is None else f'{p:.4g}'}")
        lines += [f"least squares: {v}" for v in self.violations] + list(self.notes)
        return "\n".join(lines)

    __str__ = summary


def _prior(est, prior) -> dict:
    if isinstance(prior, str):
        if prior != "description":
            raise RobmodError(f"prior must be 'description', None, a robot or a dict, got "
                              f"{prior!r}")
        return dict(est.model_.prior)
    if prior is None:
        return {}
    if hasattr(prior, "links"):
        from .parameters import description_values

        return description_values(prior.numeric(), est.model_.standard)
    return {str(k): float(v) for k, v in dict(prior).items()}


@keyword_options()
def consistent_fit(est, *, prior="description", tolerance: float = 0.05, total_mass=None,
                   mass="prior", margin: float = 1e-6, validation=None,
                   solver: str | None = None) -> ConsistentEstimate:
    """The physically consistent estimate of the fitted ``est``
    (:class:`~robmod.identification.DynamicIdentification`), see the module's notes.

    ``prior``: 'description' (the robot's numeric inertial values), None, a robot or
    {name: value}; ``tolerance``: the weighted residual RMS may exceed least squares' by this
    fraction; ``total_mass`` and ``mass`` ({link: m}): a mass or an interval (low, high);
    ``mass='prior'`` (default): each link whose prior has a mass m0 stays within [m0 / 2,
    2 m0] -- the torques show the masses in regrouped sums only, and without a bound the
    data let them drift along what they do not see -- unless no rigid bodies within those
    bounds fit the data (then the bounds are dropped, and a note says so); ``mass=None``: no
    bound; ``margin``: each P_j >= margin * its scale; ``validation``: data on which least
    squares and the consistent estimate are compared (held-out RMS).  A model whose
    structure leaves columns out (``est.columns_``: classes removed, essential parameters)
    keeps them at zero."""
    cp = cvxpy_module()
    est._fitted()
    if est.model_.base is None:
        raise RobmodError("consistent_fit needs the default parameter set (params=None)")
    if not 0 <= float(tolerance) < 10:
        raise RobmodError(f"tolerance must be a fraction >= 0, got {tolerance!r}")
    prior = _prior(est, prior)
    with one_blas_thread():
        if not (isinstance(mass, str) and mass == "prior"):
            if isinstance(mass, str):
                raise RobmodError(f"mass must be 'prior', None or {{link: bound}}, got {mass!r}")
            return _consistent(cp, est, prior, float(tolerance), total_mass, mass,
                               float(margin), validation, solver)
        bounds = _mass_bounds(prior, mass)
        try:
            return _consistent(cp, est, prior, float(tolerance), total_mass, bounds,
                               float(margin), validation, solver)
        except RobmodError:
            c = _consistent(cp, est, prior, float(tolerance), total_mass, None, float(margin),
                            validation, solver)
            return dataclasses.replace(c, notes=c.notes + (
                "no rigid bodies with masses within a factor 2 of the prior's fit the data: "
                "the mass bounds were dropped (check the robot file's masses)",))


def _mass_bounds(prior, mass):
    """The mass bounds of ``mass`` ('prior': within a factor 2 of the prior's masses)."""
    if isinstance(mass, str):
        if mass != "prior":
            raise RobmodError(f"mass must be 'prior', None or {{link: bound}}, got {mass!r}")
        return {split_name(n)[1]: (v / 2, 2 * v) for n, v in prior.items()
                if split_name(n)[0] == "M" and v > 0}
    return mass


def _consistent(cp, est, prior, tolerance, total_mass, mass, margin, validation, solver):
    res, model = est.result_, est.model_
    columns = list(est.columns_)
    programs = Programs(cp, model, columns, references(model, prior), res.factor, res.rss,
                        total_mass=total_mass, mass=mass, margin=margin, solver=solver)
    values, full, status, d1 = programs.solve(res.beta, tolerance)
    notes = []
    if d1 > (1 + tolerance) ** 2 - 1:
        notes.append(f"no rigid bodies fit within {100 * tolerance:g} % of least squares: the "
                     f"closest raise the weighted residual RMS by "
                     f"{100 * (np.sqrt(1 + d1) - 1):.3g} % (drive gains, friction model?)")
    for c in range(len(model.columns)):
        if c not in columns and split_name(model.columns[c])[0] in JOINT_FIELDS:
            values[model.columns[c]] = 0.0           # a class the structure left out
    b = len(model.columns)
    base, offsets = full[:b], full[b:]
    Fs = res.factor / np.sqrt(max(res.rss, 1e-300))
    increase = float(np.sqrt(1 + np.sum((Fs @ (full[columns] - res.beta)) ** 2)) - 1)
    checked = None
    if validation is not None:
        checked = (float(np.sqrt(np.mean(est.validate(validation, params=est.ls_params()).rms
                                         ** 2))),
                   float(np.sqrt(np.mean(est.validate(validation, params=full).rms ** 2))))
    links = sorted({split_name(n)[1] for n in model.standard if split_name(n)[0] in INERTIA})
    prior_masses = {j: prior[f"M{j}"] for j in links if f"M{j}" in prior}
    return ConsistentEstimate(values, base, offsets,
                              _violations(est) + (("not a rigid body: no consistent set "
                                                   "reproduces it",) if d1 > 1e-6 else ()),
                              status, increase, prior_masses, checked, tuple(notes), programs)


def fold_errors(consistent, folds, names, tolerance: float = 0.05) -> np.ndarray:
    """(K,) the held-out errors of the consistent estimate on the blocks of ``folds``
    (:class:`~.selection.Folds`): for each block, least squares on the others made consistent
    by the programs of ``consistent`` (a :class:`ConsistentEstimate` of the whole log: same
    model, structure, prior and bounds; its metric of the residual and its budget), then its
    error on the block; inf when they fail."""
    programs = consistent.programs
    out = np.full(folds.folds, np.inf)
    with one_blas_thread():
        for k in range(folds.folds):
            try:
                beta = folds.fit(k, programs.columns, names=names).beta
                full = programs.solve(beta, tolerance)[1]
            except (RobmodError, np.linalg.LinAlgError):
                return np.full(folds.folds, np.inf)
            out[k] = folds.error(k, programs.columns, full[programs.columns])
    return out


def _violations(est) -> tuple:
    """Joint parameters (IA, FC, FV) that least squares made negative on their own."""
    out = []
    rel = est.model_.relations()
    for name, v in zip(est.result_.names, est.result_.beta):
        try:
            f, _ = split_name(name)
        except KeyError:                       # OFFSETj, XXR2: not a parameter on its own
            continue
        if f in JOINT_FIELDS and v < 0 and rel.get(name, name).strip() == name:
            out.append(f"{name} = {v:.4g} < 0")
    return tuple(out)


__all__ = ["consistent_fit", "ConsistentEstimate"]
