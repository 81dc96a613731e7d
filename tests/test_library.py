"""Every robot of the library loads, validates, and round-trips YAML <-> .par <-> URDF."""
import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description import library_names
from robmod.description.io_par import dumps_par, loads_par
from robmod.description.io_urdf import dumps_urdf, loads_urdf
from robmod.description.io_yaml import dumps_yaml, loads_yaml
from robmod.geometry.transforms import frame_transform
from robmod.testing.random import with_random_dynamics

NAMES = library_names()


def test_library_is_complete():
    expected = {"rx90", "scara", "scemi", "puma560", "stanford", "lwr4", "panda", "ur5",
                "planar2", "cartesian2", "parallelogram", "torso2arms"}
    assert expected <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_loads_validates_and_notes_its_source(name):
    robot = robmod.load_robot(name)
    assert robot.name == name
    assert robot.source, f"{name} must note its source"
    num = robot.numeric()
    assert num.n_frames == robot.n_frames


def _numeric_kinematics(robot, rng):
    """The robot with its values, any remaining geometric symbol given a random length."""
    num = robot.numeric()
    geo = set()
    for f in num.frames:
        for k in ("gamma", "b", "alpha", "d", "theta", "r"):
            geo |= getattr(f, k).free_symbols
    for t in num.tools:
        geo |= t.T.free_symbols
    geo |= num.Z.free_symbols
    if geo:
        num = num.substitute({s: float(rng.uniform(0.1, 0.5)) for s in geo})
    if num.symbols:
        num = with_random_dynamics(num, rng)
    return num


def _same_transforms(a, b, rng, tol=1e-12):
    assert a.n_frames == b.n_frames
    for _ in range(5):
        q = rng.uniform(-3, 3, a.n_joints)
        for j in range(1, a.n_frames + 1):
            qa = q[j - 1] if j <= a.n_joints else 0.0
            Ta = frame_transform(a, j, qa)
            Tb = frame_transform(b, j, qa)
            assert np.abs(Ta - Tb).max() < tol, (a.name, j)


@pytest.mark.parametrize("name", NAMES)
def test_yaml_and_par_round_trips(name):
    robot = robmod.load_robot(name)
    assert loads_yaml(dumps_yaml(robot), f"{name}.yaml") == robot
    assert loads_par(dumps_par(robot), f"{name}.par") == robot
    # and the chain YAML -> par -> YAML
    again = loads_yaml(dumps_yaml(loads_par(dumps_par(robot), "x.par")), "x.yaml")
    assert again == robot


@pytest.mark.parametrize("name", NAMES)
def test_urdf_round_trip(name):
    robot = robmod.load_robot(name)
    if robot.n_loops:
        pytest.skip("URDF holds no closed loops")
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    num = _numeric_kinematics(robot, rng)
    back = loads_urdf(dumps_urdf(num), f"{name}.urdf")
    _same_transforms(num, back, rng)
    for la, lb in zip(num.links, back.links):
        for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M"):
            assert abs(float(getattr(la, k)) - float(getattr(lb, k))) < 1e-9, (name, la.j, k)
    # and through .par and YAML again
    again = loads_yaml(dumps_yaml(loads_par(dumps_par(back), "b.par")), "b.yaml")
    _same_transforms(num, again, rng)


def test_opensymoro_rx90_file_is_the_library_rx90():
    from pathlib import Path

    from robmod.description.io_par import read_par

    robot = read_par(Path(__file__).parent / "data" / "rx90_opensymoro.par")
    lib = robmod.load_robot("rx90")
    assert robot.frames == lib.frames
    assert robot.link(3).XX == sp.Symbol("XX3") and robot.link(6).FX == sp.Symbol("FX6")


def test_foreign_urdf_is_reframed_canonically_with_same_kinematics():
    from robmod.description.io_urdf import _ROBMOD_MARK
    from robmod.geometry.direct import dgm

    rng = np.random.default_rng(9)
    robot = _numeric_kinematics(robmod.load_robot("torso2arms"), rng)
    text = dumps_urdf(robot).replace(_ROBMOD_MARK, "")
    canon = loads_urdf(text, "foreign.urdf")
    # the first child of the torso has gamma = b = 0 once re-framed (MDH), the other branch keeps them
    assert canon.frame(2).b == 0 and canon.frame(2).gamma == 0
    for _ in range(5):
        q = rng.uniform(-2, 2, robot.n_joints)
        for tool in robot.tools:
            assert np.abs(dgm(robot, q, tool=tool.name) - dgm(canon, q, tool=tool.name)).max() < 1e-12
