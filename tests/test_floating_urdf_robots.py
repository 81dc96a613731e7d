"""The URDF files of example-robot-data with a floating base (``read_robot(path,
base="floating")``) against Pinocchio with a free-flyer root (``buildModelFromUrdf(path,
JointModelFreeFlyer())``): frames, centre of mass, rnea (base wrench and torques), crba, aba,
the centroidal momentum matrix, to 1e-9 relative (the direct model: times the condition number
of the inertia matrix), or robmod refuses the file with a RobmodError (physically impossible
inertias, no joint).  A representative subset runs in the normal suite (quadrupeds -- ANYmal's
root link holds a placeholder inertia, a body only with the link welded to it --, a big
humanoid, a flying arm, an arm as a free-floating space robot, a robot with mimic joints);
``ROBMOD_SLOW=1`` runs every file."""
import glob
import os
import re

import numpy as np
import pytest

import robmod
from robmod.dynamics import center_of_mass, centroidal_momentum_matrix, ddm, idm, inertia_matrix
from robmod.geometry import dgm
from robmod.testing import to_pinocchio_configuration

pin = pytest.importorskip("pinocchio")


def _robots_dir():
    try:
        import cmeel
    except ImportError:  # pragma: no cover
        return None
    d = os.path.join(os.path.dirname(os.path.dirname(cmeel.__file__)), "cmeel.prefix", "share",
                     "example-robot-data", "robots")
    return d if os.path.isdir(d) else None


ROOT = _robots_dir()
FILES = sorted(glob.glob(os.path.join(ROOT, "**", "*.urdf"), recursive=True)) if ROOT else []
if not FILES:   # pragma: no cover
    pytest.skip("example-robot-data is not installed", allow_module_level=True)
SUBSET = {"solo_description/robots/solo12.urdf", "talos_data/robots/talos_reduced.urdf",
          "hextilt_description/urdf/hextilt_flying_arm_5.urdf",
          "ur_description/urdf/ur5_robot.urdf", "go2_description/urdf/go2.urdf",
          "anymal_b_simple_description/robots/anymal.urdf",
          "baxter_description/urdf/baxter.urdf"}
SLOW = os.environ.get("ROBMOD_SLOW") == "1"


def _param(path):
    rel = os.path.relpath(path, ROOT)
    marks = [] if rel in SUBSET or SLOW else [
        pytest.mark.skip(reason="every file with ROBMOD_SLOW=1")]
    return pytest.param(path, id=rel, marks=marks)


def pinocchio_model(path, mimic):
    try:
        return pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer(), mimic=mimic)
    except Exception:   # noqa: BLE001 - Pinocchio refuses some files of the package itself
        return None


def compare(path, seed=0):
    """{quantity: relative error} of robmod against Pinocchio at a random state (None: robmod
    refused the file; a string: why the file was skipped)."""
    try:
        robot = robmod.read_robot(path, base="floating").numeric()
    except robmod.RobmodError as e:
        assert re.search(r"triangle|positive semi-definite|massless|no joint|names no movable|"
                         r"needs the attribute", str(e)), e
        return None
    model = pinocchio_model(path, bool(robot.mimic))
    if model is None:
        return "Pinocchio cannot build this file (with its mimic joints)"
    data = model.createData()
    names = dict(re.findall(r"(\d+): joint '([^']+)'", robot.description))
    joints = list(robot.joints)
    ids = [model.getJointId(names[str(j)]) for j in joints]
    assert model.nv == 6 + len(joints)
    rng = np.random.default_rng(seed)
    theta, vj, aj = rng.uniform(-1, 1, (3, len(joints)))
    Q = rng.normal(size=4)
    q = np.r_[rng.normal(size=3), Q / np.linalg.norm(Q), theta]
    v, a = np.r_[rng.normal(size=6), vj], np.r_[rng.normal(size=6), aj]
    from test_urdf_robots import pinocchio_state     # noqa: PLC0415 - the same helper

    qp, vp, ap = pinocchio_state(model, ids, theta, vj, aj)
    qp[:7] = to_pinocchio_configuration(q[:7])
    vp[:6], ap[:6] = v[:6], a[:6]
    perm = list(range(6)) + [model.joints[jid].idx_v for jid in ids]

    def rel(ours, theirs):
        return float(np.abs(ours - theirs).max() / max(1.0, np.abs(theirs).max()))

    err = {}
    # frames: every URDF link's origin (frames read without re-framing keep them)
    from robmod.description.io_urdf import read_urdf

    plain = read_urdf(path, mdh=False, base="floating").numeric()
    pin.framesForwardKinematics(model, data, qp)
    worst = 0.0
    for link, j in plain.frame_names.items():
        kind = pin.BODY if model.existFrame(link, pin.BODY) else pin.FIXED_JOINT
        if model.existFrame(link, kind) and j <= plain.n_links:
            T = dgm(plain, q, j=j, i="world")
            M = data.oMf[model.getFrameId(link, kind)]
            worst = max(worst, float(np.abs(T[:3, 3] - M.translation).max()))
            if j == 0 or plain.frame(j).sigma == 2:      # fixed frames: the whole pose
                worst = max(worst, float(np.abs(T[:3, :3] - M.rotation).max()))
    err["frames"] = worst / max(1.0, float(np.abs(q[:3]).max()))
    tau = pin.rnea(model, data, qp, vp, ap)
    err["rnea"] = rel(idm(robot, q, v, a, friction=False), tau[perm])
    M = pin.crba(model, data, qp)
    M = np.triu(M) + np.triu(M, 1).T
    Mr = M[np.ix_(perm, perm)]
    err["crba"] = rel(inertia_matrix(robot, q), Mr)
    err["com"] = rel(center_of_mass(robot, q, i="world"), pin.centerOfMass(model, data, qp))
    err["centroidal"] = rel(centroidal_momentum_matrix(robot, q, i="world"),
                            pin.computeCentroidalMap(model, data, qp)[:, perm])
    torque = np.zeros(model.nv)
    torque[6:] = tau[6:]
    if robot.mimic:         # Pinocchio's aba does not take mimic joints: M^-1 (tau - h)
        h = pin.rnea(model, data, qp, vp, np.zeros(model.nv))
        acc = np.linalg.solve(M, torque - h)
    else:
        acc = pin.aba(model, data, qp, vp, torque)
    cond = float(np.linalg.cond(Mr))
    err["aba"] = rel(ddm(robot, q, v, tau[perm][6:], friction=False), acc[perm])
    err["aba/cond"] = err["aba"] / cond
    err["cond"] = cond
    return err


@pytest.fixture
def numpy_backend():
    """One call per model and frame: the NumPy path (the compiled one is the same model,
    tests/test_floating.py)."""
    old = robmod.set_backend("numpy")
    yield
    robmod.set_backend(old)


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_floating_base_against_pinocchio_free_flyer(path, numpy_backend):
    err = compare(path)
    if isinstance(err, str):
        pytest.skip(err)
    if err is None:
        return
    for k in ("frames", "rnea", "crba", "com", "centroidal", "aba/cond"):
        assert err[k] <= 1e-9, (k, err)


def test_cli_on_a_floating_robot(tmp_path, capsys):
    """robmod show / models / draw with --base floating on Solo-12."""
    from robmod.cli import main

    path = os.path.join(ROOT, "solo_description", "robots", "solo12.urdf")
    assert main(["show", path, "--base", "floating"]) == 0
    out = capsys.readouterr().out
    assert "Base: floating" in out and "Link 0: XX = 0.00578574" in out
    assert main(["models", path, "--base", "floating", "--numeric", "--quiet", "--formats",
                 "txt", "--out", str(tmp_path / "m")]) == 0
    out = capsys.readouterr().out
    for title in ("IDM (Newton-Euler)", "DGM wTn (the world frame)", "free-floating IDM (SYMORO)",
                  "inertia matrix", "DDM (recursive)", "centroidal momentum matrix"):
        assert title in out
    assert (tmp_path / "m" / "solo_free_floating_idm.txt").exists()
    pytest.importorskip("matplotlib")
    assert main(["draw", path, "--base", "floating", "--q", "0.3", "-o",
                 str(tmp_path / "solo.png")]) == 0
    assert (tmp_path / "solo.png").stat().st_size > 1000
