"""MJCF files nobody here wrote, read by robmod and by MuJoCo: gymnasium's MuJoCo environments,
gymnasium-robotics' models, MuJoCo Menagerie (``ROBMOD_MENAGERIE`` pointing at a checkout; slow).

Inverse dynamics and inertia matrix agree with MuJoCo's (mj_inverse, mj_fullM; passive forces and
constraints off, armature and gravity on) to 1e-9 relative on random states, floating bases
included (robmod.testing.MujocoOracle converts MuJoCo's free-joint coordinates), or the file is
refused naming the feature robmod does not take."""
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import robmod
from robmod.description import read_mjcf
from robmod.errors import FileFormatError, RobmodWarning

mujoco = pytest.importorskip("mujoco")
from robmod.testing import MujocoOracle  # noqa: E402

TOL = 1e-9


def _assets(package, *parts):
    try:
        module = __import__(package)
    except ImportError:
        return None
    return Path(module.__file__).parent.joinpath(*parts)


GYM = _assets("gymnasium", "envs", "mujoco", "assets")
GYM_ROBOTICS = _assets("gymnasium_robotics", "envs", "assets")
needs_gym = pytest.mark.skipif(GYM is None, reason="gymnasium (the test extra) not installed")
needs_robotics = pytest.mark.skipif(GYM_ROBOTICS is None,
                                    reason="gymnasium-robotics (the test extra) not installed")


def agreement(path, seed=0, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)
        robot = read_mjcf(path, **options).numeric()
    return robot, MujocoOracle(path, robot).agreement(np.random.default_rng(seed), 3)


# file, root (the robot among the file's articulated bodies), base kind, n_q
GYMNASIUM = [("ant.xml", None, "floating", 8), ("humanoid.xml", None, "floating", 17),
             ("humanoidstandup.xml", None, "floating", 17), ("half_cheetah.xml", None, "fixed", 9),
             ("hopper.xml", None, "fixed", 6), ("walker2d.xml", None, "fixed", 9),
             ("walker2d_v5.xml", None, "fixed", 9), ("swimmer.xml", None, "fixed", 5),
             ("inverted_pendulum.xml", None, "fixed", 2),
             ("inverted_double_pendulum.xml", None, "fixed", 3), ("point.xml", None, "fixed", 3),
             ("reacher.xml", "body0", "fixed", 2), ("pusher.xml", "r_shoulder_pan_link", "fixed", 7),
             ("pusher_v5.xml", "r_shoulder_pan_link", "fixed", 7)]


@needs_gym
@pytest.mark.parametrize("name, root, kind, n", GYMNASIUM)
def test_gymnasium_models_agree_with_mujoco(name, root, kind, n):
    robot, err = agreement(GYM / name, root=root)
    assert robot.base_kind == kind and robot.n_q == n
    assert err < TOL


@needs_gym
def test_damping_is_mujocos_passive_force():
    """The joints' damping is robmod's viscous friction FV: with MuJoCo's damper on, its
    inverse dynamics is robmod's with friction (the hopper has no friction loss nor spring)."""
    path = GYM / "hopper.xml"
    robot = read_mjcf(path).numeric()
    oracle = MujocoOracle(path, robot)
    bits = mujoco.mjtDisableBit
    damper = getattr(bits, "mjDSBL_DAMPER", None) or getattr(bits, "mjDSBL_PASSIVE")
    oracle.model.opt.disableflags &= ~int(damper)
    assert {float(robot.link(j).FV) for j in robot.joints} == {0.0, 1.0}
    rng = np.random.default_rng(2)
    q, qd, qdd = oracle.random_state(rng)
    ours = robmod.dynamics.idm(robot, q, qd, qdd)
    assert np.allclose(ours, oracle.idm(q, qd, qdd), rtol=1e-9, atol=1e-9)
    assert not np.allclose(ours, robmod.dynamics.idm(robot, q, qd, qdd, friction=False))


@needs_gym
def test_several_robots_in_one_file_are_named():
    with pytest.raises(FileFormatError) as e:
        read_mjcf(GYM / "reacher.xml")
    assert "'body0' (line 17), 'target' (line 29)" in str(e.value)
    assert str(e.value).startswith(str(GYM / "reacher.xml") + ":")


@needs_robotics
@pytest.mark.parametrize("name, message", [
    ("fetch/reach.xml", "'weld' equality constraints are not supported"),
    ("hand/reach.xml", "fixed tendon with range is not supported"),
    ("adroit_hand/adroit_door.xml", "fixed tendon with range is not supported"),
    ("kitchen_franka/kitchen_assets/kitchen_env_model.xml", "'mesh' geom"),
])
def test_gymnasium_robotics_refusals_name_the_feature(name, message):
    """gymnasium-robotics' models: what robmod does not take is refused by name, in the
    (included) file and line that holds it."""
    with pytest.raises(FileFormatError, match=message) as e:
        read_mjcf(GYM_ROBOTICS / name)
    assert e.value.location.line and Path(e.value.location.file).is_file()


@needs_robotics
def test_gymnasium_robotics_point_agrees():
    robot, err = agreement(GYM_ROBOTICS / "point" / "point.xml")
    assert robot.n_q == 2 and err < TOL


WALL = """<mujoco><compiler angle="radian"/><worldbody>
  <body name="mount" pos="0.1 0.2 1.0" euler="{tilt}">
    <body name="upper"><joint name="shoulder" axis="0 0 1"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>
      <body name="fore" pos="1 0 0"><joint name="elbow" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.6 0 0" size="0.05"/></body></body>
  </body></worldbody></mujoco>"""


def _mounted(tmp_path, tilt):
    path = tmp_path / "wall.xml"
    path.write_text(WALL.format(tilt=tilt))
    robot, err = agreement(path)
    assert not np.allclose(np.array(robot.Z.evalf(), dtype=float), np.eye(4))
    return err


@pytest.mark.parametrize("tilt", ["0 0 0.7", "1.5707963267948966 0 0", "3.141592653589793 0 0",
                                  "0.3 -0.5 0.2"])
def test_tilted_wall_and_ceiling_mounts_agree_with_mujoco(tmp_path, tilt):
    """A body welded to the world with a pose is the base matrix Z; on wall, ceiling and
    tilted mounts gravity stays the world's (a wall mount holds 9.81 N m at the shoulder, as in
    issue 35)."""
    assert _mounted(tmp_path, tilt) < TOL


MENAGERIE = os.environ.get("ROBMOD_MENAGERIE")


@pytest.mark.slow
@pytest.mark.skipif(not MENAGERIE, reason="ROBMOD_MENAGERIE: a checkout of mujoco_menagerie")
def test_menagerie_reads_and_agrees_or_refuses_by_name():
    """benchmarks/mjcf_menagerie.py on every model: none differs from MuJoCo, none fails with
    an error that is not robmod's refusal."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import mjcf_menagerie

    rows = mjcf_menagerie.run(Path(MENAGERIE), samples=2)
    bad = [r for r in rows if r["status"] in ("error", "differs")]
    assert not bad, bad
    assert sum(r["status"] == "agrees" for r in rows) >= 60
