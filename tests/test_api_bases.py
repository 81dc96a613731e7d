"""One robot, one API: every function of a robot's configuration x every base kind (fixed,
mobile, floating) x one configuration and a batch x the NumPy and the compiled path, against
Pinocchio (a free-flyer for the mobile and floating bases: rnea, crba, aba,
computeRNEADerivatives, computeABADerivatives, frame placements, frame Jacobians, classical
accelerations, the centre of mass, the centroidal map ccrba, the generalized gravity, the
energies) on random trees and on floating robots of example-robot-data; and every other public
function of a configuration works on the three kinds or refuses by name (an ArgumentError
naming the base)."""
import importlib
import inspect
import os
import re
import warnings

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.dynamics import (center_of_mass, center_of_mass_jacobian, centroidal_momentum,
                             centroidal_momentum_matrix, ccg, ddm, ddm_derivatives, energy,
                             gravity_torques, idm, idm_derivatives, inertia_matrix)
from robmod.errors import ArgumentError
from robmod.geometry import dgm, frame_origins, integrate
from robmod.identification import regressor, standard_vector
from robmod.kinematics import acceleration, jacobian, jdot_qdot
from robmod.testing import PinocchioRobot, random_inertial, random_robot, \
    to_pinocchio_configuration
from robmod.testing.random import with_random_dynamics

pin = pytest.importorskip("pinocchio")
KINDS = ("fixed", "mobile", "floating")


def _robot(kind, seed=3, n=4):
    rng = np.random.default_rng(seed)
    robot = with_random_dynamics(random_robot(rng, n=n, tree=True, prismatic=True), rng,
                                 gravity=(0.3, -0.5, -9.81))
    return robot if kind == "fixed" else robot.with_base(kind, **random_inertial(rng))


ROBOTS = {kind: _robot(kind) for kind in KINDS}


def _state(robot, rng, batch=()):
    """(q, qd, qdd, tau) of the robot's kind (the base's entries first, a unit quaternion)."""
    n = robot.n_q
    joints = rng.uniform(-1.2, 1.2, batch + (n,))
    if robot.base_kind == "fixed":
        return joints, rng.normal(size=batch + (n,)), rng.normal(size=batch + (n,)), \
            rng.normal(size=batch + (n,))
    Q = rng.normal(size=batch + (4,))
    q = np.concatenate([rng.normal(size=batch + (3,)), Q / np.linalg.norm(Q, axis=-1,
                                                                          keepdims=True),
                        joints], axis=-1)
    return q, rng.normal(size=batch + (6 + n,)), rng.normal(size=batch + (6 + n,)), \
        rng.normal(size=batch + (n,))


class Peer:
    """Pinocchio's model of a robot (a free-flyer for a mobile or floating base) and the maps
    between its vectors and robmod's."""

    def __init__(self, robot):
        self.robot = robot
        self.moving = robot.base_kind != "fixed"
        self.p = PinocchioRobot(robot, floating=self.moving)
        self.m, self.d = self.p.model, self.p.data

    def vec(self, v):
        return self.p.robmod_v(v)

    def mat(self, M):
        return self.p.robmod_v(self.p.robmod_v(np.asarray(M)).T).T

    def sym(self, M):
        return self.mat(np.triu(M) + np.triu(M, 1).T)

    def at(self, q, v=None, a=None):
        qp = self.p.pin_q(q)
        vp = None if v is None else self.p.pin_v(v)
        ap = None if a is None else self.p.pin_v(a)
        return qp, vp, ap


def _world(robot, q):
    """wT0 of one configuration (Pinocchio's world: frame 0 of a fixed base)."""
    if robot.base_kind == "fixed":
        return np.eye(4)
    return dgm(robot, q, j=0, i="world")


def reference(name, robot, peer, q, v, a, tau):
    """Pinocchio's value of ``name`` at one state of the robot (robmod's layout)."""
    m, d = peer.m, peer.d
    qp, vp, ap = peer.at(q, v, a)
    head = 6 if peer.moving else 0
    if name == "idm":
        return peer.vec(pin.rnea(m, d, qp, vp, ap))
    if name == "inertia_matrix":
        return peer.sym(pin.crba(m, d, qp))
    if name == "ddm":
        force = np.r_[np.zeros(head), tau]
        if robot.base_kind != "mobile":
            return peer.vec(pin.aba(m, d, qp, vp, peer.p.pin_v(force)))
        M = peer.sym(pin.crba(m, d, qp))
        h = peer.vec(pin.rnea(m, d, qp, vp, peer.p.pin_v(np.r_[a[:6], np.zeros(len(tau))])))
        return np.r_[a[:6], np.linalg.solve(M[6:, 6:], tau - h[6:])]
    if name == "gravity_torques":
        return peer.vec(pin.computeGeneralizedGravity(m, d, qp))
    if name == "ccg":
        return peer.vec(pin.nonLinearEffects(m, d, qp, vp))
    if name == "energy":
        return np.array([pin.computeKineticEnergy(m, d, qp, vp),
                         pin.computePotentialEnergy(m, d, qp)])
    if name == "idm_derivatives":
        dq, dv, da = pin.computeRNEADerivatives(m, d, qp, vp, ap)
        return np.stack([peer.mat(dq), peer.mat(dv), peer.sym(da)])
    if name == "ddm_derivatives":
        force = np.r_[np.zeros(head), tau]
        pin.computeABADerivatives(m, d, qp, vp, peer.p.pin_v(force))
        return np.stack([peer.mat(d.ddq_dq), peer.mat(d.ddq_dv), peer.sym(d.Minv)])
    if name == "center_of_mass":
        return pin.centerOfMass(m, d, qp)
    if name == "center_of_mass_jacobian":
        return peer.vec(pin.jacobianCenterOfMass(m, d, qp))
    if name == "centroidal_momentum_matrix":
        return peer.vec(pin.computeCentroidalMap(m, d, qp))
    pin.forwardKinematics(m, d, qp, vp, ap)
    pin.updateFramePlacements(m, d)
    out = []
    for j in range(1, robot.n_frames + 1):
        fid = peer.p.frame_id[j]
        if name == "dgm":
            out.append(d.oMf[fid].homogeneous)
        elif name == "jacobian":
            out.append(peer.vec(pin.computeFrameJacobian(m, d, qp, fid,
                                                         pin.LOCAL_WORLD_ALIGNED)))
        elif name == "acceleration":
            out.append(pin.getFrameClassicalAcceleration(m, d, fid,
                                                         pin.LOCAL_WORLD_ALIGNED).vector)
    return np.stack(out)


def ours(name, robot, q, v, a, tau):
    """robmod's value of ``name`` in the reference's layout (the world frame; a fixed base's
    world is frame 0 for Pinocchio: the random robots' Z is the identity)."""
    if name == "idm":
        return idm(robot, q, v, a, friction=False)
    if name == "inertia_matrix":
        return inertia_matrix(robot, q)
    if name == "ddm":
        options = {"base_acceleration": a[..., :6]} if robot.base_kind == "mobile" else {}
        return ddm(robot, q, v, tau, friction=False, **options)
    if name == "gravity_torques":
        return gravity_torques(robot, q)
    if name == "ccg":
        return ccg(robot, q, v)
    if name == "energy":
        E = energy(robot, q, v)          # Pinocchio counts the armature (IA) too
        return np.stack([E.kinetic, E.potential], axis=-1)
    if name == "idm_derivatives":
        return np.stack(idm_derivatives(robot, q, v, a, friction=False), axis=-3)
    if name == "ddm_derivatives":
        options = {"base_acceleration": a[..., :6]} if robot.base_kind == "mobile" else {}
        return np.stack(ddm_derivatives(robot, q, v, tau, friction=False, **options), axis=-3)
    if name == "center_of_mass":
        return center_of_mass(robot, q, i="world")
    if name == "center_of_mass_jacobian":
        return center_of_mass_jacobian(robot, q, i="world")
    if name == "centroidal_momentum_matrix":
        return centroidal_momentum_matrix(robot, q, i="world")
    frames = range(1, robot.n_frames + 1)
    if name == "dgm":
        return np.stack([dgm(robot, q, j=j, i="world") for j in frames], axis=-3)
    if name == "jacobian":
        return np.stack([jacobian(robot, q, j=j, i="world") for j in frames], axis=-3)
    if name == "acceleration":
        return np.stack([acceleration(robot, q, v, a, j=j, i="world") for j in frames], axis=-2)
    raise AssertionError(name)


QUANTITIES = ["idm", "inertia_matrix", "ddm", "gravity_torques", "ccg", "energy",
              "idm_derivatives", "ddm_derivatives", "center_of_mass", "center_of_mass_jacobian",
              "centroidal_momentum_matrix", "dgm", "jacobian", "acceleration"]
#: what Pinocchio's mobile base differs in: its aba solves the base's acceleration (robmod's
#: ddm of a mobile base gives it, the reference solves the joints' rows at it); its ABA
#: derivatives are a floating base's (robmod's mobile ones: checked by finite differences)
NOT_FOR = {("ddm_derivatives", "mobile")}


@pytest.fixture(params=["numpy", "compiled"])
def backend(request):
    old = robmod.set_backend(request.param)
    yield request.param
    robmod.set_backend(old)


@pytest.mark.parametrize("name", QUANTITIES)
@pytest.mark.parametrize("kind", KINDS)
def test_every_quantity_every_base_kind_against_pinocchio(name, kind, backend):
    """One configuration and a batch of three, each compared with Pinocchio's value (the
    batch element by element), on the NumPy and on the compiled path."""
    if (name, kind) in NOT_FOR:
        pytest.skip("checked by finite differences (test_mobile_ddm_derivatives)")
    robot = ROBOTS[kind]
    peer = Peer(robot)
    rng = np.random.default_rng(hash((name, kind)) % 2**32)
    one = _state(robot, rng)
    many = _state(robot, rng, (3,))
    got = ours(name, robot, *one)
    ref = reference(name, robot, peer, *one)
    scale = max(1.0, float(np.abs(ref).max()))
    assert got.shape == ref.shape, (got.shape, ref.shape)
    assert np.abs(got - ref).max() <= 1e-9 * scale
    batch = ours(name, robot, *many)
    for k in range(3):
        ref = reference(name, robot, peer, *(x[k] for x in many))
        assert np.abs(batch[k] - ref).max() <= 1e-9 * max(1.0, float(np.abs(ref).max()))


@pytest.mark.parametrize("kind", KINDS)
def test_the_compiled_path_is_taken_for_every_base_kind(kind):
    """The plain functions of a mobile or floating robot are compiled like a fixed one's (one
    fast-path predicate: a tree), and give the NumPy path's values."""
    from robmod.symbolic import fastpath

    robot = ROBOTS[kind]
    rng = np.random.default_rng(5)
    q, v, a, tau = _state(robot, rng, (4,))
    calls = {("idm", ()): lambda: idm(robot, q, v, a),
             ("A", True): lambda: inertia_matrix(robot, q),
             ("ddm",): lambda: ddm(robot, q, v, tau),
             ("dgm", None, 0, None): lambda: dgm(robot, q),
             ("jacobian", None, 0, None): lambda: jacobian(robot, q),
             ("Q",): lambda: gravity_torques(robot, q)}
    old = robmod.set_backend("numpy")
    try:
        slow = {k: f() for k, f in calls.items()}
        robmod.set_backend("compiled")
        for key, f in calls.items():
            fast = f()
            assert fastpath.entry(robot, key).fn is not None, key
            assert np.allclose(fast, slow[key], rtol=1e-12, atol=1e-12), key
    finally:
        robmod.set_backend(old)


def test_the_free_floating_inverse_model_inverts_aba():
    robot = ROBOTS["floating"]
    peer = Peer(robot)
    q, v, _, tau = _state(robot, np.random.default_rng(8))
    acc = reference("ddm", robot, peer, q, v, None, tau)
    out = idm(robot, q, v, acc[6:], method="free_floating")
    assert np.allclose(out, np.r_[acc[:6], tau], atol=1e-9)
    with pytest.raises(ArgumentError, match="free_floating.*mobile base"):
        idm(ROBOTS["mobile"], q, v, np.zeros(robot.n_q), method="free_floating")


def test_mobile_ddm_derivatives():
    """A mobile base's direct model at its given acceleration, differentiated on the tangent
    space: finite differences (the base's rows are zero: its acceleration is given)."""
    robot = ROBOTS["mobile"]
    q, v, a, tau = _state(robot, np.random.default_rng(9))
    a0 = a[:6]
    D = ddm_derivatives(robot, q, v, tau, base_acceleration=a0)
    h = 1e-6

    def f(qq, vv, tt):
        return ddm(robot, qq, vv, tt, base_acceleration=a0)

    E = np.eye(6 + robot.n_q)
    dq = np.stack([(f(integrate(robot, q, h * e), v, tau) - f(integrate(robot, q, -h * e), v,
                                                              tau)) / (2 * h) for e in E], -1)
    dv = np.stack([(f(q, v + h * e, tau) - f(q, v - h * e, tau)) / (2 * h) for e in E], -1)
    assert np.abs(D.dqdd_dq - dq).max() < 1e-6 and np.abs(D.dqdd_dqd - dv).max() < 1e-6
    assert not D.dqdd_dq[:6].any() and not D.dqdd_dtau[:6].any()


@pytest.mark.parametrize("kind", KINDS)
def test_frames_in_frame_0_and_in_the_world(kind):
    """One convention: i= a frame (default 0) or "world"; the world of a fixed base is its Z."""
    robot = ROBOTS[kind]
    if kind == "fixed":
        from dataclasses import replace

        Z = np.eye(4)
        Z[:3, 3] = [0.1, -0.2, 0.3]
        robot = replace(robot, Z=sp.ImmutableMatrix(Z))
    q, v, a, _ = _state(robot, np.random.default_rng(10), (2,))
    W = np.stack([_world(robot, x) for x in q]) if kind != "fixed" else \
        np.array(robot.Z, dtype=float)
    for j in range(1, robot.n_frames + 1):
        T0 = dgm(robot, q, j=j)
        assert np.allclose(dgm(robot, q, j=j, i="world"), W @ T0)
        R = (W @ np.eye(4))[..., :3, :3]
        J0, Jw = jacobian(robot, q, j=j), jacobian(robot, q, j=j, i="world")
        assert np.allclose(Jw[..., :3, :], R @ J0[..., :3, :])
        assert np.allclose(Jw[..., 3:, :], R @ J0[..., 3:, :])
        acc0 = acceleration(robot, q, v, a, j=j)
        assert np.allclose(acc0, np.einsum("...ij,...j->...i", J0, a)
                           + jdot_qdot(robot, q, v, j=j))
        Tj = dgm(robot, q, j=j, i=j - 1 if j > 1 else 0)
        assert Tj.shape == T0.shape
    c0, cw = center_of_mass(robot, q), center_of_mass(robot, q, i="world")
    assert np.allclose(cw, np.einsum("...ij,...j->...i", W[..., :3, :3], c0) + W[..., :3, 3])
    h = centroidal_momentum(robot, q, v, i="world")
    assert h.shape == q.shape[:-1] + (6,)
    poses = frame_origins(robot, q[0])
    assert np.allclose(poses[robot.n_frames], dgm(robot, q[0], j=robot.n_frames))


@pytest.mark.parametrize("kind", KINDS)
def test_the_regressor_of_every_base_kind(kind):
    robot = ROBOTS[kind]
    q, v, a, _ = _state(robot, np.random.default_rng(11), (3,))
    Y = regressor(robot, q, v, a)
    assert np.allclose(Y @ standard_vector(robot), idm(robot, q, v, a), atol=1e-9)
    if kind != "fixed":
        assert np.allclose(regressor(robot, q, v, a, equations="base"), Y[..., :6, :])
    else:
        with pytest.raises(ArgumentError, match="fixed base"):
            regressor(robot, q, v, a, equations="base")


@pytest.mark.parametrize("kind", KINDS)
def test_customized_models_and_their_exports(kind):
    """The customized models of every base kind (under their plain names) evaluate to the
    plain functions, and export to CasADi and JAX."""
    from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model
    from robmod.geometry import dgm_model
    from robmod.kinematics import jacobian_model

    robot = ROBOTS[kind]
    q, v, a, tau = _state(robot, np.random.default_rng(12))
    n = len(v)
    given = (a[:6],) if kind == "mobile" else ()
    options = {"base_acceleration": a[:6]} if kind == "mobile" else {}
    cases = [(idm_model(robot), (q, v, a), idm(robot, q, v, a)),
             (ddm_model(robot), (q, v, tau) + given, ddm(robot, q, v, tau, **options)),
             (inertia_matrix_model(robot), (q,),
              inertia_matrix(robot, q)[np.tril_indices(n)]),
             (dgm_model(robot, j=2, i="world"), (q,), dgm(robot, q, j=2, i="world")[:3]),
             (jacobian_model(robot, j=3), (q,), jacobian(robot, q, j=3))]
    casadi = pytest.importorskip("casadi")
    for model, args, ref in cases:
        assert np.allclose(model.numpy_function()(*args), ref, atol=1e-10), model.name
        f = model.to_casadi()
        assert isinstance(f, casadi.Function)
        assert np.allclose(np.array(f(*args)).reshape(ref.shape), ref, atol=1e-10), model.name
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    g = cases[0][0].to_jax()
    assert np.allclose(np.asarray(g(*cases[0][1])), cases[0][2], atol=1e-10)


def test_the_mjcf_export_of_a_floating_robot():
    """to_mjcf of a floating robot: link 0 in a body with a freejoint; MuJoCo's inverse
    dynamics of it agree with robmod's idm (base wrench, joint torques)."""
    mujoco = pytest.importorskip("mujoco")
    from robmod.description import to_mjcf

    robot = ROBOTS["floating"]
    text = to_mjcf(robot)
    assert "freejoint" in text
    model = mujoco.MjModel.from_xml_string(text)
    assert model.nv == 6 + robot.n_q and model.nq == 7 + robot.n_q


# -- every other public function of a configuration: works or refuses by name -------------------

def _functions_of_a_configuration():
    out, seen = [], set()
    for name in ("geometry", "kinematics", "dynamics", "identification", "control"):
        pkg = importlib.import_module(f"robmod.{name}")
        for attr in pkg.__all__:
            fn = getattr(pkg, attr)
            if not inspect.isfunction(fn) or id(fn) in seen:
                continue
            seen.add(id(fn))
            params = list(inspect.signature(fn).parameters)
            if params[:2] == ["robot", "q"]:
                out.append((f"{name}.{attr}", fn))
    return out


FUNCTIONS = _functions_of_a_configuration()
#: those that need more than arrays of the robot's configuration (an argument of their own)
EXTRA = {"ikm_block": ("xd",), "transport_wrench": ("F",), "reduced_jacobian": ("task",),
         "task_residual": ("task",), "elastic_idm": ("qddd", "qdddd"),
         "elastic_ddm": ("qm", "qmd"),
         "identify": ("the pipeline of logs: a floating robot's through MeasuredData(..., "
                      "floating=True) and DynamicIdentification (issue 37's defaults)",)}


@pytest.mark.parametrize("qual, fn", FUNCTIONS, ids=[q for q, _ in FUNCTIONS])
@pytest.mark.parametrize("kind", ["mobile", "floating"])
def test_every_function_of_a_configuration_works_or_refuses_by_name(qual, fn, kind):
    """A capability works on all three base kinds or refuses by name: with a mobile or
    floating robot's configuration, a function returns or raises an ArgumentError that names
    the base's kind (never a NumPy error, never a silently wrong shape)."""
    robot = ROBOTS[kind]
    q, v, a, tau = _state(robot, np.random.default_rng(13))
    values = {"q": q, "qd": v, "qdd": a, "tau": tau}
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.default is p.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
    if fn.__name__ in EXTRA or any(p.name not in values and p.name != "robot" for p in params):
        pytest.skip("takes an argument of its own, or another form of data")
    args = [robot if p.name == "robot" else values[p.name] for p in params]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*args)
        except ArgumentError as e:
            assert kind in str(e) or "closed loop" in str(e) or "base" in str(e), str(e)
            return
    for x in (out if isinstance(out, tuple) else (out,)):
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            assert np.all(np.isfinite(x)), qual


# -- the floating robots of example-robot-data ----------------------------------------------------

def _robots_dir():
    from robmod.testing import example_robot_data

    try:
        return example_robot_data()
    except robmod.RobmodError:  # pragma: no cover
        return None


ROOT = _robots_dir()
URDF = {"solo12": "solo_description/robots/solo12.urdf",
        "anymal": "anymal_b_simple_description/robots/anymal.urdf",
        "talos": "talos_data/robots/talos_reduced.urdf"}
SLOW = os.environ.get("ROBMOD_SLOW") == "1"


@pytest.mark.skipif(ROOT is None, reason="example-robot-data is not installed")
@pytest.mark.parametrize("name", [pytest.param(k, marks=[] if k != "talos" or SLOW else
                                               [pytest.mark.skip("ROBMOD_SLOW=1")])
                                  for k in URDF])
def test_floating_robots_of_example_robot_data(name, backend):
    """rnea, crba, aba, their derivatives (NumPy path), the frame Jacobians and the centroidal
    map of Solo-12, ANYmal (and TALOS with ROBMOD_SLOW=1) against Pinocchio's free-flyer."""
    path = os.path.join(ROOT, URDF[name])
    robot = robmod.read_robot(path, base="floating").numeric()
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    data = model.createData()
    names = dict(re.findall(r"(\d+): joint '([^']+)'", robot.description))
    ids = [model.getJointId(names[str(j)]) for j in robot.joints]
    perm = list(range(6)) + [model.joints[jid].idx_v for jid in ids]
    qperm = [model.joints[jid].idx_q for jid in ids]
    rng = np.random.default_rng(1)
    n = robot.n_q
    Q = rng.normal(size=4)
    q = np.r_[rng.normal(size=3), Q / np.linalg.norm(Q), rng.uniform(-1, 1, n)]
    v, a = rng.normal(size=(2, 6 + n))
    qp = pin.neutral(model)
    qp[:7] = to_pinocchio_configuration(q[:7])
    qp[qperm] = q[7:]
    vp, ap = np.zeros(model.nv), np.zeros(model.nv)
    vp[perm], ap[perm] = v, a

    def rel(x, y):
        return float(np.abs(x - y).max() / max(1.0, np.abs(y).max()))

    def sym(M):
        M = np.triu(M) + np.triu(M, 1).T
        return M[np.ix_(perm, perm)]

    tau = pin.rnea(model, data, qp, vp, ap)
    assert rel(idm(robot, q, v, a, friction=False), tau[perm]) < 1e-9
    M = sym(pin.crba(model, data, qp))
    assert rel(inertia_matrix(robot, q), M) < 1e-9
    force = np.zeros(model.nv)
    force[6:] = tau[6:]
    acc = pin.aba(model, data, qp, vp, force)[perm]
    assert rel(ddm(robot, q, v, tau[perm][6:], friction=False), acc) < 1e-9 * np.linalg.cond(M)
    assert rel(centroidal_momentum_matrix(robot, q, i="world"),
               pin.computeCentroidalMap(model, data, qp)[:, perm]) < 1e-9
    pin.framesForwardKinematics(model, data, qp)
    feet = [link for link in robot.frame_names if re.search(r"FOOT|foot", link)
            and model.existFrame(link)][:2] or [next(iter(robot.frame_names))]
    for link in feet:
        J = pin.computeFrameJacobian(model, data, qp, model.getFrameId(link),
                                     pin.LOCAL_WORLD_ALIGNED)
        assert rel(jacobian(robot, q, j=link, i="world"), J[:, perm]) < 1e-9
    if backend == "compiled" and name != "solo12":
        return                   # the derivatives' compiled models of the big robots: slow
    dq, dv, _ = pin.computeRNEADerivatives(model, data, qp, vp, ap)
    D = idm_derivatives(robot, q, v, a, friction=False)
    assert rel(D.dtau_dq, dq[np.ix_(perm, perm)]) < 1e-9
    assert rel(D.dtau_dqd, dv[np.ix_(perm, perm)]) < 1e-9


@pytest.mark.parametrize("kind", KINDS)
def test_jacobian_derivatives_on_the_tangent_space(kind, backend):
    """∂J/∂q (the base's pose moved in itself) and J̇ (along the base's twist too) against
    finite differences through integrate, in frame 0, in a frame, in the world."""
    from robmod.kinematics import jacobian_derivatives, jacobian_dot

    robot = ROBOTS[kind]
    q, v, _, _ = _state(robot, np.random.default_rng(14))
    h = 1e-6
    for i in (0, 2, "world"):
        def J(qq):
            return jacobian(robot, qq, j=4, i=i)

        D = jacobian_derivatives(robot, q, j=4, i=i)
        fd = np.stack([(J(integrate(robot, q, h * e)) - J(integrate(robot, q, -h * e))) / (2 * h)
                       for e in np.eye(len(v))], -1)
        assert np.abs(D - fd).max() < 1e-7, i
        Jd = jacobian_dot(robot, q, v, j=4, i=i)
        fdt = (J(integrate(robot, q, h * v)) - J(integrate(robot, q, -h * v))) / (2 * h)
        assert np.abs(Jd - fdt).max() < 1e-7, i
