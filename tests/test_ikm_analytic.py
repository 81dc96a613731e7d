"""Analytic block-triangular inverse kinematic model (seed 001 §6.3, Example 6.1)."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import robmod
from robmod.description.robot import Tool
from robmod.errors import RobmodError
from robmod.kinematics import jacobian
from robmod.kinematics.analysis import reduce_pythagoras
from robmod.kinematics import BlockIKM, ikm_block, ikm_block_model

S2, C2, S3, C3, S4, C4, S5, C5, S23, C23 = sp.symbols("S2 C2 S3 C3 S4 C4 S5 C5 S23 C23")
D3, RL4 = sp.symbols("D3 RL4")
X = sp.symbols("X1:7")
PAIRS = [(S2, C2), (S3, C3), (S4, C4), (S5, C5)]
UNFOLD = {S23: S2 * C3 + C2 * S3, C23: C2 * C3 - S2 * S3}


@pytest.fixture(scope="module")
def rx90():
    return robmod.load_robot("rx90")


@pytest.fixture(scope="module")
def blk(rx90):
    return BlockIKM.from_robot(rx90)


def identical(a, b):
    """a == b modulo S^2 + C^2 = 1 and the angle sums S23, C23."""
    num = sp.fraction(sp.together(sp.sympify(a - b).xreplace(UNFOLD)))[0]
    return reduce_pythagoras(sp.expand(num), PAIRS) == 0


def seed_inverse(erratum=True):
    """3J6^-1 as printed in Example 6.1 (with the erratum of SEEDS.md unless told)."""
    V1 = 1 / (S23 * RL4 - C2 * D3)
    V2 = -RL4 + S3 * D3
    V3 = 1 / (C3 * D3)
    V4 = C4 * C5 / S5          # C4 cotg5
    V5 = S4 * C5 / S5          # S4 cotg5
    V6 = S3 / (C3 * RL4)
    V7 = 1 / (S5 * RL4)
    V8 = (-S23 * V4 - C23) * V1
    e41 = -S4 * C5 * V7 if erratum else S4 * C5 * V7
    e51 = C4 / RL4 if erratum else -C4 / RL4
    return sp.Matrix([
        [0, 0, V1, 0, 0, 0],
        [0, V3, 0, 0, 0, 0],
        [-1 / RL4, V2 * V3 / RL4, 0, 0, 0, 0],
        [e41, V5 * V6, V8, V4, 1, -V5],
        [e51, -C4 * V6, -S23 * S4 * V1, S4, 0, C4],
        [S4 * V7, -S4 * V6 / S5, S23 * C4 * V1 / S5, -C4 / S5, 0, S4 / S5]])


def expanded_outputs(model):
    subs = {}
    for lhs, rhs in model.statements:
        if not isinstance(rhs, (sp.sin, sp.cos)):
            subs[lhs] = rhs.xreplace(subs)
    return [e.xreplace(subs) for e in model.outputs[0].exprs]


def test_structure_is_3J6(blk):
    assert blk.i == 3 and blk.j == 6
    assert (blk.rows_a, blk.cols_a, blk.rows_b, blk.cols_b) == ((0, 1, 2), (0, 1, 2),
                                                                  (3, 4, 5), (3, 4, 5))
    expected = sp.Matrix([  # SEEDS.md, derived 3J6 (S23 folded)
        [0, -RL4 + S3 * D3, -RL4, 0, 0, 0],
        [0, C3 * D3, 0, 0, 0, 0],
        [S23 * RL4 - C2 * D3, 0, 0, 0, 0, 0],
        [S23, 0, 0, 0, S4, -C4 * S5],
        [C23, 0, 0, 1, 0, C5],
        [0, 1, 1, 0, C4, S4 * S5]])
    assert sp.expand(blk.jacobian - expected) == sp.zeros(6, 6)
    assert blk.trig[S23] == sp.sin(sp.Symbol("q2") + sp.Symbol("q3"))


def test_inverse_equals_seed_with_erratum(blk):
    Ji = blk.inverse
    seed = seed_inverse()
    for r in range(6):
        for c in range(6):
            assert identical(Ji[r, c], seed[r, c]), (r, c, Ji[r, c], seed[r, c])
    # the two printed entries corrected by the erratum are indeed wrong as printed
    bad = seed_inverse(erratum=False)
    assert not identical(Ji[3, 0], bad[3, 0]) and not identical(Ji[4, 0], bad[4, 0])
    # J^-1 J = I symbolically
    prod = Ji * blk.jacobian
    assert all(identical(prod[r, c], int(r == c)) for r in range(6) for c in range(6))


def test_second_method_equals_seed_formulas(blk):
    """The seed's second-method statements [6.10] give the same qd as the model."""
    V1, V2, V3 = 1 / (S23 * RL4 - C2 * D3), -RL4 + S3 * D3, 1 / (C3 * D3)
    qa = [V1 * X[2], V3 * X[1], (-X[0] + V2 * V3 * X[1]) / RL4]
    Xp = [X[3] - S23 * qa[0], X[4] - C23 * qa[0], X[5] - qa[1] - qa[2]]
    cot5 = C5 / S5
    qb = [C4 * cot5 * Xp[0] + Xp[1] - S4 * cot5 * Xp[2], S4 * Xp[0] + C4 * Xp[2],
          (-C4 * Xp[0] + S4 * Xp[2]) / S5]
    for solve in ("substitution", "inverse"):
        out = expanded_outputs(_model(blk, 2, solve))
        for k, e in enumerate(qa + qb):
            assert identical(out[k], e), (solve, k)
    out = expanded_outputs(_model(blk, 1))
    seed = seed_inverse() * sp.Matrix(X)
    assert all(identical(out[k], seed[k]) for k in range(6))


def test_operation_counts(blk):
    """Seed: 47 mult / 18 add (first method), 22 / 12 (second); same scope here."""
    c1 = _model(blk, 1).count()
    c2 = _model(blk, 2).count()
    c2i = _model(blk, 2, "inverse").count()
    assert (c1.mults, c1.adds) == (47, 17)
    assert (c2.mults, c2.adds) == (16, 10)
    assert (c2i.mults, c2i.adds) == (24, 11)
    assert c1.funcs == c2.funcs == 9
    assert _model(blk, 1).count(constants=True).mults == 1  # 1/RL4, off-line
    c0 = _model(blk, 2, velocity_frame=0).count()
    assert (c0.mults, c0.adds) == (36, 20)
    text = _model(blk, 2).to_text()
    assert "QP1 = X3/J31" in text and "XP4 = X4 - QP1*S23" in text


def _model(blk, method=2, solve="substitution", velocity_frame="i"):
    return ikm_block_model(blk.robot, j=blk.j, i=blk.i, tool=blk.tool, method=method,
                           solve=solve, velocity_frame=velocity_frame)


def _regular_q(rng, n):
    q = rng.uniform(-np.pi, np.pi, (n, 6))
    keep = (np.abs(np.cos(q[:, 2])) > 0.2) & (np.abs(np.sin(q[:, 4])) > 0.2)
    return q[keep]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_J_qd_equals_xd(rx90, blk, seed):
    rng = np.random.default_rng(seed)
    rn = rx90.numeric()
    q = _regular_q(rng, 8)
    xd = rng.normal(size=(len(q), 6))
    J3, J0 = jacobian(rn, q, i=3), jacobian(rn, q, i=0)
    for method, solve in ((1, "substitution"), (2, "substitution"), (2, "inverse")):
        for frame, J in (("i", J3), (0, J0)):
            qd = ikm_block(rx90, q, xd, method=method, velocity_frame=frame, solve=solve)
            res = np.einsum("...ij,...j->...i", J, qd) - xd
            scale = 1 + np.linalg.norm(qd, axis=-1, keepdims=True)
            assert np.all(np.abs(res) <= 1e-10 * scale), (method, solve, frame)


def test_compiled_model_matches(rx90, blk):
    rng = np.random.default_rng(3)
    q = _regular_q(rng, 10)
    xd = rng.normal(size=(len(q), 6))
    params = {"D3": 0.45, "RL4": 0.45}
    for method in (1, 2):
        f = _model(blk, method).numpy_function()
        qd = f(q, xd, params=params)
        np.testing.assert_allclose(qd, ikm_block(rx90, q, xd, method=method), rtol=1e-12, atol=1e-12)
        qd_ref = np.linalg.solve(jacobian(rx90.numeric(), q, i=3), xd[..., None])[..., 0]
        np.testing.assert_allclose(qd, qd_ref, rtol=1e-9, atol=1e-9)


def test_singular_conditions(rx90, blk):
    fa = {sp.factor(f) for f, _ in blk.factors_A[1]}
    fc = {f for f, _ in blk.factors_C[1]}
    assert C3 in fa and fc == {S5}
    assert any(identical(f, RL4 * S23 - C2 * D3) or identical(f, C2 * D3 - RL4 * S23)
               for f in fa) and len(fa) == 2
    # det J = det A det C = const * product of the factors, numerically
    rn = rx90.numeric()
    rng = np.random.default_rng(5)
    q = rng.uniform(-3, 3, (6, 6))
    conds = blk.singular_conditions()
    vals = {sp.Symbol("D3"): 0.45, sp.Symbol("RL4"): 0.45}
    qs = sp.symbols("q1:7")
    prod = [float(sp.Mul(*[c for c in conds]).xreplace(vals).xreplace(dict(zip(qs, qq))))
            for qq in q]
    const = float((blk.factors_A[0] * blk.factors_C[0]).xreplace(vals))
    np.testing.assert_allclose(np.linalg.det(jacobian(rn, q, i=3)), const * np.array(prod),
                               rtol=1e-9, atol=1e-12)
    # each factor vanishing makes J singular
    for qq in ([0.3, 0.4, np.pi / 2, 0.2, 0.7, 0.1], [0.3, 0.4, 0.5, 0.2, 0.0, 0.1]):
        assert abs(np.linalg.det(jacobian(rn, np.array(qq), i=3))) < 1e-12
    assert not np.all(np.isfinite(ikm_block(rx90, [0.3, 0.4, 0.5, 0.2, 0.0, 0.1],
                                               np.ones(6))))


def test_other_robot_numeric_parameters():
    """PUMA 560 (numeric parameters, offsets d4, r3): same block form in 3J6."""
    puma = robmod.load_robot("puma560")
    b = BlockIKM.from_robot(puma, i=3)
    assert (b.rows_a, b.cols_a) == ((0, 1, 2), (0, 1, 2))
    rng = np.random.default_rng(11)
    q = rng.uniform(-3, 3, (6, 6))
    xd = rng.normal(size=(6, 6))
    qd = ikm_block(puma, q, xd, method=2, i=3)
    np.testing.assert_allclose(np.einsum("...ij,...j->...i", jacobian(puma, q, i=3), qd), xd,
                               rtol=1e-9, atol=1e-9)


def test_errors(rx90):
    with pytest.raises(RobmodError, match="no zero 3x3"):
        BlockIKM.from_robot(robmod.load_robot("stanford"))  # r6 = 0.263: O6 off the wrist centre
    tool = Tool("probe", 6, sp.ImmutableMatrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1],
                                                [0, 0, 0, 1]]))
    with pytest.raises(RobmodError, match="no zero 3x3"):
        BlockIKM.from_robot(rx90, i=3, tool=tool)
    with pytest.raises(RobmodError, match="6 joints"):
        BlockIKM.from_robot(robmod.load_robot("scara"))
    with pytest.raises(RobmodError, match="method"):
        BlockIKM.from_robot(rx90).program(3)
    with pytest.raises(RobmodError, match="velocity_frame"):
        ikm_block(rx90, np.zeros(6) + 0.3, np.ones(6), velocity_frame=2)
    with pytest.raises(RobmodError, match="xd"):
        ikm_block(rx90, np.zeros(6), np.ones(5))
