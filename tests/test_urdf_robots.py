"""Every URDF of the example-robot-data package (a test dependency), fixed base: robmod's
inverse dynamics and inertia matrix equal Pinocchio's to 1e-9 at random states, or robmod
refuses the file with a RobmodError (physically impossible inertias, no joint).  Mimic joints
(grippers) are dependent joints on both sides (Pinocchio's ``mimic=True``)."""
import glob
import os
import re

import numpy as np
import pytest

import robmod
from robmod.dynamics import ddm, idm, inertia_matrix

pin = pytest.importorskip("pinocchio")


def _robots_dir():
    try:
        import cmeel
        base = cmeel.__file__
    except ImportError:  # pragma: no cover
        return None
    for root in (os.path.dirname(os.path.dirname(base)),):
        d = os.path.join(root, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(d):
            return d
    return None


ROOT = _robots_dir()
FILES = sorted(glob.glob(os.path.join(ROOT, "**", "*.urdf"), recursive=True)) if ROOT else []
if not FILES:   # pragma: no cover
    pytest.skip("example-robot-data is not installed", allow_module_level=True)


def pinocchio_model(path):
    """Pinocchio's model with its mimic joints, or without them when Pinocchio cannot build
    those (the test then skips a robot that has some); None if it cannot read the file."""
    for mimic in (True, False):
        try:
            model = pin.buildModelFromUrdf(path, mimic=mimic)
            model.robmod_mimic = mimic
            return model
        except Exception:   # noqa: BLE001 - Pinocchio refuses some files of the package itself
            continue
    return None


def pinocchio_state(model, ids, theta, v, a):
    """Pinocchio's q, v, a of the joints ``ids`` at robmod's joint values (the free-flyer's
    entries, if any, left neutral and zero)."""
    q_pin = pin.neutral(model)
    v_pin, a_pin = np.zeros(model.nv), np.zeros(model.nv)
    for k, jid in enumerate(ids):
        jm = model.joints[jid]
        if jm.nq == 2:          # unbounded revolute: (cos, sin)
            q_pin[jm.idx_q:jm.idx_q + 2] = np.cos(theta[k]), np.sin(theta[k])
        else:
            q_pin[jm.idx_q] = theta[k]
        v_pin[jm.idx_v], a_pin[jm.idx_v] = v[k], a[k]
    return q_pin, v_pin, a_pin


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_example_robot_data_urdf(path):
    model = pinocchio_model(path)
    if model is None:
        pytest.skip("Pinocchio cannot read this file")
    try:
        robot = robmod.read_robot(path).numeric()
    except robmod.RobmodError as e:
        assert re.search(r"triangle|positive semi-definite|massless|no joint|names no movable", str(e)), e
        return
    if robot.mimic and not model.robmod_mimic:
        pytest.skip("Pinocchio cannot build this file's mimic joints")
    names = dict(re.findall(r"(\d+): joint '([^']+)'", robot.description))
    joints = [j for j in robot.joints if j <= robot.n_links]
    ids = [model.getJointId(names[str(j)]) for j in joints]
    dependent = [model.getJointId(names[str(j)]) for j in robot.mimic]
    assert sorted(ids + dependent) == list(range(1, model.njoints))   # the same joints
    assert model.nv == len(joints)                                      # mimic: no dof
    if not joints:
        return
    rng = np.random.default_rng(0)
    data = model.createData()
    for _ in range(2):
        theta, v, a = rng.uniform(-1, 1, (3, len(joints)))
        q_pin, v_pin, a_pin = pinocchio_state(model, ids, theta, v, a)
        perm = [model.joints[jid].idx_v for jid in ids]
        tau = pin.rnea(model, data, q_pin, v_pin, a_pin)[perm]
        M = pin.crba(model, data, q_pin)
        M = (np.triu(M) + np.triu(M, 1).T)[np.ix_(perm, perm)]
        scale = max(1.0, np.abs(tau).max())
        assert np.abs(idm(robot, theta, v, a, friction=False) - tau).max() <= 1e-9 * scale
        assert np.abs(inertia_matrix(robot, theta) - M).max() <= 1e-9 * max(1.0, np.abs(M).max())
        tau_full = pin.rnea(model, data, q_pin, v_pin, a_pin)
        if robot.mimic:     # Pinocchio's ABA does not take mimic joints: M^-1 (tau - h)
            h = pin.rnea(model, data, q_pin, v_pin, np.zeros(model.nv))
            Mf = pin.crba(model, data, q_pin)
            qdd = np.linalg.solve(np.triu(Mf) + np.triu(Mf, 1).T, tau_full - h)[perm]
        else:
            qdd = pin.aba(model, data, q_pin, v_pin, tau_full)[perm]
        if np.linalg.cond(M) < 1e8:
            assert np.abs(ddm(robot, theta, v, tau_full[perm], friction=False) - qdd).max() \
                <= 1e-7 * max(1.0, np.abs(qdd).max())


# -- every customized model of every robot file ------------------------------------------------
# The biggest trees (Talos and Romeo: 32 and 33 joints with mimic grippers, Tiago Pro's mimic
# grippers, the 43-joint G1 with hands) and a serial arm with fixed frames run in the suite; every
# file of the package with ROBMOD_SLOW=1 (``make slow``).
REPRESENTATIVE = ["talos_data/robots/talos_full_v2.urdf", "romeo_description/urdf/romeo.urdf",
                  "tiago_pro_description/robots/tiago_pro.urdf",
                  "g1_description/urdf/g1_29dof_with_hand_rev_1_0.urdf",
                  "ur_description/urdf/ur5_robot.urdf"]
SLOW = pytest.mark.skipif(not os.environ.get("ROBMOD_SLOW"),
                          reason="every file of the package: ROBMOD_SLOW=1 (make slow)")


def check_customized_models(path):
    """IDM, inertia matrix, DDM and base parameters generated; each agrees with the numeric
    model at random states (Φ_b β = Γ for the base parameters).  The DDM of a robot whose
    inertia matrix is singular (a joint moving only massless links) is refused by name."""
    from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model
    from robmod.identification import base_parameters, regressor

    try:
        robot = robmod.read_robot(path)
    except robmod.RobmodError:
        return None     # refused files: see test_example_robot_data_urdf
    n = robot.n_q
    if n == 0:      # fixed frames only: the models exist, empty
        for build in (idm_model, inertia_matrix_model, ddm_model, base_parameters):
            build(robot)
        return robot
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-1, 1, (3, 2, n))
    tau = idm(robot, q, qd, qdd)
    scale = max(1.0, np.abs(tau).max())
    gam = idm_model(robot).numpy_function()(q, qd, qdd)
    assert np.abs(gam - tau).max() <= 1e-9 * scale
    A = inertia_matrix(robot, q)
    rows, cols = np.tril_indices(n)
    lower = inertia_matrix_model(robot).numpy_function()(q)
    assert np.abs(lower - A[:, rows, cols]).max() <= 1e-9 * max(1.0, np.abs(A).max())
    try:
        direct = ddm_model(robot)
    except robmod.RobmodError as e:
        assert re.search(r"singular at joint \d+: the links joint \d+ moves have no inertia", str(e)), e
        assert any(np.linalg.cond(Ak) > 1e12 for Ak in A)
    else:
        assert np.abs(direct.numpy_function()(q, qd, tau) - qdd).max() <= 1e-6
    bp = base_parameters(robot)
    beta = np.array([float(v) for v in bp.values_of(robot).values()])
    assert np.abs(regressor(robot, q, qd, qdd, params=bp) @ beta - tau).max() <= 1e-9 * scale
    return robot


@pytest.mark.parametrize("name", REPRESENTATIVE)
def test_big_trees_generate_every_customized_model(name):
    """talos_full_v2, romeo, tiago_pro: RecursionError in idm_model (the angle of a mimic joint
    with multiplier -1); base parameters refused mimic joints; the DDM of Romeo raised
    ZeroDivisionError."""
    robot = check_customized_models(os.path.join(ROOT, name))
    assert robot is not None and robot.n_q >= 6


@pytest.mark.slow
@SLOW
@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_file_generates_every_customized_model(path):
    check_customized_models(path)


def test_rounded_angles_are_snapped(tmp_path):
    """Angles written as 1.57079632679 (2e-13 from pi/2) gave nearly parallel axes, b and r
    near 1e10 that cancel, 1e-5 m errors and terms like sin(q2 - 4.9e-12) in the models."""
    from robmod.description.files import dumps_robot

    panda = robmod.load_robot("panda").numeric()
    exact = dumps_robot(panda, "urdf")
    rounded = exact.replace("1.5707963267948966", "1.57079632679")
    assert rounded != exact
    (tmp_path / "exact.urdf").write_text(exact)
    (tmp_path / "rounded.urdf").write_text(rounded)
    a = robmod.read_robot(str(tmp_path / "exact.urdf"))
    b = robmod.read_robot(str(tmp_path / "rounded.urdf"))
    assert a.frames == b.frames
    for f in b.frames:
        for k in ("gamma", "b", "alpha", "d", "theta", "r"):
            v = getattr(f, k)
            assert not (v.is_Float and 0 < abs(float(v)) < 1e-9), (f.j, k, v)


def test_cli_igm_on_a_urdf_robot_with_fixed_frames(capsys):
    """robmod igm on the UR5 URDF (fixed frames in the chain) raised an internal error."""
    from robmod.cli import main

    path = os.path.join(ROOT, "ur_description", "urdf", "ur5_robot.urdf")
    q = ["0.1", "-0.5", "0.3", "0.2", "0.4", "0.1"]
    assert main(["igm", path, "--q", *q, "--frame", "9"]) == 0
    out = capsys.readouterr().out
    assert "8 solution(s)" in out
    assert "0.100000  -0.500000   0.300000   0.200000   0.400000   0.100000" in out


def test_frames_by_urdf_link_name(capsys):
    """A URDF link (or joint) name works wherever a frame number does."""
    from robmod.cli import main
    from robmod.geometry.direct import dgm
    from robmod.kinematics import jacobian

    path = os.path.join(ROOT, "ur_description", "urdf", "ur5_robot.urdf")
    robot = robmod.read_robot(path).numeric()
    j = robot.frame_number("wrist_3_link")
    assert robot.frame_number("wrist_3_joint") == j and robot.frame_number(j) == j
    q = np.linspace(-0.5, 0.5, 6)
    np.testing.assert_array_equal(dgm(robot, q, j="wrist_3_link"), dgm(robot, q, j=j))
    np.testing.assert_array_equal(jacobian(robot, q, j="wrist_3_link"), jacobian(robot, q, j=j))
    with pytest.raises(robmod.RobmodError, match="close names: wrist_3_link"):
        dgm(robot, q, j="wrist3_link")
    assert main(["igm", path, "--q", *map(str, q), "--frame", "ee_link"]) == 0
    assert "solution(s)" in capsys.readouterr().out


# -- a URDF serial arm with fixed frames is a serial robot ---------------------------------------
UR5 = os.path.join(ROOT, "ur_description", "urdf", "ur5_robot.urdf")


def test_a_urdf_arm_with_fixed_frames_is_serial():
    """The UR5 URDF (frames base, ee_link, tool0 besides its 6 joints) was called "tree, 9
    joints"."""
    from robmod.description import end_frame, joint_chain, structure_text

    robot = robmod.read_robot(UR5)
    assert robot.structure == "tree"                     # frames as the file numbers them
    assert joint_chain(robot) == (1, 2, 3, 4, 5, 6)
    assert structure_text(robot) == "serial, 6 joints, 3 fixed frames"
    assert end_frame(robot) == 6                          # ee_link and tool0 both hang on 6
    assert str(robot).splitlines()[:2] == [
        "Robot ur5: serial, 6 joints, 3 fixed frames; NL = 9, NJ = 9, NF = 9, loops B = 0",
        "End frame 6 (wrist_3_link); fixed frames 7 (ee_link), 8 (base), 9 (tool0)"]
    talos = robmod.read_robot(os.path.join(ROOT, "talos_data", "robots", "talos_full_v2.urdf"))
    assert joint_chain(talos) is None and end_frame(talos) is None
    assert structure_text(talos) == "tree, 44 joints (12 mimic), 15 fixed frames"


def test_models_of_a_urdf_arm_include_the_igm(capsys, tmp_path):
    """robmod models skipped the IGM ("Paul's method is for serial robots")."""
    from robmod.cli import main

    assert main(["models", UR5, "--out", str(tmp_path), "--formats", "txt", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "models of ur5 (serial, 6 joints, 3 fixed frames)" in out
    row = next(line for line in out.splitlines() if line.startswith("IGM (Paul)"))
    assert "to frame 6 (wrist_3_link)" in row and row.endswith("_igm.txt")


def test_igm_of_a_urdf_arm_frames_and_tools_alike(capsys):
    """robmod igm refused the UR5 URDF without --frame; --tool tool0 answered "no tool 'tool0';
    tools: none"."""
    from robmod.cli import main

    q = ["0.1", "-0.5", "0.3", "0.2", "0.4", "0.1"]
    assert main(["igm", UR5, "--q", *q]) == 0
    out = capsys.readouterr().out
    assert "target 0T6 (wrist_3_link)" in out and "8 solution(s)" in out
    assert "0.100000  -0.500000   0.300000   0.200000   0.400000   0.100000" in out
    texts = []
    for option in (["--tool", "tool0"], ["--frame", "tool0"], ["--tool", "9"]):
        assert main(["igm", UR5, "--q", *q, *option]) == 0
        texts.append(capsys.readouterr().out)
    assert texts[0] == texts[1] == texts[2] and "target 0T9 (tool0)" in texts[0]
    assert main(["igm", UR5, "--q", *q, "--tool", "tool1"]) == 2
    err = capsys.readouterr().err
    assert "no tool or frame 'tool1'" in err and "9 (tool0)" in err
