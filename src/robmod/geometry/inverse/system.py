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

from dataclasses import dataclass

import sympy as sp

from ...description.robot import FIXED, PRISMATIC, REVOLUTE
from ...errors import RobmodError
from . import polys as P

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
            M = _identity()
            for run in self.runs(a, b):
                M = _mat_mul(M, self._run_matrix(run))
            self._chains[key] = M
        return self._chains[key]

    # ---- the pool -----------------------------------------------------------------------------
    def reduce(self, p: dict) -> dict:
        return P.reduce_trig(p, self.g.trig)

    def variables_of(self, p: dict) -> frozenset:
        owner = self.g.owner
        return frozenset(owner[g] for g in P.gens_of(p) if owner[g] is not None)

    def pool(self) -> list[_Equation]:
        if getattr(self, "equations", None) is None:
            self.equations = self._pool()
        return self.equations

    def _pool(self) -> list[_Equation]:
        n = self.n
        eqs: list[_Equation] = []
        seen = set()

        def push(poly, kind, k, m, row=0, col=0):
            if kind not in self.families:
                return
            poly = self.reduce(poly)
            vs = self.variables_of(poly)
            if not poly or not vs:
                return
            key, _ = P.key(poly)
            if key in seen:
                return
            seen.add(key)
            eqs.append(_Equation(len(eqs), poly, vs, kind, k, m, row, col))

        t = self.target
        tg = [P.gen(g) for g in t]
        Rt = [[tg[c * 3 + r] for c in range(3)] for r in range(3)]   # target rotation
        Pt = tg[9:12]
        # U0^-1 = [R^T, -R^T P]: the orthonormality of R is used instead of R^T R
        U0inv = [[Rt[c][r] for c in range(3)]
                 + [P.neg(P.total(*[P.mul(Rt[k][r], Pt[k]) for k in range(3)]))]
                 for r in range(3)]
        left = {k: _mat_mul(_mat_inv(self.chain(0, k)), self.U0) for k in range(n)}
        right = {m: _mat_inv(self.chain(m, n)) for m in range(1, n + 1)}
        for k in range(n):
            O = [self.chain(0, k)[r][3] for r in range(3)]
            d = [P.sub(Pt[r], O[r]) for r in range(3)]
            dd = P.total(*[P.mul(x, x) for x in d])
            for m in range(n, k, -1):
                L = _mat_mul(left[k], right[m]) if m < n else left[k]
                R = self.chain(k, m)
                for r in range(3):
                    for c in range(4):
                        push(P.sub(L[r][c], R[r][c]), "elem", k, m, r, c)
                # inverse: (kT0 U0 nTm)^-1 = mTn U0^-1 0Tk
                Li = _mat_mul(_mat_mul(self.chain(m, n), U0inv), self.chain(0, k))
                Ri = _mat_inv(R)
                for r in range(3):
                    push(P.sub(Li[r][3], Ri[r][3]), "inv", k, m, r, 3)
                # |kT0 (U0 w)|^2 = |w|^2 + |P - Ok|^2 + 2 (P - Ok).(R w),  w = nTm position
                w = [right[m][r][3] for r in range(3)] if m < n else [{}, {}, {}]
                Rw = [P.total(*[P.mul(Rt[r][c], w[c]) for c in range(3)]) for r in range(3)]
                nl = P.total(*[P.mul(x, x) for x in w], dd,
                             *[P.scale(P.mul(d[r], Rw[r]), 2) for r in range(3)])
                nr = P.total(*[P.mul(R[r][3], R[r][3]) for r in range(3)])
                push(P.sub(nl, nr), "norm", k, m)
        return eqs


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
