"""MJCF import (robmod.description.mjcf_reader): each feature on a small file, checked against
MuJoCo reading the same file (robmod.testing.MujocoOracle: mj_inverse, mj_fullM), and the
refusals and errors (file, line, element)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import robmod
from robmod.description import loads_mjcf, read_mjcf, to_mjcf
from robmod.errors import ArgumentError, FileFormatError, RobmodError, RobmodWarning

mujoco = pytest.importorskip("mujoco")
from robmod.testing import MujocoOracle  # noqa: E402

TOL = 1e-9


def write(tmp_path, text, name="robot.xml"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def agreement(path, seed=0, samples=3, **options):
    """(robot, largest relative difference with MuJoCo's IDM and inertia matrix)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)
        robot = read_mjcf(path, **options).numeric()
    return robot, MujocoOracle(path, robot).agreement(np.random.default_rng(seed), samples)


def mj_body_pose(path, body, qpos):
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    T = np.eye(4)
    T[:3, :3] = data.xmat[model.body(body).id].reshape(3, 3)
    T[:3, 3] = data.xpos[model.body(body).id]
    return T


ORIENTED = """
<mujoco model="oriented">
  <compiler angle="{angle}" eulerseq="{seq}"/>
  <worldbody>
    <body name="a" pos="0.1 0.2 0.3" euler="{e1}">
      <joint name="j1" axis="0.3 -0.2 1" pos="0.05 0 0.02"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.04"/>
      <body name="b" pos="0.3 0.1 0" axisangle="1 1 0 {aa}">
        <joint name="j2" axis="1 0 0.2" pos="0 0.03 0" ref="{ref}"/>
        <geom type="box" size="0.05 0.02 0.15" pos="0 0 0.1" quat="0.9 0.1 0.3 0.2"/>
        <body name="c" pos="0 0 0.3" xyaxes="0 1 0 -1 0.2 0.1">
          <joint name="j3" type="slide" axis="0 1 1"/>
          <geom type="ellipsoid" size="0.05 0.03 0.02"/>
          <body name="d" pos="0.1 0 0" zaxis="1 2 -1">
            <joint name="j4" axis="0 0 1" pos="0.02 0 0"/>
            <geom type="cylinder" fromto="0 0 0 0 0.1 0.2" size="0.02" density="700"/>
            <body name="tip" pos="0 0.1 0.2" quat="0.5 0.5 -0.5 0.5"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("angle, seq, e1, aa, ref", [
    ("degree", "xyz", "30 -20 45", "60", "10"),
    ("radian", "zyx", "0.5 -0.4 1.2", "1.1", "0.3"),
    ("degree", "XYZ", "30 -20 45", "-75", "-25"),
    ("radian", "ZxY", "0.5 -0.4 1.2", "2.5", "0"),
])
def test_frames_orientations_and_joints_agree_with_mujoco(tmp_path, angle, seq, e1, aa, ref):
    """pos, euler (every eulerseq, degrees or radians), axisangle, xyaxes, zaxis, quat; hinge
    and slide joints off the body's origin, a ref: the dynamics and the frames are MuJoCo's."""
    path = write(tmp_path, ORIENTED.format(angle=angle, seq=seq, e1=e1, aa=aa, ref=ref))
    robot, err = agreement(path)
    assert err < TOL
    assert robot.n_q == 4 and [t.name for t in robot.tools] == ["tip"]
    rng = np.random.default_rng(1)
    q = rng.uniform(-1, 1, 4)
    T = robmod.geometry.dgm(robot, q, j=robot.tools[0].frame, tool="tip", i="world")
    assert np.allclose(T, mj_body_pose(path, "tip", q), atol=1e-12)


def test_default_classes_childclass_and_frames(tmp_path):
    """<default> classes nested (a class holds its parent's attributes under its own), a body's
    childclass cascading to its subtree, an element's class and own attributes over them;
    <frame> elements moving the bodies, joints and geoms they hold."""
    path = write(tmp_path, """
<mujoco>
  <compiler angle="radian"/>
  <default>
    <joint armature="0.1" damping="2" axis="0 1 0"/>
    <geom type="box" size="0.1 0.05 0.02" density="500"/>
    <default class="arm">
      <joint armature="0.3" frictionloss="0.4" range="-1 1"/>
      <default class="wrist">
        <joint axis="1 0 0" damping="0.5"/>
        <geom type="sphere" size="0.04"/>
      </default>
    </default>
  </default>
  <worldbody>
    <frame pos="0 0 0.5" euler="0.3 0 0">
      <body name="base" childclass="arm">
        <joint name="j1"/>
        <geom/>
        <frame pos="0.2 0 0" euler="0 0.4 0">
          <body name="upper" pos="0.1 0 0">
            <joint name="j2" class="main"/>
            <geom size="0.2 0.03 0.03"/>
            <body name="hand" pos="0.4 0 0" childclass="wrist">
              <frame euler="0 0 0.7" pos="0.01 0 0">
                <joint name="j3" damping="7"/>
                <geom pos="0.05 0 0"/>
              </frame>
            </body>
          </body>
        </frame>
      </body>
    </frame>
  </worldbody>
</mujoco>""")
    robot, err = agreement(path)
    assert err < TOL
    j = robot.frame_names
    link = {name: robot.link(j[name]) for name in ("j1", "j2", "j3")}
    assert [float(link[n].IA) for n in ("j1", "j2", "j3")] == [0.3, 0.1, 0.3]
    assert [float(link[n].FV) for n in ("j1", "j2", "j3")] == [2, 2, 7]
    assert [float(link[n].FC) for n in ("j1", "j2", "j3")] == [0.4, 0, 0.4]
    assert link["j1"].limits.qmax == 1 and link["j2"].limits.qmax is None


def test_includes_relative_to_the_including_file(tmp_path):
    write(tmp_path, """<mujoco><body name="b2" pos="0 0 0.2">
        <joint axis="1 0 0"/><geom size="0.05"/></body></mujoco>""", "parts/leg.xml")
    write(tmp_path, """<mujocoinclude><body name="b1"><joint axis="0 1 0"/>
        <geom size="0.05" pos="0.1 0 0"/><include file="leg.xml"/></body></mujocoinclude>""",
          "parts/arm.xml")
    path = write(tmp_path, """<mujoco><option gravity="0 -2 -9"/>
        <default><joint damping="1"/></default>
        <worldbody><include file="parts/arm.xml"/></worldbody></mujoco>""")
    robot, err = agreement(path)
    assert err < TOL and robot.n_q == 2 and tuple(robot.gravity) == (0, -2, -9)


def test_inertia_from_geoms_and_compiler_bounds(tmp_path):
    """Every primitive geom (size, fromto, mass or density, groups outside inertiagrouprange
    skipped), inertiafromgeom auto/true/false, boundmass, boundinertia, balanceinertia,
    settotalmass, explicit <inertial> with diaginertia + quat and fullinertia."""
    body = """
    <body name="b{k}" pos="0.2 0.1 0" euler="10 20 30">
      <joint axis="0 0 1"/>
      <inertial pos="0.01 0.02 0.03" mass="2" {inertia}/>
      <geom type="capsule" fromto="0 0 0 0.1 0.2 0" size="0.02"/>
      <geom type="box" fromto="0 0 0 0 0.1 0.2" size="0.02 0.01" mass="0.3"/>
      <geom type="cylinder" size="0.03 0.1" pos="0 0 0.1" quat="1 1 0 0"/>
      <geom type="ellipsoid" size="0.03 0.02 0.01" pos="0.05 0 0"/>
      <geom type="sphere" size="0.02" pos="0 0.1 0" density="3000"/>
      <geom type="sphere" size="0.5" group="4" mass="100"/>
      <geom type="capsule" size="0.02 0.05" pos="0 0 -0.1"/>
    """
    inertias = ['diaginertia="0.01 0.02 0.025" quat="0.8 0.2 0.4 0.1"',
                'fullinertia="0.03 0.02 0.025 0.001 -0.002 0.003"']
    for fromgeom in ("auto", "true", "false"):
        for extra in ('', 'boundmass="0.5" boundinertia="0.001"',
                      'settotalmass="7"', 'balanceinertia="true"'):
            tree = "".join(body.format(k=k, inertia=inertias[k % 2] if k % 3 else "")
                           .replace('<inertial pos="0.01 0.02 0.03" mass="2" />', "")
                           for k in range(4))
            text = (f'<mujoco><compiler inertiafromgeom="{fromgeom}" inertiagrouprange="0 3" '
                    f'{extra}/><worldbody>{tree}' + "</body>" * 4 + "</worldbody></mujoco>")
            if fromgeom == "false":     # MuJoCo wants an inertial on every moving body
                text = text.replace('<joint axis="0 0 1"/>\n      \n',
                                    '<joint axis="0 0 1"/><inertial pos="0 0 0" mass="1" '
                                    'diaginertia="0.1 0.1 0.1"/>\n')
            path = write(tmp_path, text)
            try:
                mujoco.MjModel.from_xml_path(str(path))
            except ValueError:
                continue                # a combination MuJoCo itself refuses
            robot, err = agreement(path)
            assert err < TOL, (fromgeom, extra)


def test_free_joint_is_a_floating_base_and_base_overrides(tmp_path):
    text = """<mujoco><worldbody>
      <body name="torso" pos="0 0 1" euler="10 0 30"><freejoint name="root"/>
        <geom type="capsule" fromto="-0.2 0 0 0.2 0 0" size="0.05"/>
        <body name="leg" pos="0.2 0 0"><joint name="hip" axis="0 1 0" armature="0.02"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03"/>
          <body name="shin" pos="0 0 -0.4"><joint name="knee" axis="0 1 0" ref="20"/>
            <geom type="capsule" fromto="0 0 0 0.05 0 -0.4" size="0.02"/></body></body>
      </body></worldbody></mujoco>"""
    path = write(tmp_path, text)
    robot, err = agreement(path)
    assert robot.base_kind == "floating" and robot.n_q == 2 and err < TOL
    assert float(robot.base_link.M) > 0 and robot.frame_names["torso"] == 0
    bolted = read_mjcf(path, base="fixed")      # bolted where the file puts it
    assert bolted.base_kind == "fixed" and np.isclose(float(bolted.Z[2, 3]), 1.0)
    assert read_robot_kind(path) == "floating"


def read_robot_kind(path):
    return robmod.read_robot(path).base_kind


def test_joint_couplings_are_mimic_joints(tmp_path):
    """<equality><joint joint1= joint2= polycoef=>: q1 = a1 q2 + (ref1 + a0 - a1 ref2), the
    mimic joint of robmod; MuJoCo's coupled model (constraint off, forces projected) agrees."""
    path = write(tmp_path, """<mujoco><compiler angle="radian"/><worldbody>
      <body name="palm"><joint name="wrist" axis="0 0 1"/><geom size="0.05"/>
        <body name="f1" pos="0.05 0 0"><joint name="left" type="slide" axis="0 1 0" ref="0.01"/>
          <geom type="box" size="0.01 0.01 0.04"/></body>
        <body name="f2" pos="-0.05 0 0"><joint name="right" type="slide" axis="0 1 0"/>
          <geom type="box" size="0.01 0.01 0.04"/></body>
        <body name="f3" pos="0 0.05 0"><joint name="thumb" axis="1 0 0" ref="0.2"/>
          <geom type="box" size="0.01 0.01 0.04"/></body>
      </body></worldbody>
      <equality><joint joint1="right" joint2="left" polycoef="0.002 -1 0 0 0"/>
        <joint joint1="thumb" joint2="left" polycoef="0 3 0 0 0"/>
        <weld body1="palm" active="false"/></equality></mujoco>""")
    robot, err = agreement(path)
    assert robot.n_q == 2 and err < TOL
    right, left, thumb = (robot.frame_names[n] for n in ("right", "left", "thumb"))
    assert robot.mimic[right] == (left, -1.0, pytest.approx(0.002 + 0.01))
    assert robot.mimic[thumb] == (left, 3.0, pytest.approx(0.2 - 0.03))


REFUSED = [
    ('<body><joint type="ball"/><geom size="0.1"/></body>', "ball joints are not supported",
     "joint.type"),
    ('<body><joint/><geom size="0.1"/><body><freejoint/><geom size="0.1"/></body></body>',
     "free joint must be the only joint of a top-level body", "freejoint"),
    ('<body><joint/><geom size="0.1"/><composite type="particle" count="2 1 1" spacing="0.1">'
     '<geom size="0.01"/></composite></body>', "<composite>", "composite"),
    ('<body><joint/><geom type="mesh" mesh="m"/></body>', "'mesh' geom", "geom.type"),
    ('<body><joint/><geom size="0.1" shellinertia="true"/></body>', "shellinertia",
     "geom.shellinertia"),
    ('<body><joint/><geom type="capsule" mesh="m"/></body>', "fitted to the mesh", "geom.mesh"),
    ('<body name="x"><joint/><geom size="0.1"/></body><body name="y"><joint/><geom size="0.1"/>'
     "</body>", "2 articulated top-level bodies: 'x' (line 3), 'y' (line 3)", "worldbody"),
    ('<body><geom size="0.1"/></body>', "the robot has no joint", "worldbody"),
    ('<body><joint/><geom size="0.1"/><sensor/></body>', "unknown element <sensor>", "sensor"),
    ('<body pos="0 0 1" quat="1 0 0 0" euler="0 0 1"><joint/><geom size="0.1"/></body>',
     "more than one orientation", "body.euler"),
    ('<body><joint class="nope"/><geom size="0.1"/></body>', "no default class 'nope'",
     "joint.class"),
    ('<body pos="0 0 x"><joint/><geom size="0.1"/></body>', "'x' is not a finite number",
     "body.pos"),
    ('<body><joint axis="0 0 0"/><geom size="0.1"/></body>', "the axis is the zero vector",
     "joint.axis"),
]


@pytest.mark.parametrize("body, message, field", REFUSED)
def test_refusals_name_the_file_line_and_element(tmp_path, body, message, field):
    path = write(tmp_path, f'<mujoco>\n<worldbody>\n{body}\n</worldbody>\n</mujoco>\n')
    with pytest.raises(FileFormatError) as e:
        read_mjcf(path)
    assert message in str(e.value)
    line = 2 if field == "worldbody" else 3         # the tree's errors: its <worldbody>
    assert e.value.location.file == str(path) and e.value.location.line == line
    assert e.value.location.field.endswith(field)


@pytest.mark.parametrize("section, message", [
    ('<equality><connect body1="a" anchor="0 0 0"/></equality>', "'connect' equality"),
    ('<equality><weld body1="a"/></equality>', "'weld' equality"),
    ('<equality><joint joint1="j"/></equality>', "a joint held fixed"),
    ('<equality><joint joint1="j" joint2="k" polycoef="0 1 0.5 0 0"/></equality>',
     "higher degree"),
    ('<tendon><fixed name="t" stiffness="10"><joint joint="j" coef="1"/></fixed></tendon>',
     "fixed tendon with stiffness"),
    ('<tendon><fixed name="t" range="-1 1"><joint joint="j" coef="1"/></fixed></tendon>',
     "fixed tendon with range"),
])
def test_constraints_and_tendons_refused_by_name(tmp_path, section, message):
    path = write(tmp_path, '<mujoco><worldbody><body name="a"><joint name="j"/>'
                 '<geom size="0.1"/><body><joint name="k"/><geom size="0.1"/></body></body>'
                 f'</worldbody>\n{section}</mujoco>')
    with pytest.raises(FileFormatError, match=message) as e:
        read_mjcf(path)
    assert e.value.location.line == 2


def test_inert_tendon_and_passive_forces(tmp_path):
    """A tendon that only carries an actuator (a transmission) is left out; a joint spring and
    gravity compensation, passive forces robmod's models lack, are reported by warnings."""
    path = write(tmp_path, '<mujoco><worldbody><body name="a" gravcomp="1"><joint name="j" '
                 'stiffness="3"/><geom size="0.1"/><body><joint name="k"/><geom size="0.1"/>'
                 '</body></body></worldbody><tendon><fixed name="t"><joint joint="j" coef="1"/>'
                 '<joint joint="k" coef="-1"/></fixed></tendon><actuator><motor tendon="t"/>'
                 '</actuator></mujoco>')
    with pytest.warns(RobmodWarning) as record:
        robot = read_mjcf(path)
    text = " ".join(str(w.message) for w in record)
    assert "stiffness 3" in text and "gravcomp" in text and f"{path}:1" in text
    assert robot.n_q == 2


def test_errors_in_included_files_name_them(tmp_path):
    write(tmp_path, "<mujoco>\n<body>\n<joint type='ball'/>\n</body>\n</mujoco>", "inc.xml")
    path = write(tmp_path, '<mujoco><worldbody><include file="inc.xml"/></worldbody></mujoco>')
    with pytest.raises(FileFormatError) as e:
        read_mjcf(path)
    assert e.value.location.file == str(tmp_path / "inc.xml") and e.value.location.line == 3
    write(tmp_path, '<mujoco><include file="robot.xml"/></mujoco>', "loop.xml")
    path = write(tmp_path, '<mujoco><include file="loop.xml"/></mujoco>')
    with pytest.raises(FileFormatError, match="cycle"):
        read_mjcf(path)
    path = write(tmp_path, '<mujoco><include file="missing.xml"/></mujoco>')
    with pytest.raises(FileFormatError, match="no such file"):
        read_mjcf(path)
    with pytest.raises(FileFormatError, match="DOCTYPE"):
        loads_mjcf('<!DOCTYPE x [<!ENTITY a "b">]><mujoco/>')


def test_gravity_option_and_flag(tmp_path):
    base = '<worldbody><body><joint/><geom size="0.1" pos="0.1 0 0"/></body></worldbody>'
    assert loads_mjcf(f"<mujoco>{base}</mujoco>").gravity == robmod.read_robot(
        write(tmp_path, f"<mujoco>{base}</mujoco>")).gravity
    robot = loads_mjcf(f'<mujoco><option gravity="1 2 3"><flag gravity="disable"/></option>'
                       f"{base}</mujoco>")
    assert tuple(robot.gravity) == (0, 0, 0)


def test_root_chooses_one_of_several_robots(tmp_path):
    path = write(tmp_path, '<mujoco><worldbody><body name="arm"><joint/><geom size="0.1" '
                 'pos="0.2 0 0"/></body><body name="ball" pos="1 0 0"><freejoint/>'
                 '<geom size="0.1"/></body><body name="table"><geom size="1"/></body>'
                 "</worldbody></mujoco>")
    robot, err = agreement(path, root="arm")
    assert robot.n_q == 1 and robot.base_kind == "fixed" and err < TOL
    ball, err = agreement(path, root="ball")       # a free body without joints: n_q = 0
    assert ball.base_kind == "floating" and ball.n_q == 0 and err < TOL
    with pytest.raises(FileFormatError, match="not a top-level body"):
        read_mjcf(path, root="nope")
    with pytest.raises(ArgumentError, match="root="):
        robmod.read_robot(tmp_path / "x.urdf", root="arm")


def test_round_trip_of_robmod_export(tmp_path):
    """to_mjcf's file read back: the same inverse dynamics, inertia matrix and frames (a tree's
    joints renumbered depth first, MuJoCo's order: matched by name); the same table for a
    serial MDH robot; a floating base back as a floating base."""
    from robmod.testing import random_robot, with_random_dynamics
    from robmod.dynamics import idm, inertia_matrix

    rng = np.random.default_rng(3)
    rx90 = _no_coulomb(with_random_dynamics(robmod.load_robot("rx90").numeric(), rng))
    tree = _no_coulomb(random_robot(rng, n=6, tree=True))
    for robot in (rx90, tree):
        back = loads_mjcf(to_mjcf(robot)).numeric()
        frame = {j: back.frame_names[f"q{j}"] for j in robot.joints}
        order = [back.joint_index[frame[j]] for j in robot.joints]   # robot's -> back's
        P = np.eye(robot.n_q)[order]
        q, qd, qdd = (rng.normal(size=(4, robot.n_q)) for _ in range(3))
        assert np.allclose(idm(back, q @ P, qd @ P, qdd @ P) @ P.T, idm(robot, q, qd, qdd),
                           atol=1e-9, rtol=1e-9)
        assert np.allclose(P @ inertia_matrix(back, q @ P) @ P.T, inertia_matrix(robot, q),
                           atol=1e-9)
        for j in robot.joints:
            assert np.allclose(robmod.geometry.dgm(back, q @ P, j=frame[j]),
                               robmod.geometry.dgm(robot, q, j=j), atol=1e-12)
    for robot in (rx90, tree):           # robmod's file: its frames kept, the same table
        back = loads_mjcf(to_mjcf(robot))
        original = {back.frame_names[f"link{j}"]: j for j in range(1, robot.n_frames + 1)}
        original[0] = 0
        for f in robot.frames:
            g = back.frame(back.frame_names[f"link{f.j}"])
            assert original[g.ant] == f.ant
            assert [float(getattr(g, k)) for k in ("gamma", "b", "alpha", "d", "r")] == \
                pytest.approx([float(getattr(f, k)) for k in ("gamma", "b", "alpha", "d", "r")],
                              abs=1e-12)
    flying = rx90.with_base("floating", M=20, XX=1, YY=2, ZZ=2.5)
    back = loads_mjcf(to_mjcf(flying)).numeric()
    assert back.base_kind == "floating"
    Q = rng.normal(size=4)
    q = np.r_[rng.normal(size=3), Q / np.linalg.norm(Q), rng.normal(size=6)]
    qd, qdd = rng.normal(size=12), rng.normal(size=12)
    assert np.allclose(idm(back, q, qd, qdd), idm(flying, q, qd, qdd),
                       atol=1e-9)


def _no_coulomb(robot):
    import dataclasses
    import sympy as sp

    links = tuple(dataclasses.replace(k, FC=sp.Integer(0)) for k in robot.links)
    return dataclasses.replace(robot, links=links)


def test_cli_reads_mjcf_with_root(tmp_path):
    path = write(tmp_path, '<mujoco model="two"><worldbody><body name="arm"><joint/>'
                 '<geom size="0.1" pos="0.2 0 0"/></body><body name="ball"><freejoint/>'
                 '<geom size="0.1"/></body></worldbody></mujoco>')
    run = [sys.executable, "-m", "robmod.cli", "show", str(path)]
    out = subprocess.run(run, capture_output=True, text=True)
    assert out.returncode == 2 and "--root" in out.stderr and ":1" in out.stderr
    out = subprocess.run(run + ["--root", "arm"], capture_output=True, text=True)
    assert out.returncode == 0 and "Robot two: serial, 1 joint" in out.stdout
