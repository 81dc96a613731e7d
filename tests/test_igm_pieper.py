"""IGM of 6R robots with a spherical wrist and general first three joints (Pieper's quartic),
and the fallbacks of igm() when Paul's method finds no closed form."""
import ast
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.errors import RobmodError
from robmod.geometry.direct import dgm
from robmod.geometry.inverse import igm, igm_model
from robmod.geometry.inverse.fallback import fallback_method, no_special_axes
from robmod.geometry.igm_general6r import igm_general6r
from robmod.geometry.igm_pieper import has_spherical_wrist, igm_pieper
from robmod.testing.random import random_robot


def wrist_robot(rng, alpha23=None, d2=None, alpha2=None):
    """Random 6R robot, axes 4, 5, 6 concurrent (d5 = r5 = d6 = 0), arm lengths non-zero."""
    robot = random_robot(rng, 6, prismatic=False, general=True, dynamics=False)
    frames = list(robot.frames)
    for k in range(6):
        j = k + 1
        d, r = sp.Float(rng.uniform(0.1, 0.5)), sp.Float(rng.uniform(0.1, 0.5))
        alpha = sp.Float(rng.uniform(-3.0, 3.0))
        if j == 1:
            d, r, alpha = sp.Integer(0), sp.Integer(0), sp.Integer(0)
        if j in (5, 6):
            d, r = sp.Integer(0), sp.Integer(0)
        if alpha23 is not None and j in (2, 3):
            alpha = alpha23
        if j == 2 and d2 is not None:
            d = d2
        if j == 2 and alpha2 is not None:
            alpha = alpha2
        frames[k] = replace(frames[k], d=d, r=r, alpha=alpha)
    return replace(robot, frames=tuple(frames))


def general_robot(rng):
    robot = random_robot(rng, 6, prismatic=False, general=True, dynamics=False)
    frames = [replace(f, d=f.d if f.d != 0 else sp.Float(rng.uniform(0.1, 0.5)),
                      r=f.r if f.r != 0 else sp.Float(rng.uniform(0.1, 0.5)))
              for f in robot.frames]
    return replace(robot, frames=tuple(frames))


def _member(sols, q, tol=1e-8):
    d = np.abs(np.angle(np.exp(1j * (sols - q))))
    return bool(np.any(np.all(d < tol, axis=-1)))


def _check(robot, q):
    T = dgm(robot, q)
    qs, valid = igm_pieper(robot, T)
    sols = qs[valid]
    assert _member(sols, q)                                   # q is found (mod 2 pi)
    assert np.abs(dgm(robot, sols) - T).max() < 1e-9          # every solution reaches T
    # distinct branches
    assert all(not _member(np.delete(sols, k, 0), sols[k], 1e-7) for k in range(len(sols)))
    return T, sols


SEEDS = list(range(12))


@pytest.mark.parametrize("seed", SEEDS)
def test_pieper_general_arm(seed):
    rng = np.random.default_rng(100 + seed)
    # the first four: alpha2 = alpha3 = -pi/2 with non-zero d and r (no closed form found)
    robot = wrist_robot(rng, alpha23=-sp.pi / 2 if seed < 4 else None)
    assert has_spherical_wrist(robot)
    for q in rng.uniform(-np.pi, np.pi, (2, 6)):
        T, sols = _check(robot, q)
        exact = igm_general6r(robot, T).q
        assert len(sols) == len(exact)                        # same count as the general 6R
        assert all(_member(sols, qe, 1e-7) for qe in exact)


@pytest.mark.parametrize("special", [{"d2": sp.Integer(0)}, {"alpha2": sp.Integer(0)},
                                     {"alpha2": sp.pi}])
def test_pieper_special_cases_quadratic(special):
    """Craig's special cases (d2 = 0, sin(alpha2) = 0): a quadratic instead of the quartic."""
    rng = np.random.default_rng(7)
    robot = wrist_robot(rng, **special)
    for q in rng.uniform(-np.pi, np.pi, (3, 6)):
        _check(robot, q)


def test_rx90_agrees_with_closed_form():
    robot = robmod.load_robot("rx90", numeric=True)
    rng = np.random.default_rng(3)
    q = rng.uniform(-2.5, 2.5, 6)
    T, sols = _check(robot, q)
    qc, valid = igm(robot, T)
    assert len(sols) == valid.sum() == 8
    assert all(_member(sols, qk) for qk in qc[valid])


def test_not_a_spherical_wrist():
    robot = general_robot(np.random.default_rng(2))
    assert not has_spherical_wrist(robot)
    with pytest.raises(RobmodError, match="spherical wrist"):
        igm_pieper(robot, np.eye(4))


def test_unreachable_target_no_valid_branch():
    robot = wrist_robot(np.random.default_rng(4))
    T = np.eye(4)
    T[:3, 3] = [10.0, 0.0, 0.0]
    q, valid = igm_pieper(robot, T)
    assert q.shape == (8, 6) and not valid.any()


def test_igm_falls_back_to_pieper():
    rng = np.random.default_rng(100)
    robot = wrist_robot(rng, alpha23=-sp.pi / 2)
    with pytest.raises(RobmodError, match="no closed form"):
        igm_model(robot)
    assert fallback_method(robot) == "pieper"
    q = rng.uniform(-np.pi, np.pi, (2, 6))
    T = dgm(robot, q)
    qs, valid = igm(robot, T)
    assert qs.shape == (2, 8, 6) and valid.shape == (2, 8)
    for k in range(2):
        assert _member(qs[k][valid[k]], q[k])
        assert np.abs(dgm(robot, qs[k][valid[k]]) - T[k]).max() < 1e-9
    assert np.all(np.isnan(qs[~valid]))


def test_igm_falls_back_to_general6r():
    rng = np.random.default_rng(11)
    robot = general_robot(rng)
    assert fallback_method(robot) == "general6r"
    assert no_special_axes(robot)                 # igm() skips Paul's search
    assert not no_special_axes(robmod.load_robot("rx90", numeric=True))
    q = rng.uniform(-np.pi, np.pi, 6)
    T = dgm(robot, q)
    qs, valid = igm(robot, T)
    assert qs.shape == (16, 6)
    exact = igm_general6r(robot, T).q
    assert valid.sum() == len(exact) and _member(qs[valid], q)
    assert np.abs(dgm(robot, qs[valid]) - T).max() < 1e-9


def test_geometry_polynomial_igms_do_not_import_kinematics():
    """Layer rule: geometry imports nothing from kinematics."""
    root = Path(robmod.__file__).parent / "geometry"
    for name in ("igm_general6r.py", "igm_pieper.py", "chain_refine.py",
                 "inverse/fallback.py"):
        tree = ast.parse((root / name).read_text())
        mods = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not any("kinematics" in m for m in mods), name


def test_singular_wrist_flagged_and_solved():
    """RX-90 at q5 = 0: axes 4 and 6 aligned, only q4 + q6 determined (singular branches)."""
    robot = robmod.load_robot("rx90", numeric=True)
    q = np.array([0.3, -0.4, 0.5, 0.7, 0.0, -0.2])
    T = dgm(robot, q)
    ev = igm_pieper(robot, T)
    assert ev.method == "pieper"
    assert ev.valid.any()
    assert np.all(ev.singular[ev.valid] == (np.abs(np.sin(ev.q[ev.valid][:, 4])) < 1e-6))
    assert ev.singular.any()
    assert np.abs(dgm(robot, ev.q[ev.valid]) - T).max() < 1e-9
    # the generating configuration up to the undetermined split of q4 + q6
    sing = ev.q[ev.singular]
    assert any(np.allclose(np.angle(np.exp(1j * (s[:3] - q[:3]))), 0, atol=1e-8)
               and abs(np.angle(np.exp(1j * (s[3] + s[5] - q[3] - q[5])))) < 1e-8 for s in sing)


def test_cli_solve_pose_uses_pieper():
    from robmod.cli.igm import _solve_pose

    rng = np.random.default_rng(101)
    robot = wrist_robot(rng, alpha23=-sp.pi / 2)
    q = rng.uniform(-np.pi, np.pi, 6)
    T = dgm(robot, q)
    name, _, qs, ok, sing = _solve_pose(robot, T, {}, "pieper")
    assert "Pieper" in name and ok.all() and not sing.any()
    assert _member(qs, q) and np.abs(dgm(robot, qs) - T).max() < 1e-9


def test_axes_1_and_2_coincide_is_an_error():
    """d2 = 0 and alpha2 = 0: axes 1 and 2 are one line, q1 + q2 only is determined."""
    rng = np.random.default_rng(8)
    robot = wrist_robot(rng, d2=sp.Integer(0), alpha2=sp.Integer(0))
    T = dgm(robot, rng.uniform(-np.pi, np.pi, 6))
    with pytest.raises(RobmodError, match="axis 2"):
        igm_pieper(robot, T)


def test_igm_method_keyword():
    robot = robmod.load_robot("rx90", numeric=True)
    rng = np.random.default_rng(9)
    q = rng.uniform(-2.5, 2.5, (3, 6))
    T = dgm(robot, q)
    qp, vp = igm(robot, T, method="pieper")
    qc, vc = igm(robot, T, method="paul")
    assert qp.shape == (3, 8, 6) and np.array_equal(vp.sum(-1), vc.sum(-1))
    for k in range(3):
        assert all(_member(qp[k][vp[k]], x) for x in qc[k][vc[k]])
    with pytest.raises(RobmodError, match="method must be"):
        igm(robot, T, method="ferrari")
    with pytest.raises(RobmodError, match="spherical wrist"):
        igm(general_robot(rng), T[0], method="pieper")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), special=st.booleans())
def test_pieper_property(seed, special):
    """Any spherical-wrist robot, any q: q is among the solutions, all reach T, and the count
    is that of the general-6R solver."""
    rng = np.random.default_rng(seed)
    robot = wrist_robot(rng, alpha23=-sp.pi / 2 if special else None)
    q = rng.uniform(-np.pi, np.pi, 6)
    T, sols = _check(robot, q)
    assert len(sols) == len(igm_general6r(robot, T).q)


def test_every_igm_returns_one_result_type():
    """igm (each method), IGMSolution.solve and igm_numeric: one IGMResult, q, valid first."""
    from robmod.geometry import IGMResult, igm_model
    from robmod.kinematics import igm_numeric

    robot = robmod.load_robot("rx90", numeric=True)
    T = dgm(robot, np.array([[0.3, -0.4, 0.5, 0.7, 1.1, -0.2], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]))
    results = {m: igm(robot, T, method=m) for m in ("paul", "pieper", "general6r")}
    results["solve"] = igm_model(robot).solve(T)
    results["numeric"] = igm_numeric(robot, T, n_restarts=32, rng=0)
    for name, res in results.items():
        assert isinstance(res, IGMResult), name
        q, valid = res
        assert q.shape[:2] == valid.shape[:1] + (valid.shape[1],) and q.shape[-1] == 6
        assert res.n_solutions.tolist() == [8, 8], name
        for k in range(2):
            assert np.abs(dgm(robot, res.solutions(k)) - T[k]).max() < 1e-8, name
    assert results["general6r"].singular is None and results["pieper"].singular.shape == (2, 8)
    assert results["paul"].method == "paul" and results["numeric"].status.shape == (2,)
    assert results["numeric"].singular is None and results["paul"].status is None
