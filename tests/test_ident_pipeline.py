"""Identification from measured logs: loading, cleaning, processing, estimation, consistency."""
import numpy as np
import pytest

import robmod
from robmod.dynamics import idm
from robmod.errors import RobmodError
from robmod.identification import (DynamicIdentification, FourierTrajectory, MeasuredData,
                                   exciting_trajectory, identification_model, load_log,
                                   standard_vector)
from robmod.testing.measured import simulated_log
from robmod.testing.random import with_random_dynamics


def fourier(n, seed, amp=0.3, f=0.1, L=5):
    rng = np.random.default_rng(seed)
    return FourierTrajectory(np.zeros(n), rng.uniform(-amp, amp, (n, L)),
                             rng.uniform(-amp, amp, (n, L)), f)


def truth(est, robot):
    return est.base_.K @ standard_vector(est.num_, est.base_.standard)


@pytest.fixture(scope="module")
def rx90_case():
    true = with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(0),
                                friction=True)
    log = simulated_log(true, fourier(6, 0), duration=20.0, rate=1000, jitter=0.05,
                        encoder_bits=18, torque_noise=0.02, seed=1)
    held_out = simulated_log(true, fourier(6, 7), duration=10.0, rate=1000, jitter=0.05,
                             torque_noise=0.02, seed=2)
    est = DynamicIdentification(true, estimate="ls").fit(log)       # least squares' statistics
    return true, log, held_out, est


def test_true_base_parameters_within_3_sigma(rx90_case):
    true, log, _, est = rx90_case
    b = len(est.base_.base)
    z = (est.params_[:b] - truth(est, true)) / est.std_[:b]
    assert np.mean(np.abs(z) < 3) >= 0.95          # 52 parameters: at most 2 outside
    assert np.sqrt(np.mean(z ** 2)) < 1.5           # the standard deviations are honest
    assert np.all(np.abs(z) < 4)
    assert est.condition_ < 100 and "WLS" in est.report()


def realistic_rx90(seed=0):
    """The RX-90 with links symmetric about their frames' planes: products of inertia and
    most first moments zero, as on a real arm (so that essential parameters exist)."""
    import dataclasses

    import sympy as sp
    rng = np.random.default_rng(seed)
    links = []
    for link in robmod.load_robot("rx90").numeric().links:
        m = rng.uniform(1, 8)
        a, b = rng.uniform(0.02, 0.2, 2)
        c = rng.uniform(abs(a - b) + 0.01, a + b)
        cz = rng.uniform(-0.2, 0.2)
        vals = dict(XX=a + m * cz ** 2, YY=b + m * cz ** 2, ZZ=c, XY=0, XZ=0, YZ=0, MX=0, MY=0,
                    MZ=m * cz, M=m, IA=rng.uniform(0.05, 0.5), FC=rng.uniform(0.5, 2),
                    FV=rng.uniform(0.5, 2))
        links.append(dataclasses.replace(link, **{k: sp.Float(v) for k, v in vals.items()}))
    return dataclasses.replace(robmod.load_robot("rx90").numeric(), links=tuple(links),
                               gravity=(sp.Float(0), sp.Float(0), sp.Float(-9.81)))


def test_essential_parameters_within_2_percent():
    true = realistic_rx90()
    log = simulated_log(true, fourier(6, 3), duration=20.0, rate=1000, jitter=0.05,
                        torque_noise=0.02, seed=4)
    est = DynamicIdentification(true).fit(log)
    ess = est.essential()
    assert len(ess.names_) < len(est.names_)
    t = dict(zip(est.base_.names, truth(est, true)))
    t.update({f"OFFSET{j}": 0.0 for j in range(1, 7)})
    pairs = [(v, t[n], r) for n, v, r in zip(ess.names_, ess.params_, ess.relative_std_)
             if n in t]
    est_v, true_v, rstd = (np.array(x) for x in zip(*pairs))
    assert len(ess.names_) < 0.8 * len(est.names_)      # the zero parameters are dropped
    rel = np.abs(est_v - true_v) / np.abs(true_v)
    sure = rstd < 0.6                                    # 3 sigma below 1.8 %
    assert sure.sum() >= 0.3 * len(rel)
    assert np.all(rel[sure] < 0.03)       # the parameters left out bias the essential ones
    assert np.median(rel[sure]) < 0.01


def test_held_out_prediction_and_consistent_solution(rx90_case):
    pytest.importorskip("cvxpy")
    from robmod.identification.consistency import consistent_fit

    true, _, held_out, est = rx90_case
    val = est.validate(held_out)
    assert val.total_relative < 0.06        # 2 % torque noise of the rated torque
    c = consistent_fit(est)
    assert c.status.startswith("optimal")
    assert min(c.min_eigenvalues().values()) > -1e-7
    for name, v in c.standard.items():
        if name[:2] in ("IA", "FV", "FC"):
            assert v >= -1e-8


def test_consistent_prediction_close_to_unconstrained(rx90_case):
    pytest.importorskip("cvxpy")
    from robmod.identification.consistency import consistent_fit

    true, _, held_out, est = rx90_case
    c = consistent_fit(est)
    v_ls = est.validate(held_out)
    v_c = est.validate(held_out, params=c.params)
    assert v_c.total_relative <= 1.05 * v_ls.total_relative


def test_identified_robot_file_reproduces_the_model(rx90_case, tmp_path):
    pytest.importorskip("cvxpy")
    from robmod.identification.consistency import consistent_fit

    true, log, _, est = rx90_case
    with pytest.raises(RobmodError, match="consistent_fit"):
        est.to_robot()                       # regrouped base values: not a rigid body
    c = consistent_fit(est)
    robot = est.to_robot(c)
    robmod.write_robot(robot, tmp_path / "identified.yaml")
    back = robmod.load_robot(str(tmp_path / "identified.yaml")).numeric()
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.uniform(-1, 1, (3, 20, 6))
    import copy
    est_c = copy.copy(est)
    est_c.params_ = np.concatenate([c.base, c.offsets])
    np.testing.assert_allclose(idm(back, q, qd, qdd) + c.offsets, est_c.predict(q, qd, qdd),
                               atol=1e-9)


def test_measured_velocities_are_used():
    true = with_random_dynamics(robmod.load_robot("planar2").numeric(),
                                np.random.default_rng(4), friction=True)
    traj = fourier(2, 4, amp=0.5)
    coarse = dict(duration=30.0, rate=200, encoder_bits=12, torque_noise=0.01, seed=5)
    log = simulated_log(true, traj, velocity_noise=1e-3, **coarse)
    held = simulated_log(true, fourier(2, 9, amp=0.5), velocity_noise=1e-3, **coarse)
    with_qd = DynamicIdentification(true).fit(log).validate(held).total_relative
    without = DynamicIdentification(true, use_measured_velocity=False).fit(log)
    assert with_qd < without.validate(held).total_relative


def test_huber_resists_outliers():
    true = with_random_dynamics(robmod.load_robot("planar2").numeric(),
                                np.random.default_rng(6), friction=True)
    log = simulated_log(true, fourier(2, 6, amp=0.5), duration=30.0, rate=200,
                        torque_noise=0.005, seed=7)
    tau = log.tau.copy()
    rng = np.random.default_rng(8)
    bad = rng.choice(tau.shape[0], tau.shape[0] // 50, replace=False)
    tau[bad] += rng.normal(0, 200, (bad.size, 2))
    spoiled = MeasuredData(log.t, log.q, None, tau)
    kw = dict(cutoff=None, decimate=1, estimate="ls")
    ls = DynamicIdentification(true, **kw).fit(spoiled)
    hub = DynamicIdentification(true, method="huber", **kw).fit(spoiled)
    t = truth(ls, true)
    b = len(t)
    assert np.linalg.norm(hub.params_[:b] - t) < 0.3 * np.linalg.norm(ls.params_[:b] - t)


# -- loading and cleaning -----------------------------------------------------------------

def write_csv(path, header, rows):
    with open(path, "w") as fh:
        fh.write(",".join(header) + "\n")
        for r in rows:
            fh.write(",".join("" if np.isnan(x) else repr(float(x)) for x in r) + "\n")


def test_csv_log_with_named_columns_gaps_nan_duplicates(tmp_path):
    t = np.arange(400) * 0.01
    t[200:] += 0.5                                    # a gap
    q = np.column_stack([np.sin(t), np.cos(t)])
    tau = q * 2
    rows = np.column_stack([t, q, tau])
    rows = np.insert(rows, 10, rows[10], axis=0)      # a duplicated stamp
    rows[50, 1] = np.nan                              # a NaN row
    write_csv(tmp_path / "log.csv", ["time", "pos_0", "pos_1", "eff_0", "eff_1"], rows)
    data = load_log(tmp_path / "log.csv", columns={"q": "pos_{i}", "tau": "eff_{i}"})
    assert data.n_joints == 2 and data.tau is not None
    notes = " ".join(data.notes)
    assert "duplicated" in notes and "NaN" in notes and "gap" in notes
    assert len(data.segments) == 2


def test_motor_currents_and_npz(tmp_path):
    t = np.arange(100) * 0.01
    np.savez(tmp_path / "log.npz", t=t, q1=np.sin(t), q2=np.cos(t), i1=np.ones(100),
             i2=2 * np.ones(100))
    with pytest.raises(RobmodError, match="torque_constant"):
        load_log(tmp_path / "log.npz")
    data = load_log(tmp_path / "log.npz", torque_constant=[0.1, 0.2], gear_ratio=100)
    np.testing.assert_allclose(data.tau[0], [10.0, 40.0])


@pytest.mark.parametrize("case, match", [
    ("backwards", "goes backwards at row"),
    ("lengths", "mismatched lengths"),
    ("nofile", "no such file"),
    ("format", "unknown log format"),
])
def test_bad_logs(tmp_path, case, match):
    t = np.arange(50) * 0.01
    if case == "backwards":
        t[20] = 0.0
        write_csv(tmp_path / "x.csv", ["t", "q1", "tau1"], np.column_stack([t, t, t]))
        path = tmp_path / "x.csv"
    elif case == "lengths":
        with pytest.raises(RobmodError, match=match):
            MeasuredData(t, np.zeros((49, 1)))
        return
    elif case == "nofile":
        path = tmp_path / "none.csv"
    else:
        (tmp_path / "x.xls").write_text("")
        path = tmp_path / "x.xls"
    with pytest.raises(RobmodError, match=match):
        load_log(path)


def test_rank_deficient_data_are_refused_naming_parameters():
    true = with_random_dynamics(robmod.load_robot("planar2").numeric(),
                                np.random.default_rng(1), friction=True)
    traj = fourier(2, 1, amp=0.5)
    log = simulated_log(true, traj, duration=20.0, rate=200, seed=2)
    still = MeasuredData(log.t, np.column_stack([log.q[:, 0], np.full(len(log), 0.3)]),
                         None, log.tau)
    with pytest.raises(RobmodError, match="do not excite|excite only"):
        DynamicIdentification(true).fit(still)
    few = log.select(slice(0, 40))
    with pytest.raises(RobmodError):
        DynamicIdentification(true, cutoff=None, decimate=1).fit(few)


def test_symbolic_geometry_is_refused():
    import dataclasses

    rx90 = robmod.load_robot("rx90")
    est = DynamicIdentification(dataclasses.replace(rx90, values={}))   # settings only
    true = with_random_dynamics(rx90.numeric(), np.random.default_rng(0))
    log = simulated_log(true, fourier(6, 0), duration=2.0, rate=100)
    with pytest.raises(RobmodError, match="D3"):
        est.fit(log)


def test_exciting_trajectory_lowers_the_condition_number_within_limits(tmp_path):
    planar = robmod.load_robot("planar2").numeric()
    traj = exciting_trajectory(planar, harmonics=3, frequency=0.2, qd_max=1.0, qdd_max=3.0,
                               starts=2, maxiter=40, samples=80)
    lo, hi, vmax, amax = traj.extremes()
    assert np.all(vmax <= 1.0 + 1e-6) and np.all(amax <= 3.0 + 1e-6)
    est = identification_model(planar, offsets=False)     # the model the design optimizes
    t = np.linspace(0, traj.period, 200)

    def cond(tr):
        W = est.regressor(*tr.sample(t)[:3])
        W = np.transpose(W, (1, 0, 2)).reshape(-1, W.shape[-1])
        return np.linalg.cond(W / np.linalg.norm(W, axis=0))
    start = fourier(2, 0, amp=0.2, f=0.2, L=3)
    assert cond(traj) < cond(start)
    traj.to_csv(tmp_path / "excite.csv", rate=100)
    data = np.loadtxt(tmp_path / "excite.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(data[:, 1:3], traj.sample(data[:, 0])[0])


def test_seven_axis_arm_panda():
    """The Panda (published inertial data, with friction and rotor inertias added), 1 kHz with
    jitter, 2 % torque noise: base parameters within 3 sigma, consistent estimate as good."""
    import copy
    import dataclasses

    import sympy as sp
    rng = np.random.default_rng(1)
    panda = robmod.load_robot("panda").numeric()
    panda = dataclasses.replace(panda, links=tuple(dataclasses.replace(
        link, FC=sp.Float(rng.uniform(0.2, 1)), FV=sp.Float(rng.uniform(0.1, 0.5)),
        IA=sp.Float(0.1)) for link in panda.links))
    log = simulated_log(panda, fourier(7, 0, amp=0.25), duration=20.0, rate=1000, jitter=0.05,
                        torque_noise=0.02, seed=1)
    held = simulated_log(panda, fourier(7, 5, amp=0.25), duration=10.0, rate=1000,
                         torque_noise=0.02, seed=2)
    est = DynamicIdentification(panda, estimate="ls").fit(log)
    b = len(est.base_.base)
    z = (est.params_[:b] - truth(est, panda)) / est.std_[:b]
    assert np.mean(np.abs(z) < 3) >= 0.95 and np.sqrt(np.mean(z ** 2)) < 1.5
    val = est.validate(held)
    assert val.total_relative < 0.06
    pytest.importorskip("cvxpy")
    from robmod.identification.consistency import consistent_fit

    c = consistent_fit(est)
    assert min(c.min_eigenvalues().values()) > -1e-7
    est_c = copy.copy(est)
    est_c.params_ = np.concatenate([c.base, c.offsets])
    assert est_c.validate(held).total_relative <= 1.05 * val.total_relative


def test_units_are_checked():
    from robmod.identification import clean

    t = np.arange(500) * 0.01
    q = np.column_stack([np.sin(t), np.cos(t)])
    with pytest.raises(RobmodError, match="degrees or mm"):
        clean(MeasuredData(t, np.degrees(q) * 10, None, q))
    with pytest.raises(RobmodError, match="time in seconds"):
        clean(MeasuredData(t * 1000, q, None, q))
    with pytest.raises(RobmodError, match="57.3|units differ"):
        clean(MeasuredData(t, q, np.degrees(np.column_stack([np.cos(t), -np.sin(t)])), q))


def test_cross_validation_over_time():
    from robmod.identification import cross_validate

    true = with_random_dynamics(robmod.load_robot("planar2").numeric(),
                                np.random.default_rng(1), friction=True)
    log = simulated_log(true, fourier(2, 1, amp=0.5, f=0.2), duration=30.0, rate=200,
                        torque_noise=0.01, seed=3)
    folds = cross_validate(true, log, folds=3)
    assert len(folds) == 3 and all(v.total_relative < 0.05 for v in folds)


def test_payload_from_a_second_log():
    """Robot identified without payload, then a 2 kg payload off-centre on the last link."""
    import dataclasses

    import sympy as sp
    from robmod.identification import identify_payload

    true = with_random_dynamics(robmod.load_robot("rx90").numeric(), np.random.default_rng(0),
                                friction=True)
    est = DynamicIdentification(true).fit(simulated_log(true, fourier(6, 0), duration=20.0,
                                                         rate=1000, torque_noise=0.005, seed=1))
    m, c = 2.0, np.array([0.02, -0.01, 0.08])
    I_c = np.diag([0.004, 0.005, 0.003])
    J = I_c + m * (c @ c * np.eye(3) - np.outer(c, c))
    pay = dict(XX=J[0, 0], XY=J[0, 1], XZ=J[0, 2], YY=J[1, 1], YZ=J[1, 2], ZZ=J[2, 2],
               MX=m * c[0], MY=m * c[1], MZ=m * c[2], M=m)
    last = true.links[-1]
    loaded = dataclasses.replace(true, links=true.links[:-1] + (dataclasses.replace(
        last, **{k: sp.Float(float(getattr(last, k)) + v) for k, v in pay.items()}),))
    p = identify_payload(est, simulated_log(loaded, fourier(6, 4), duration=20.0, rate=1000,
                                            torque_noise=0.005, seed=2))
    assert p.mass == pytest.approx(m, rel=0.02)
    np.testing.assert_allclose(p.centre_of_mass, c, atol=5e-3)


def test_exciting_trajectory_within_torque_limits():
    from robmod.dynamics import idm

    planar = robmod.load_robot("planar2").numeric()
    traj = exciting_trajectory(planar, harmonics=2, frequency=0.2, qd_max=1.0, qdd_max=3.0,
                               tau_max=[1500.0, 400.0], starts=1, maxiter=25, samples=60)
    t = np.linspace(0, traj.period, 400)
    tau = idm(planar, *traj.sample(t)[:3])
    assert np.all(np.abs(tau) <= np.array([1500.0, 400.0]) * 1.02)


def test_exciting_trajectory_within_a_workspace():
    from robmod.geometry.direct import dgm

    planar = robmod.load_robot("planar2").numeric()     # y0 up: keep frame 2 above y = 0.2
    traj = exciting_trajectory(planar, harmonics=2, frequency=0.2, qd_max=1.0, qdd_max=3.0,
                               q_center=[1.2, 0.0], q_range=[0.8, 0.8],
                               workspace=lambda p: p[..., 1] - 0.2, starts=1, maxiter=25,
                               samples=60)
    q = traj.sample(np.linspace(0, traj.period, 400))[0]
    assert dgm(planar, q)[..., 1, 3].min() >= 0.2 - 1e-3


def test_the_exciting_trajectory_is_a_motion_like_every_trajectory():
    """FourierTrajectory.sample gives the Sample every producer of motions gives (q, qd, qdd,
    qddd), the jerk analytic: checked against finite differences of qdd."""
    from robmod.kinematics import Motion, Sample

    traj = fourier(3, 1, amp=0.3, f=0.5, L=4)
    t = np.linspace(0.1, 1.9, 7)
    s = traj.sample(t)
    assert isinstance(traj, Motion) and isinstance(s, Sample) and traj.n == 3
    h = 1e-6
    fd = (traj.sample(t + h).qdd - traj.sample(t - h).qdd) / (2 * h)
    np.testing.assert_allclose(s.qddd, fd, rtol=1e-6, atol=1e-6 * np.abs(fd).max())
    np.testing.assert_allclose((traj.sample(t + h).q - traj.sample(t - h).q) / (2 * h), s.qd,
                               rtol=1e-6, atol=1e-8)
