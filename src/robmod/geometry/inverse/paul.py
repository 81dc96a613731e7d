"""Paul's method, automatic: find, one unknown at a time, an equation (or a pair) of a known type.

The search (Khalil & Dombre, ch. 4; Paul 1981) runs on the pool of equations
``kT0 U0 nTm = kTm`` of :mod:`.system`.  At each stage the unknowns of every
equation are the variables not yet determined; the equations with one
unknown (types 1, 2, 3) or two (types 4 to 8, common factor) are analysed by
:mod:`.equations`, and the best candidate is taken: fewest solutions first,
then the better conditioned formula (atan2 of two equations rather than
``acos``), then the smallest equation.  Spherical wrists need no special
case: the position equations of the wrist centre come out of the
postmultiplied equations (``U0 6T5`` for the Stanford arm) and are solved
first because they have fewer unknowns; then the orientation.  A short
backtracking search tries the next candidates when a choice leads nowhere.
"""
from __future__ import annotations

import gc
from collections import defaultdict
from contextlib import contextmanager
from itertools import combinations
from math import gcd

from ...errors import RobmodError
from . import equations as E
from . import polys as P
from .check import Samples
from .modular import ModularPoint
from .system import System

MAX_PAIR_EQS = 12      # equations per pair of unknowns examined for types 4-8
MAX_TYPE3_EQS = 16
TRIES = 3              # candidates tried per stage when backtracking
MAX_NODES = 60
SPURIOUS = 2.0         # rank penalty of a formula singular where the robot is not
# the least rank of a candidate from squaring and adding (a type-2 or second-degree equation)
SQ_MIN_RANK = min(r for (kind, _), r in E.RANK.items() if kind in ("type2", "quad")) \
    + E.DERIVED_EXTRA["SQ"]
FAMILY_NAMES = {"elem": "their elements", "inv": "the position column of their inverses",
                "norm": "the squared norm of their position column"}


def _order(item):
    """Best candidate first; equal ones in the order they were generated."""
    pos, c = item
    return c.rank, E.conditioning(c.solver), c.size, c.eqs, pos


class _Span:
    """The span of the known variables' joint vectors (exact Gaussian elimination).

    The vectors have integer entries; the elimination is done without fractions
    (``v <- row[piv] v - v[piv] row``), which scales the vectors and keeps their zeros.
    """

    def __init__(self, rows=None):
        self.rows = list(rows or [])     # (pivot, vector)

    def copy(self) -> "_Span":
        return _Span(self.rows)

    def _reduce(self, vec):
        v = list(vec)
        for piv, row in self.rows:
            if v[piv]:
                a, b = row[piv], v[piv]
                v = [a * x - b * y for x, y in zip(v, row)]
                d = gcd(*v)
                if d > 1:
                    v = [x // d for x in v]
        return v

    def contains(self, vec) -> bool:
        return not any(self._reduce(vec))

    def add(self, vec) -> bool:
        v = self._reduce(vec)
        for i, x in enumerate(v):
            if x:
                self.rows.append((i, v))
                return True
        return False


class _Search:
    def __init__(self, system: System):
        self.sys = system
        self.g = system.g
        self.pool = system.pool()
        self.samples = Samples(system)
        self.point = ModularPoint(system.g)
        self.reduced = len(system.joints) - len(system.fixed) < 6
        self._forms: dict = {}
        self._memo: dict = {}          # analyses of equations and pairs, reused at every stage
        self._accepted: dict = {}
        self.nodes = 0
        self.tried: list = []
        self.best_partial: list = []

    # ---- forms -------------------------------------------------------------------------------
    def form(self, eq, unknown) -> dict:
        key = (eq.id, unknown)
        f = self._forms.get(key)
        if f is None:
            gens = {x for v in unknown for x in self.sys.vars[v].gens}
            # the coefficients are named in the order of their monomials, so the names do not
            # depend on how the equation was computed
            parts = P.split(eq.poly, gens)
            f = P.join({m: self.g.name_known(parts[m]) for m in sorted(parts)})
            self._forms[key] = f
        return f

    def reduce(self, p):
        return self.sys.reduce(p)

    def once(self, key, compute):
        """``compute()``, memoized: an analysis depends only on its equations and unknowns."""
        try:
            return self._memo[key]
        except KeyError:
            out = self._memo[key] = compute()
            return out

    # ---- candidates --------------------------------------------------------------------------
    def candidates(self, span: _Span):
        """The candidates of this stage, best first (a generator).

        An elimination by squaring and adding (types 4 to 8) ranks at least
        ``SQ_MIN_RANK``: these are computed only when the search gets that far down the
        list, and the order is that of sorting all the candidates at once.
        """
        V = self.sys.vars
        known = {v.id for v in V if span.contains(v.vector)}
        independent: dict = {}         # unknowns -> their vectors are independent of the span
        singles, pairs = defaultdict(list), defaultdict(list)
        for eq in self.pool:
            unknown = tuple(sorted(v for v in eq.vars if v not in known))
            if not unknown or len(unknown) > 2:
                continue
            ok = independent.get(unknown)
            if ok is None:
                s = span.copy()
                ok = independent[unknown] = all(s.add(V[v].vector) for v in unknown)
            if not ok:
                continue
            f = self.form(eq, unknown)
            (singles if len(unknown) == 1 else pairs)[unknown].append((eq, f))
        # (position in the generation order, candidate); for each pair of equations and each
        # unknown eliminated: squaring and adding, then a common factor
        first = [((0, i), c) for i, c in enumerate(
            c for (u,), lst in singles.items() for c in self._singles(V[u], lst))]
        squares = []
        for U, lst in pairs.items():
            vars2 = [V[x] for x in U]
            lst = sorted(lst, key=lambda t: (len(t[1]), t[0].id))[:MAX_PAIR_EQS]
            for (e1, f1), (e2, f2) in combinations(lst, 2):
                for k in range(2):
                    job = (vars2, k, e1, f1, e2, f2)
                    first += [((1, len(squares), 1), c) for c in self._elim(*job)]
                    squares.append(((1, len(squares), 0), job))
        first.sort(key=_order)
        i = 0
        while i < len(first) and first[i][1].rank < SQ_MIN_RANK:
            yield first[i][1]
            i += 1
        rest = first[i:] + [(pos, c) for pos, job in squares for c in self._square(*job)]
        rest.sort(key=_order)
        for _, c in rest:
            yield c

    def _cand(self, var, solver, eqs, forms, label, check, extra_rank=0.0, **kw):
        size = sum(len(f) for f in forms)
        # a known sine or cosine as a factor of the singularity measure is (almost always) a
        # spurious singularity of the chosen equations (C1 = 0 for equations of U0 = 0T6)
        sing = E.sing_poly(self.g, solver, self.reduce)
        if sing is not None and any(self.g.roles[x] in ("S", "C") for x in P.gens_of(sing)):
            extra_rank += SPURIOUS
        return E.Candidate(var.id, solver, tuple(e.id for e in eqs), tuple(forms), label,
                           check=check, rank=solver.rank + extra_rank, size=size, **kw)

    def _singles(self, var, lst) -> list:
        out, lins, type1 = [], [], []
        for eq, f in lst:
            found = self.once(("single", eq.id, var.id), lambda: self._single(eq, f, var))
            if found is None:
                continue
            s, cand = found
            out.append(cand)
            if s.kind == "type2":
                lins.append((eq, f, (s.data["X"], s.data["Y"], s.data["Z"])))
            elif s.kind == "type1" and s.case == "var":
                type1.append((eq, f, (s.data["X"], s.data["Y"])))
        g = self.g
        lins.sort(key=lambda t: (not (E.param_only(g, t[2][0]) and E.param_only(g, t[2][1])),
                                 len(t[1]), t[0].id))
        lins = lins[:MAX_TYPE3_EQS]
        found_const = False
        for (e1, f1, l1), (e2, f2, l2) in combinations(lins, 2):
            cand = self.once(("type3", e1.id, e2.id, var.id), lambda: self._type3(
                var, e1, f1, l1, e2, f2, l2))
            if cand is not None:
                found_const |= cand.solver.case == "const"
                out.append(cand)
        # least squares over 3 or 4 equations with a constant Gram matrix: for a robot with
        # fewer than six joints this is the projection of the task on what it can do (SCARA:
        # the rotation about z closest to the target's); otherwise only if no constant pair
        if (self.reduced or not found_const) and len(lins) >= 3:
            done = False
            for size in (4, 3):
                for combo in combinations(lins[:8], size):
                    if len({(t[0].k, t[0].m) for t in combo}) > 1:
                        continue               # one matrix equation: a consistent projection
                    cand = self.once(("gram", var.id) + tuple(t[0].id for t in combo),
                                     lambda: self._gram(var, combo))
                    if cand is not None:
                        out.append(cand)
                        done = True
                        break
                if done:
                    break
        type1.sort(key=lambda t: len(t[1]))
        for (e1, f1, l1), (e2, f2, l2) in combinations(type1[:8], 2):
            cand = self.once(("lsq1", e1.id, e2.id, var.id), lambda: self._lsq1(
                var, e1, f1, l1, e2, f2, l2))
            if cand is not None:
                out.append(cand)
        return out

    def _single(self, eq, f, var):
        """(solver, candidate) of one equation in one unknown (types 1, 2), or None."""
        s = E.analyze_single(self.g, f, var)
        if s is None:
            return None
        label = {"type1": "type 1", "type2": "type 2", "quad": "second degree"}[s.kind]
        return s, self._cand(var, s, [eq], [f], label, (f,))

    def _type3(self, var, e1, f1, l1, e2, f2, l2):
        s = E.analyze_type3(self.g, l1, l2, self.reduce)
        return None if s is None else self._cand(var, s, [e1, e2], [f1, f2], "type 3", ())

    def _gram(self, var, combo):
        s = E.analyze_gram(self.g, [t[2] for t in combo], self.reduce)
        if s is None:
            return None
        return self._cand(var, s, [t[0] for t in combo], [t[1] for t in combo], "type 3", (),
                          extra_rank=-0.6 if self.reduced else 0.0)

    def _lsq1(self, var, e1, f1, l1, e2, f2, l2):
        s = E.analyze_lsq1(self.g, [l1, l2], self.reduce)
        return None if s is None else self._cand(var, s, [e1, e2], [f1, f2], "type 1", (f1, f2))

    def _square(self, vars2, k, e1, f1, e2, f2) -> list:
        """Types 4 to 8: squaring and adding two equations eliminates v, leaves one in u."""
        v, u = vars2[k], vars2[1 - k]
        if v.kind != "angle":
            return []
        return self.once(("sq", e1.id, e2.id, v.id, u.id),
                         lambda: self._square_now(v, u, e1, f1, e2, f2))

    def _square_now(self, v, u, e1, f1, e2, f2) -> list:
        if u.kind == "angle":
            lin = E.split_linear(f1, v.gens), E.split_linear(f2, v.gens)
            if None in lin or self.point.square_fails(*lin, u):
                return []
        res = E.sum_of_squares(f1, f2, v, self.reduce)
        if res is None:
            return []
        el, coeffs = res
        if u.kind == "prism":
            el = E.strip_power(el, u.gens[0])
        el = E.drop_content(self.g, el)
        s = E.analyze_single(self.g, el, u)
        if s is None or s.kind == "type1":
            return []
        return [self._cand(u, s, [e1, e2], [f1, f2], E.sq_label(u, coeffs, s), (f1, f2),
                           extra_rank=E.DERIVED_EXTRA["SQ"], rule="SQ", eliminated=v.id,
                           derived={"poly": el, "coeffs": coeffs})]

    def _elim(self, vars2, k, e1, f1, e2, f2) -> list:
        """A common factor of u eliminated: an equation in v."""
        v, u = vars2[k], vars2[1 - k]
        return self.once(("elim", e1.id, e2.id, v.id, u.id),
                         lambda: self._elim_now(v, u, e1, f1, e2, f2))

    def _elim_now(self, v, u, e1, f1, e2, f2) -> list:
        cf = E.common_factor(f1, f2, u)
        if cf is None:
            return []
        R, phi = cf
        R = E.drop_content(self.g, self.reduce(R))
        if not R or P.gens_of(R) & set(u.gens):
            return []
        s = E.analyze_single(self.g, R, v)
        if s is None:
            return []
        label = {"type1": "type 1", "type2": "type 2", "quad": "second degree"}[s.kind]
        return [self._cand(v, s, [e1, e2], [f1, f2], label, (f1, f2),
                           extra_rank=E.DERIVED_EXTRA["ELIM"], rule="ELIM", eliminated=u.id,
                           derived={"poly": R, "phi": phi})]

    # ---- search --------------------------------------------------------------------------------
    def done(self, span: _Span) -> bool:
        return all(span.contains(self.sys.var_of((j,)).vector) for j in self.sys.joints)

    def run(self):
        span = _Span()
        for j in self.sys.fixed:
            span.add(self.sys.var_of((j,)).vector)
        return self._dfs(span, [])

    def _dfs(self, span, steps):
        if self.done(span):
            return steps
        if len(steps) > len(self.best_partial):
            self.best_partial = list(steps)
        self.nodes += 1
        if self.nodes > MAX_NODES:
            return None
        cands = self.candidates(span)
        seen_vars = []
        for c in cands:
            if len(seen_vars) >= TRIES:
                break
            if (c.var, c.solver.kind, c.solver.case) in seen_vars:
                continue
            ok = self._accepted.get(id(c))
            if ok is None:
                ok = self._accepted[id(c)] = self.samples.accepts(c, self.sys.vars[c.var])
            if not ok:
                continue
            seen_vars.append((c.var, c.solver.kind, c.solver.case))
            s = span.copy()
            s.add(self.sys.vars[c.var].vector)
            res = self._dfs(s, steps + [c])
            if res is not None:
                return res
        return None


def paul_search(robot, fixed=(), families=("elem", "inv", "norm"), *, passes=None):
    """Run the search; the System, the steps, or a RobmodError naming what was tried.

    ``passes``: a sequence of family tuples tried in turn (``(("elem",), ("elem", "inv",
    "norm"))``: Paul's classical equations first); the polynomials computed for one pass
    are reused by the next, and the error names the last pass.
    """
    passes = tuple(tuple(f) for f in passes) if passes else (tuple(families),)
    with _cyclic_gc_paused():
        return _search(robot, fixed, passes)


@contextmanager
def _cyclic_gc_paused():
    """The search allocates many small objects without cycles (polynomials): pausing the
    cyclic garbage collector spares its repeated scans of the caller's heap (a fifth of the
    time after the dynamic models of a 7-axis arm were built)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _search(robot, fixed, passes):
    base = System(robot, fixed, passes[0])
    free = [j for j in base.joints if j not in base.fixed]
    if len(free) > 6:
        raise RobmodError(
            f"no closed form found for {robot.name!r}: {len(free)} unknown joints for a "
            f"6-dof task (redundant robot); give the values of {len(free) - 6} joint(s) with "
            f"fixed=[...]")
    for fams in passes:
        system = base.for_families(fams)
        search = _Search(system)
        steps = search.run()
        if steps is not None:
            break
    else:
        raise _failure(robot, system, search, free)
    for c in steps:
        p = E.sing_poly(system.g, c.solver, system.reduce)
        c.extra["sing"] = p
        c.extra["sing_typ"] = search.samples.typical(p) if p is not None else 1.0
    return system, steps


def _failure(robot, system, search, free) -> RobmodError:
    got = [system.vars[c.var].name for c in search.best_partial]
    left = [f"q{j}" for j in free
            if not any(j in system.vars[c.var].joints and len(system.vars[c.var].joints) == 1
                       for c in search.best_partial)]
    given = (" with " + ", ".join(f"q{j}" for j in system.fixed) + " given"
             if system.fixed else "")
    return RobmodError(
        f"no closed form found for {robot.name!r}{given}"
        f" by Paul's method: tried the equations kT0 U0 nTm = kTm for all 0 <= k < m <= "
        f"{system.n} ({', '.join(FAMILY_NAMES[f] for f in system.families)}), "
        f"equation types 1 to 8 and common factors, {search.nodes} search nodes; "
        f"best partial solution: {', '.join(got) or 'none'}; not determined: "
        f"{', '.join(left)} (igm(robot, T) of a 6R robot falls back to Pieper's quartic "
        f"(spherical wrist) or the general-6R solver; otherwise "
        f"robmod.kinematics.igm_numeric)")


__all__ = []
