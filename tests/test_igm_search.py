"""The machinery of Paul's search (robmod.geometry.inverse): exact polynomials, shared
equations, the modular test of the eliminants, and the error of a redundant robot."""
import gc
import math
from fractions import Fraction

import numpy as np
import pytest

import robmod
from robmod.errors import RobmodError
from robmod.geometry.inverse import equations as E
from robmod.geometry.inverse import IGMSolution, igm_model, modular, paul
from robmod.geometry.inverse import polys as P
from robmod.geometry.inverse.paul import _Span as Span
from robmod.geometry.inverse.system import System


def _poly(rng, n_terms, gens, coeffs):
    p = {}
    for _ in range(n_terms):
        m = tuple(sorted({int(g): int(rng.integers(1, 4)) for g in rng.choice(gens, 2)}.items()))
        p = P.add(p, {m: coeffs[int(rng.integers(len(coeffs)))]})
    return p


def test_reduce_trig_is_the_normal_form():
    """S appears with degree <= 1 and the value is unchanged on the unit circle."""
    rng = np.random.default_rng(0)
    pairs = {0: 1, 2: 3}                                 # S0, C0 and S2, C2; 4 is free
    coeffs = [1, -2, Fraction(3, 7), Fraction(-5, 4)]
    for _ in range(20):
        p = _poly(rng, 6, [0, 1, 2, 3, 4], coeffs)
        r = P.reduce_trig(p, pairs, {})
        assert all(e <= 1 for m in r for g, e in m if g in pairs)
        assert P.reduce_trig(r, pairs) == r
        a, b, x = rng.uniform(-3, 3, 3)
        vals = {0: math.sin(a), 1: math.cos(a), 2: math.sin(b), 3: math.cos(b), 4: x}

        def ev(q):
            return sum(float(c) * math.prod(vals[g] ** e for g, e in m) for m, c in q.items())
        assert ev(r) == pytest.approx(ev(p), abs=1e-9 * (1 + abs(ev(p))))


def test_integer_arithmetic_and_key_up_to_a_factor():
    rng = np.random.default_rng(1)
    coeffs = [1, 3, Fraction(-2, 3), Fraction(333, 1000), Fraction(33, 400)]
    a, b = (_poly(rng, 7, [0, 1, 2, 5], coeffs) for _ in range(2))
    ab = P.mul(a, b)                                      # the integer path (> SMALL terms)
    slow: dict = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            m = P.mono_mul(m1, m2)
            slow[m] = slow.get(m, 0) + Fraction(c1) * c2
    assert ab == {m: c for m, c in slow.items() if c}
    assert all(type(c) is int for c in ab.values() if Fraction(c).denominator == 1)
    assert P.total(a, P.neg(a)) == {}
    k, c = P.key(a)
    assert P.key(P.scale(a, Fraction(-7, 3)))[0] == k   # equal up to a factor
    assert P.key(P.add(a, P.const(1)))[0] != k
    assert c == a[max(a)]


def test_span_over_the_integers():
    s = Span()
    assert s.add((1, 1, 0)) and s.add((0, 1, 0))
    assert s.contains((1, 0, 0)) and s.contains((2, -3, 0))
    assert not s.contains((0, 0, 1)) and not s.add((1, -1, 0))


def test_the_elements_pass_shares_its_equations_with_all_families():
    robot = robmod.load_robot("panda")
    base = System(robot, (7,), ("elem",))
    for fams in (("elem",), ("elem", "inv", "norm")):
        shared = base.for_families(fams).pool()
        fresh = System(robot, (7,), fams).pool()
        assert [(e.kind, e.k, e.m, e.row, e.col, e.poly) for e in shared] == \
               [(e.kind, e.k, e.m, e.row, e.col, e.poly) for e in fresh]
    assert not any(r == "K" for r in base.g.roles)        # the searches named nothing here


def test_modular_test_of_eliminants_rejects_only_what_fails(monkeypatch):
    """Every pair the modular test rejects gives, computed exactly, no type-2 equation; and
    the solution is the one found without the test (RX-90: its q3 is of type 6)."""
    robot = robmod.load_robot("rx90")
    seen = []
    test = modular.ModularPoint.square_fails

    def checked(self, lin1, lin2, u):
        out = test(self, lin1, lin2, u)
        seen.append((self, lin1, lin2, u, out))
        return out
    monkeypatch.setattr(modular.ModularPoint, "square_fails", checked)
    with_test = IGMSolution(*paul.paul_search(robot, (), ("elem",))).to_text()   # not cached
    rejected = [t for t in seen if t[-1]]
    assert rejected and len(rejected) < len(seen)
    for point, (A1, B1, D1), (A2, B2, D2), u, _ in rejected:
        det = P.sub(P.mul(A1, B2), P.mul(A2, B1))
        ns, nc = P.sub(P.mul(D1, B2), P.mul(D2, B1)), P.sub(P.mul(A1, D2), P.mul(A2, D1))
        el = P.reduce_trig(P.total(P.mul(ns, ns), P.mul(nc, nc), P.neg(P.mul(det, det))),
                           point.g.trig)
        s = E.analyze_single(point.g, el, u) if el else None
        assert s is None or s.kind == "type1"
    monkeypatch.setattr(modular.ModularPoint, "square_fails", lambda *a: False)
    system, steps = paul.paul_search(robot, (), ("elem",))
    assert "type 6" in with_test and IGMSolution(system, steps).to_text() == with_test


def test_redundant_robot_without_fixed_joints_raises_one_error():
    with pytest.raises(RobmodError, match="redundant robot") as err:
        igm_model(robmod.load_robot("lwr4"))
    assert err.value.__context__ is None and err.value.__cause__ is None


def test_the_search_leaves_the_garbage_collector_as_it_was():
    robot = robmod.load_robot("scara")
    assert gc.isenabled()
    paul.paul_search(robot)
    with pytest.raises(RobmodError):
        paul.paul_search(robmod.load_robot("panda"))        # redundant
    assert gc.isenabled()
    gc.disable()
    try:
        paul.paul_search(robot)
        assert not gc.isenabled()
    finally:
        gc.enable()
