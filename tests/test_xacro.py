"""xacro files: expanded by the xacro package (the robmod[xacro] extra), with arguments, then
read as URDF (or MJCF); the command line's --xacro-arg."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import robmod
from robmod.description import loads_urdf
from robmod.errors import ArgumentError, FileFormatError, RobmodError

xacro = pytest.importorskip("xacro")

ARM = """<?xml version="1.0"?>
<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="links" default="2"/>
  <xacro:arg name="payload" default="0.5"/>
  <xacro:property name="length" value="0.4"/>
  <xacro:include filename="$(find arm_description)/urdf/link.xacro"/>
  <link name="base"/>
  <xacro:segment name="l1" parent="base" mass="2" xyz="0 0 0.3" axis="0 0 1"/>
  <xacro:segment name="l2" parent="l1" mass="1.5" xyz="${length} 0 0" axis="0 1 0"/>
  <xacro:if value="${int('$(arg links)') > 2}">
    <xacro:segment name="l3" parent="l2" mass="$(arg payload)" xyz="${length} 0 0" axis="0 1 0"/>
  </xacro:if>
</robot>
"""

LINK = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="segment" params="name parent mass xyz axis">
    <joint name="${name}_joint" type="revolute">
      <parent link="${parent}"/><child link="${name}"/>
      <origin xyz="${xyz}" rpy="0 0 0"/><axis xyz="${axis}"/>
      <limit lower="${-pi/2}" upper="${pi/2}" effort="50" velocity="2"/>
    </joint>
    <link name="${name}">
      <inertial><origin xyz="${length/2} 0 0"/><mass value="${mass}"/>
        <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
    </link>
  </xacro:macro>
</robot>
"""


@pytest.fixture
def arm(tmp_path):
    """A ROS-style package: arm_description/{urdf/arm.urdf.xacro, urdf/link.xacro}."""
    pkg = tmp_path / "ws" / "arm_description" / "urdf"
    pkg.mkdir(parents=True)
    (pkg / "link.xacro").write_text(LINK)
    path = pkg / "arm.urdf.xacro"
    path.write_text(ARM)
    return path


def test_macros_args_and_includes(arm):
    robot = robmod.read_robot(arm)
    assert robot.name == "arm" and robot.n_q == 2
    three = robmod.read_robot(arm, xacro_args={"links": "3", "payload": 2.5})
    assert three.n_q == 3 and float(three.links[-1].M) == 2.5
    assert float(three.link(1).limits.qmax) == pytest.approx(np.pi / 2)
    # the same robot as the URDF xacro writes
    text, _ = __import__("robmod.description.xacro_files", fromlist=["x"]).expand_xacro(
        arm, {"links": "3", "payload": "2.5"})
    urdf = loads_urdf(text)
    q = np.array([0.3, -0.2, 0.5])
    assert np.allclose(robmod.dynamics.idm(three.numeric(), q, q, q),
                       robmod.dynamics.idm(urdf.numeric(), q, q, q))


def test_ros_package_path(arm, tmp_path, monkeypatch):
    """$(find PKG) is found in $ROS_PACKAGE_PATH when the file is elsewhere."""
    other = tmp_path / "elsewhere" / "robot.urdf.xacro"
    other.parent.mkdir()
    other.write_text(ARM)
    with pytest.raises(FileFormatError, match=r"\$\(find arm_description\)"):
        robmod.read_robot(other)
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "ws"))
    assert robmod.read_robot(other).n_q == 2


def test_bad_files_and_arguments(arm, tmp_path):
    bad = tmp_path / "bad.xacro"
    bad.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="a"/>\n'
                   '<xacro:nope/></robot>')
    with pytest.raises(FileFormatError, match="xacro") as e:
        robmod.read_robot(bad)
    assert e.value.location.file == str(bad)
    broken = tmp_path / "broken.xacro"
    broken.write_text("<robot>\n<link name='a'>\n</robot>")
    with pytest.raises(FileFormatError) as e:
        robmod.read_robot(broken)
    assert e.value.location.file == str(broken) and e.value.location.line == 3
    with pytest.raises(ArgumentError, match="xacro_args"):
        robmod.read_robot(arm, xacro_args=["links:=3"])
    with pytest.raises(ArgumentError, match="xacro_args"):
        robmod.read_robot(tmp_path / "robot.urdf", xacro_args={"a": "b"})


@pytest.mark.parametrize("body, said", [
    ('<link name="${undefined_length}"/>', "undefined_length"),
    ('<link name="${1/0}"/>', "division by zero"),
    ('<link name="${1 +}"/>', "invalid syntax"),
    ('<xacro:include filename="no_such_file.xacro"/>', "no_such_file.xacro"),
    ('<link name="$(arg not_given)"/>', "not_given"),
])
def test_every_kind_of_xacro_fault_is_a_file_format_error(tmp_path, body, said):
    """xacro wraps every fault of a file in its XacroException: each one reaches the user as a
    FileFormatError naming the file and what xacro said, never a raw traceback."""
    bad = tmp_path / "bad.urdf.xacro"
    bad.write_text(f'<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">{body}</robot>')
    with pytest.raises(FileFormatError, match=said) as e:
        robmod.read_robot(bad)
    assert e.value.location.file == str(bad)


def test_example_robot_data_xacro_names_its_missing_include():
    """example-robot-data's hector quadrotor: its include (package://..., a path xacro does not
    resolve) is named in the error, with the file that holds it."""
    from robmod.testing import example_robot_data

    path = Path(example_robot_data("hector_description/robots/quadrotor_base.xacro"))
    with pytest.raises(FileFormatError, match="quadrotor_base.urdf.xacro") as e:
        robmod.read_robot(path)
    assert e.value.location.file == str(path)


def test_missing_xacro_package_names_the_extra(arm, monkeypatch):
    monkeypatch.setitem(sys.modules, "xacro", None)
    with pytest.raises(RobmodError, match=r"robmod\[xacro\]"):
        robmod.read_robot(arm)


def test_cli_xacro_arg(arm):
    run = [sys.executable, "-m", "robmod.cli", "show", str(arm), "--xacro-arg", "links:=3"]
    out = subprocess.run(run, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "Robot arm: serial, 3 joints" in out.stdout
    out = subprocess.run(run[:-1] + ["links=3"], capture_output=True, text=True)
    assert out.returncode == 2 and "NAME:=VALUE" in out.stderr
