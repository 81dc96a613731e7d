"""Files a peer loads that robmod refused or misread (issue 35): a floating joint from the root
link (the file's free base), a floating robot without joints (a drone), a name that is a link's
and another frame's joint's (refused bare, taken qualified), pybullet's lower > upper limits."""
import numpy as np
import pytest

import robmod
from robmod.description import loads_urdf
from robmod.dynamics import center_of_mass, centroidal_momentum_matrix, ddm, idm, inertia_matrix
from robmod.errors import ArgumentError, FileFormatError
from robmod.geometry import dgm, neutral
from robmod.testing import example_robot_data

DRONE = """<robot name="drone"><link name="body"><inertial><origin xyz="0.01 0 0"/>
<mass value="1.5"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.025" iyz="0" izz="0.04"/>
</inertial></link></robot>"""
FREE = """<robot name="free"><link name="world"/>
<joint name="free" type="floating"><parent link="world"/><child link="body"/></joint>
<link name="body"><inertial><mass value="2"/>
<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
<joint name="j1" type="revolute"><parent link="body"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
<link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>
<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link></robot>"""


def test_a_floating_joint_from_the_root_is_the_files_free_base():
    robot = loads_urdf(FREE)
    assert robot.base_kind == "floating" and robot.n_q == 1
    assert float(robot.base_link.M) == 2 and robot.frame_number("body") == 0
    assert loads_urdf(FREE, base="mobile").base_kind == "mobile"
    with pytest.raises(FileFormatError, match="floating joint.*base='floating'") as e:
        loads_urdf(FREE, base="fixed")
    assert ":2" in str(e.value)                         # the joint's line


def test_the_free_base_agrees_with_pinocchio(tmp_path):
    pin = pytest.importorskip("pinocchio")
    path = tmp_path / "free.urdf"
    path.write_text(FREE)
    model = pin.buildModelFromUrdf(str(path))          # Pinocchio reads the floating joint
    data = model.createData()
    robot = robmod.read_robot(path).numeric()
    rng = np.random.default_rng(1)
    Q = rng.normal(size=4)
    q = np.r_[rng.normal(size=3), Q / np.linalg.norm(Q), 0.4]
    v, a = rng.normal(size=(2, 7))
    qp = np.r_[q[:3], q[4:7], q[3], q[7:]]
    assert np.allclose(idm(robot, q, v, a), pin.rnea(model, data, qp, v, a),
                       atol=1e-12)


def test_a_floating_robot_without_joints(tmp_path):
    """A drone: n_q = 0, and every floating function works on it."""
    with pytest.raises(FileFormatError, match="no joint.*base='floating'"):
        loads_urdf(DRONE)
    drone = loads_urdf(DRONE, base="floating").numeric()
    assert drone.n_q == 0 and drone.n_links == 0
    q, z = neutral(drone), np.zeros(6)
    M = inertia_matrix(drone, q)
    assert M.shape == (6, 6) and M[0, 0] == pytest.approx(1.5)
    w = idm(drone, q, z, z)
    assert w == pytest.approx([0, 0, 1.5 * 9.81, 0, -1.5 * 9.81 * 0.01, 0])
    assert ddm(drone, q, z, np.zeros(0)) == pytest.approx([0, 0, -9.81, 0, 0, 0])
    assert idm(drone, q, z, np.zeros(0), method="free_floating") == pytest.approx([0, 0, -9.81, 0, 0, 0])
    assert center_of_mass(drone, q) == pytest.approx([0.01, 0, 0])
    assert centroidal_momentum_matrix(drone, q).shape == (6, 6)
    assert np.allclose(dgm(drone, q, j=0, i="world"), np.eye(4))


def test_a_name_of_a_link_and_of_another_joint_is_refused_bare():
    """ANYmal C's LF_HAA is a link and a joint on another frame; so100's gripper too."""
    anymal = robmod.read_robot(example_robot_data("anymal_c_simple_description/urdf/anymal.urdf"))
    link, joint = anymal.frame_number("link:LF_HAA"), anymal.frame_number("joint:LF_HAA")
    assert link != joint
    with pytest.raises(ArgumentError, match=f"link \\(frame {link}\\).*joint \\(frame {joint}\\)"
                       ".*'link:LF_HAA' or 'joint:LF_HAA'"):
        anymal.frame_number("LF_HAA")
    assert anymal.frame_number("LF_HIP") == anymal.frame_number("link:LF_HIP")   # one frame
    so100 = robmod.read_robot(example_robot_data("so_arm_description/urdf/so100.urdf")).numeric()
    q = np.zeros(so100.n_q)
    with pytest.raises(ArgumentError, match="gripper"):
        dgm(so100, q, j="gripper")
    assert not np.allclose(dgm(so100, q, j="link:gripper"), dgm(so100, q, j="joint:gripper"))


def test_pybullets_reversed_limits_mean_no_limit():
    text = FREE.replace('lower="-1" upper="1"', 'lower="1" upper="-1"')
    robot = loads_urdf(text)
    limits = robot.link(1).limits
    assert limits.qmin is None and limits.qmax is None and float(limits.taumax) == 1
