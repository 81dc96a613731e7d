"""Analytic inverse kinematic model of a block-triangular Jacobian (Khalil & Dombre §6.3, Example 6.1).

When iJ_j of a 6-axis robot (3J6 for the RX-90), rows and columns ordered, has
the form [6.7], [6.9] ``[Xa; Xb] = [A 0; B C] [qa; qb]`` (A, C: 3x3, regular):

* first method [6.6], [6.8]: ``qd = J^-1 X``, ``J^-1 = [A^-1, 0; -C^-1 B A^-1, C^-1]``,
  every element symbolic and simplified (``S^2 + C^2 = 1``, parallel axes folded
  into ``S23 = sin(q2 + q3)``), common sub-expressions named ``V1, V2, ...``;
* second method [6.10]: ``A qa = Xa`` then ``C qb = Xb - B qa`` (``XP{r}`` = the
  Khalil & Dombre's X'r); ``solve="substitution"`` (default) solves each 3x3 system through
  its own block-triangular structure (one unknown at a time where a row allows it,
  a small simplified inverse otherwise), ``solve="inverse"`` applies the explicit
  simplified A^-1 and C^-1 as printed in Example 6.1.

The zero 3x3 block is searched among all choices of 3 rows and 3 columns of the
symbolic iJ_j (structural zeros), A and C generically regular; with ``i=None``
the frames of the chain of j are tried, cheapest Jacobian first (frame 3 for the
RX-90).  No such block (no spherical wrist, tool point off the wrist centre):
:class:`~robmod.errors.RobmodError`.

Task velocity ``X = [V; w]``: linear velocity of O_j (O_E with a tool) then
angular velocity.  ``velocity_frame="i"`` (default, Khalil & Dombre's choice): both
expressed in the chosen frame i, inputs ``X1..X6``; ``velocity_frame=0``: both
expressed in frame 0 (inputs ``X0_1..X0_6``), the model first computes
``iX = diag(iA0, iA0) 0X`` with ``0A_i`` from the DGM.

Singular configurations: ``det J = det A det C`` ([6.8] needs both regular);
:attr:`BlockIKM.factors_A` / :attr:`BlockIKM.factors_C` hold the factored
determinants (RX-90: ``C3``, ``C2 D3 - RL4 S23`` and ``S5``).

Operation counts, RX-90 in 3J6 (multiplications/divisions, additions; sin/cos
apart; statements that depend on parameters only, such as ``1/RL4``, are
evaluated off-line and not counted).  Seed Example 6.1 counts the whole
computation of qd from q and X (Jacobian elements, inverse, product), 8
sin/cos apart: 47/18 for the first method, 22/12 for the second.  Same scope
here (9 sin/cos: S23, C23, C2, S3, C3, S4, C4, S5, C5): first method 47/17
(+1 off-line division), second method 16/10 by substitution, 24/11 with the
explicit inverses A^-1, C^-1; with ``velocity_frame=0`` the rotation of X adds
20/10 (second method 36/20, 11 sin/cos).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy as sp

from ..errors import RobmodError
from ..geometry.direct import groups
from ..symbolic.cache import cached
from ..symbolic.count import count_ops
from .analysis import expanded_outputs, factorize_singular, reduce_pythagoras
from .jacobians import resolve_frame, jacobian_model

__all__ = ["BlockIKM"]

X_SYMBOLS = sp.symbols("X1:7")


# -- trigonometric normal forms -------------------------------------------------------------
class _Trig:
    """The joint sines/cosines of a Jacobian and the sums of parallel-axis angles (S23 ...)."""

    def __init__(self, robot, chain, trig, pairs):
        self.trig = dict(trig)
        self.pairs = list(pairs)
        self.base_pairs = list(pairs)
        self.variants = []
        self.unfold = {}  # S23 -> S2 C3 + C2 S3 ...
        joint_pair = {}
        for s, c in pairs:
            qs = [k for k in chain if robot.frame(k).q in trig[s].args[0].free_symbols]
            if len(qs) == 1:
                joint_pair[qs[0]] = (s, c)
        for g in groups(robot, chain):
            g = [k for k in g if k in joint_pair]
            for a in range(len(g)):
                for b in range(a + 2, len(g) + 1):
                    self._add_sum(g[a:b], joint_pair)

    def _add_sum(self, run, joint_pair):
        tag = "".join(str(k) for k in run)
        S, C = sp.Symbol(f"S{tag}"), sp.Symbol(f"C{tag}")
        angle = sp.Add(*[self.trig[joint_pair[k][0]].args[0] for k in run])
        self.trig[S], self.trig[C] = sp.sin(angle), sp.cos(angle)
        self.pairs.append((S, C))
        t = sp.symbols(f"t1:{len(run) + 1}")
        back = {}
        for k, tk in zip(run, t):
            back[sp.sin(tk)], back[sp.cos(tk)] = joint_pair[k]
        self.unfold[S] = sp.expand_trig(sp.sin(sp.Add(*t))).xreplace(back)
        self.unfold[C] = sp.expand_trig(sp.cos(sp.Add(*t))).xreplace(back)
        for drop in (0, len(run) - 1):  # eliminate the first or the last angle of the run
            others = sp.Add(*[tk for n, tk in enumerate(t) if n != drop])
            so = sp.expand_trig(sp.sin(others)).xreplace(back)
            co = sp.expand_trig(sp.cos(others)).xreplace(back)
            s_k, c_k = joint_pair[run[drop]]
            self.variants.append({s_k: S * co - C * so, c_k: C * co + S * so})

    def reduce(self, p):
        return reduce_pythagoras(p, self.pairs)

    def best(self, p):
        """The cheapest of p and its rewritings with the angle sums (a polynomial)."""
        cands = [self.reduce(p)]
        cands += [self.reduce(sp.expand(p.xreplace(v))) for v in self.variants if p.has(*v)]
        return min(cands, key=lambda e: count_ops(sp.factor(e)).total)

    def simplify(self, e):
        """Rational function in normal form: numerator, denominator reduced, cancelled, factored."""
        n, d = sp.fraction(sp.together(sp.sympify(e)))  # safe: robmod expressions
        e = sp.cancel(self.reduce(n) / self.reduce(d))
        n, d = sp.fraction(e)
        return sp.factor(self.best(n)) / sp.factor(self.best(d))


def _raw_jacobian(robot, i, j, tool):
    """iJ_j (columns of the chain joints) reduced modulo S^2 + C^2 = 1: (J, joints, trig, pairs)."""
    model = jacobian_model(robot, j=j, i=i, tool=tool)
    exprs, trig, pairs = expanded_outputs(model)
    J = sp.Matrix(6, robot.n_joints, exprs)
    if J.has(sp.Float):  # numeric parameters: exact rationals, so that terms cancel exactly
        J = J.applyfunc(lambda e: sp.nsimplify(e, rational=True))
    joints = [k for k in robot.chain(j) if robot.frame(k).is_joint and k <= robot.n_joints]
    J = J.extract(list(range(6)), [k - 1 for k in joints])
    return J.applyfunc(lambda e: reduce_pythagoras(e, pairs)), joints, trig, pairs


def _jacobian(robot, i, j, tool, raw=None):
    """iJ_j in the trig symbols with the angle sums folded: (J, joints, trig object)."""
    J, joints, trig, pairs = raw or _raw_jacobian(robot, i, j, tool)
    tr = _Trig(robot, joints, trig, pairs)
    return J.applyfunc(tr.best), joints, tr


def _zero_blocks(J):
    """Candidate (rows_a, cols_a, rows_b, cols_b) with J[rows_a, cols_b] structurally zero,
    Khalil & Dombre's ordering (rows 1-3 and joints 1-3 first) first."""
    zero = [[J[r, c] == 0 for c in range(6)] for r in range(6)]
    cands = []
    for ra in itertools.combinations(range(6), 3):
        for cb in itertools.combinations(range(6), 3):
            if all(zero[r][c] for r in ra for c in cb):
                rb = tuple(r for r in range(6) if r not in ra)
                ca = tuple(c for c in range(6) if c not in cb)
                cands.append((ra != (0, 1, 2) or ca != (0, 1, 2), ra, ca, rb, cb))
    return [c[1:] for c in sorted(cands)]


def _find_block(J, tr):
    """The first zero-block candidate with A and C generically regular, or None."""
    for ra, ca, rb, cb in _zero_blocks(J):
        if tr.simplify(J.extract(ra, ca).det()) != 0 and tr.simplify(J.extract(rb, cb).det()) != 0:
            return ra, ca, rb, cb
    return None


def _inverse(M, tr):
    return M.inv(method="ADJ").applyfunc(tr.simplify)


def _row_form(entries, xs, tr):
    """sum e_c x_c, or (sum (e_c D) x_c) / D with D the common denominator, whichever is cheaper."""
    direct = sp.Add(*[e * x for e, x in zip(entries, xs)])
    dens = [sp.fraction(e)[1] for e in entries if e != 0]
    D = sp.factor(sp.lcm_list(dens)) if dens else sp.Integer(1)
    if D == 1:
        return direct
    common = sp.Add(*[tr.simplify(e * D) * x for e, x in zip(entries, xs)]) / D
    return min((direct, common), key=lambda e: count_ops(e).total)


def _cse(exprs, prefix="V"):
    """(steps, reduced expressions): common sub-expressions named V1, V2, ..."""
    if not exprs:
        return [], []
    repl, red = sp.cse(exprs, symbols=sp.numbered_symbols(prefix, start=1), optimizations=None,
                       order="none")
    return [(str(s), e) for s, e in repl], list(red)


# -- the analysis object --------------------------------------------------------------------
@dataclass(frozen=True)
class BlockIKM:
    """Block structure [A 0; B C] of iJ_j and the programs of both methods.

    ``rows_a``/``rows_b``: task rows (0-based: 0-2 linear, 3-5 angular velocity) of Xa/Xb;
    ``cols_a``/``cols_b``: positions in ``joints`` of qa/qb; ``jacobian``: iJ_j (6x6,
    columns ``joints``) in the symbols ``S{k}, C{k}, S23 ...`` listed in ``trig``;
    ``factors_A``/``factors_C``: ``(constant, ((factor, multiplicity), ...))`` of det A, det C.
    """

    robot: object = field(repr=False)
    i: int
    j: int
    tool: object
    joints: tuple
    rows_a: tuple
    cols_a: tuple
    rows_b: tuple
    cols_b: tuple
    jacobian: sp.Matrix
    trig: dict
    factors_A: tuple
    factors_C: tuple
    _tr: _Trig = field(repr=False, compare=False)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    A = property(lambda self: self.jacobian.extract(list(self.rows_a), list(self.cols_a)))
    B = property(lambda self: self.jacobian.extract(list(self.rows_b), list(self.cols_a)))
    C = property(lambda self: self.jacobian.extract(list(self.rows_b), list(self.cols_b)))

    @classmethod
    def from_robot(cls, robot, *, j=None, i=None, tool=None) -> "BlockIKM":
        """Find the block structure [A 0; B C] of iJ_j (trying every frame i of the chain of j
        when ``i`` is None, cheapest Jacobian first) and return it (cached per robot)."""
        return _block_ikm(robot, i, j, tool)

    def _memo(self, key, fn):
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    A_inv = property(lambda self: self._memo("Ai", lambda: _inverse(self.A, self._tr)))
    C_inv = property(lambda self: self._memo("Ci", lambda: _inverse(self.C, self._tr)))

    @property
    def inverse(self) -> sp.Matrix:
        """J^-1 ([6.8]) in the original order: rows = joints, columns = task rows."""
        def build():
            Ai, Ci, tr = self.A_inv, self.C_inv, self._tr
            D = (-Ci * self.B * Ai).applyfunc(tr.simplify)
            out = sp.zeros(6, 6)
            for blk, rows, cols in ((Ai, self.cols_a, self.rows_a), (D, self.cols_b, self.rows_a),
                                    (Ci, self.cols_b, self.rows_b)):
                for a, r in enumerate(rows):
                    for b, c in enumerate(cols):
                        out[r, c] = blk[a, b]
            return out
        return self._memo("Ji", build)

    def singular_conditions(self) -> list:
        """Factors f(q) of det A det C (sin/cos of the joint variables): f = 0 is singular."""
        return [f.xreplace(self.trig) for fac in (self.factors_A, self.factors_C)
                for f, _ in fac[1]]

    # -- programs: ordered (name, expression) steps over X, trig symbols and parameters ----
    def _jname(self, r, c):
        return f"J{r + 1}{self.joints[c]}"

    def _qname(self, c):
        return f"QP{self.joints[c]}"

    def program(self, method=2, solve="substitution"):
        """(steps, outputs): the statements of the model as templates, outputs = QP names."""
        if method not in (1, 2) or solve not in ("substitution", "inverse"):
            raise RobmodError("method must be 1 or 2, solve 'substitution' or 'inverse'")
        key = (method, solve if method == 2 else "")
        return self._memo(key, lambda: self._program(method, solve))

    def _program(self, method, solve):
        steps, sym = [], sp.Symbol
        outs = [self._qname(c) for c in range(6)]
        if method == 1:
            Ji = self.inverse
            ents = [(r, c) for r in range(6) for c in range(6) if Ji[r, c] != 0]
            vs, red = _cse([Ji[r, c] for r, c in ents])
            steps += vs
            names = {}
            for (r, c), e in zip(ents, red):
                names[r, c] = f"JI{self.joints[r]}{c + 1}"
                steps.append((names[r, c], e))
            for r in range(6):
                steps.append((outs[r], sp.Add(*[sym(names[r, c]) * X_SYMBOLS[c]
                                                for c in range(6) if (r, c) in names])))
            return steps, outs
        J, used = self.jacobian, set()

        def jsym(r, c):
            if (r, c) not in used:
                used.add((r, c))
                steps.append((self._jname(r, c), J[r, c]))
            return sym(self._jname(r, c))

        if solve == "inverse":
            inv = [self.A_inv, self.C_inv]
            ents = [[(a, b) for a in range(3) for b in range(3) if M[a, b] != 0] for M in inv]
            vs, red = _cse([inv[k][a, b] for k in (0, 1) for a, b in ents[k]])
            steps += vs
            inv = [dict(zip(ents[0], red[:len(ents[0])])), dict(zip(ents[1], red[len(ents[0]):]))]

            def apply(k, cols, xs):
                for a in range(3):
                    steps.append((self._qname(cols[a]), sp.Add(*[
                        e * xs[b] for (aa, b), e in inv[k].items() if aa == a])))
            apply(0, self.cols_a, [X_SYMBOLS[r] for r in self.rows_a])
        else:
            self._solve(self.rows_a, self.cols_a, [X_SYMBOLS[r] for r in self.rows_a],
                        jsym, steps)
        xp = []
        for r in self.rows_b:
            e = X_SYMBOLS[r] - sp.Add(*[jsym(r, c) * sym(self._qname(c))
                                        for c in self.cols_a if J[r, c] != 0])
            steps.append((f"XP{r + 1}", e))
            xp.append(sym(f"XP{r + 1}"))
        if solve == "inverse":
            apply(1, self.cols_b, xp)
        else:
            self._solve(self.rows_b, self.cols_b, xp, jsym, steps)
        return steps, outs

    def _pick(self, rows, cols, left, rows_left, solved):
        """Smallest set S of unknowns and rows R (|R| = |S|, M = J[R, S] regular) whose rows
        involve only S and the unknowns already solved."""
        J, tr = self.jacobian, self._tr
        sup = {a: {b for b in range(3) if J[rows[a], cols[b]] != 0} for a in rows_left}
        for size in range(1, len(left) + 1):
            for S in itertools.combinations(left, size):
                ok = [a for a in rows_left if sup[a] <= set(S) | set(solved) and sup[a] & set(S)]
                for R in itertools.combinations(ok, size):
                    M = sp.Matrix([[J[rows[a], cols[b]] for b in S] for a in R])
                    if tr.simplify(M.det()) != 0:
                        return S, R, M
        raise RobmodError("singular diagonal block: no substitution order")  # pragma: no cover

    def _solve(self, rows, cols, rhs, jsym, steps):
        """M y = rhs (M = J[rows, cols]) by substitution through its block-triangular form."""
        J, sym = self.jacobian, sp.Symbol
        solved, left, rows_left = [], [0, 1, 2], [0, 1, 2]
        while left:
            S, R, M = self._pick(rows, cols, left, rows_left, solved)
            xs = []
            for a in R:
                e = rhs[a] - sp.Add(*[jsym(rows[a], cols[b]) * sym(self._qname(cols[b]))
                                      for b in solved if J[rows[a], cols[b]] != 0])
                if len(S) > 1 and e != rhs[a]:
                    steps.append((f"W{rows[a] + 1}", e))
                    e = sym(f"W{rows[a] + 1}")
                xs.append(e)
            if len(S) == 1:
                steps.append((self._qname(cols[S[0]]), xs[0] / jsym(rows[R[0]], cols[S[0]])))
            else:
                Mi = _inverse(M, self._tr)
                for n, b in enumerate(S):
                    steps.append((self._qname(cols[b]), _row_form(list(Mi.row(n)), xs,
                                                                   self._tr)))
            solved += list(S)
            left = [b for b in left if b not in S]
            rows_left = [a for a in rows_left if a not in R]

def _block_ikm(robot, i=None, j=None, tool=None) -> BlockIKM:
    tool_obj, jj = resolve_frame(robot, j, tool)
    key = ("block ikm", robot.content_key, i, jj, getattr(tool_obj, "name", None))
    return cached(key, lambda: _search(robot, i, jj, tool_obj))


def _search(robot, i, jj, tool_obj):
    """The BlockIKM of the Jacobian of frame jj (or tool) in frame i (or the cheapest)."""
    joints = [k for k in robot.chain(jj) if robot.frame(k).is_joint and k <= robot.n_joints]
    if len(joints) != 6:
        raise RobmodError(f"the block-triangular inverse needs 6 joints on the chain of frame "
                          f"{jj}; robot {robot.name!r} has {len(joints)}")
    frames = [i] if i is not None else [0] + list(robot.chain(jj))
    # rank the frames by the cost of their Jacobian elements, keep the first with a block
    raws = sorted(((sum(count_ops(e).total for e in raw[0]), ii, raw) for ii in frames
                   for raw in [_raw_jacobian(robot, ii, jj, tool_obj)]), key=lambda t: t[:2])
    best = None
    for _, ii, raw in raws:
        if not _zero_blocks(raw[0]):
            continue
        J, joints, tr = _jacobian(robot, ii, jj, tool_obj, raw)
        blk = _find_block(J, tr)
        if blk is not None:
            best = (ii, J, tr, blk)
            break
    if best is None:
        where = f"frame {i}" if i is not None else "any frame of its chain"
        raise RobmodError(f"the Jacobian of robot {robot.name!r} (velocity of O_{jj}"
                          f"{' of tool ' + tool_obj.name if tool_obj else ''}) has no zero 3x3 "
                          f"block [A 0; B C] with A, C regular in {where}: use a numeric "
                          "inverse (robmod.kinematics.ikm_pinv)")
    ii, J, tr, (ra, ca, rb, cb) = best
    qsyms = set(tr.trig) | {robot.frame(k).q for k in joints}
    facs = []
    for rr, cc in ((ra, ca), (rb, cb)):
        # factor det in the independent joint sines/cosines, then fold the angle sums
        det = sp.expand(J.extract(rr, cc).det().xreplace(tr.unfold))
        const, fl = factorize_singular(reduce_pythagoras(det, tr.base_pairs), tr.base_pairs, qsyms)
        facs.append((const, tuple((tr.best(f), m) for f, m in fl)))
    return BlockIKM(robot, ii, jj, tool_obj, tuple(joints), ra, ca, rb, cb, J, tr.trig,
                    facs[0], facs[1], tr)



