"""The equations of Paul's method for a serial robot.

The target is ``U0 = [[sx, nx, ax, Px], [sy, ny, ay, Py], [sz, nz, az, Pz]]``.
For every pair of frames ``0 <= k < m <= n`` the DGM gives

    kT0 U0 nTm = kTm                                    (premultiplication by kT0,
                                                          postmultiplication by nTm)

whose twelve elements are equations in the joint variables.  Two derived
families are added, because they isolate the joints of robots with three
intersecting axes (Pieper): the position column of the inverse of both sides
(``-R^T P``: the position of frame k's origin seen from frame m, what the
inverse robot of Khalil & Dombre Appendix 2 would give) and the squared norm of the
position column (invariant by the rotations of both sides).

Unknowns are *angle variables* and *prismatic variables*.  Consecutive
revolute joints with parallel axes (alpha = 0) are merged as in the DGM
(Khalil & Dombre [3.5]-[3.6]): the product of their frames depends on the sums
``theta_a + ... + theta_b`` (``S23 = sin(theta2 + theta3)``), each such sum
being a variable of its own; a variable is known when its joint vector is in
the span of the known ones (theta3 = theta23 - theta2).  Sines and cosines are
polynomial generators reduced modulo ``S^2 + C^2 = 1``.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import sympy as sp

from ...description.robot import FIXED, PRISMATIC, REVOLUTE
from ...errors import RobmodError
from . import polys as P

FAMILIES = ("elem", "inv", "norm")
TARGET = ("sx", "sy", "sz", "nx", "ny", "nz", "ax", "ay", "az", "Px", "Py", "Pz")


@dataclass
class _Var:
    """An unknown: a sum of consecutive revolute angles, or a prismatic joint variable."""

    id: int
    kind: str                 # 'angle' or 'prism'
    joints: tuple             # frame indices
    vector: tuple             # over System.joints
    name: str                 # th23, q3
    gens: tuple               # (S, C) or (q,)
    offset: object = 0        # sum of theta offsets (angle) or r offset (prism), SymPy


@dataclass
class _Equation:
    id: int
    poly: dict
    vars: frozenset
    kind: str                 # 'elem', 'inv' or 'norm'
    k: int
    m: int
    row: int = 0
    col: int = 0

    @property
    def position(self) -> bool:
        return self.kind != "elem" or self.col == 3

    def where(self, n: int) -> str:
        lhs = (f"{self.k}T0 " if self.k else "") + "U0" + (f" {n}T{self.m}" if self.m < n else "")
        eq = f"{lhs} = {self.k}T{self.m}"
        if self.kind == "elem":
            return f"element ({self.row + 1},{self.col + 1}) of {eq}"
        if self.kind == "inv":
            return f"element ({self.row + 1},4) of the inverse of {eq}"
        return f"squared norm of the position column of {eq}"


def _tag(joints) -> str:
    return "".join(str(j) for j in joints) if all(j < 10 for j in joints) else \
        "_".join(str(j) for j in joints)


class System:
    """Variables, generators and the pool of equations of one robot."""

    def __init__(self, robot, fixed=(), families=("elem", "inv", "norm")):
        if robot.structure != "serial":
            raise RobmodError(f"Paul's method here handles serial robots; {robot.name!r} is "
                              f"{robot.structure}")
        self.robot = robot
        self.n = robot.n_frames
        self.joints = robot.joints
        self.fixed = tuple(sorted(fixed))
        self.families = tuple(families)
        for j in self.fixed:
            if j not in self.joints:
                raise RobmodError(f"fixed joint {j}: robot {robot.name!r} has joints "
                                  f"{', '.join(map(str, self.joints))}")
        self.g = P.Gens()
        self.target = [self.g.add(sp.Symbol(s), "T") for s in TARGET]
        params = set()
        for f in robot.frames:
            for x in (f.gamma, f.b, f.alpha, f.d, f.theta, f.r):
                params |= x.free_symbols
        joint_syms = {f.q for f in robot.frames if f.q is not None}
        for s in sorted(params - joint_syms, key=str):
            self.g.add(s, "p")
        self.vars: list[_Var] = []
        self._by_joints: dict = {}
        for j in self.joints:
            self.var_of((j,))
        self._chains: dict = {}
        self._trig_memo: dict = {}
        self._raw = None              # family -> {(k, m): equations}, shared by for_families
        self.equations = None
        t = self.target
        self.U0 = [[P.gen(t[c * 3 + r]) for c in range(4)] for r in range(3)]

    # ---- variables --------------------------------------------------------------------------
    def var_of(self, joints: tuple) -> _Var:
        v = self._by_joints.get(joints)
        if v is not None:
            return v
        vec = tuple(1 if j in joints else 0 for j in self.joints)
        vid = len(self.vars)
        frames = [self.robot.frame(j) for j in joints]
        if frames[0].sigma == PRISMATIC:
            g = self.g.add(frames[0].q, "q", vid)
            v = _Var(vid, "prism", joints, vec, str(frames[0].q), (g,), frames[0].r)
        else:
            tag = _tag(joints)
            s = self.g.add(sp.Symbol(f"S{tag}"), "S", vid)
            c = self.g.add(sp.Symbol(f"C{tag}"), "C", vid)
            self.g.trig[s] = c
            v = _Var(vid, "angle", joints, vec, f"th{tag}", (s, c),
                    sp.Add(*[f.theta for f in frames]))
        self.vars.append(v)
        self._by_joints[joints] = v
        return v

    # ---- matrices (3x4 nested lists of polynomials) -----------------------------------------
    def _num(self, expr) -> dict:
        return self.g.from_sympy(expr)

    def _trig_const(self, angle):
        angle = sp.sympify(angle)  # safe: a parameter of the description (SymPy already)
        if angle.free_symbols:
            raise RobmodError(f"Paul's method needs numeric angles gamma, alpha and constant "
                              f"theta; got {angle}")
        return self._num(sp.sin(angle)), self._num(sp.cos(angle))

    def _pre(self, f):
        """Rot(z,gamma) Trans(z,b) Rot(x,alpha) Trans(x,d)."""
        sg, cg = self._trig_const(f.gamma)
        sa, ca = self._trig_const(f.alpha)
        one, zero = P.const(1), {}
        rz = [[cg, P.neg(sg), zero, zero], [sg, cg, zero, zero], [zero, zero, one, self._num(f.b)]]
        rx = [[one, zero, zero, self._num(f.d)], [zero, ca, P.neg(sa), zero],
              [zero, sa, ca, zero]]
        return _mat_mul(rz, rx)

    @staticmethod
    def _rotz(s, c, p):
        zero, one = {}, P.const(1)
        return [[c, P.neg(s), zero, p[0]], [s, c, zero, p[1]], [zero, zero, one, p[2]]]

    def _mergeable(self, prev: int, j: int) -> bool:
        fa, fb = self.robot.frame(prev), self.robot.frame(j)
        return (fa.sigma == REVOLUTE and fb.sigma == REVOLUTE and fb.ant == prev
                and fb.alpha == 0 and fb.gamma == 0 and fb.b == 0)

    def runs(self, a: int, b: int) -> list:
        out = []
        for j in range(a + 1, b + 1):
            if out and self._mergeable(out[-1][-1], j):
                out[-1].append(j)
            else:
                out.append([j])
        return out

    def _run_matrix(self, run) -> list:
        f = self.robot.frame(run[0])
        pre = self._pre(f)
        if f.sigma == FIXED:
            s, c = self._trig_const(f.theta)
            return _mat_mul(pre, self._rotz(s, c, [{}, {}, self._num(f.r)]))
        if f.sigma == PRISMATIC:
            s, c = self._trig_const(f.theta)
            r = P.add(P.gen(self.var_of((run[0],)).gens[0]), self._num(f.r))
            return _mat_mul(pre, self._rotz(s, c, [{}, {}, r]))
        px, py, pz = {}, {}, self._num(f.r)
        for k in range(1, len(run)):
            fk = self.robot.frame(run[k])
            s, c = self.var_of(tuple(run[:k])).gens
            d = self._num(fk.d)
            px = P.add(px, P.mul(d, P.gen(c)))
            py = P.add(py, P.mul(d, P.gen(s)))
            pz = P.add(pz, self._num(fk.r))
        s, c = self.var_of(tuple(run)).gens
        return _mat_mul(pre, self._rotz(P.gen(s), P.gen(c), [px, py, pz]))

    def chain(self, a: int, b: int) -> list:
        """aTb (frames a+1..b, parallel runs merged inside a+1..b)."""
        key = (a, b)
        if key not in self._chains:
            runs = self.runs(a, b)
            if not runs:
                M = _identity()
            else:    # the runs of a+1..b end with the last one: aTb = aT(s-1) (s-1)Tb
                last = runs[-1]
                M = _mat_mul(self.chain(a, last[0] - 1), self._run_matrix(last))
            self._chains[key] = M
        return self._chains[key]

    # ---- the pool -----------------------------------------------------------------------------
    def reduce(self, p: dict) -> dict:
        return P.reduce_trig(p, self.g.trig, self._trig_memo)

    def variables_of(self, p: dict) -> frozenset:
        owner = self.g.owner
        return frozenset(owner[g] for g in P.gens_of(p) if owner[g] is not None)

    def for_families(self, families) -> "System":
        """The same robot with the equations of other families.

        The polynomials already computed are shared and the table of generators is copied:
        called on a System no search has used (no named coefficients yet), the result is
        that of a new ``System(robot, fixed, families)``, at the cost of the new families only.
        """
        self.prepare()
        other = copy.copy(self)
        other.families = tuple(families)
        other.g = self.g.copy()
        other.equations = None
        return other

    def prepare(self) -> None:
        """Every product aTb the equations use, hence every variable (parallel runs), in order."""
        if self._raw is not None:
            return
        n = self.n
        for k in range(n):
            self.chain(0, k)
        for m in range(1, n + 1):
            self.chain(m, n)
        for k in range(n):
            for m in range(n, k, -1):
                self.chain(k, m)
        self._raw = {}

    def pool(self) -> list[_Equation]:
        """The equations of the chosen families, in the order of Khalil & Dombre ch. 4.

        For k = 0, 1, ... and m = n, n-1, ..., k+1: the elements of ``kT0 U0 nTm = kTm``,
        then the position column of their inverses, then the squared norm; an equation
        equal to an earlier one up to a constant factor is left out.
        """
        if self.equations is not None:
            return self.equations
        self.prepare()
        eqs: list[_Equation] = []
        seen = set()
        rows = {f: self._family(f) for f in FAMILIES if f in self.families}
        for k in range(self.n):
            for m in range(self.n, k, -1):
                for f, raw in rows.items():
                    for poly, vs, key, r, c in raw[k, m]:
                        if key not in seen:
                            seen.add(key)
                            eqs.append(_Equation(len(eqs), poly, vs, f, k, m, r, c))
        self.equations = eqs
        return eqs

    def _family(self, family) -> dict:
        """``{(k, m): [(polynomial, variables, key, row, col)]}`` of one family (memoized)."""
        raw = self._raw.get(family)
        if raw is None:
            build = {"elem": self._elements, "inv": self._inverse, "norm": self._norm}[family]
            raw = {}
            for k in range(self.n):
                for m in range(self.n, k, -1):
                    out = raw[k, m] = []
                    for poly, r, c in build(k, m):
                        poly = self.reduce(poly)
                        vs = self.variables_of(poly)
                        if poly and vs:
                            out.append((poly, vs, P.key(poly)[0], r, c))
            self._raw[family] = raw
        return raw

    def _rchain(self, a: int, b: int) -> list:
        """aTb with its elements reduced modulo S^2 + C^2 = 1."""
        key = ("reduced", a, b)
        if key not in self._chains:
            self._chains[key] = [[self.reduce(x) for x in row] for row in self.chain(a, b)]
        return self._chains[key]

    def _left(self, k: int) -> list:
        """kT0 U0."""
        key = ("left", k)
        if key not in self._chains:
            self._chains[key] = self._reduced(_mat_mul(_mat_inv(self._rchain(0, k)), self.U0))
        return self._chains[key]

    def _right(self, m: int) -> list:
        """nTm = (mTn)^-1."""
        key = ("right", m)
        if key not in self._chains:
            self._chains[key] = self._reduced(_mat_inv(self._rchain(m, self.n)))
        return self._chains[key]

    def _reduced(self, M) -> list:
        return [[self.reduce(x) for x in row] for row in M]

    def _target(self):
        """The rotation R and the position P of the target U0 (polynomials)."""
        tg = [P.gen(g) for g in self.target]
        return [[tg[c * 3 + r] for c in range(3)] for r in range(3)], tg[9:12]

    def _elements(self, k, m):
        L = _mat_mul(self._left(k), self._right(m)) if m < self.n else self._left(k)
        R = self._rchain(k, m)
        return [(P.sub(L[r][c], R[r][c]), r, c) for r in range(3) for c in range(4)]

    def _inverse(self, k, m):
        """(kT0 U0 nTm)^-1 = mTn U0^-1 0Tk: its position column, and that of (kTm)^-1."""
        key = ("U0inv", m)
        if key not in self._chains:
            Rt, Pt = self._target()
            # U0^-1 = [R^T, -R^T P]: the orthonormality of R is used instead of R^T R
            U0inv = [[Rt[c][r] for c in range(3)]
                     + [P.neg(P.total(*[P.mul(Rt[i][r], Pt[i]) for i in range(3)]))]
                     for r in range(3)]
            self._chains[key] = self._reduced(_mat_mul(self._rchain(m, self.n), U0inv))
        A, B = self._chains[key], self._rchain(0, k)
        R = self._rchain(k, m)
        out = []
        for r in range(3):
            li = P.total(*[P.mul(A[r][i], B[i][3]) for i in range(3)], A[r][3])
            ri = P.neg(P.total(*[P.mul(R[i][r], R[i][3]) for i in range(3)]))
            out.append((P.sub(li, ri), r, 3))
        return out

    def _norm(self, k, m):
        """|kT0 (U0 w)|^2 = |w|^2 + |P - Ok|^2 + 2 (P - Ok).(R w),  w = nTm position."""
        Rt, Pt = self._target()
        O = [self._rchain(0, k)[r][3] for r in range(3)]
        d = [P.sub(Pt[r], O[r]) for r in range(3)]
        dd = P.total(*[P.mul(x, x) for x in d])
        w = [self._right(m)[r][3] for r in range(3)] if m < self.n else [{}, {}, {}]
        Rw = [P.total(*[P.mul(Rt[r][c], w[c]) for c in range(3)]) for r in range(3)]
        nl = P.total(*[P.mul(x, x) for x in w], dd,
                     *[P.scale(P.mul(d[r], Rw[r]), 2) for r in range(3)])
        R = self._rchain(k, m)
        nr = P.total(*[P.mul(R[r][3], R[r][3]) for r in range(3)])
        return [(P.sub(nl, nr), 0, 0)]


def _identity() -> list:
    one = P.const(1)
    return [[one if r == c else {} for c in range(4)] for r in range(3)]


def _mat_mul(A, B) -> list:
    """Product of two 3x4 homogeneous matrices (last row 0 0 0 1 implied)."""
    out = []
    for r in range(3):
        row = []
        for c in range(4):
            terms = [P.mul(A[r][k], B[k][c]) for k in range(3) if A[r][k] and B[k][c]]
            if c == 3:
                terms.append(A[r][3])
            row.append(P.total(*terms))
        out.append(row)
    return out


def _mat_inv(A) -> list:
    out = []
    for r in range(3):
        row = [A[c][r] for c in range(3)]
        row.append(P.neg(P.total(*[P.mul(A[k][r], A[k][3]) for k in range(3)])))
        out.append(row)
    return out



__all__ = []
