"""Gravity is the world's, whatever places the base (issue 35).

``robot.gravity`` is the world's gravity g; every model uses it in frame 0, 0g = 0R_f g, with
fR_0 the rotation of the base matrix Z = fT0 (or a floating base's orientation).  The tests: the
minimal tilted file of the issue (9.81 N m held at q = 0 where robmod gave 0), every way a
placement enters (URDF root joint, ``make_robot(Z=...)``, YAML and ``.par`` Z,
``with_base``, mobile and floating bases), every model that takes gravity against the same robot
with Z's rotation folded into its gravity (idm, gravity torques, energies, ddm, regressor,
rotors, elastic joints, closed loops, operational space, Siciliano's conventions, the MJCF
writer), the customized models (a symbolic Z gives the symbols G01..G03; an identity Z changes
nothing), and the base parameters (a tilted gravity makes MX1, MY1 of a vertical first axis
identifiable: the RX-90 has two more).  The engines' view of tilted mounts of real arms is in
tests/test_engines.py."""
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description import loads_yaml, make_robot
from robmod.description.io_par import loads_par
from robmod.description.io_urdf import dumps_urdf, loads_urdf
from robmod.dynamics import (closed_loop_gravity_torques, closed_loop_idm, ddm, elastic_idm,
                             energy, from_siciliano, gravity_torques, gravity_torques_model,
                             idm, idm_model, idm_with_rotors, inertia_matrix,
                             operational_space, potential_energy, to_siciliano, Rotor)
from robmod.errors import DescriptionError
from robmod.identification import base_parameters, numeric_base, regressor
from robmod.identification.parameters import parameter_set
from robmod.spatial import rpy_to_matrix
from robmod.testing import random_robot, with_random_dynamics

TILTED_URDF = """<?xml version="1.0"?>
<robot name="tilted">
  <link name="world"/>
  <joint name="mount" type="fixed">
    <parent link="world"/><child link="base"/>
    <origin xyz="0 0 0" rpy="{rpy}"/>
  </joint>
  <link name="base"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="100" velocity="1"/>
  </joint>
  <link name="arm">
    <inertial><origin xyz="1 0 0"/><mass value="1"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
  </link>
</robot>
"""
WALL = "1.5707963267948966 0 0"


@pytest.fixture
def backend(request, tmp_path, monkeypatch):
    """The NumPy path, or the compiled one built now in an empty cache."""
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path))
    robmod.symbolic.clear()
    old = robmod.set_backend(request.param)
    yield request.param
    robmod.set_backend(old)
    robmod.symbolic.clear()


@pytest.mark.parametrize("backend", ["numpy", "compiled"], indirect=True)
def test_the_issue_file_holds_9_81_newton_metres(backend):
    """world -> fixed joint rpy (pi/2, 0, 0) -> massless base -> revolute z -> 1 kg at x = 1 m:
    the axis is horizontal, the arm horizontal at q = 0: 9.81 N m (robmod gave 0)."""
    robot = loads_urdf(TILTED_URDF.format(rpy=WALL)).numeric()
    assert np.allclose(np.array(robot.Z, dtype=float)[:3, :3],
                       rpy_to_matrix(0, 0, np.pi / 2))
    z = np.zeros(1)
    assert idm(robot, z, z, z) == pytest.approx([9.81], abs=1e-12)
    assert gravity_torques(robot, z) == pytest.approx([9.81], abs=1e-12)
    assert idm(robot, [np.pi / 2], z, z) == pytest.approx([0.0], abs=1e-12)
    # the free arm falls: A qdd = -Q, A = 1 kg m^2
    assert ddm(robot, z, z, z) == pytest.approx([-9.81], abs=1e-12)
    # the potential energy falls as the mass goes down (along -y0): dU/dq = Q
    h = 1e-6
    dU = (potential_energy(robot, [h]) - potential_energy(robot, [-h])) / (2 * h)
    assert float(dU) == pytest.approx(9.81, rel=1e-8)


def test_the_issue_file_in_pinocchio():
    pin = pytest.importorskip("pinocchio")
    import tempfile, os

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tilted.urdf")
        with open(path, "w") as f:
            f.write(TILTED_URDF.format(rpy=WALL))
        model = pin.buildModelFromUrdf(path)
    data = model.createData()
    robot = loads_urdf(TILTED_URDF.format(rpy=WALL)).numeric()
    for q in (0.0, 0.7, -2.0):
        ref = pin.rnea(model, data, np.array([q]), np.zeros(1), np.zeros(1))
        assert idm(robot, [q], [0.0], [0.0]) == pytest.approx(ref, abs=1e-12)


def _one_joint(base):
    """The issue's robot built in Python with the base matrix ``base``."""
    return make_robot("one", [dict(j=1, ant=0, sigma=0)],
                      [dict(j=1, M=1, MX=1, XX=0, YY=1, ZZ=1)], Z=base,
                      gravity=(0, 0, -9.81))


def _wall(a=sp.pi / 2):
    return sp.Matrix([[1, 0, 0, 0], [0, sp.cos(a), -sp.sin(a), 0],
                      [0, sp.sin(a), sp.cos(a), 0], [0, 0, 0, 1]])


def test_every_way_a_base_placement_enters():
    """URDF root joint, make_robot(Z=...), YAML Z (matrix and KK parameters), .par Z,
    with_base to a mobile base: the same 9.81 N m."""
    z = np.zeros(1)
    robots = {"urdf": loads_urdf(TILTED_URDF.format(rpy=WALL)),
              "make_robot": _one_joint(_wall())}
    robots["yaml"] = loads_yaml("""
name: one
frames: [{j: 1, ant: 0, sigma: 0, theta: q1}]
links: [{j: 1, M: 1, MX: 1, XX: 0, XY: 0, XZ: 0, YY: 1, YZ: 0, ZZ: 1, MY: 0, MZ: 0, IA: 0,
         FC: 0, FV: 0}]
base:
  Z: {alpha: pi/2}
  gravity: [0, 0, -9.81]
""")
    robots["par"] = loads_par("""
NL = 1
NJ = 1
NF = 1
ant = {0}
sigma = {0}
theta = {q1}
XX = {0}
YY = {1}
ZZ = {1}
XY = {0}
XZ = {0}
YZ = {0}
MX = {1}
MY = {0}
MZ = {0}
M = {1}
IA = {0}
FV = {0}
FS = {0}
FX = {0}
FY = {0}
FZ = {0}
CX = {0}
CY = {0}
CZ = {0}
G = {0, 0, -9.81}
Z = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1}
""")
    for name, robot in robots.items():
        robot = robot.numeric()
        assert idm(robot, z, z, z, friction=False) == pytest.approx([9.81], abs=1e-12), name
        assert gravity_torques(robot, z) == pytest.approx([9.81], abs=1e-12), name
    # a mobile base: the placement is the base's pose in the configuration (Z the identity)
    with pytest.raises(DescriptionError, match="mobile base has no constant Z"):
        robots["make_robot"].with_base("mobile", M=3, XX=1, YY=1, ZZ=1)
    mobile = _one_joint(None).with_base("mobile", M=3, XX=1, YY=1, ZZ=1).numeric()
    c = np.cos(np.pi / 4)
    q, v = np.r_[0, 0, 0, c, c, 0, 0, 0.0], np.zeros(7)      # frame 0 turned by pi/2 about x
    assert idm(mobile, q, v, v, friction=False)[6] == pytest.approx(9.81, abs=1e-12)
    assert gravity_torques(mobile, q)[6] == pytest.approx(9.81, abs=1e-12)


def test_a_ceiling_mount_reverses_gravity_and_a_floating_base_turns_it():
    """Pitched by pi/2, x0 points down: the arm hangs at q = 0, is held by 9.81 N m at pi/2;
    upside down (rpy = (pi, 0, 0)) the axis is vertical again; a floating base gets its
    orientation from its configuration: the same torque as the wall mount."""
    down = loads_urdf(TILTED_URDF.format(rpy="0 1.5707963267948966 0")).numeric()
    assert np.allclose(gravity_torques(down, [[0.0], [np.pi / 2]]), [[0.0], [9.81]],
                       atol=1e-12)
    ceiling = loads_urdf(TILTED_URDF.format(rpy="3.141592653589793 0 0")).numeric()
    assert gravity_torques(ceiling, [0.3]) == pytest.approx([0.0], abs=1e-12)  # axis vertical
    free = _one_joint(None).with_base("floating", M=1, XX=1, YY=1, ZZ=1).numeric()
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)        # frame 0 turned by pi/2 about x
    q = np.r_[0, 0, 0, c, s, 0, 0, 0.0]
    out = idm(free, q, np.zeros(7), np.zeros(7))
    assert out[6] == pytest.approx(9.81, abs=1e-12)


def _folded(robot):
    """The same robot with Z's rotation taken out and folded into its gravity (0R_f g)."""
    Z = np.array(robot.Z, dtype=float)
    g = Z[:3, :3].T @ np.array(robot.gravity, dtype=float)
    plain = np.eye(4)
    plain[:3, 3] = Z[:3, 3]
    return replace(robot, Z=sp.ImmutableMatrix(plain), gravity=tuple(sp.Float(x) for x in g))


def _tilt(rng):
    return sp.ImmutableMatrix(np.block([[rpy_to_matrix(*rng.uniform(-np.pi, np.pi, 3)),
                                         rng.normal(size=(3, 1))], [np.zeros((1, 3)), 1]]))


@pytest.mark.parametrize("seed", range(3))
def test_every_model_takes_gravity_in_frame_0(seed):
    """(Z, g) and (Z without rotation, 0R_f g) are the same robot for every model."""
    rng = np.random.default_rng(seed)
    robot = replace(random_robot(rng, n=5, tree=seed == 1), Z=_tilt(rng))
    robot = with_random_dynamics(robot, rng, friction=True)
    ref = _folded(robot)
    n = robot.n_q
    q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 4, n))
    assert not np.allclose(gravity_torques(robot, q), gravity_torques(replace(
        ref, gravity=robot.gravity), q))      # the rotation matters
    for fn, args in ((idm, (q, qd, qdd)), (gravity_torques, (q,)), (ddm, (q, qd, qdd)),
                     (potential_energy, (q,)), (inertia_matrix, (q,))):
        assert np.allclose(fn(robot, *args), fn(ref, *args), rtol=1e-10, atol=1e-10), fn
    assert np.allclose(energy(robot, q, qd).potential, energy(ref, q, qd).potential)
    names = parameter_set(robot, rotor=True, friction=True)
    assert np.allclose(regressor(robot, q, qd, qdd, params=names),
                       regressor(ref, q, qd, qdd, params=names), atol=1e-10)
    rotors = (Rotor(2, 0.01, 50.0, (1.0, 0.0, 0.0)),)
    assert np.allclose(idm_with_rotors(robot, rotors, q, qd, qdd),
                       idm_with_rotors(ref, rotors, q, qd, qdd), atol=1e-10)
    elastic = replace(robot, links=tuple(replace(l, K=sp.Float(300.0)) for l in robot.links))
    d = rng.uniform(-1, 1, (5, n))
    assert np.allclose(elastic_idm(elastic, *d).tau,
                       elastic_idm(_folded(elastic), *d).tau, atol=1e-9)
    last = robot.n_links
    a, b = (operational_space(r, q[0], qd[0], j=last, rows=(0,)) for r in (robot, ref))
    assert np.allclose(a.p, b.p, atol=1e-9)


def test_closed_loops_take_gravity_in_frame_0():
    robot = robmod.load_robot("parallelogram", numeric=True)
    tilted = replace(robot, Z=sp.ImmutableMatrix(_wall(0.4)), gravity=(0, 0, -9.81))
    ref = _folded(tilted)
    qa = np.array([[0.3, 1.4], [-0.2, 1.9]])
    q1, q4 = qa[:, 0], qa[:, 1]             # the closed parallelogram: q2 = q4 - q1, q3 = pi - q2
    guess = np.stack([q1, q4 - q1, np.pi - q4 + q1, q4, q4 - q1 - np.pi], axis=-1)
    ga = closed_loop_gravity_torques(tilted, qa, q_guess=guess)
    assert np.allclose(ga, closed_loop_gravity_torques(ref, qa, q_guess=guess), atol=1e-10)
    assert not np.allclose(ga, closed_loop_gravity_torques(robot, qa, q_guess=guess))
    z = np.zeros_like(qa)
    assert np.allclose(closed_loop_idm(tilted, qa, z, z, q_guess=guess),
                       closed_loop_idm(ref, qa, z, z, q_guess=guess), atol=1e-10)


def test_siciliano_gravity_is_g0_in_frame_0_and_the_robots_the_worlds():
    rng = np.random.default_rng(3)
    rx90 = with_random_dynamics(robmod.load_robot("rx90", numeric=True), rng)
    tilted = replace(rx90, Z=sp.ImmutableMatrix(_wall(0.5)), gravity=(0, 0, -9.81))
    arm = to_siciliano(tilted)
    R = np.array(arm.Z, dtype=float)[:3, :3]
    assert np.allclose(np.array(arm.gravity, dtype=float), R.T @ [0, 0, -9.81])
    back, _ = arm.to_robot()
    assert np.allclose(np.array(back.gravity, dtype=float), [0, 0, -9.81])
    q = rng.uniform(-1, 1, (3, 6))
    assert np.allclose(gravity_torques(back, q), gravity_torques(tilted, q), atol=1e-9)
    # an identity base keeps a symbolic gravity as it is
    plain, _ = from_siciliano("two", [dict(a=1, m=1), dict(a=1, m=1)], gravity=(0, -sp.Symbol("g"), 0))
    assert plain.gravity == (0, -sp.Symbol("g"), 0)


def test_the_mjcf_writer_gives_mujoco_gravity_in_frame_0():
    mujoco = pytest.importorskip("mujoco")
    from robmod.description import to_mjcf

    robot = loads_urdf(TILTED_URDF.format(rpy=WALL)).numeric()
    model = mujoco.MjModel.from_xml_string(str(to_mjcf(robot)))
    assert np.allclose(model.opt.gravity, [0, -9.81, 0])
    data = mujoco.MjData(model)
    mujoco.mj_inverse(model, data)
    assert data.qfrc_inverse == pytest.approx([9.81], abs=1e-9)


def test_the_urdf_writer_keeps_the_placement_and_the_worlds_gravity():
    robot = loads_urdf(TILTED_URDF.format(rpy=WALL)).numeric()
    again = loads_urdf(dumps_urdf(robot)).numeric()
    assert gravity_torques(again, [0.0]) == pytest.approx([9.81], abs=1e-12)


def test_customized_models_take_a_symbolic_z_and_an_identity_z_costs_nothing():
    """A symbolic Z: gravity in frame 0 as the intermediate variables G01..G03 (Z's entries
    times g); Z's rotation numbers: folded into numbers; an identity Z: the model unchanged."""
    a = sp.Symbol("A0")
    sym = replace(robmod.load_robot("rx90"), Z=sp.ImmutableMatrix(_wall(a)))
    model = gravity_torques_model(sym)
    names = {str(lhs) for lhs, _ in model.statements}
    assert {"G02", "G03"} <= names and "G01" not in names     # Z turns about x0
    rhs = dict((str(lhs), rhs) for lhs, rhs in model.statements)
    assert rhs["G02"] == sp.sin(a) * sp.Symbol("G3")
    plain = robmod.load_robot("rx90")
    counts = idm_model(plain, friction=False, rotor=False).count()
    assert (counts.mults, counts.adds) == (288, 271)
    assert not any(str(lhs).startswith("G0") for lhs, _ in idm_model(plain).statements)
    # numbers in Z (a wall mount): no statement for gravity, numbers in the model
    wall = replace(robmod.load_robot("rx90", numeric=True), Z=sp.ImmutableMatrix(_wall()))
    assert not any(str(lhs).startswith("G0") for lhs, _ in idm_model(wall).statements)


def _rank(robot):
    num = robot.numeric()
    return numeric_base(num, parameter_set(num, rotor=True, friction=True)).rank


def test_base_parameters_with_gravity_tilted_in_frame_0():
    """RX-90, axis 1 along gravity: 52 base parameters (friction and rotors included); on a
    wall or tilted, gravity has a component across z0 and MX1, MY1 become identifiable: 54,
    the regressor's rank at random states, with a symbolic tilt too."""
    rx90 = robmod.load_robot("rx90")
    assert len(base_parameters(rx90)) == _rank(rx90) == 52
    a = sp.Symbol("A0")
    for Z in (_wall(), _wall(0.3), _wall(a)):
        tilted = replace(rx90, Z=sp.ImmutableMatrix(Z), values={**rx90.values, "A0": 0.3})
        bp = base_parameters(tilted)
        assert len(bp) == _rank(tilted) == 54
        assert {"MX1", "MYR1"} <= set(bp.names)
        assert bp["MYR1"] == sp.Symbol("MY1") - sp.Symbol("MZ2") - sp.Symbol("MZ3")


def test_gravity_compensation_holds_a_wall_mounted_arm():
    """PD + Q(q^d) (Khalil & Dombre (9.12)) on a UR5 on a wall, from rest at the set point:
    the compensation is the world's gravity in frame 0, so the arm does not move."""
    from robmod.control import PDGravity, simulate

    ur5 = robmod.load_robot("ur5", numeric=True)
    wall = replace(ur5, Z=sp.ImmutableMatrix(_wall()))
    qd = np.array([0.3, -1.0, 1.2, -0.4, 0.6, 0.2])
    assert np.abs(gravity_torques(wall, qd)).max() > 1.0        # gravity does load it
    pd = PDGravity(wall, kp=np.full(6, 400.0), kd=np.full(6, 40.0), at_desired=True)
    run = simulate(wall, pd, qd, 0.5, x0=np.r_[qd, np.zeros(6)], saturation=False)
    assert np.abs(run.q - qd).max() < 1e-9
