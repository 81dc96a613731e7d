"""URDF import / export (robmod.description.io_urdf)."""
import math

import numpy as np
import pytest
import sympy as sp
import robmod
import robmod.dynamics
from scipy.spatial.transform import Rotation

from robmod.description.expr import as_expr
from robmod.description.files import read_robot, write_robot
from robmod.description import dumps_urdf, loads_urdf, read_urdf, write_urdf
from robmod.description.kk_fit import kk_parameters_from_transform
from robmod.spatial import matrix_to_rpy, rpy_to_matrix
from robmod.description import make_robot
from robmod.description.robot import FIXED, INERTIAL, Frame, JointLimits, Link, Tool
from robmod.errors import DescriptionError, FileFormatError
from robmod.geometry.transforms import frame_transform


# ---------------------------------------------------------------------------- helpers
def kk_matrix(gamma, b, alpha, d, theta, r):
    """Independent product of the six elementary KK transforms."""
    def rz(a):
        T = np.eye(4)
        T[:2, :2] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
        return T

    def rx(a):
        T = np.eye(4)
        T[1:3, 1:3] = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
        return T

    def tr(v):
        T = np.eye(4)
        T[:3, 3] = v
        return T

    return rz(gamma) @ tr([0, 0, b]) @ rx(alpha) @ tr([d, 0, 0]) @ rz(theta) @ tr([0, 0, r])


def pose(xyz=(0, 0, 0), rpy=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3] = Rotation.from_euler("xyz", rpy).as_matrix()  # extrinsic x-y-z = Rz Ry Rx
    T[:3, 3] = xyz
    return T


def num(x):
    return as_expr(float(x))


def world_poses(robot, q):
    """0T_j for j = 0..NF (0: the base Z)."""
    T = {0: np.array(robot.Z.evalf(), dtype=float)}
    for f in robot.frames:
        T[f.j] = T[f.ant] @ frame_transform(robot, f.j, q[f.j - 1])
    return T


def random_rotation(rng):
    return Rotation.random(random_state=rng.integers(2**31)).as_matrix()


def random_inertial(rng):
    """Physically consistent Khalil parameters (inertia about O_j, first moments, mass)."""
    if rng.random() < 0.1:
        return {k: sp.Integer(0) for k in INERTIAL}
    i1, i2 = rng.uniform(0.01, 1.0, 2)
    i3 = rng.uniform(abs(i1 - i2), i1 + i2)
    R = random_rotation(rng)
    JC = R @ np.diag([i1, i2, i3]) @ R.T
    m = rng.uniform(0.5, 5.0)
    c = rng.normal(scale=0.3, size=3)
    JO = JC + m * (c @ c * np.eye(3) - np.outer(c, c))
    vals = [JO[0, 0], JO[0, 1], JO[0, 2], JO[1, 1], JO[1, 2], JO[2, 2], *(m * c), m]
    return {k: num(v) for k, v in zip(INERTIAL, vals)}


def random_mdh_robot(rng, n, tree=False, fixed=False, extras=False, mdh=True):
    """A random numeric MDH robot: the first movable child of each frame has gamma = b = 0.

    ``mdh=False``: random gamma and b everywhere (a general KK robot).
    """
    ants = [j - 1 if not tree else int(rng.integers(0, j)) for j in range(1, n + 1)]
    sigmas = [int(rng.choice([0, 0, 1, 2] if fixed else [0, 1])) for _ in range(n)]
    first_movable = {}
    for j in range(1, n + 1):
        if sigmas[j - 1] != FIXED:
            first_movable.setdefault(ants[j - 1], j)
    frames, links = [], []
    for j in range(1, n + 1):
        choice = rng.integers(5)
        alpha = [sp.Integer(0), sp.pi / 2, -sp.pi / 2, sp.pi, num(rng.uniform(-3, 3))][choice]
        p = dict(alpha=alpha,
                 d=num(rng.normal()) if rng.random() < 0.7 else sp.Integer(0),
                 r=num(rng.normal()) if rng.random() < 0.7 else sp.Integer(0),
                 theta=num(rng.uniform(-3, 3)) if rng.random() < 0.7 else sp.Integer(0))
        if first_movable.get(ants[j - 1]) != j or not mdh:
            p.update(gamma=num(rng.uniform(-3, 3)), b=num(rng.normal()))
        sigma = sigmas[j - 1]
        frames.append(Frame(j=j, ant=ants[j - 1], sigma=sigma, mu=0 if sigma == FIXED else 1,
                            **p))
        lim = {}
        if sigma != FIXED and rng.random() < 0.7:
            lo = rng.uniform(-2, 0)
            lim = dict(qmin=num(lo), qmax=num(lo + rng.uniform(0.1, 3)),
                       qdmax=num(rng.uniform(0.5, 5)), taumax=num(rng.uniform(1, 100)))
        dyn = {}
        if sigma != FIXED:
            dyn = dict(FV=num(rng.uniform(0, 1)), FC=num(rng.uniform(0, 1)))
        links.append(Link(j=j, **random_inertial(rng), **dyn, limits=JointLimits(**lim)))
    kw = {}
    if extras:
        Z = np.eye(4)
        Z[:3, :3], Z[:3, 3] = random_rotation(rng), rng.normal(size=3)
        kw["Z"] = sp.ImmutableMatrix([[num(x) for x in row] for row in Z])
        tools = []
        for i in range(2):
            E = np.eye(4)
            E[:3, :3], E[:3, 3] = random_rotation(rng), rng.normal(size=3)
            tools.append(Tool(name=f"tool{i}", frame=int(rng.integers(0, n + 1)),
                              T=sp.ImmutableMatrix([[num(x) for x in row] for row in E])))
        kw["tools"] = tools
    return make_robot("random", frames, links, gravity=(0, 0, -9.81), **kw)


# ---------------------------------------------------------------------------- KK parameters
def test_kk_parameters_from_random_transforms():
    rng = np.random.default_rng(1)
    for i in range(3000):
        if i % 2:
            T = pose(rng.normal(size=3), rng.uniform(-math.pi, math.pi, 3))
        else:
            g, a, t = rng.uniform(-math.pi, math.pi, 3)
            a = [0.0, math.pi, -math.pi, math.pi / 2, a, 1e-9][i % 6]
            b, d, r = rng.normal(size=3) * (rng.random() < 0.8)
            T = kk_matrix(g, b, a, d, t, r)
        params = kk_parameters_from_transform(T)
        assert np.abs(kk_matrix(*params) - T).max() < 1e-12
        gamma, b, alpha, d, theta, r = params
        assert -math.pi / 2 < gamma <= math.pi / 2 + 1e-15


@pytest.mark.parametrize("alpha", [0.0, math.pi])
def test_kk_parameters_parallel_axes(alpha):
    rng = np.random.default_rng(2)
    for _ in range(200):
        g, t = rng.uniform(-math.pi, math.pi, 2)
        b, d, r = rng.normal(size=3)
        T = kk_matrix(g, b, alpha, d, t, r)
        params = kk_parameters_from_transform(T)
        assert np.abs(kk_matrix(*params) - T).max() < 1e-12
        assert params[2] == alpha       # exact
        assert params[1] == 0.0         # b = 0: the z offset is in r
    # coincident axes: no gamma, no d
    params = kk_parameters_from_transform(kk_matrix(0.0, 0.0, alpha, 0.0, 0.7, 0.3))
    assert params[0] == 0.0 and params[3] == 0.0
    assert params[4] == pytest.approx(0.7) and params[5] == pytest.approx(0.3)


def test_kk_parameters_mdh_form():
    # an MDH transform comes back with gamma = b = 0 (alpha may be negative)
    for alpha in (-math.pi / 2, math.pi / 2, -2.0, 0.4):
        T = kk_matrix(0.0, 0.0, alpha, -0.3, 1.1, 0.25)
        g, b, a, d, t, r = kk_parameters_from_transform(T)
        assert abs(g) < 1e-15 and abs(b) < 1e-15
        assert (a, d, t, r) == pytest.approx((alpha, -0.3, 1.1, 0.25))


def matrix_from_rpy(roll, pitch, yaw):
    """URDF's rpy: Rot(z, yaw) Rot(y, pitch) Rot(x, roll) (robmod.spatial's z-y-x angles)."""
    return rpy_to_matrix(yaw, pitch, roll)


def rpy_from_matrix(R):
    """(roll, pitch, yaw) as the URDF writer takes them (tol=0: the exact lock only)."""
    yaw, pitch, roll = matrix_to_rpy(R, tol=0.0).first
    return roll, pitch, yaw


def test_rpy_round_trip_including_gimbal_lock():
    rng = np.random.default_rng(3)
    for i in range(2000):
        r, p, y = rng.uniform(-math.pi, math.pi, 3)
        if i % 3 == 0:
            p = math.copysign(math.pi / 2, p) + [0.0, 1e-13, -1e-9][i % 3 and 1]
        R = matrix_from_rpy(r, p, y)
        assert np.abs(R - pose(rpy=(r, p, y))[:3, :3]).max() < 1e-14
        assert np.abs(matrix_from_rpy(*rpy_from_matrix(R)) - R).max() < 1e-14
    R = np.array([[0.0, 0, 1], [0, 1, 0], [-1, 0, 0]])     # pitch = +pi/2 exactly
    assert np.abs(matrix_from_rpy(*rpy_from_matrix(R)) - R).max() < 1e-15


# ---------------------------------------------------------------------------- round trip
def assert_same_robot(a, b, rng):
    assert b.n_frames == a.n_frames and b.n_links == a.n_links
    assert [(f.ant, f.sigma) for f in b.frames] == [(f.ant, f.sigma) for f in a.frames]
    for _ in range(5):
        q = rng.uniform(-3, 3, a.n_frames)
        for j in range(1, a.n_frames + 1):
            assert np.abs(frame_transform(b, j, q[j - 1])
                          - frame_transform(a, j, q[j - 1])).max() < 1e-12, j
    for la, lb in zip(a.links, b.links):
        va = np.array([float(v) for v in la.inertial()])
        vb = np.array([float(v) for v in lb.inertial()])
        assert np.abs(va - vb).max() <= 1e-9 * max(1.0, np.abs(va).max()), la.j
        assert float(lb.FC) == pytest.approx(float(la.FC), abs=1e-15)
        assert float(lb.FV) == pytest.approx(float(la.FV), abs=1e-15)
        fa = a.frame(la.j)
        if fa.sigma != FIXED:
            for k in ("qmin", "qmax", "qdmax", "taumax"):
                va, vb = getattr(la.limits, k), getattr(lb.limits, k)
                if va is None:
                    if fa.sigma == 0 or k in ("qdmax", "taumax"):
                        assert vb is None
                else:
                    assert float(vb) == float(va)
    ba = np.array(a.Z.evalf(), dtype=float)
    bb = np.array(b.Z.evalf(), dtype=float)
    assert np.abs(ba - bb).max() < 1e-12
    assert [(t.name, t.frame) for t in b.tools] == [(t.name, t.frame) for t in a.tools]
    for ta, tb in zip(a.tools, b.tools):
        assert np.abs(np.array(ta.T.evalf(), dtype=float)
                      - np.array(tb.T.evalf(), dtype=float)).max() < 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_round_trip_serial(seed):
    rng = np.random.default_rng(100 + seed)
    robot = random_mdh_robot(rng, int(rng.integers(1, 8)), fixed=seed >= 3, extras=seed % 2 == 1)
    text = dumps_urdf(robot)
    again = loads_urdf(text)
    assert_same_robot(robot, again, rng)
    assert_same_robot(again, loads_urdf(dumps_urdf(again)), rng)  # and a second trip


@pytest.mark.parametrize("seed", range(6))
def test_round_trip_tree(seed):
    rng = np.random.default_rng(200 + seed)
    robot = random_mdh_robot(rng, int(rng.integers(3, 10)), tree=True, fixed=seed >= 2,
                             extras=seed % 2 == 0)
    again = loads_urdf(dumps_urdf(robot))
    assert_same_robot(robot, again, rng)


@pytest.mark.parametrize("seed", range(4))
def test_round_trip_any_kk_robot_without_mdh(seed):
    # mdh=False keeps the URDF link frames: any KK tree robot comes back unchanged
    rng = np.random.default_rng(300 + seed)
    robot = random_mdh_robot(rng, int(rng.integers(2, 9)), tree=seed % 2 == 1, fixed=True,
                             extras=True, mdh=False)
    assert_same_robot(robot, loads_urdf(dumps_urdf(robot), mdh=False), rng)


@pytest.mark.parametrize("seed", range(4))
def test_reframing_keeps_the_kinematics(seed):
    # a general KK robot re-read with mdh=True gets other frames, the same mechanism
    rng = np.random.default_rng(400 + seed)
    robot = random_mdh_robot(rng, int(rng.integers(2, 9)), tree=seed % 2 == 1, fixed=True,
                             mdh=False)
    tools = [Tool(name=f"t{j}", frame=j) for j in range(robot.n_frames + 1)]
    robot = make_robot(robot.name, robot.frames, robot.links, tools=tools, gravity=(0, 0, -9.81))
    again = loads_urdf(dumps_urdf(robot))
    assert [(t.name, t.frame) for t in again.tools] == [(t.name, t.frame) for t in tools]
    for _ in range(5):
        q = rng.uniform(-3, 3, robot.n_frames)
        Ta, Tb = world_poses(robot, q), world_poses(again, q)
        for ta, tb in zip(robot.tools, again.tools):
            Ea = Ta[ta.frame] @ np.array(ta.T.evalf(), dtype=float)
            Eb = Tb[tb.frame] @ np.array(tb.T.evalf(), dtype=float)
            assert np.abs(Ea - Eb).max() < 1e-10
        for f in robot.frames:
            j = f.j
            if f.sigma != FIXED:  # same joint axis line
                assert np.allclose(Ta[j][:3, 2], Tb[j][:3, 2], atol=1e-10)
                assert np.linalg.norm(np.cross(Tb[j][:3, 3] - Ta[j][:3, 3], Ta[j][:3, 2])) < 1e-9
            la, lb = robot.link(j), again.link(j)
            assert float(lb.M) == float(la.M)
            if float(la.M):
                ca = np.array([float(v) for v in la.first_moments()]) / float(la.M)
                cb = np.array([float(v) for v in lb.first_moments()]) / float(lb.M)
                assert np.allclose(Ta[j][:3, :3] @ ca + Ta[j][:3, 3],
                                   Tb[j][:3, :3] @ cb + Tb[j][:3, 3], atol=1e-10)


def test_round_trip_files(tmp_path):
    rng = np.random.default_rng(7)
    robot = random_mdh_robot(rng, 4, tree=True, extras=True)
    path = tmp_path / "r.urdf"
    write_urdf(robot, path)
    assert_same_robot(robot, read_urdf(path), rng)
    write_robot(robot, tmp_path / "s.urdf")
    assert_same_robot(robot, read_robot(tmp_path / "s.urdf"), rng)


def test_export_refuses_symbols_and_loops():
    frames = [Frame(j=1, ant=0, d=sp.Symbol("D1"))]
    robot = make_robot("sym", frames)  # symbolic inertial parameters too
    with pytest.raises(FileFormatError, match="D1") as e:
        dumps_urdf(robot)
    assert "XX1" in str(e.value)
    loop = make_robot("loop", [Frame(j=1, ant=0), Frame(j=2, ant=1), Frame(j=3, ant=0),
                               Frame(j=4, ant=2), Frame(j=5, ant=3, sigma=2, mu=0)],
                      [Link(j=j) for j in range(1, 4)], n_links=3)
    assert loop.n_loops == 1
    with pytest.raises(FileFormatError, match="closed loop"):
        dumps_urdf(loop)


def test_export_comments_dropped_values():
    robot = make_robot("r", [Frame(j=1, ant=0, theta=sp.Integer(0))],
                       [Link(j=1, IA=as_expr(0.5), M=as_expr(1.0))], gravity=(0, 0, -9.81))
    text = dumps_urdf(robot)
    assert "IA = 0.5" in text and "continuous" in text
    back = loads_urdf(text)
    assert back.link(1).IA == 0 and float(back.link(1).M) == 1.0


# ---------------------------------------------------------------------------- import
TREE_URDF = """<?xml version="1.0"?>
<robot name="test_tree">
  <link name="base">
    <inertial><mass value="10"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
  </link>
  <link name="l1">
    <inertial>
      <origin xyz="0.01 0.02 0.1" rpy="0.3 -0.2 0.1"/>
      <mass value="2.0"/>
      <inertia ixx="0.02" ixy="0.001" ixz="-0.002" iyy="0.03" iyz="0.0005" izz="0.025"/>
    </inertial>
  </link>
  <link name="l2">
    <inertial>
      <origin xyz="0.2 0.0 -0.05"/>
      <mass value="1.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.04" iyz="0" izz="0.045"/>
    </inertial>
  </link>
  <link name="l3">
    <inertial>
      <origin xyz="0 0.03 0.2" rpy="0 0 0.7"/>
      <mass value="1.0"/>
      <inertia ixx="0.005" ixy="0.0001" ixz="0" iyy="0.006" iyz="0" izz="0.002"/>
    </inertial>
  </link>
  <link name="l4">
    <inertial>
      <origin xyz="0.1 0.1 0.1" rpy="1 2 3"/>
      <mass value="0.7"/>
      <inertia ixx="0.003" ixy="0" ixz="0.0002" iyy="0.004" iyz="0" izz="0.005"/>
    </inertial>
  </link>
  <link name="l5">
    <inertial>
      <origin xyz="0.02 0 0"/>
      <mass value="0.3"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>
    </inertial>
  </link>
  <link name="l6">
    <inertial>
      <origin xyz="0 0 0.05" rpy="0.5 0 0"/>
      <mass value="0.4"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.001"/>
    </inertial>
  </link>
  <link name="l7"/>
  <link name="tool0"/>
  <joint name="j1" type="revolute">
    <parent link="base"/>
    <child link="l1"/>
    <origin xyz="0.1 0.05 0.3" rpy="0.1 0.2 0.3"/>
    <axis xyz="0 1 0"/>
    <limit lower="-2" upper="2.5" effort="50" velocity="3"/>
    <dynamics damping="0.5" friction="0.25"/>
  </joint>
  <joint name="j2" type="continuous">
    <parent link="l1"/>
    <child link="l2"/>
    <origin xyz="0.0 0.2 0.4" rpy="1.5707963267948966 0 0.4"/>
    <axis xyz="1 0 0"/>
  </joint>
  <joint name="j3" type="prismatic">
    <parent link="l2"/>
    <child link="l3"/>
    <origin xyz="0.3 0 0" rpy="0 0.5 0"/>
    <axis xyz="0 0 -1"/>
    <limit lower="0" upper="0.5" effort="100" velocity="0.5"/>
  </joint>
  <joint name="j4" type="revolute">
    <parent link="l1"/>
    <child link="l4"/>
    <origin xyz="-0.2 0.1 0.0" rpy="0 0 1.0"/>
    <axis xyz="0.6 0 0.8"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/>
  </joint>
  <joint name="f5" type="fixed">
    <parent link="l3"/>
    <child link="l5"/>
    <origin xyz="0 0 0.1" rpy="0.2 0.3 0.4"/>
  </joint>
  <joint name="j6" type="revolute">
    <parent link="l5"/>
    <child link="l6"/>
    <origin xyz="0.05 0 0.1" rpy="0 -1.5707963267948966 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="5" velocity="2"/>
  </joint>
  <joint name="j7" type="continuous">
    <parent link="l4"/>
    <child link="l7"/>
    <origin xyz="0.3 0.2 0.1" rpy="0 0 0"/>
    <axis xyz="0.6 0 0.8"/>
  </joint>
  <joint name="tool0_joint" type="fixed">
    <parent link="l6"/>
    <child link="tool0"/>
    <origin xyz="0 0 0.12" rpy="3.14159 0 0"/>
  </joint>
  <transmission name="t1"><joint name="j1"/></transmission>
  <gazebo reference="l1"/>
</robot>
"""

#: URDF joints of TREE_URDF in file order: (name, type, parent, child, xyz, rpy, axis)
TREE_JOINTS = [
    ("j1", "revolute", "base", "l1", (0.1, 0.05, 0.3), (0.1, 0.2, 0.3), (0, 1, 0)),
    ("j2", "continuous", "l1", "l2", (0.0, 0.2, 0.4), (math.pi / 2, 0, 0.4), (1, 0, 0)),
    ("j3", "prismatic", "l2", "l3", (0.3, 0, 0), (0, 0.5, 0), (0, 0, -1)),
    ("j4", "revolute", "l1", "l4", (-0.2, 0.1, 0.0), (0, 0, 1.0), (0.6, 0, 0.8)),
    ("f5", "fixed", "l3", "l5", (0, 0, 0.1), (0.2, 0.3, 0.4), None),
    ("j6", "revolute", "l5", "l6", (0.05, 0, 0.1), (0, -math.pi / 2, 0), (0, 0, 1)),
    ("j7", "continuous", "l4", "l7", (0.3, 0.2, 0.1), (0, 0, 0), (0.6, 0, 0.8)),
]
TREE_TOOL = ("l6", (0, 0, 0.12), (3.14159, 0, 0))
#: (link, mass, com xyz, com rpy, inertia [ixx ixy ixz iyy iyz izz]) of the moving links
TREE_INERTIALS = {
    "l1": (2.0, (0.01, 0.02, 0.1), (0.3, -0.2, 0.1), (0.02, 0.001, -0.002, 0.03, 0.0005, 0.025)),
    "l2": (1.5, (0.2, 0.0, -0.05), (0, 0, 0), (0.01, 0, 0, 0.04, 0, 0.045)),
    "l3": (1.0, (0, 0.03, 0.2), (0, 0, 0.7), (0.005, 0.0001, 0, 0.006, 0, 0.002)),
    "l4": (0.7, (0.1, 0.1, 0.1), (1, 2, 3), (0.003, 0, 0.0002, 0.004, 0, 0.005)),
    "l5": (0.3, (0.02, 0, 0), (0, 0, 0), (0.001, 0, 0, 0.001, 0, 0.001)),
    "l6": (0.4, (0, 0, 0.05), (0.5, 0, 0), (0.002, 0, 0, 0.002, 0, 0.001)),
}


def urdf_fk(q):
    """Hand-written URDF forward kinematics: {link: world pose}, {joint: (point, axis)}."""
    links = {"base": np.eye(4)}
    axes = {}
    for (name, jtype, parent, child, xyz, rpy, axis), qj in zip(TREE_JOINTS, q):
        J = links[parent] @ pose(xyz, rpy)
        motion = np.eye(4)
        if axis is not None:
            u = np.array(axis, dtype=float) / np.linalg.norm(axis)
            axes[name] = (J[:3, 3], J[:3, :3] @ u)
            if jtype == "prismatic":
                motion[:3, 3] = u * qj
            else:
                motion[:3, :3] = Rotation.from_rotvec(u * qj).as_matrix()
        links[child] = J @ motion
    return links, axes


def inertia_world(mass, T_com, inertia6):
    ixx, ixy, ixz, iyy, iyz, izz = inertia6
    J = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    R = T_com[:3, :3]
    return T_com[:3, 3], R @ J @ R.T


@pytest.mark.parametrize("mdh", [True, False])
def test_import_tree_forward_kinematics(mdh):
    robot = loads_urdf(TREE_URDF, "tree.urdf", mdh=mdh)
    assert robot.name == "test_tree"
    assert [f.ant for f in robot.frames] == [0, 1, 2, 1, 3, 5, 4]
    assert [f.sigma for f in robot.frames] == [0, 0, 1, 0, 2, 0, 0]
    assert [f.mu for f in robot.frames] == [1, 1, 1, 1, 0, 1, 1]
    assert robot.gravity == (0, 0, as_expr(-9.81))
    assert [(t.name, t.frame) for t in robot.tools] == [("tool0", 6)]
    link_of_frame = [jt[3] for jt in TREE_JOINTS]
    rng = np.random.default_rng(5)
    for _ in range(10):
        q = rng.uniform(-2, 2, robot.n_frames)
        q[4] = 0.0
        links, axes = urdf_fk(q)
        T = world_poses(robot, q)
        for f in robot.frames:
            name = TREE_JOINTS[f.j - 1][0]
            if f.sigma != FIXED:
                point, direction = axes[name]
                z, origin = T[f.j][:3, 2], T[f.j][:3, 3]
                assert np.allclose(z, direction, atol=1e-12), name
                if f.sigma == 0:  # the KK origin is on the URDF axis line
                    assert np.linalg.norm(np.cross(origin - point, direction)) < 1e-12, name
            link = robot.link(f.j)
            ulink = link_of_frame[f.j - 1]
            if ulink in TREE_INERTIALS:
                m, xyz, rpy, inertia6 = TREE_INERTIALS[ulink]
                com_u, J_u = inertia_world(m, links[ulink] @ pose(xyz, rpy), inertia6)
                M = float(link.M)
                s = np.array([float(v) for v in (link.MX, link.MY, link.MZ)])
                c = s / M
                JO = np.array(link.inertia_matrix().evalf(), dtype=float)
                JC = JO - M * (c @ c * np.eye(3) - np.outer(c, c))
                R = T[f.j][:3, :3]
                assert M == pytest.approx(m, abs=1e-15)
                assert np.allclose(T[f.j][:3, :3] @ c + T[f.j][:3, 3], com_u, atol=1e-12)
                assert np.allclose(R @ JC @ R.T, J_u, atol=1e-12)
            else:
                assert all(v == 0 for v in link.inertial())
        tool = robot.tools[0]
        E = T[tool.frame] @ np.array(tool.T.evalf(), dtype=float)
        assert np.allclose(E, links[TREE_TOOL[0]] @ pose(TREE_TOOL[1], TREE_TOOL[2]),
                           atol=1e-12)
    total = sum(float(l.M) for l in robot.links)
    assert total == pytest.approx(sum(v[0] for v in TREE_INERTIALS.values()))
    # limits and friction
    l1, l2, l3 = robot.link(1), robot.link(2), robot.link(3)
    assert (float(l1.limits.qmin), float(l1.limits.qmax)) == (-2.0, 2.5)
    assert (float(l1.limits.qdmax), float(l1.limits.taumax)) == (3.0, 50.0)
    assert (float(l1.FV), float(l1.FC)) == (0.5, 0.25)
    assert l2.limits.qmin is None and l2.limits.qmax is None and l2.limits.taumax is None
    assert (float(l3.limits.qmin), float(l3.limits.qmax)) == (0.0, 0.5)
    if mdh:
        # first movable children: gamma = b = 0; j2-j3 intersect (d = 0); j4 || j7 (alpha = 0)
        for j in (2, 3, 7):
            f = robot.frame(j)
            assert f.gamma == 0 and f.b == 0, j
        assert robot.frame(3).d == 0
        assert robot.frame(7).alpha == 0 and float(robot.frame(7).d) > 0
        assert robot.frame(2).alpha == sp.pi / 2 or abs(float(robot.frame(2).alpha)) > 1e-6


def test_import_q_zero_and_exact_angles():
    text = """<robot name="two">
      <link name="a"/><link name="b"/><link name="c"/>
      <joint name="q1" type="continuous"><parent link="a"/><child link="b"/>
        <axis xyz="0 0 1"/></joint>
      <joint name="q2" type="continuous"><parent link="b"/><child link="c"/>
        <origin xyz="0 0.5 0.2" rpy="0 1.5707963267948966 0"/><axis xyz="0 0 1"/></joint>
    </robot>"""
    robot = loads_urdf(text)
    f1, f2 = robot.frames
    # axis 2 is along x_b through (0, 0.5, 0.2): the common normal with z_1 is +y_b at
    # height 0.2, so frame 1 is turned by pi/2 and lifted by 0.2 (at q = 0, as in the URDF)
    assert (f1.gamma, f1.b, f1.alpha, f1.d, f1.theta) == (0, 0, 0, 0, sp.pi / 2)
    assert float(f1.r) == pytest.approx(0.2, abs=1e-15)
    assert (f2.gamma, f2.b, f2.alpha, f2.theta, f2.r) == (0, 0, sp.pi / 2, -sp.pi / 2, 0)
    assert float(f2.d) == pytest.approx(0.5, abs=1e-15)
    assert robot.Z == sp.eye(4)
    for f in robot.frames:
        for k in ("gamma", "b", "alpha", "d", "theta", "r"):
            v = getattr(f, k)
            assert v.is_Integer or v.is_Float or v.has(sp.pi), (f.j, k, v)


def test_import_world_link_becomes_base():
    text = """<robot name="w">
      <link name="world"/>
      <link name="base_link"/>
      <link name="l1"><inertial><mass value="1"/>
        <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
      <joint name="fix" type="fixed"><parent link="world"/><child link="base_link"/>
        <origin xyz="1 2 3" rpy="0 0 1.5707963267948966"/></joint>
      <joint name="j1" type="prismatic"><parent link="base_link"/><child link="l1"/>
        <origin xyz="0 0 0.5"/><axis xyz="1 0 0"/>
        <limit lower="-0.3" upper="0.3" effort="10" velocity="1"/></joint>
    </robot>"""
    robot = loads_urdf(text)
    assert robot.n_frames == 1 and robot.frame(1).sigma == 1
    Z = np.array(robot.Z.evalf(), dtype=float)
    assert np.allclose(Z, pose((1, 2, 3), (0, 0, math.pi / 2)), atol=1e-15)
    T = world_poses(robot, [0.2])[1]
    assert np.allclose(T[:3, 2], [0, 1, 0], atol=1e-15)  # x of base_link = y of world
    assert np.allclose(T[:3, 3], [1, 2.2, 3.5], atol=1e-15)


# ---------------------------------------------------------------------------- errors
GOOD_JOINT = """  <joint name="j1" type="revolute">
    <parent link="a"/>
    <child link="b"/>
    <origin xyz="0 0 1" rpy="0 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>"""


def two_links(joint=GOOD_JOINT, extra=""):
    return f"""<?xml version="1.0"?>
<robot name="bad">
  <link name="a"/>
  <link name="b"/>
{joint}
{extra}</robot>
"""


@pytest.mark.parametrize("text, line, words", [
    (two_links(GOOD_JOINT.replace(' type="revolute"', "")), 5, "type"),
    (two_links(GOOD_JOINT.replace('xyz="0 0 1" rpy', 'xyz="0 0 1x" rpy')), 8, "1x"),
    (two_links(GOOD_JOINT.replace('xyz="0 0 1" rpy', 'xyz="0 nan 1" rpy')), 8, "nan"),
    (two_links(GOOD_JOINT.replace('xyz="0 0 1" rpy', 'xyz="0 1" rpy')), 8, "3 number"),
    (two_links(GOOD_JOINT.replace('effort="1"', 'effort="inf"')), 10, "inf"),
    (two_links(GOOD_JOINT.replace("revolute", "revolut")), 5, "unknown joint type"),
    (two_links(GOOD_JOINT, '  <link name="c"/>\n  <joint name="free" type="floating">'
                           '<parent link="b"/><child link="c"/></joint>\n'), 13, "free base"),
    (two_links(GOOD_JOINT.replace("revolute", "planar")), 5, "not supported"),
    (two_links(GOOD_JOINT.replace('<parent link="a"/>', '<parent link="zz"/>')), 5, "'zz'"),
    (two_links(GOOD_JOINT.replace('<child link="b"/>', "")), 5, "<child>"),
    (two_links(GOOD_JOINT.replace('<axis xyz="0 0 1"/>', '<axis xyz="0 0 0"/>')), 9, "zero"),
    (two_links(GOOD_JOINT.replace("</joint>", '<mimic joint="j0"/></joint>')), 11, "mimic"),
    (two_links(extra='  <link name="c"/>\n'), 12, "single tree"),           # two roots
    (two_links(extra='  <joint name="j2" type="fixed"><parent link="b"/><child link="a"/>'
                     "</joint>\n"), 5, "cycle"),                            # no root
    (two_links(extra='  <link name="c"/>\n  <joint name="j2" type="fixed"><parent link="a"/>'
                     '<child link="b"/></joint>\n'), 13, "two joints"),     # closed loop
    (two_links(extra='  <link name="a"/>\n'), 12, "twice"),
    (two_links(GOOD_JOINT.replace("</joint>", "</jint>")), 11, "XML syntax"),
    ("""<?xml version="1.0"?>
<robot name="m">
  <link name="a"/>
  <link name="b">
    <inertial>
      <mass value="-1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
  </link>
""" + GOOD_JOINT + "\n</robot>", 6, "negative"),
    ("""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<robot name="&lol3;"><link name="a"/></robot>
""", 2, "DOCTYPE"),
])
def test_malformed_urdf(text, line, words):
    with pytest.raises(FileFormatError) as e:
        loads_urdf(text, "bad.urdf")
    msg = str(e.value)
    assert f"bad.urdf:{line}" in msg, msg
    assert e.value.location.line == line
    assert words in msg, msg


def test_inconsistent_inertia_reports_line():
    text = two_links(extra="""  <link name="c">
    <inertial>
      <mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>
    </inertial>
  </link>
  <joint name="j2" type="continuous"><parent link="b"/><child link="c"/></joint>
""")
    with pytest.raises(DescriptionError) as e:
        loads_urdf(text, "bad.urdf", inertia_check="error")
    assert "bad.urdf:13" in str(e.value) and "triangle" in str(e.value)


def test_impossible_inertia_of_a_urdf_kept_with_a_warning():
    """CAD-made URDF inertias often break the triangle inequality (ANYmal C, HyQ, PR2) or are
    slightly indefinite (TIAGo): kept as given, with a warning naming the file and line;
    ``inertia_check="error"`` refuses them, robmod's own formats refuse them by default."""
    text = two_links(extra="""  <link name="c">
    <inertial>
      <mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/>
    </inertial>
  </link>
  <joint name="j2" type="continuous"><parent link="b"/><child link="c"/></joint>
""")
    with pytest.warns(robmod.RobmodWarning, match=r"bad\.urdf:13.*triangle.*kept as given"):
        robot = loads_urdf(text, "bad.urdf")
    assert robot.inertia_check == "warn"
    last = robot.link(robot.n_links)
    assert sorted(float(v) for v in (last.XX, last.YY, last.ZZ)) == [1, 1, 3]   # as given
    with pytest.warns(robmod.RobmodWarning, match="triangle"):     # YAML keeps the choice
        again = robmod.description.loads_yaml(robmod.description.dumps_yaml(robot))
    assert again.inertia_check == "warn"
    A = robmod.dynamics.inertia_matrix(again, np.zeros(again.n_q))
    assert np.all(np.linalg.eigvalsh(A) > 0)
    with pytest.raises(robmod.ArgumentError, match="inertia_check"):
        loads_urdf(text, "bad.urdf", inertia_check="ignore")


def test_read_urdf_missing_file(tmp_path):
    with pytest.raises(FileFormatError, match="cannot read"):
        read_urdf(tmp_path / "nope.urdf")
