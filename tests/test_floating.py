"""Floating and mobile bases (docs/floating.md), under the plain names: random trees with a floating base against
Pinocchio's free-flyer (kinematics, rnea, crba, aba, centre of mass, centroidal momentum), the
identities between the models (the two inverse models and the direct one, the inertia matrix
from the inverse model's columns, the base wrench of a mobile base), the customized models
against the numeric ones, their operation counts against the fixed base's, SE(3) integration."""
import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.description import Link, loads_yaml, dumps_yaml
from robmod.dynamics import (center_of_mass, center_of_mass_jacobian, centroidal_momentum,
                             centroidal_momentum_matrix, ddm, ddm_model, idm, idm_model,
                             inertia_matrix, inertia_matrix_model)
from robmod.errors import ArgumentError, DescriptionError
from robmod.geometry import dgm, dgm_model, difference, integrate, neutral, quaternion_to_matrix
from robmod.kinematics import jacobian, jacobian_model
from robmod.testing import PinocchioRobot, random_inertial, random_robot

pin = pytest.importorskip("pinocchio")


def floating_robot(seed, n=6, tree=True, gravity=(0.0, 0.0, -9.81)):
    rng = np.random.default_rng(seed)
    robot = random_robot(rng, n=n, tree=tree)
    robot = robot.with_base("floating", **random_inertial(rng))
    from dataclasses import replace
    return replace(robot, gravity=tuple(sp.Float(g) for g in gravity))


def state(robot, rng, batch=()):
    n = robot.n_q
    q = np.concatenate([rng.normal(size=batch + (3,)), rng.normal(size=batch + (4,)),
                        rng.uniform(-1.5, 1.5, batch + (n,))], axis=-1)
    q[..., 3:7] /= np.linalg.norm(q[..., 3:7], axis=-1, keepdims=True)
    return q, rng.normal(size=batch + (6 + n,)), rng.normal(size=batch + (6 + n,))


@pytest.mark.parametrize("seed", range(4))
def test_random_floating_trees_against_pinocchio(seed):
    robot = floating_robot(seed)
    peer = PinocchioRobot(robot, floating=True)
    m, d = peer.model, peer.data
    rng = np.random.default_rng(100 + seed)
    q, v, a = state(robot, rng)
    qp, vp, ap = peer.pin_q(q), peer.pin_v(v), peer.pin_v(a)
    tau = peer.robmod_v(pin.rnea(m, d, qp, vp, ap))
    assert np.allclose(idm(robot, q, v, a), tau, rtol=1e-10, atol=1e-10)
    M = pin.crba(m, d, qp)
    M = np.triu(M) + np.triu(M, 1).T
    M = peer.robmod_v(peer.robmod_v(M).T)
    assert np.allclose(inertia_matrix(robot, q), M, rtol=1e-10, atol=1e-12)
    acc = peer.robmod_v(pin.aba(m, d, qp, vp, peer.pin_v(np.r_[np.zeros(6), tau[6:]])))
    for method in ("recursive", "inverse"):
        assert np.allclose(ddm(robot, q, v, tau[6:], method=method), acc, rtol=1e-9,
                           atol=1e-9)
    out = idm(robot, q, v, acc[6:], method="free_floating")
    assert np.allclose(out, np.r_[acc[:6], tau[6:]], rtol=1e-9, atol=1e-9)
    # kinematics: every frame, the Jacobians, the centre of mass, the centroidal momentum
    pin.forwardKinematics(m, d, qp, vp)
    pin.updateFramePlacements(m, d)
    for j in range(1, robot.n_frames + 1):
        T = d.oMf[peer.frame_id[j]].homogeneous
        assert np.allclose(dgm(robot, q, j=j, i="world"), T, atol=1e-12)
        Jp = pin.computeFrameJacobian(m, d, qp, peer.frame_id[j], pin.LOCAL_WORLD_ALIGNED)
        assert np.allclose(jacobian(robot, q, j=j, i="world"), peer.robmod_v(Jp), atol=1e-12)
        Jl = pin.computeFrameJacobian(m, d, qp, peer.frame_id[j], pin.LOCAL)
        assert np.allclose(jacobian(robot, q, j=j, i=j), peer.robmod_v(Jl), atol=1e-12)
    assert np.allclose(center_of_mass(robot, q, i="world"), pin.centerOfMass(m, d, qp), atol=1e-12)
    assert np.allclose(center_of_mass_jacobian(robot, q, i="world"),
                       peer.robmod_v(pin.jacobianCenterOfMass(m, d, qp)), atol=1e-12)
    Ag = peer.robmod_v(pin.computeCentroidalMap(m, d, qp))
    assert np.allclose(centroidal_momentum_matrix(robot, q, i="world"), Ag, atol=1e-11)
    pin.computeCentroidalMomentum(m, d, qp, vp)
    assert np.allclose(centroidal_momentum(robot, q, v, i="world"), d.hg.vector, atol=1e-11)


def test_batches_and_the_compiled_path_agree_with_the_numpy_path():
    robot = floating_robot(7, n=3)
    rng = np.random.default_rng(1)
    q, v, a = state(robot, rng, (5, 2))
    tau = idm(robot, q, v, a)
    assert tau.shape == (5, 2, 6 + robot.n_q)

    def models():       # the inverse and the direct model (the others: the same fast path)
        return [idm(robot, q, v, a), ddm(robot, q, v, tau[..., 6:])]

    old = robmod.set_backend("compiled")
    try:
        fast = models()
        single = idm(robot, q[1, 1], v[1, 1], a[1, 1])
        robmod.set_backend("numpy")
        slow = models()
    finally:
        robmod.set_backend(old)
    for x, y in zip(fast, slow):
        assert np.allclose(x, y, rtol=1e-10, atol=1e-10)
    assert np.allclose(single, slow[0][1, 1], rtol=1e-12, atol=1e-12)


def test_the_models_are_consistent():
    """M from the inverse model's columns; the free-floating model inverts the direct one;
    the base's wrench of the direct model's accelerations is the base's external wrench."""
    robot = floating_robot(3)
    rng = np.random.default_rng(2)
    q, v, _ = state(robot, rng)
    n = robot.n_q
    tau = rng.normal(size=n)
    acc = ddm(robot, q, v, tau)
    assert np.allclose(idm(robot, q, v, acc), np.r_[np.zeros(6), tau], atol=1e-9)
    E = np.eye(6 + n)
    cols = idm(robot, np.broadcast_to(q, (6 + n, 7 + n)), np.zeros(6 + n), E,
                        gravity=False, velocity=False, friction=False)
    M = inertia_matrix(robot, q)
    assert np.allclose(cols.T, M, atol=1e-10) and np.linalg.eigvalsh(M).min() > 0
    # the base's external wrench (FX0..CZ0: exerted by link 0 on the environment)
    from dataclasses import replace
    w = rng.normal(size=6)
    pushed = replace(robot, base_link=replace(robot.base_link, **dict(zip(
        ("FX", "FY", "FZ", "CX", "CY", "CZ"), map(sp.Float, w)))))
    acc = ddm(pushed, q, v, tau)
    assert np.allclose(idm(robot, q, v, acc), np.r_[-w, tau], atol=1e-9)
    assert np.allclose(idm(pushed, q, v, acc[6:], method="free_floating"), np.r_[acc[:6], tau],
                       atol=1e-9)


def test_a_mobile_base_is_the_fixed_model_with_the_base_motion():
    """A fixed base with Khalil's constant base motion (the robot's W0, WP0, VP0, gravity in
    frame 0) is a mobile base whose motion, given in q, qd, qdd, is that one: the joint rows
    of its inverse model, its direct model at the given base acceleration, its inertia
    matrix's joint block (VD0 = VP0 - W0 x V0), for any pose of frame 0; a floating base's
    inverse model is the mobile one."""
    from dataclasses import replace
    rng = np.random.default_rng(4)
    base = random_robot(rng, n=5, tree=True)
    q, v, a = state(base.with_base("floating"), rng)
    W0, V0, WP0, VD0 = v[3:6], v[:3], a[3:6], a[:3]
    R = quaternion_to_matrix(q[3:7])
    g = np.array([0.0, 0.0, -9.81])
    khalil = replace(base, W0=tuple(map(sp.Float, W0)), V0=tuple(map(sp.Float, V0)),
                     WP0=tuple(map(sp.Float, WP0)),
                     VP0=tuple(map(sp.Float, VD0 + np.cross(W0, V0))),
                     gravity=tuple(map(sp.Float, R.T @ g)))
    mobile = replace(base, gravity=tuple(map(sp.Float, g))).with_base("mobile")
    floating = mobile.with_base("floating")
    tau = idm(khalil, q[7:], v[6:], a[6:])
    assert np.allclose(idm(mobile, q, v, a)[6:], tau, atol=1e-10)
    assert np.allclose(idm(floating, q, v, a), idm(mobile, q, v, a), atol=1e-10)
    qdd = ddm(khalil, q[7:], v[6:], tau)
    for method in ("recursive", "inverse"):
        out = ddm(mobile, q, v, tau, base_acceleration=a[:6], method=method)
        assert np.allclose(out, np.r_[a[:6], qdd], atol=1e-9)
    assert np.allclose(inertia_matrix(khalil, q[7:]), inertia_matrix(mobile, q)[6:, 6:],
                       atol=1e-12)
    # the base at a constant twist by default; a floating base's acceleration is not given
    assert np.allclose(ddm(mobile, q, v, tau), ddm(mobile, q, v, tau,
                                                    base_acceleration=np.zeros(6)))
    with pytest.raises(ArgumentError, match="base_acceleration is the given acceleration"):
        ddm(floating, q, v, tau, base_acceleration=a[:6])


def test_customized_models_equal_the_numeric_ones():
    robot = floating_robot(5, n=4)
    rng = np.random.default_rng(3)
    q, v, a = state(robot, rng)
    n = robot.n_q
    f = idm_model(robot).numpy_function()
    assert np.allclose(f(q, v, a), idm(robot, q, v, a), atol=1e-10)
    f = idm_model(robot, method="free_floating").numpy_function()
    assert np.allclose(f(q, v, a[6:]), idm(robot, q, v, a[6:], method="free_floating"),
                       atol=1e-10)
    tau = rng.normal(size=n)
    f = ddm_model(robot).numpy_function()
    assert np.allclose(f(q, v, tau), ddm(robot, q, v, tau), atol=1e-9)
    A = inertia_matrix_model(robot).numpy_function()(q)
    M = inertia_matrix(robot, q)
    assert np.allclose(A, M[np.tril_indices(6 + n)], atol=1e-12)
    T = dgm_model(robot, j=3, i="world").numpy_function()(q)
    assert np.allclose(T, dgm(robot, q, j=3, i="world")[:3], atol=1e-12)
    J = jacobian_model(robot, j=4, i="world").numpy_function()(q)
    assert np.allclose(J, jacobian(robot, q, j=4, i="world"), atol=1e-12)


def test_symbolic_floating_models_of_a_symbolic_robot():
    """The RX-90 with a symbolic floating base: the models keep every symbol (XX0 .. M0, the
    robot's) and evaluate to the numeric ones."""
    robot = robmod.load_robot("rx90").with_base("floating", **{
        k: sp.Symbol(f"{k}0") for k in ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ",
                                        "M")})
    model = idm_model(robot)
    names = {str(s) for s in model.parameters}
    assert {"M0", "XX0", "MX0", "M6", "ZZ1", "G3"} <= names
    assert [str(s) for s in model.inputs["q"][:7]] == ["PB1", "PB2", "PB3", "QB0", "QB1",
                                                       "QB2", "QB3"]
    assert model.outputs[0].names[:6] == ("E10", "E20", "E30", "N10", "N20", "N30")


def test_operation_counts_of_the_base():
    """The floating IDM (base acceleration given) costs the fixed-base IDM plus a bounded
    number of operations, the same for 4 and 6 joints: the base's gravity and velocity terms,
    link 0's wrench, link 1's velocities (general vectors now), the backward recursion's last
    step; the fixed-base counts stay the book's (RX-90: 294 multiplications, Table 7.6)."""
    from robmod.description import make_robot
    from robmod.description.base import symbolic_base_link

    extra = {}
    for n in (4, 6):
        rx = robmod.load_robot("rx90")
        if n == 4:
            rx = make_robot("rx90_4", rx.frames[:4], rx.links[:4], gravity=rx.gravity)
        fixed = idm_model(rx, friction=False, rotor=False).count()
        floating = idm_model(rx.with_base("floating", link=symbolic_base_link()),
                             friction=False, rotor=False).count()
        extra[n] = (floating.mults - fixed.mults, floating.adds - fixed.adds)
    assert extra[4] == extra[6]
    assert 0 < extra[6][0] < 200 and 0 < extra[6][1] < 200
    assert idm_model(robmod.load_robot("rx90"), friction=False).count().mults == 294


def test_integrate_and_difference_on_se3():
    robot = floating_robot(1, n=3)
    rng = np.random.default_rng(5)
    q, v, _ = state(robot, rng, (20,))
    v[:4, 3:6] = rng.normal(size=(4, 3)) * 1e-7     # small rotations: the series
    q1 = integrate(robot, q, v, dt=0.7)
    assert np.allclose(np.linalg.norm(q1[:, 3:7], axis=-1), 1.0)
    assert np.allclose(difference(robot, q, q1), 0.7 * v, atol=1e-10)
    assert np.allclose(integrate(robot, q, difference(robot, q, q1)), q1, atol=1e-12)
    # a constant twist is a screw motion: frame 0's velocity in itself stays the twist
    h = 1e-6
    T0 = dgm(robot, q[0], j=0, i="world")
    T1 = dgm(robot, integrate(robot, q[0], v[0], dt=h), j=0, i="world")
    assert np.allclose(T0[:3, :3].T @ (T1[:3, 3] - T0[:3, 3]) / h, v[0, :3], atol=1e-5)
    # Pinocchio's integrate on a free-flyer
    peer = PinocchioRobot(robot, floating=True)
    qp = pin.integrate(peer.model, peer.pin_q(q[0]), peer.pin_v(v[0]) * 0.7)
    assert np.allclose(peer.pin_q(q1[0]), qp, atol=1e-12)
    assert np.array_equal(neutral(robot)[3:7], [1, 0, 0, 0])
    fixed = robmod.load_robot("rx90", numeric=True)
    assert np.allclose(integrate(fixed, np.zeros(6), np.ones(6), dt=0.5), 0.5)


def test_bad_floating_arguments():
    robot = floating_robot(2, n=3)
    q, v, a = state(robot, np.random.default_rng(0))
    with pytest.raises(ArgumentError, match=r"argument q must have 10 values \(the base"):
        idm(robot, q[1:], v, a)
    bad = q.copy()
    bad[3:7] = 0
    with pytest.raises(ArgumentError, match="quaternion .* is zero"):
        idm(robot, bad, v, a)
    with pytest.raises(ArgumentError, match="argument qdd must have 3 joint values"):
        idm(robot, q, v, a, method="free_floating")
    with pytest.raises(ArgumentError, match="did you mean 'rotor'"):
        idm(robot, q, v, a, rotr=False)
    with pytest.raises(ArgumentError, match="method must be"):
        ddm(robot, q, v, a[6:], method="aba")


def test_descriptions_of_the_base():
    text = """robmod: 1
name: sat
frames:
  - {j: 1, ant: 0, sigma: 0, theta: q1, d: 0.5}
  - {j: 2, ant: 1, sigma: 0, theta: q2, d: 1.0}
link_defaults: zero
links:
  - {j: 0, M: 100, XX: 10, YY: 12, ZZ: 14}
  - {j: 1, M: 2, MX: 1, XX: 0.1, YY: 0.6, ZZ: 0.6}
  - {j: 2, M: 1, MX: 0.5, XX: 0.05, YY: 0.3, ZZ: 0.3}
base:
  kind: floating
  gravity: [0, 0, 0]
"""
    robot = loads_yaml(text, "sat.yaml")
    assert robot.base_kind == "floating" and float(robot.base_link.M) == 100
    again = loads_yaml(dumps_yaml(robot))
    assert again.content_key == robot.content_key
    with pytest.raises(robmod.RobmodError, match="sat.yaml:8.*link 0, the base, takes"):
        loads_yaml(text.replace("  kind: floating\n", ""), "sat.yaml")
    with pytest.raises(robmod.RobmodError, match="sat.yaml:12.*base kind must be one of"):
        loads_yaml(text.replace("kind: floating", "kind: flying"), "sat.yaml")
    with pytest.raises(DescriptionError, match="floating base has no constant Z"):
        loads_yaml(text.replace("  gravity:", "  Z: {b: 1}\n  gravity:"),
                   "sat.yaml")
    bad = Link(j=0, M=1, XX=1, YY=1, ZZ=3)
    with pytest.raises(DescriptionError, match="triangle"):
        robot.with_base("floating", link=bad)


def test_a_rigid_body_split_into_welded_links():
    """A link whose inertia alone is impossible (a URDF's placeholder: 1e-6 kg, every entry
    1e-6) welded by a fixed frame to a link with a real one is part of one rigid body: the
    body is checked, as Pinocchio and MuJoCo take it (ANYmal, Go1, HyQ, B1 in
    example-robot-data); alone, it is refused."""
    frames = [dict(j=1, ant=0, sigma=2, mu=0, r=0.05), dict(j=2, ant=1, sigma=0, d=0.3)]
    dummy = dict(j=1, XX=1e-6, XY=1e-6, XZ=1e-6, YY=1e-6, YZ=1e-6, ZZ=1e-6, M=1e-6)
    body = dict(j=0, M=10, XX=0.2, YY=0.3, ZZ=0.4)
    arm = Link(j=2, M=1, MX=0.1, XX=0.05, YY=0.06, ZZ=0.07)
    from robmod.description import make_robot
    robot = make_robot("welded", frames, [Link(**dummy), arm], base="floating",
                       base_link=body)
    assert robot.base_kind == "floating"
    with pytest.raises(DescriptionError, match="triangle"):
        make_robot("alone", frames, [Link(**dummy), arm])     # nothing welded to link 1


@pytest.mark.parametrize("off", ["gravity", "rotor", "friction", "wrench", "velocity",
                                 "acceleration"])
def test_switches_are_the_models_of_the_zeroed_robot(off):
    """Each switch of the floating models set to False is the model of the robot without that
    term (gravity 0, IA 0, FC = FV = 0, FX..CZ 0 on every link, link 0 included) or of a zero
    input (qd, qdd), as for the fixed base (tests/test_api_grid.py)."""
    from dataclasses import replace
    rng = np.random.default_rng(6)
    robot = floating_robot(6, n=4)
    wrench = ("FX", "FY", "FZ", "CX", "CY", "CZ")

    def noisy(link):
        return replace(link, FC=sp.Float(rng.uniform(0.1, 1)), FV=sp.Float(rng.uniform(0.1, 1)),
                       **{k: sp.Float(rng.normal()) for k in wrench})

    robot = replace(robot, links=tuple(noisy(link) for link in robot.links),
                    base_link=replace(robot.base_link, **{k: sp.Float(rng.normal())
                                                          for k in wrench}))
    zero = {"gravity": lambda r: replace(r, gravity=(sp.Integer(0),) * 3),
            "rotor": lambda r: replace(r, links=tuple(replace(k, IA=0) for k in r.links)),
            "friction": lambda r: replace(r, links=tuple(replace(k, FC=0, FV=0)
                                                         for k in r.links)),
            "wrench": lambda r: replace(r, links=tuple(replace(k, **dict.fromkeys(wrench, 0))
                                                       for k in r.links),
                                        base_link=replace(r.base_link,
                                                          **dict.fromkeys(wrench, 0)))}
    q, v, a = state(robot, rng)
    ref, vv, aa = robot, v, a
    if off in zero:
        ref = zero[off](robot)
    elif off == "velocity":
        vv = np.zeros_like(v)
    else:
        aa = np.zeros_like(a)
    assert np.allclose(idm(robot, q, v, a, **{off: False}),
                       idm(ref, q, vv, aa), atol=1e-10)
    assert np.allclose(idm(robot, q, v, a[6:], method="free_floating", **{off: False}),
                       idm(ref, q, vv, aa[6:], method="free_floating"), atol=1e-9)
    if off != "acceleration":
        tau = rng.normal(size=robot.n_q)
        for method in ("recursive", "inverse"):
            assert np.allclose(ddm(robot, q, v, tau, method=method, **{off: False}),
                               ddm(ref, q, vv, tau, method=method), atol=1e-9)


def test_the_base_options_are_checked():
    """A misspelt base kind or link-0 parameter, a fixed robot's base equations, a zero
    quaternion: ArgumentErrors naming what is expected (the closest name when there is one)."""
    from robmod.description import make_robot
    from robmod.geometry import velocity_from_derivatives
    from robmod.identification import numeric_base

    rx = robmod.load_robot("rx90", numeric=True)
    with pytest.raises(ArgumentError, match="did you mean 'floating'"):
        rx.with_base("flaoting")
    with pytest.raises(ArgumentError, match="no parameter 'MM'.*did you mean 'M'"):
        rx.with_base("floating", MM=3)
    assert float(rx.with_base("mobile", M=3).base_link.M) == 3.0
    with pytest.raises(ArgumentError, match="base must be one of.*did you mean 'mobile'"):
        make_robot("r", [dict(j=1, ant=0)], base="mobil")
    with pytest.raises(ArgumentError, match="equations must be"):
        numeric_base(rx, equations="base")          # a fixed base has no base equations
    with pytest.raises(ArgumentError, match="quaternion.*is zero"):
        velocity_from_derivatives(np.zeros(13), np.zeros(13), np.zeros(13))


def test_a_urdf_with_a_floating_base_keeps_the_inertia_check():
    """read_robot(path, base=..., inertia_check=...): both options at once; an impossible
    inertia on a floating robot's link warns (the URDF default) or is refused."""
    from robmod.description import loads_urdf

    text = """<robot name="sat">
  <link name="body"><inertial><mass value="10"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><mass value="1"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.5" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="body"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""
    with pytest.warns(robmod.RobmodWarning, match="triangle"):
        robot = loads_urdf(text, "sat.urdf", base="floating")
    assert robot.base_kind == "floating" and float(robot.base_link.M) == 10.0
    with pytest.raises(DescriptionError, match="sat.urdf.*triangle"):
        loads_urdf(text, "sat.urdf", base="floating", inertia_check="error")
    with pytest.raises(ArgumentError, match="did you mean 'floating'"):
        loads_urdf(text, "sat.urdf", base="floatin")


@pytest.mark.parametrize("seed", range(2))
def test_derivatives_and_accelerations_against_pinocchio(seed):
    """idm_derivatives and ddm_derivatives on the tangent space (the base's pose moved in its
    own frame: Pinocchio's computeRNEADerivatives, computeABADerivatives with a free-flyer),
    the classical accelerations of every frame (J qdd + Jdot qd), the energies and the gravity
    torques of a floating robot."""
    from robmod.dynamics import ddm_derivatives, energy, gravity_torques, idm_derivatives
    from robmod.kinematics import acceleration, jdot_qdot

    robot = floating_robot(seed, n=5)
    peer = PinocchioRobot(robot, floating=True)
    m, d = peer.model, peer.data
    rng = np.random.default_rng(200 + seed)
    q, v, a = state(robot, rng)
    qp, vp, ap = peer.pin_q(q), peer.pin_v(v), peer.pin_v(a)

    def ours(M):
        return peer.robmod_v(peer.robmod_v(M).T).T

    dq, dv, da = pin.computeRNEADerivatives(m, d, qp, vp, ap)
    D = idm_derivatives(robot, q, v, a)
    assert np.allclose(D.dtau_dq, ours(dq), atol=1e-10)
    assert np.allclose(D.dtau_dqd, ours(dv), atol=1e-10)
    assert np.allclose(D.dtau_dqdd, inertia_matrix(robot, q), atol=1e-12)
    tau = rng.normal(size=robot.n_q)
    pin.computeABADerivatives(m, d, qp, vp, peer.pin_v(np.r_[np.zeros(6), tau]))
    Dd = ddm_derivatives(robot, q, v, tau)
    assert np.allclose(Dd.dqdd_dq, ours(d.ddq_dq), atol=1e-9)
    assert np.allclose(Dd.dqdd_dqd, ours(d.ddq_dv), atol=1e-9)
    assert np.allclose(Dd.dqdd_dtau, np.linalg.inv(inertia_matrix(robot, q)), atol=1e-9)
    pin.forwardKinematics(m, d, qp, vp, ap)
    pin.updateFramePlacements(m, d)
    for j in range(1, robot.n_frames + 1):
        world = pin.getFrameClassicalAcceleration(m, d, peer.frame_id[j],
                                                  pin.LOCAL_WORLD_ALIGNED).vector
        assert np.allclose(acceleration(robot, q, v, a, j=j, i="world"), world, atol=1e-12)
        local = pin.getFrameClassicalAcceleration(m, d, peer.frame_id[j], pin.LOCAL).vector
        assert np.allclose(acceleration(robot, q, v, a, j=j, i=j), local, atol=1e-12)
        J = jacobian(robot, q, j=j)
        assert np.allclose(acceleration(robot, q, v, a, j=j), J @ a + jdot_qdot(robot, q, v, j=j),
                           atol=1e-12)
    E = energy(robot, q, v)
    assert np.isclose(E.kinetic, 0.5 * v @ inertia_matrix(robot, q) @ v)
    assert np.isclose(E.potential, pin.computePotentialEnergy(m, d, qp))
    assert np.allclose(gravity_torques(robot, q),
                       peer.robmod_v(pin.computeGeneralizedGravity(m, d, qp)), atol=1e-10)
