"""robmod against engines that owe nothing to Pinocchio: Drake and pybullet read the URDF files
themselves (example-robot-data's and pybullet_data's, which nobody here wrote), fixed and
floating bases, and tilted, wall and ceiling mounts of several arms: inverse dynamics and
inertia matrix to 1e-9 relative (robmod.testing.engines; Drake for every base, pybullet for
fixed ones).  A file an engine cannot load, or whose inertia it alters (pybullet zeroes an
impossible one and gives a link without <inertial> 1 kg, Drake changes some), is skipped with
the reason; one robmod refuses must be refused for a named defect.  The NumPy path and the
compiled path are each checked in a fresh cache (ROBMOD_CACHE in a temporary directory: a
compiled model left by an earlier run cannot answer in the NumPy path's place).
``ROBMOD_SLOW=1`` runs every file; the normal suite a subset."""
import glob
import os
import re
import warnings

import numpy as np
import pytest

import robmod
from robmod.dynamics import idm, inertia_matrix
from robmod.testing import example_robot_data

pytest.importorskip("pydrake")
pybullet_data = pytest.importorskip("pybullet_data")
from robmod.testing.engines import BulletRobot, DrakeRobot  # noqa: E402

SLOW = os.environ.get("ROBMOD_SLOW") == "1"
try:
    ERD = example_robot_data("")
except robmod.RobmodError:     # pragma: no cover
    ERD = None
PBD = pybullet_data.getDataPath()
ERD_FILES = sorted(glob.glob(os.path.join(ERD, "**", "*.urdf"), recursive=True)) if ERD else []
PBD_FILES = sorted(f for f in glob.glob(os.path.join(PBD, "**", "*.urdf"), recursive=True)
                   if "random_urdfs" not in f)
SUBSET = {"ur_description/urdf/ur5_robot.urdf", "panda_description/urdf/panda.urdf",
          "solo_description/robots/solo12.urdf", "talos_data/robots/talos_full_v2.urdf",
          "anymal_c_simple_description/urdf/anymal.urdf", "tiago_description/robots/tiago.urdf",
          "hector_description/robots/quadrotor_base.urdf", "so_arm_description/urdf/so100.urdf",
          "baxter_description/urdf/baxter.urdf", "kuka_iiwa/model.urdf",
          "quadruped/minitaur.urdf", "laikago/laikago_toes.urdf", "cube_no_rotation.urdf",
          "franka_panda/panda.urdf", "r2d2.urdf", "aliengo/aliengo.urdf", "g1_description/"
          "urdf/g1_29dof_with_hand_rev_1_0.urdf", "racecar/racecar_differential.urdf"}
#: the defects for which robmod refuses a file (its own and the packages' files)
DEFECTS = (r"triangle|positive semi-definite|massless|no joint|names no movable|needs the attribute"
           r"|not a finite number|XML syntax|must hold 3 number|more than one|unknown joint type"
           r"|has no <link>")


def _param(root, path):
    rel = os.path.relpath(path, root)
    marks = [] if rel in SUBSET or SLOW else [pytest.mark.skip(reason="every file with ROBMOD_SLOW=1")]
    return pytest.param(path, id=rel, marks=marks)


def _rel(ours, theirs):
    return float(np.abs(ours - theirs).max() / max(1.0, float(np.abs(theirs).max()))) \
        if np.size(theirs) else 0.0


def _read(path, base=None):
    """robmod's robot of ``path`` (numeric), or None when it refuses it for a named defect."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", robmod.RobmodWarning)
            return robmod.read_robot(path, base=base).numeric()
    except robmod.RobmodError as e:
        assert re.search(DEFECTS, str(e)), e
        return None


def _state(robot, rng):
    n = robot.n_q
    if robot.base_kind == "floating":
        Q = rng.normal(size=4)
        q = np.r_[rng.normal(size=3), Q / np.linalg.norm(Q), rng.uniform(-1, 1, n)]
        return q, rng.normal(size=6 + n), rng.normal(size=6 + n)
    return tuple(rng.uniform(-1, 1, (3, n)))


def _ours(robot, q, qd, qdd):
    return idm(robot, q, qd, qdd, friction=False), inertia_matrix(robot, q)


def agreement(path, engine, base=None, seed=0):
    """(worst relative error of the IDM, of the inertia matrix) of robmod against ``engine``
    (DrakeRobot or BulletRobot) on the file; a string: why it was not compared."""
    robot = _read(path, base)
    if robot is None:
        return "robmod refuses the file for a defect of the file"
    try:
        peer = engine(path, robot)
    except Exception as e:  # noqa: BLE001 - the engine's own refusal, whatever its type
        return f"{engine.__name__} cannot load it: {str(e).splitlines()[0][:120]}"
    if peer.altered:
        return f"{engine.__name__} alters the inertia of {', '.join(peer.altered[:3])}"
    rng = np.random.default_rng(seed)
    worst = [0.0, 0.0]
    for _ in range(2):
        q, qd, qdd = _state(robot, rng)
        tau, M = _ours(robot, q, qd, qdd)
        tau_e, M_e = peer.idm_and_inertia(q, qd, qdd)
        worst = [max(worst[0], _rel(tau, tau_e)), max(worst[1], _rel(M, M_e))]
    return tuple(worst)


@pytest.fixture(scope="module")
def numpy_path():
    old = robmod.set_backend("numpy")
    yield
    robmod.set_backend(old)


def _check(result):
    if isinstance(result, str):
        pytest.skip(result)
    assert max(result) <= 1e-9, result


@pytest.mark.parametrize("path", [_param(ERD, p) for p in ERD_FILES])
def test_example_robot_data_against_drake(path, numpy_path):
    _check(agreement(path, DrakeRobot))


@pytest.mark.parametrize("path", [_param(ERD, p) for p in ERD_FILES])
def test_example_robot_data_floating_against_drake(path, numpy_path):
    _check(agreement(path, DrakeRobot, base="floating"))


@pytest.mark.parametrize("engine", [DrakeRobot, BulletRobot], ids=["drake", "pybullet"])
@pytest.mark.parametrize("path", [_param(PBD, p) for p in PBD_FILES])
def test_pybullet_data_against_both_engines(path, engine, numpy_path):
    _check(agreement(path, engine))


# -- tilted, wall and ceiling mounts ----------------------------------------------------------
MOUNTS = {"wall": "1.5707963267948966 0 0", "ceiling": "3.141592653589793 0 0",
          "tilted": "0.3 -0.5 1.1"}
ARMS = {"ur5": lambda: example_robot_data("ur_description/urdf/ur5_gripper.urdf"),
        "panda": lambda: example_robot_data("panda_description/urdf/panda.urdf"),
        "iiwa": lambda: os.path.join(PBD, "kuka_iiwa", "model.urdf"),
        "so100": lambda: example_robot_data("so_arm_description/urdf/so100.urdf")}


def mounted(path, rpy, directory):
    """The file's robot fixed to a ``world`` link by a joint turned by ``rpy`` (geometry
    left out: its meshes' paths are relative to the file)."""
    from robmod.testing.engines import stripped_copy

    text = open(stripped_copy(path, directory), encoding="utf-8").read()
    links = re.findall(r'<link\s+name="([^"]+)"', text)
    children = set(re.findall(r'<child\s+link="([^"]+)"', text))
    root = next(n for n in links if n not in children)
    if root == "world":           # already on a world link: that one becomes a stand
        text, root = text.replace('"world"', '"stand"'), "stand"
    mount = (f'<link name="world"/><joint name="mount" type="fixed"><parent link="world"/>'
             f'<child link="{root}"/><origin xyz="0.1 -0.2 1.5" rpy="{rpy}"/></joint>')
    out = os.path.join(directory, "mounted.urdf")
    with open(out, "w", encoding="utf-8") as f:
        f.write(text.replace("</robot>", mount + "</robot>"))
    return out


@pytest.fixture(params=["numpy", "compiled"])
def fresh_path(request, tmp_path, monkeypatch):
    """The NumPy path, or the compiled one built now in an empty cache."""
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path / "cache"))
    robmod.symbolic.clear()
    old = robmod.set_backend(request.param)
    yield request.param
    robmod.set_backend(old)
    robmod.symbolic.clear()


@pytest.mark.parametrize("mount", list(MOUNTS))
@pytest.mark.parametrize("arm", list(ARMS))
def test_mounted_arms_against_pinocchio_drake_and_pybullet(arm, mount, tmp_path, fresh_path):
    """The world's gravity in frame 0: robmod, Pinocchio, Drake and pybullet on the same file,
    by both of robmod's paths."""
    pin = pytest.importorskip("pinocchio")
    path = mounted(ARMS[arm](), MOUNTS[mount], str(tmp_path))
    robot = _read(path)
    assert not np.allclose(np.array(robot.Z, dtype=float)[:3, :3], np.eye(3))
    rng = np.random.default_rng(7)
    q, qd, qdd = _state(robot, rng)
    tau, M = _ours(robot, q, qd, qdd)
    g = robmod.dynamics.gravity_torques(robot, q)
    for engine in (DrakeRobot, BulletRobot):
        peer = engine(path, robot)
        if peer.altered:
            continue            # pybullet's own change of Panda's hand (see above)
        tau_e, M_e = peer.idm_and_inertia(q, qd, qdd)
        assert _rel(tau, tau_e) <= 1e-9 and _rel(M, M_e) <= 1e-9, engine.__name__
        g_e, _ = peer.idm_and_inertia(q, 0 * qd, 0 * qdd)
        assert _rel(g, g_e) <= 1e-9, engine.__name__
    model = pin.buildModelFromUrdf(path, mimic=bool(robot.mimic))
    data = model.createData()
    names = robmod.testing.engines.urdf_joint_names(robot)
    idx = [model.joints[model.getJointId(names[j])].idx_v for j in robot.joints]
    qp = pin.neutral(model)
    for k, jid in enumerate(model.getJointId(names[j]) for j in robot.joints):
        qp[model.joints[jid].idx_q] = q[k]
    vp, ap = np.zeros(model.nv), np.zeros(model.nv)
    vp[idx], ap[idx] = qd, qdd
    assert model.nv == robot.n_q
    assert _rel(tau, pin.rnea(model, data, qp, vp, ap)[idx]) <= 1e-9


def test_the_engines_see_the_issue_file_as_robmod_does(tmp_path):
    """The minimal tilted file of issue 35: 9.81 N m in robmod, Drake and pybullet."""
    from test_base_placement import TILTED_URDF, WALL

    path = tmp_path / "tilted.urdf"
    path.write_text(TILTED_URDF.format(rpy=WALL))
    robot = _read(str(path))
    z = np.zeros(1)
    for engine in (DrakeRobot, BulletRobot):
        tau, M = engine(str(path), robot).idm_and_inertia(z, z, z)
        assert tau == pytest.approx([9.81], abs=1e-12) and np.allclose(M, [[1.0]])
    assert idm(robot, z, z, z) == pytest.approx([9.81], abs=1e-12)


def test_a_floating_joint_from_the_world_is_the_files_free_base(tmp_path):
    """A <joint type="floating"> from a world link: robmod takes the floating base from the
    file, and agrees with Drake, which reads the same joint."""
    path = mounted(ARMS["panda"](), "0 0 0", str(tmp_path))
    text = open(path).read().replace('name="mount" type="fixed"', 'name="mount" type="floating"')
    free = tmp_path / "free.urdf"
    free.write_text(text.replace('xyz="0.1 -0.2 1.5" ', ""))
    robot = _read(str(free))
    assert robot.base_kind == "floating" and robot.n_q == 8
    _check(agreement(str(free), DrakeRobot))
