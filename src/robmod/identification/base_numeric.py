"""Numeric base parameters: rank, base set and regrouping matrix of a stacked regressor.

The regressor Phi of the standard parameters (:mod:`.regressor`) is stacked at
random states (q, qd, qdd); its columns are normalised and taken in the
standard order (link 1 to n; XX..M, IA, FC, FV), so that, as in the symbolic
method, the parameters nearest the base are kept: a column is a base column if
it is independent of the columns kept before it (sequential QR), otherwise
``W_d = W_b K_d`` and ``beta = chi_b + K_d chi_d`` (``beta = K chi``).  The SVD
gives the rank independently.  Symbolic geometry gets the robot's values, or
random ones.

:func:`compare` checks that the symbolic and the numeric sets span the same
space (same identifiable combinations: the row spaces of the two K matrices)
and reports the difference when the symbolic rules did not reach the minimum
(the bound of Theorem 7 is not reached when prismatic joints are near the base).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import sympy as sp

from ..description.arguments import keyword_options, robot_argument
from ..description.base import moving_base
from ..errors import ArgumentError
from ..description.expr import symbol
from ..description.robot import GEOMETRIC, PRISMATIC, REVOLUTE
from .parameters import split_name
from .regressors import regressor, standard_names


@dataclass
class NumericBase:
    """Result of :func:`numeric_base`."""

    standard: tuple          # standard parameter names (columns of W)
    rank: int                # SVD rank of the stacked regressor
    base: tuple              # names of the base columns (a subset of standard)
    K: np.ndarray            # beta = K chi, shape (b, p)
    zero: tuple              # parameters with no effect (zero columns)
    singular_values: np.ndarray
    condition: float         # condition number of the normalised base columns
    geometry: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.base)

    @property
    def standard_names(self) -> tuple:
        """For each base parameter, the standard parameter whose column it takes."""
        return self.base

    @property
    def names(self) -> tuple:
        """The base parameters named as in the books: ``ZZR1`` when the column of ZZ1 holds
        other parameters too (Khalil & Dombre §7.5.3), the standard name otherwise."""
        out = []
        for r, col in enumerate(self.base):
            c = self.standard.index(col)
            others = np.delete(self.K[r], c)
            field, j = split_name(col)
            out.append(f"{field}R{j}" if np.any(others != 0) else col)
        return tuple(out)

    @property
    def regrouped(self) -> tuple:
        """Standard parameters that only act through the base parameters they enter."""
        return tuple(n for n in self.standard if n not in self.base and n not in self.zero)

    def relations(self, digits=6) -> dict:
        """{base name: 'X + a Y + ...'} readable relations."""
        out = {}
        for r, name in enumerate(self.names):
            terms = []
            for c, s in enumerate(self.standard):
                a = self.K[r, c]
                if abs(a) > 10 ** -digits:
                    terms.append(s if abs(a - 1) < 1e-12 else f"{a:.{digits}g}*{s}")
            out[name] = " + ".join(terms)
        return out

    def __str__(self):
        lines = [f"numeric base: rank {self.rank} of {len(self.standard)} standard parameters; "
                 f"condition number {self.condition:.3g}"]
        for k, v in self.relations().items():
            lines.append(f"  {k} = {v}")
        return "\n".join(lines)


def numeric_robot(robot, rng=None, values=None):
    """The robot with numbers for every symbol of its geometry, base matrix Z and gravity (the
    robot's values first, then ``values``, then random ones); link fields untouched."""
    rng = rng or np.random.default_rng(0)
    known = {symbol(k): sp.sympify(v) for k, v in robot.values.items()}  # safe: numbers
    known.update({symbol(str(k)): sp.sympify(v) for k, v in (values or {}).items()})  # safe: values are numbers or SymPy expressions passed in code
    syms = robot.geometry_symbols
    vals = {}
    for s in sorted(syms, key=str):
        v = known.get(s)
        if v is not None:
            v = v.xreplace(known)
        if v is None or v.free_symbols:
            v = sp.Float(float(rng.uniform(0.3, 1.0) * rng.choice([-1, 1])))
        vals[s] = v

    def sub(x):
        return x.xreplace(vals) if isinstance(x, sp.Basic) else x

    frames = tuple(replace(f, **{k: sub(getattr(f, k)) for k in GEOMETRIC}) for f in robot.frames)
    return replace(robot, frames=frames, gravity=tuple(sub(g) for g in robot.gravity),
                   Z=robot.Z.xreplace(vals)), vals


def stacked_regressor(robot, names, n_states=None, rng=None, equations=None):
    """Phi stacked at random states: (n_states * rows, p); robot numeric in its geometry.  A
    mobile or floating robot: random base motions too, the rows of ``equations`` (``"all"``,
    the default: 6 + NJ; ``"base"``: the base's six; ``"joints"``)."""
    rng = rng or np.random.default_rng(0)
    nj = robot.n_q
    p = len(names)
    equations = equations or "all"
    moving = moving_base(robot)
    rows = {"base": 6, "joints": nj}.get(equations, nj + (6 if moving else 0))
    n_states = n_states or max(40, 4 * p // max(1, rows) + 10)
    q = rng.uniform(-np.pi, np.pi, (n_states, nj))
    qd, qdd = rng.uniform(-2, 2, (2, n_states, nj))
    if moving:
        Q = rng.normal(size=(n_states, 4))
        Q /= np.linalg.norm(Q, axis=1, keepdims=True)
        pose = np.column_stack([rng.uniform(-1, 1, (n_states, 3)), Q])
        twist, acc = rng.uniform(-2, 2, (2, n_states, 6))
        q, qd, qdd = (np.column_stack(x) for x in ((pose, q), (twist, qd), (acc, qdd)))
    W = regressor(robot, q, qd, qdd, params=names, equations=equations)
    return W.reshape(-1, p)


@keyword_options()
def numeric_base(robot, names=None, *, n_states=None, seed=0, tol=1e-8, values=None,
                 rotor=True, friction=True, equations=None) -> NumericBase:
    """Numeric base parameters of ``robot`` (symbolic geometry: values or random numbers); a
    floating robot's from its base's six equations (``equations="base"``, Ayusawa et al.
    2014) or from all 6 + n (``"all"``, the default)."""
    if equations not in (None, "all", "base") or \
            equations == "base" and not moving_base(robot_argument(robot)):
        raise ArgumentError(f"numeric_base: equations must be None, 'all' or, for a mobile or "
                            f"floating robot, 'base' (its base's six equations), got "
                            f"{equations!r}")
    rng = np.random.default_rng(seed)
    num, geo = numeric_robot(robot, rng, values)
    names = tuple(names) if names is not None else standard_names(robot, rotor=rotor,
                                                                           friction=friction)
    W = stacked_regressor(num, names, n_states, rng, equations)
    norms = np.linalg.norm(W, axis=0)
    scale = max(norms.max() if norms.size else 1.0, 1.0)
    zero = tuple(n for n, v in zip(names, norms) if v <= tol * scale)
    live = norms > tol * scale
    Wn = np.where(live, W / np.where(live, norms, 1.0), 0.0)
    s = np.linalg.svd(Wn, compute_uv=False) if Wn.size else np.zeros(0)
    rank = int((s > tol * max(1.0, s[0] if s.size else 1.0)).sum())
    # sequential QR: keep a column if independent of the kept ones
    kept, Q = [], np.zeros((Wn.shape[0], 0))
    for c in range(Wn.shape[1]):
        if norms[c] <= tol * scale:
            continue
        v = Wn[:, c] - Q @ (Q.T @ Wn[:, c])
        v = v - Q @ (Q.T @ v)
        nv = np.linalg.norm(v)
        if nv > 1e-6:
            kept.append(c)
            Q = np.column_stack([Q, v / nv])
    Wb = W[:, kept]
    K = np.zeros((len(kept), len(names)))
    K[np.arange(len(kept)), kept] = 1.0
    dep = [c for c in range(len(names)) if c not in kept]
    if kept and dep:
        Kd = np.linalg.lstsq(Wb, W[:, dep], rcond=None)[0]
        Kd[np.abs(Kd) < 1e-10 * max(1.0, np.abs(Kd).max())] = 0.0
        K[:, dep] = Kd
    cond = float(np.linalg.cond(Wn[:, kept])) if kept else float("inf")
    return NumericBase(standard=names, rank=rank, base=tuple(names[c] for c in kept), K=K,
                       zero=zero, singular_values=s, condition=cond,
                       geometry={str(k): float(v) for k, v in geo.items()})


@dataclass
class Comparison:
    symbolic: int            # number of symbolic base parameters
    numeric: int             # numeric rank
    same_space: bool         # the numeric identifiable combinations are those of the symbolic set
    difference: int          # symbolic - numeric (> 0: symbolic rules did not reach the minimum)
    bound: int               # Theorem 7 bound (inertial parameters)
    message: str = ""

    def __str__(self):
        return self.message


def _theorem7_bound(robot) -> int:
    """7 n_r + 4 n_t - 3 - sigma_bar_1 (Gautier & Khalil (1990), Theorem 7, corrected), serial robots."""
    js = [robot.frame(j) for j in robot.joints if j <= robot.n_links]
    nr = sum(1 for f in js if f.sigma == REVOLUTE)
    nt = sum(1 for f in js if f.sigma == PRISMATIC)
    first = robot.frame(1).sigma == REVOLUTE
    return 7 * nr + 4 * nt - 3 - int(first)


@keyword_options()
def compare(bp, nb: NumericBase | None = None, *, tol=1e-6) -> Comparison:
    """Symbolic (:class:`BaseParameters`) vs numeric base parameters of the same robot."""
    if nb is None:
        nb = numeric_base(bp.robot, bp.standard)
    Ks = sp.Matrix([[sp.diff(b.expr, symbol(s)) for s in nb.standard] for b in bp.base])
    geo = {symbol(k): v for k, v in nb.geometry.items()}
    Ks = np.array(Ks.xreplace(geo).evalf(), dtype=float) if Ks.shape[0] else np.zeros(
        (0, len(nb.standard)))

    def rank(M):
        if M.size == 0:
            return 0
        M = M / np.maximum(np.linalg.norm(M, axis=1, keepdims=True), 1e-300)
        sv = np.linalg.svd(M, compute_uv=False)
        return int((sv > tol * sv[0]).sum())

    rs, rn = rank(Ks), rank(nb.K)
    joint = rank(np.vstack([Ks, nb.K]))
    same = rs == rn == joint == len(bp.base) == nb.rank
    diff = len(bp.base) - nb.rank
    if same:
        msg = f"symbolic and numeric base parameters agree: {nb.rank}"
    elif joint == rs and diff > 0:
        msg = (f"the symbolic rules give {len(bp.base)} parameters, the numeric rank is "
               f"{nb.rank}: {diff} more regrouping(s) exist that the closed-form rules do not "
               "reach (see the Theorem 7 note: prismatic joints near the base or special "
               "geometry); the numeric set is the minimum")
    else:
        msg = (f"symbolic ({len(bp.base)}) and numeric ({nb.rank}) sets differ: joint rank "
               f"{joint}")
    return Comparison(len(bp.base), nb.rank, same, diff, _theorem7_bound(bp.robot), msg)


__all__ = ["numeric_base", "NumericBase", "compare", "Comparison"]
