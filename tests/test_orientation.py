"""Transforms, orientation sets, screws and wrenches (seed 001 ch. 2 and §3.6, seed 002 §2.4)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.spatial.transform import Rotation

from robmod.geometry import (
    angle_axis, angle_axis_to_matrix, apply_frame_error, delta_transform, differential_screw,
    euler_zxz_to_matrix, euler_zyz_to_matrix, frame_error, homogeneous, inverse_transform,
    matrix_to_angle_axis, matrix_to_euler_zxz, matrix_to_euler_zyz, matrix_to_quaternion,
    matrix_to_rotvec, matrix_to_rpy, quaternion_conjugate, quaternion_multiply,
    quaternion_to_matrix, rot, rot_axis, rot_axis_transform, rot_matrix, rotvec_to_matrix,
    rpy_to_matrix, screw_transform, screw_transform_inverse, skew, trans, transform_screw,
    transform_wrench, unskew, wrench_transform)

PI = np.pi
SETS = {
    "euler_zxz": (euler_zxz_to_matrix, matrix_to_euler_zxz),
    "euler_zyz": (euler_zyz_to_matrix, matrix_to_euler_zyz),
    "rpy": (rpy_to_matrix, matrix_to_rpy),
}
SCIPY_SEQ = {"euler_zxz": "ZXZ", "euler_zyz": "ZYZ", "rpy": "ZYX"}  # intrinsic = moving axes
AXES = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0], [0, -1, 0], [0, 0, -1],
                 [1, 1, 0], [1, -1, 0], [0, 1, 1], [1, 1, 1], [1, -2, 3], [-3, 0.5, 0.2]],
                dtype=float)
AXES /= np.linalg.norm(AXES, axis=1, keepdims=True)


def _random_quaternions(n, seed=0):
    q = np.random.default_rng(seed).normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _special_rotations(seed=1):
    """Exact singular / boundary rotations of every set."""
    rng = np.random.default_rng(seed)
    out = [np.eye(3)[None], np.diag([1.0, -1, -1])[None], np.diag([-1.0, 1, -1])[None],
           np.diag([-1.0, -1, 1])[None]]
    for ax in "xyz":
        out.append(rot_matrix(ax, np.array([0.0, PI, -PI, PI / 2, -PI / 2])))
    for t in (0.0, 1e-15, 1e-9, 1e-6, PI / 2, PI - 1e-6, PI - 1e-9, PI - 1e-15, PI):
        out.append(rot_axis(AXES, t))
    phi, psi = rng.uniform(-PI, PI, (2, 20))
    for t in (0.0, PI, -PI, 1e-14, PI - 1e-14):
        out.append(euler_zxz_to_matrix(phi, t, psi))
        out.append(euler_zyz_to_matrix(phi, t, psi))
    for t in (PI / 2, -PI / 2, PI / 2 - 1e-14, -PI / 2 + 1e-14):
        out.append(rpy_to_matrix(phi, t, psi))
    grid = np.array(np.meshgrid(*[np.arange(-2, 3) * PI / 2] * 3)).reshape(3, -1).T
    for to_matrix, _ in SETS.values():
        out.append(to_matrix(grid))
    return np.concatenate(out)


@pytest.fixture(scope="module")
def rotations():
    R = quaternion_to_matrix(_random_quaternions(100_000))
    return np.concatenate([R, _special_rotations()])


# ------------------------------------------------------------------ transforms

def test_elementary_transforms():
    t = np.array([0.3, -1.2])
    assert rot("z", t).shape == (2, 4, 4) and trans([1, 2], 3, 4).shape == (2, 4, 4)
    np.testing.assert_allclose(rot("z", 0.3)[:3, 0], [np.cos(0.3), np.sin(0.3), 0], atol=1e-15)
    np.testing.assert_allclose(rot("x", 0.3)[:3, 1], [0, np.cos(0.3), np.sin(0.3)], atol=1e-15)
    np.testing.assert_allclose(rot("y", 0.3)[:3, 2], [np.sin(0.3), 0, np.cos(0.3)], atol=1e-15)
    for ax, u in zip("xyz", np.eye(3)):
        np.testing.assert_allclose(rot(ax, t), rot_axis_transform(u, t), atol=1e-15)
        ref = Rotation.from_rotvec(np.outer(t, u)).as_matrix()
        np.testing.assert_allclose(rot_matrix(ax, t), ref, atol=1e-15)
    np.testing.assert_allclose(trans(1, 2, 3), trans([1, 2, 3]))
    np.testing.assert_allclose(trans(1, 2, 3)[:3, 3], [1, 2, 3])
    rng = np.random.default_rng(2)
    T = homogeneous(quaternion_to_matrix(_random_quaternions(50, 3)), rng.normal(size=(50, 3)))
    np.testing.assert_allclose(T @ inverse_transform(T), np.broadcast_to(np.eye(4), T.shape),
                               atol=1e-14)
    np.testing.assert_allclose(inverse_transform(T), np.linalg.inv(T), atol=1e-13)
    with pytest.raises(ValueError):
        rot("w", 0.1)
    with pytest.raises(ValueError):
        rot_axis([0, 0, 0], 0.1)


def test_rot_axis_matches_scipy_and_normalises():
    rng = np.random.default_rng(4)
    u = rng.normal(size=(1000, 3))
    t = rng.uniform(-4, 4, 1000)
    un = u / np.linalg.norm(u, axis=1, keepdims=True)
    ref = Rotation.from_rotvec(un * t[:, None]).as_matrix()
    np.testing.assert_allclose(rot_axis(u, t), ref, atol=1e-14)
    np.testing.assert_allclose(rotvec_to_matrix(un * t[:, None]), ref, atol=1e-14)
    np.testing.assert_allclose(rot_axis(un, t), rot_axis(un[:, None], t[:, None])[:, 0])


def test_example_2_3_equivalent_angle_and_axis():
    """Seed 001 Example 2.3: rot(u, theta) = rot(x, pi/4) rot(y, pi/4) rot(z, pi/2)."""
    R = rot("x", PI / 4) @ rot("y", PI / 4) @ rot("z", PI / 2)
    theta, u, singular = angle_axis(R)
    assert not singular
    assert abs(theta - 2 * PI / 3) < 1e-15
    np.testing.assert_allclose(u, [1 / np.sqrt(3), 0, np.sqrt(2) / np.sqrt(3)], atol=1e-15)
    # C = -1/2, S = sqrt(3)/2 ([2.34], [2.36])
    assert abs(np.cos(theta) + 0.5) < 1e-15 and abs(np.sin(theta) - np.sqrt(3) / 2) < 1e-15
    np.testing.assert_allclose(rot_axis_transform(u, theta), R, atol=1e-15)


def test_angle_axis_round_trip(rotations):
    a = matrix_to_angle_axis(rotations)
    assert np.isfinite(a.theta).all() and np.isfinite(a.u).all()
    assert (a.theta >= 0).all() and (a.theta <= PI).all()
    np.testing.assert_allclose(np.linalg.norm(a.u, axis=-1), 1, atol=1e-15)
    assert np.abs(angle_axis_to_matrix(a.theta, a.u) - rotations).max() < 1e-12
    ident = angle_axis(np.eye(3))
    assert ident.singular and ident.theta == 0 and (ident.u == [0, 0, 1]).all()
    assert a.singular.sum() >= 1 + 3 + len(AXES)  # identity, rot(ax, 0), rot(u, 0)
    # scipy oracle (scipy's axis at theta = pi is sign-ambiguous: compare matrices there)
    rv = matrix_to_rotvec(rotations)
    ok = a.theta < PI - 1e-6
    np.testing.assert_allclose(rv[ok], Rotation.from_matrix(rotations[ok]).as_rotvec(), atol=1e-12)


def test_angle_axis_accurate_near_pi():
    """Near theta = pi the skew part is ~sin(theta): the axis comes from the symmetric part."""
    for t in (PI, PI - 1e-15, PI - 1e-10, PI - 1e-6, 3.0):
        R = rot_axis(AXES, t)
        a = angle_axis(R)
        sign = np.where(np.isclose(a.theta, PI, atol=0, rtol=0)[..., None]
                        & (np.sum(a.u * AXES, -1) < 0)[..., None], -1, 1)
        np.testing.assert_allclose(a.u * sign, AXES, atol=1e-14)
        np.testing.assert_allclose(a.theta, t, atol=1e-14)
        if t < PI - 1e-12:  # the sign of u is determined by the (tiny) skew part
            np.testing.assert_allclose(a.u, AXES, atol=1e-14)
    # exact half turns without any skew part: the largest component is positive
    for M, u in [(np.diag([1.0, -1, -1]), [1, 0, 0]), (np.diag([-1.0, 1, -1]), [0, 1, 0]),
                 (np.diag([-1.0, -1, 1]), [0, 0, 1])]:
        a = angle_axis(M)
        assert a.theta == PI and (a.u == u).all() and not a.singular
    # batches, and (..., 4, 4) input
    R = rot_axis_transform(AXES, 1.0).reshape(3, 4, 4, 4)
    a = angle_axis(R)
    assert a.theta.shape == (3, 4) and a.u.shape == (3, 4, 3)


# ------------------------------------------------------------------ three-angle sets

@pytest.mark.parametrize("name", list(SETS))
def test_three_angle_round_trip_both_branches(name, rotations):
    to_matrix, to_angles = SETS[name]
    sol = to_angles(rotations)
    both = sol.branches()
    assert both.shape == (2,) + rotations.shape[:-2] + (3,)
    assert np.isfinite(both).all()
    assert (np.abs(both) <= PI).all()
    for angles in (sol.first, sol.second):
        assert np.abs(to_matrix(angles) - rotations).max() < 1e-12
        assert np.abs(to_matrix(angles[:, 0], angles[:, 1], angles[:, 2]) - rotations).max() < 1e-12
    t1, t2 = sol.first[:, 1], sol.second[:, 1]
    if name == "rpy":
        assert (np.abs(t1) <= PI / 2 + 1e-15).all()
        regular = ~sol.singular
        np.testing.assert_allclose(np.cos(t1[regular] + t2[regular]), -1, atol=1e-12)
    else:
        assert (t1 >= 0).all()
        regular = ~sol.singular
        np.testing.assert_allclose(t2[regular], -t1[regular], atol=1e-15)
    # second branch = (phi + pi, ., psi + pi)
    for k in (0, 2):
        d = sol.second[regular, k] - sol.first[regular, k] - PI
        np.testing.assert_allclose(np.cos(d), 1, atol=1e-12)
    # singular: conventional psi = 0 on the first branch (masks: test_singular_masks)
    assert (sol.first[sol.singular, 2] == 0).all()
    # scipy oracle for the forward map
    ref = Rotation.from_euler(SCIPY_SEQ[name], sol.first).as_matrix()
    assert np.abs(ref - rotations).max() < 1e-12


@pytest.mark.parametrize("name", list(SETS))
def test_singular_masks(name):
    to_matrix, to_angles = SETS[name]
    rng = np.random.default_rng(5)
    phi, psi = rng.uniform(-PI, PI, (2, 200))
    lock = (0.0, PI, -PI) if name != "rpy" else (PI / 2, -PI / 2)
    for t in lock:
        R = to_matrix(phi, t, psi)
        sol = to_angles(R)
        assert sol.singular.all()
        assert np.abs(to_matrix(sol.first) - R).max() < 1e-12
        assert np.abs(to_matrix(sol.second) - R).max() < 1e-12
        np.testing.assert_allclose(np.cos(sol.first[:, 1] - t), 1, atol=1e-15)
    regular = rng.uniform(0.1, PI - 0.1, 200) - (PI / 2 if name == "rpy" else 0)
    R = to_matrix(phi, regular, psi)
    sol = to_angles(R)
    assert not sol.singular.any()
    np.testing.assert_allclose(sol.first, np.stack([phi, regular, psi], -1), atol=1e-12)


def test_euler_zyz_siciliano_formula():
    """Seed 002 (2.18) with the erratum: sin(beta) = sqrt(r13^2 + r23^2) >= 0, cos(beta) = r33."""
    R = quaternion_to_matrix(_random_quaternions(1000, 7))
    sol = matrix_to_euler_zyz(R)
    np.testing.assert_allclose(sol.first[:, 0], np.arctan2(R[:, 1, 2], R[:, 0, 2]), atol=1e-12)
    np.testing.assert_allclose(sol.first[:, 1], np.arctan2(np.hypot(R[:, 0, 2], R[:, 1, 2]),
                                                           R[:, 2, 2]), atol=1e-12)
    np.testing.assert_allclose(sol.first[:, 2], np.arctan2(R[:, 2, 1], -R[:, 2, 0]), atol=1e-12)
    # (2.19): the other branch
    np.testing.assert_allclose(sol.second[:, 0], np.arctan2(-R[:, 1, 2], -R[:, 0, 2]), atol=1e-12)
    np.testing.assert_allclose(sol.second[:, 2], np.arctan2(-R[:, 2, 1], R[:, 2, 0]), atol=1e-12)


def test_rpy_khalil_convention():
    """R = rot(z, phi) rot(y, theta) rot(x, psi)."""
    a = np.array([0.3, -0.7, 1.1])
    R = rot_matrix("z", a[0]) @ rot_matrix("y", a[1]) @ rot_matrix("x", a[2])
    np.testing.assert_allclose(rpy_to_matrix(*a), R, atol=1e-15)
    np.testing.assert_allclose(matrix_to_rpy(R).first, a, atol=1e-14)
    R = rot_matrix("z", a[0]) @ rot_matrix("x", a[1]) @ rot_matrix("z", a[2])
    np.testing.assert_allclose(euler_zxz_to_matrix(*a), R, atol=1e-15)
    R = rot_matrix("z", a[0]) @ rot_matrix("y", a[1]) @ rot_matrix("z", a[2])
    np.testing.assert_allclose(euler_zyz_to_matrix(*a), R, atol=1e-15)


# ------------------------------------------------------------------ quaternions

def test_quaternion_round_trip(rotations):
    Q = matrix_to_quaternion(rotations)
    assert np.isfinite(Q).all()
    np.testing.assert_allclose(np.linalg.norm(Q, axis=-1), 1, atol=1e-15)
    assert (Q[:, 0] >= 0).all()
    assert np.abs(quaternion_to_matrix(Q) - rotations).max() < 1e-12
    q = _random_quaternions(100_000)
    q = np.where(q[:, :1] < 0, -q, q)
    assert np.abs(matrix_to_quaternion(quaternion_to_matrix(q)) - q).max() < 1e-12
    ref = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix()
    assert np.abs(quaternion_to_matrix(q) - ref).max() < 1e-12
    # Q0 = cos(theta/2), vector part u sin(theta/2)
    a = angle_axis(rotations)
    ok = a.theta < PI - 1e-6
    np.testing.assert_allclose(Q[ok, 0], np.cos(a.theta[ok] / 2), atol=1e-12)
    np.testing.assert_allclose(Q[ok, 1:], a.u[ok] * np.sin(a.theta[ok] / 2)[:, None], atol=1e-12)
    # half turns: Q0 = 0 and the largest component positive
    np.testing.assert_allclose(matrix_to_quaternion(np.diag([-1.0, 1, -1])), [0, 0, 1, 0])
    # product
    q1, q2 = _random_quaternions(100, 8), _random_quaternions(100, 9)
    np.testing.assert_allclose(quaternion_to_matrix(quaternion_multiply(q1, q2)),
                               quaternion_to_matrix(q1) @ quaternion_to_matrix(q2), atol=1e-14)
    np.testing.assert_allclose(quaternion_to_matrix(quaternion_conjugate(q1)),
                               np.swapaxes(quaternion_to_matrix(q1), -1, -2), atol=1e-15)


# ------------------------------------------------------------------ hypothesis

angles = st.one_of(st.floats(-PI, PI), st.sampled_from([0.0, PI, -PI, PI / 2, -PI / 2, 1e-300]))


@settings(max_examples=200, deadline=None)
@given(a=st.tuples(angles, angles, angles), name=st.sampled_from(list(SETS)))
def test_hypothesis_three_angle_round_trip(a, name):
    to_matrix, to_angles = SETS[name]
    R = to_matrix(*a)
    sol = to_angles(R)
    for b in (sol.first, sol.second):
        assert np.isfinite(b).all()
        assert np.abs(to_matrix(b) - R).max() < 1e-12
    assert np.abs(quaternion_to_matrix(matrix_to_quaternion(R)) - R).max() < 1e-12
    aa = angle_axis(R)
    assert np.abs(rot_axis(aa.u, aa.theta) - R).max() < 1e-12


@settings(max_examples=200, deadline=None)
@given(u=st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 1e-3),
       t=st.one_of(st.floats(0, PI), st.sampled_from([0.0, PI, 1e-12, PI - 1e-12])))
def test_hypothesis_angle_axis_inverts_rot(u, t):
    u = np.array(u) / np.linalg.norm(u)
    a = angle_axis(rot_axis(u, t))
    assert abs(a.theta - t) < 1e-12
    if t > 1e-9:
        s = -1.0 if (abs(t - PI) < 1e-12 and a.u @ u < 0) else 1.0
        assert np.abs(s * a.u - u).max() < 1e-9


# ------------------------------------------------------------------ screws and wrenches

def _random_transforms(n, seed):
    rng = np.random.default_rng(seed)
    return homogeneous(quaternion_to_matrix(_random_quaternions(n, seed)), rng.normal(size=(n, 3)))


def test_skew_unskew():
    rng = np.random.default_rng(10)
    v, w = rng.normal(size=(2, 100, 3))
    np.testing.assert_allclose(np.einsum("...ij,...j->...i", skew(v), w), np.cross(v, w),
                               atol=1e-15)
    np.testing.assert_allclose(unskew(skew(v)), v)
    np.testing.assert_allclose(skew(v), -np.swapaxes(skew(v), -1, -2))


def test_screw_transform_structure():
    T1, T2 = _random_transforms(50, 11), _random_transforms(50, 12)
    S = screw_transform(T1)
    R, P = T1[:, :3, :3], T1[:, :3, 3]
    # Khalil [2.47] literal: jTi = [[jRi, -jRi iP^j], [0, jRi]]
    jTi = screw_transform_inverse(T1)
    Rt = np.swapaxes(R, -1, -2)
    np.testing.assert_allclose(jTi[:, :3, :3], Rt)
    np.testing.assert_allclose(jTi[:, :3, 3:], -Rt @ skew(P), atol=1e-15)
    np.testing.assert_allclose(jTi[:, 3:, :3], 0)
    np.testing.assert_allclose(jTi @ S, np.broadcast_to(np.eye(6), S.shape), atol=1e-13)
    np.testing.assert_allclose(jTi, screw_transform(inverse_transform(T1)), atol=1e-14)
    # [2.49] second form: iTj = [[iRj, -iRj jP^i], [0, iRj]]
    jPi = inverse_transform(T1)[:, :3, 3]
    np.testing.assert_allclose(S[:, :3, 3:], -R @ skew(jPi), atol=1e-14)
    # product [2.48]
    np.testing.assert_allclose(screw_transform(T1 @ T2), S @ screw_transform(T2), atol=1e-13)
    # vector versions
    V = np.random.default_rng(13).normal(size=(50, 6))
    np.testing.assert_allclose(transform_screw(T1, V), np.einsum("nij,nj->ni", S, V), atol=1e-14)
    np.testing.assert_allclose(transform_wrench(T1, V),
                               np.einsum("nij,nj->ni", wrench_transform(T1), V), atol=1e-14)
    np.testing.assert_allclose(wrench_transform(T1), np.swapaxes(jTi, -1, -2), atol=1e-15)


def _body_motion(t):
    """A smooth rigid motion 0Tj(t) of a body (vectorised over t)."""
    t = np.asarray(t, dtype=float)[..., None]
    r = (np.array([0.3, -0.2, 0.5]) + t * np.array([0.7, 0.4, -1.1])
         + t ** 2 * np.array([0.2, 0, 0.3]))
    p = np.array([1.0, 0.5, -0.2]) + t * np.array([-0.3, 0.8, 0.1]) + np.sin(t) * 0.5
    return homogeneous(rotvec_to_matrix(r), p)


def _twist_in_own_frame(T_of_t, t, h=1e-6):
    T = T_of_t(t)
    dT = (T_of_t(t + h) - T_of_t(t - h)) / (2 * h)
    R = T[:3, :3]
    v0 = dT[:3, 3]
    w0 = unskew(dT[:3, :3] @ R.T)
    return np.concatenate([R.T @ v0, R.T @ w0])


def test_screw_transform_composes_velocities_of_a_rigid_body():
    """Two frames i and j fixed to one moving body: iV_i = iTj jV_j ([2.46])."""
    jTi = _random_transforms(1, 14)[0]
    iTj = inverse_transform(jTi)
    for t in (0.0, 0.7, -1.3):
        Vj = _twist_in_own_frame(_body_motion, t)
        Vi = _twist_in_own_frame(lambda s: _body_motion(s) @ jTi, t)
        np.testing.assert_allclose(screw_transform(iTj) @ Vj, Vi, atol=1e-8)
        np.testing.assert_allclose(screw_transform_inverse(jTi) @ Vj, Vi, atol=1e-8)
        np.testing.assert_allclose(transform_screw(iTj, Vj), Vi, atol=1e-8)


def test_wrench_transport_preserves_virtual_power():
    T = _random_transforms(1000, 15)
    rng = np.random.default_rng(16)
    V, F = rng.normal(size=(2, 1000, 6))
    p_j = np.sum(V * F, -1)
    p_i = np.sum(transform_screw(T, V) * transform_wrench(T, F), -1)
    np.testing.assert_allclose(p_i, p_j, atol=1e-12)
    # the force is a free vector and the moment is transported: m_i = m_j + OiOj x f
    f = transform_wrench(T, F)
    np.testing.assert_allclose(f[:, :3], np.einsum("nij,nj->ni", T[:, :3, :3], F[:, :3]))


def test_example_2_4_and_2_5():
    """Seed 001 Examples 2.4 (differential screws, [2.58]) and 2.5 (wrench, [2.61]-[2.62])."""
    nTE = np.array([[0, 1, 0, 0], [-1, 0, 0, 0.1], [0, 0, 1, -0.3], [0, 0, 0, 1.0]])
    d = transform_screw(nTE, [0, 0, -0.01, 0, -0.05, 0])
    np.testing.assert_allclose(d, [0, 0.015, -0.005, -0.05, 0, 0], atol=1e-15)
    d = transform_screw(inverse_transform(nTE), [0.01, 0.01, 0.01, 0.01, 0, 0])
    np.testing.assert_allclose(d, [-0.013, 0.01, 0.011, 0, 0.01, 0], atol=1e-15)
    nTE[2, 3] = 0.5
    F = transform_wrench(nTE, [0, 0, 5, 0, 0, 3])
    np.testing.assert_allclose(F, [0, 0, 5, 0.5, 0, 3], atol=1e-15)


def _chain(q):
    u = np.array([1.0, -2.0, 0.5])
    return (rot("z", q[..., 0]) @ trans(q[..., 1], 0.3, 0.2) @ rot("x", q[..., 2])
            @ rot_axis_transform(u, q[..., 3]) @ trans(0.1, q[..., 4], 0.5))


def test_differential_transformation_first_order():
    rng = np.random.default_rng(17)
    q = rng.uniform(-2, 2, (20, 5))
    direction = rng.normal(size=(20, 5))
    T = _chain(q)
    errs = []
    for h in (1e-4, 1e-5):
        dT = _chain(q + h * direction) - T
        base = differential_screw(T, dT, frame="base")
        local = differential_screw(T, dT, frame="local")
        # [2.55], [2.56]: dT = iDelta T = T jDelta (to first order)
        e1 = np.abs(delta_transform(base[:, :3], base[:, 3:]) @ T - dT).max()
        e2 = np.abs(T @ delta_transform(local[:, :3], local[:, 3:]) - dT).max()
        errs.append(max(e1, e2))
        # [2.58]: j(dP, delta) = jTi i(dP, delta), exact
        np.testing.assert_allclose(np.einsum("nij,nj->ni", screw_transform_inverse(T), base), local,
                                   atol=1e-15)
        # [2.50]: T + dT = Trans(dP) Rot(u, dtheta) T, to first order
        dth = np.linalg.norm(base[:, 3:], axis=-1)
        T2 = trans(base[:, :3]) @ rot_axis_transform(base[:, 3:], dth) @ T
        assert np.abs(T2 - T - dT).max() < 50 * h ** 2
    assert errs[0] < 50 * 1e-8 and errs[1] < errs[0] / 50  # second-order remainder


def test_frame_error_and_its_inverse():
    Tc, Td = _random_transforms(1000, 18), _random_transforms(1000, 19)
    for frame in ("base", "local"):
        dX = frame_error(Tc, Td, frame=frame)
        assert (np.linalg.norm(dX[:, 3:], axis=-1) <= PI + 1e-15).all()
        np.testing.assert_allclose(apply_frame_error(Tc, dX, frame=frame), Td, atol=1e-12)
    base = frame_error(Tc, Td)
    np.testing.assert_allclose(base[:, :3], Td[:, :3, 3] - Tc[:, :3, 3])
    # local = rotation of the base error into the current frame
    local = frame_error(Tc, Td, frame="local")
    Rct = np.swapaxes(Tc[:, :3, :3], -1, -2)
    np.testing.assert_allclose(local[:, 3:], np.einsum("nij,nj->ni", Rct, base[:, 3:]), atol=1e-12)
    # u sin(theta) = (sc x sd + nc x nd + ac x ad) / 2
    s = frame_error(Tc, Td, kind="sin")
    ref = 0.5 * np.cross(Tc[:, :3, :3], Td[:, :3, :3], axis=1).sum(axis=-1)
    np.testing.assert_allclose(s[:, 3:], ref, atol=1e-14)
    th = np.linalg.norm(base[:, 3:], axis=-1)
    np.testing.assert_allclose(np.linalg.norm(s[:, 3:], axis=-1), np.sin(th), atol=1e-12)
    # identical frames and small errors: the error is the differential screw
    np.testing.assert_allclose(frame_error(Tc, Tc), 0, atol=1e-15)
    dX = np.random.default_rng(20).normal(size=(1000, 6)) * 1e-7
    Tn = apply_frame_error(Tc, dX)
    np.testing.assert_allclose(frame_error(Tc, Tn), dX, atol=1e-16)
    ds = differential_screw(Tc, Tn - Tc)  # Khalil's 0Delta screw, at O0
    ds[:, :3] += np.cross(ds[:, 3:], Tc[:, :3, 3])  # moved to On
    np.testing.assert_allclose(ds, dX, atol=1e-13)
    np.testing.assert_allclose(differential_screw(Tc, Tn - Tc, frame="local"),
                               frame_error(Tc, Tn, frame="local"), atol=1e-13)
    np.testing.assert_allclose(frame_error(Tc, Tn, kind="sin"), dX, atol=1e-16)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_hypothesis_screw_products(seed):
    T = _random_transforms(3, seed)
    lhs = screw_transform(T[0] @ T[1] @ T[2])
    rhs = screw_transform(T[0]) @ screw_transform(T[1]) @ screw_transform(T[2])
    assert np.abs(lhs - rhs).max() < 1e-12
    wl = wrench_transform(T[0] @ T[1])
    assert np.abs(wl - wrench_transform(T[0]) @ wrench_transform(T[1])).max() < 1e-12
