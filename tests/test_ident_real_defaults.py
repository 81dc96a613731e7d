"""Identification right by default on a robot's own files and logs (issue 25).

The robot is described as a URDF describes it (diagonal inertias about offset centres of mass,
no friction, no rotor inertia); the "real" robot behind it has other masses, products of
inertia, rotor inertias and friction; its logs are 100 Hz and 1 kHz controller logs with
irregular stamps, 16-bit encoders, current noise, torque offsets, measured velocities and a
position loop of 5 Hz shaken by a disturbance.
"""
import numpy as np
import pytest

import robmod
from robmod.dynamics import ddm, idm, inertia_matrix
from robmod.errors import RobmodError
from robmod.identification import (DynamicIdentification, FourierTrajectory, MeasuredData,
                                   identification_model, identify, load_log)
from robmod.identification.processing import motion_bandwidth, process
from robmod.testing.measured import arm_urdf, realistic_arm, simulated_log

OFFSETS = [0.3, -0.5, 0.2, 0.1, -0.1, 0.05]


def motion(seed, amp=0.6):
    r = np.random.default_rng(seed)
    return FourierTrajectory(np.zeros(6), r.uniform(-amp, amp, (6, 5)),
                             r.uniform(-amp, amp, (6, 5)), 0.1)


def controller_log(truth, seed, rate, duration, noise=0.02, traj_seed=None):
    return simulated_log(truth, motion(seed if traj_seed is None else traj_seed),
                         duration=duration, rate=rate, jitter=0.2, encoder_bits=16,
                         torque_noise=noise, loop_bandwidth=5.0, disturbance=2.0,
                         offsets=OFFSETS, velocity_noise=0.002, seed=seed)


@pytest.fixture(scope="module")
def arm():
    return realistic_arm(0)


@pytest.fixture(scope="module", params=[100, 1000], ids=["100Hz", "1kHz"])
def fitted(arm, request):
    description, truth = arm
    rate = request.param
    log = controller_log(truth, 1, rate, 30.0 if rate == 100 else 15.0)
    other = controller_log(truth, 2, rate, 10.0, traj_seed=5)
    return rate, DynamicIdentification(description).fit(log), log, other


def test_every_parameter_of_every_moving_link_is_identified(arm):
    """The URDF has no friction, no rotor inertia, no products of inertia: all are identified
    (78 standard parameters, 52 base + 6 offsets); what no data can separate is reported."""
    description, truth = arm
    model = identification_model(description)
    assert len(model.standard) == 6 * 13 and model.free == model.standard
    assert len(model.names) == 58 and model.names[-6:] == tuple(f"OFFSET{j}" for j in range(1, 7))
    nonzero = {f"{k}{link.j}" for link in truth.links for k in
               ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M", "IA", "FC", "FV")
               if float(getattr(link, k)) != 0}
    assert nonzero <= set(model.standard)                 # nothing of the truth left out
    for k in ("FC", "FV", "XY", "XZ", "YZ"):              # every class in the fit
        assert any(n.startswith(k) for n in model.columns), k
    assert any(n.startswith("IA") for n in model.columns)
    text = "\n".join(model.describe())
    assert "regrouped into base parameters (17)" in text and "IA1" in text
    assert "no effect on the torques (9)" in text and "M1" in text
    assert model.prior["M2"] == pytest.approx(8.393)       # the file's values: the prior


def test_ur5_urdf_parameter_count():
    import glob
    import sys

    hits = glob.glob(f"{sys.prefix}/lib/python*/site-packages/cmeel.prefix/share/"
                     "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf")
    if not hits:
        pytest.skip("example-robot-data's UR5 URDF is not installed")
    robot = robmod.load_robot(hits[0])
    model = identification_model(robot)
    assert len(model.standard) == 78 and len(model.names) == 58      # was 23 (zeros dropped)


@pytest.mark.parametrize("what", ["known", "fixed"])
def test_known_parameters_move_to_the_known_side(arm, what):
    description, truth = arm
    m6 = float(truth.link(6).M)
    option = {"known": {"M6": m6}} if what == "known" else {"fixed": ["M6"]}
    model = identification_model(description, **option)
    value = m6 if what == "known" else float(description.link(6).M)
    assert model.known == {"M6": value} and "M6" not in model.free
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-2, 2, (3, 400, 6))
    tau = idm(truth, q, qd, qdd)
    res = identify(description, q, qd, qdd, tau, **option)   # the arrays path, same model
    fit = identification_model(description, offsets=False, **option).predict(q, qd, qdd,
                                                                              res.beta)
    assert np.abs(fit - tau).max() < (1e-6 if what == "known" else 1.0)
    with pytest.raises(RobmodError, match=f"{what}: M9"):
        identification_model(description, **{what: {"M9": 1.0} if what == "known" else ["M9"]})


def test_default_pipeline_predicts_another_motion_within_the_noise(arm, fitted):
    description, truth = arm
    rate, est, log, other = fitted
    exact = controller_log(truth, 2, rate, 10.0, noise=0.0, traj_seed=5)   # the same motion
    p = process(exact, cutoff=est.processed_.cutoff, decimate=1)
    err = est.predict(p.q, p.qd, p.qdd) - p.tau
    sigma = 0.02 * np.abs(exact.tau).max(0)                  # the current noise
    rms = np.sqrt(np.mean(err ** 2, axis=0))
    assert np.all(rms < 2 * sigma) and np.sqrt(np.mean(rms ** 2)) < np.sqrt(np.mean(sigma ** 2))
    v = est.validate(other)
    assert v.total_relative < 0.05
    assert len(est.names_) == 58 and est.condition_ < 1e3


def test_cutoff_chosen_by_cross_validation(arm, fitted):
    """The curve is in the notes; the choice is its minimum; it passes the position loop's
    band (5 Hz here: Gautier's rule wants 10 times it when the rate allows); the old rule,
    5 times the band holding 99 % of the motion's energy, predicts far worse."""
    description, _ = arm
    rate, est, log, other = fitted
    choice = est.processed_.choice
    assert "cross-validation" in " ".join(est.processed_.notes)
    assert choice.chosen == est.processed_.cutoff == choice.cutoffs[np.argmin(choice.errors)]
    assert choice.chosen > 10.0
    assert est.processed_.decimation == max(1, int(0.8 * rate / (2 * choice.chosen)))
    old = DynamicIdentification(description, cutoff=5 * motion_bandwidth(log.q, rate)).fit(log)
    assert old.validate(other).total_relative > 2 * est.validate(other).total_relative


def test_consistent_fit_gives_a_robot_every_model_accepts(arm, fitted):
    pytest.importorskip("cvxpy")
    from robmod.control import ComputedTorque, simulate
    from robmod.identification import consistent_fit

    description, _ = arm
    rate, est, log, other = fitted
    c = consistent_fit(est, validation=other)
    assert c.status == "optimal"
    ls, cons = c.validation
    assert cons <= 1.10 * ls                                  # held-out within 10 % of LS
    for j, m in c.masses().items():                           # no 200 kg links
        assert 0.5 < m / c.prior_masses[j] < 2.0
    assert min(c.min_eigenvalues().values()) > 0
    assert all(v >= 0 for n, v in c.standard.items() if n[:2] in ("IA", "FC", "FV"))
    robot = est.to_robot(c)                                   # validated description
    q = np.random.default_rng(1).uniform(-2, 2, (20, 6))
    assert np.all(np.linalg.eigvalsh(inertia_matrix(robot, q)) > 0)
    np.testing.assert_allclose(ddm(robot, q, np.zeros((20, 6)), idm(robot, q, 0 * q, 0 * q)),
                               0.0, atol=1e-9)
    run = simulate(robot, ComputedTorque(robot, omega=20.0), motion(3, 0.2), 0.2,
                   saturation=False)                          # its own model in the loop
    assert np.all(np.isfinite(run.q)) and np.abs(run.q - run.q_des).max() < 0.05
    assert "held-out RMS" in c.summary()
    if rate == 100:                                           # the user's bounds
        b = consistent_fit(est, mass={6: (0.17, 0.18)}, total_mass=(18.0, 19.0))
        assert 0.17 - 1e-6 <= b.masses()[6] <= 0.18 + 1e-6
        assert 18.0 - 1e-5 <= sum(b.masses().values()) <= 19.0 + 1e-5
        with pytest.raises(RobmodError, match="mass of link 6"):
            consistent_fit(est, mass={6: (0.2, 0.1)})


def test_headerless_controller_log_by_position(arm, tmp_path, capsys):
    """time, q, measured qd, motor currents and other columns, no header line (as a robot
    controller writes them), drive gains per joint; the command line takes the same."""
    from robmod.cli import main

    description, truth = arm
    gains = np.array([14.9, 13.3, 11.1, 10.6, 11.0, 11.5])
    files = []
    for seed in (1, 2):
        log = simulated_log(truth, motion(seed), duration=20.0, rate=100, jitter=0.2,
                            encoder_bits=16, torque_noise=0.02, velocity_noise=0.002,
                            seed=seed)
        extra = np.zeros((log.n_samples, 12))                # desired currents and torques
        path = tmp_path / f"log{seed}.csv"
        np.savetxt(path, np.column_stack([log.t, log.q, log.qd, log.tau / gains, extra]),
                   delimiter=",", fmt="%.6f")
        files.append(path)
    columns = {"t": 0, "q": "1:7", "qd": "7:13", "current": "13:19"}
    data = load_log(files[0], columns=columns, torque_constant=gains)
    assert data.n_joints == 6 and data.qd is not None
    raw = np.loadtxt(files[0], delimiter=",")
    np.testing.assert_allclose(data.tau[0], raw[0, 13:19] * gains)
    with pytest.raises(RobmodError, match="no header line"):
        load_log(files[0])
    with pytest.raises(RobmodError, match="does not exist"):
        load_log(files[0], columns={"t": 0, "q": "1:7", "tau": "30:36"})
    urdf = tmp_path / "arm6.urdf"
    urdf.write_text(arm_urdf())
    args = ["identify", str(urdf), str(files[0]), "--column", "t=0", "--column", "q=1:7",
            "--column", "qd=7:13", "--column", "current=13:19", "--torque-constant",
            *map(str, gains), "--validate", str(files[1]), "--known", "M6=0.19"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "M6 = 0.19" in out and "cross-validation" in out and "validation on" in out


def test_nan_and_infinite_torques_never_reach_the_solver(arm):
    description, truth = arm
    log = controller_log(truth, 1, 100, 20.0)
    tau = log.tau.copy()
    tau[100, 2], tau[500, 0] = np.inf, np.nan
    est = DynamicIdentification(description, cutoff=10.0).fit(
        MeasuredData(log.t, log.q, log.qd, tau))
    assert "dropped 2 rows with NaN or infinite values" in " ".join(est.processed_.notes)
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-1, 1, (3, 200, 6))
    bad = idm(truth, q, qd, qdd)
    bad[17, 3] = np.inf
    with pytest.raises(RobmodError, match="tau holds NaN or infinite values .sample 18"):
        identify(description, q, qd, qdd, bad)
