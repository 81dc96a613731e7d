"""What the estimator tells its user: the report of a fit and the diagnosis of its excitation.

A motion excites the parameters unevenly: the singular values of the observation matrix
(columns scaled to unit norm, rows weighted as the fit weights them) measure how much each
direction of the parameter space shows in the torques.  A direction ``POOR`` times weaker
than the strongest is identified that many times worse relative to the others -- beyond
Gautier's mark of a badly identified parameter (a relative standard deviation over ten times
the smallest) for any noise level -- and the parameters that make it up are those the motion
cannot separate.  The remedy is another motion, not another estimator: an exciting
trajectory (:func:`~.excitation.exciting_trajectory`, Swevers et al. 1997) for the next
recording.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: a direction this many times less excited than the strongest marks a poor excitation
POOR = 100.0


@dataclass(frozen=True)
class Excitation:
    """The condition number of the (weighted, column-scaled) observation matrix and the
    parameter combinations it excites poorly: ``weak`` [(singular value ratio, ((name,
    weight), ...)), ...], the weakest first."""

    condition: float
    weak: tuple

    @property
    def poor(self) -> bool:
        return bool(self.weak)

    def cannot_separate(self) -> list:
        """The parameters of the weak directions (each once, the weakest direction first)."""
        out = []
        for _, terms in self.weak:
            out += [n for n, _ in terms if n not in out]
        return out

    def lines(self, robot_name: str = "robot") -> list:
        if not self.poor:
            return [f"excitation: condition number {self.condition:.4g} (no direction "
                    f"{POOR:g} times weaker than the strongest)"]
        lines = [f"poor excitation: condition number {self.condition:.4g}; the motion cannot "
                 f"separate {', '.join(self.cannot_separate()[:12])}"]
        for ratio, terms in self.weak[:6]:
            combo = " ".join(f"{w:+.2f} {n}" for n, w in terms)
            lines.append(f"  excited {ratio:.3g} times less than the strongest direction: "
                         f"{combo}")
        lines.append(f"  for the next recording, an exciting trajectory: "
                     f"robmod.identification.exciting_trajectory({robot_name}) (its traj."
                     "to_csv(path, rate) is the table a controller plays)")
        return lines


def excitation(factor, names, *, poor: float = POOR, weight: float = 0.3) -> Excitation:
    """The :class:`Excitation` of a least-squares fit from the triangular factor of its
    weighted system (``Identification.factor``) and its parameters' ``names``."""
    F = np.asarray(factor, float)
    norms = np.linalg.norm(F, axis=0)
    Fn = F / np.where(norms > 0, norms, 1.0)
    _, s, Vt = np.linalg.svd(Fn)
    cond = float(s[0] / s[-1]) if s[-1] > 0 else np.inf
    weak = []
    for i in range(len(s) - 1, -1, -1):
        ratio = s[0] / s[i] if s[i] > 0 else np.inf
        if ratio < poor:
            break
        v = Vt[i] / np.abs(Vt[i]).max()
        order = np.argsort(-np.abs(v))
        terms = tuple((names[k], float(v[k])) for k in order if abs(v[k]) >= weight)[:6]
        weak.append((float(ratio), terms))
    return Excitation(cond, tuple(weak))


def report_text(est) -> str:
    """The report of a fitted :class:`~.estimator.DynamicIdentification` (see its
    :meth:`~.estimator.DynamicIdentification.report`)."""
    res = est.result_
    lines = [f"{len(est.names_)} parameters from {est.n_equations_} equations; estimate handed "
             f"over: {est.estimate_} ({est.choice_.reason if est.choice_ else 'as asked'})",
             f"least squares ({est.method.upper()}, the diagnostic): condition number "
             f"{res.condition:.4g}; relative residual {100 * est.relative_residual_:.3g} %",
             *("  " + x for x in est.model_.describe())]
    for line in est.structure_notes_:
        lines.append("  " + line)
    if est.choice_ is not None:
        lines.append("  estimates compared on held-out blocks (relative RMS):")
        lines += ["  " + x for x in est.choice_.table()]
    shown = est.estimate_ == "consistent"
    head = f"  {'parameter':<12} {'value':>14}" + (f" {'LS value':>14}" if shown else "")
    lines.append(head + f" {'LS std':>12} {'%std':>9}  regrouping")
    rel = est.model_.relations()
    for name, v, b, s, r in zip(est.names_, est.params_, res.beta, est.std_,
                                est.relative_std_):
        lines.append(f"  {name:<12} {v:>14.6g}" + (f" {b:>14.6g}" if shown else "")
                     + f" {s:>12.3g} {r:>8.2f}%  {rel.get(name, '')}")
    lines += est.excitation_.lines(getattr(est.robot, "name", "robot"))
    if est.consistent_ is not None:
        lines += ["", est.consistent_.summary()]
    lines += ["", "data processing:", *("  " + n for n in est.processed_.notes)]
    return "\n".join(lines)


__all__ = ["Excitation"]
