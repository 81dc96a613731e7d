"""What identification hands over by default, on logs made to look like the hard cases of real
arms (issue 37): torques measured on the link side, logs low-pass filtered by the recording
software, one or two frequencies per joint, validation on a faster motion than the fit,
100 Hz and 1 kHz, irregular stamps, noise, a friction the model does not have (Stribeck).

In each case the default (``DynamicIdentification(description).fit(log)``) predicts another
motion no worse than the robot file's own model ("CAD") and than ordinary least squares, and
within 5 % of the best of robmod's estimates (least squares, weighted or not, of every class;
least squares of the structure chosen; the physically consistent estimate).
"""
import warnings

import numpy as np
import pytest

from robmod.dynamics import idm
from robmod.errors import RobmodWarning
from robmod.identification import (DynamicIdentification, FourierTrajectory, MeasuredData,
                                   band_edge, clean, join_logs, load_log, process)
from robmod.identification.blocks import motion_blocks
from robmod.testing.measured import arm_urdf, realistic_arm, simulated_log, sine_motion

OFFSETS = [0.3, -0.5, 0.2, 0.1, -0.1, 0.05]


def fourier(seed, amp=0.6, f=0.1):
    r = np.random.default_rng(seed)
    return FourierTrajectory(np.zeros(6), r.uniform(-amp, amp, (6, 5)),
                             r.uniform(-amp, amp, (6, 5)), f)


def log(truth, motion, seed, duration, **kw):
    base = dict(jitter=0.2, encoder_bits=16, torque_noise=0.02, loop_bandwidth=5.0,
                disturbance=2.0, offsets=OFFSETS, velocity_noise=0.002)
    base.update(kw)
    if base.get("stamp_jitter"):
        base["jitter"] = 0.0
    return simulated_log(truth, motion, duration=duration, seed=seed, **base)


def rms(v):
    return float(np.sqrt(np.mean(np.asarray(v) ** 2)))


#: name: (fit motion, validation motion, log options)
CASES = {
    "link-side sensors, 1 kHz": (fourier(1), fourier(5), dict(rate=1000, torque="link")),
    "filtered at 2 Hz by the logger, 200 Hz, jittering clock": (
        fourier(1), fourier(5), dict(rate=200, prefilter=2.0, stamp_jitter=0.3,
                                     torque_noise=0.01)),
    "one frequency per joint, 100 Hz, validated twice as fast": (
        sine_motion(6, frequencies=1, frequency=0.1, seed=1),
        sine_motion(6, frequencies=1, frequency=0.2, amplitude=0.9, seed=2), dict(rate=100)),
    "two frequencies per joint, 1 kHz, validated twice as fast": (
        sine_motion(6, frequencies=2, frequency=0.1, seed=1),
        sine_motion(6, frequencies=2, frequency=0.2, amplitude=0.9, seed=2), dict(rate=1000)),
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    description, truth = realistic_arm(0, stribeck=True)
    fit_motion, val_motion, kw = CASES[request.param]
    fit = log(truth, fit_motion, 1, 20.0 if kw["rate"] >= 1000 else 30.0, **kw)
    val = log(truth, val_motion, 2, 15.0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)         # poor excitation: said
        est = DynamicIdentification(description).fit(fit)
        raw = {name: DynamicIdentification(description, estimate="ls", method=m).fit(fit)
               for name, m in (("OLS", "ols"), ("WLS", "wls"))}
    return request.param, description, est, raw, fit, val


def held_out(est, raw, val) -> dict:
    """{estimate: held-out RMS on ``val``}: the default, least squares of the structure, the
    consistent estimate, the estimators ``raw`` {name: fitted estimator}."""
    held = {"default": rms(est.validate(val).rms),
            "least squares of the structure": rms(est.validate(val, params=est.ls_params()).rms),
            **{k: rms(e.validate(val).rms) for k, e in raw.items()}}
    if est.consistent_ is not None:
        held["consistent"] = rms(est.validate(val, params=est.consistent_.params).rms)
    return held


def fitted_on_one_log(**options):
    """The estimator of ``options`` fitted on a 100 Hz log of the realistic arm."""
    pytest.importorskip("cvxpy")
    description, truth = realistic_arm(0, stribeck=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)
        return DynamicIdentification(description, **options).fit(
            log(truth, fourier(1), 1, 20.0, rate=100))


def test_the_default_predicts_as_well_as_the_best(case):
    name, description, est, raw, fit, val = case
    held = held_out(est, raw, val)
    cutoff, band = est._validation_filter(val)
    p = process(val, cutoff=cutoff, band=band, decimate=1)
    cad = rms(idm(description, p.q, p.qd, p.qdd) - p.tau)
    best = min(v for k, v in held.items() if k != "default")
    report = f"{name}: {est.estimate_}, {held}, CAD {cad:.4g}"
    assert held["default"] < cad, report
    assert held["default"] <= 1.02 * held["OLS"], report       # within the noise of OLS
    assert held["default"] <= 1.05 * best, report
    assert est.estimate_ in est.report() and "held-out" in est.report()


def test_link_side_sensors_identify_no_rotor_inertia(case):
    name, _, est, _, fit, _ = case
    rotor = [n for n in est.names_ if n.startswith("IA")]
    if fit.torque == "link":
        assert not rotor and not any(n.startswith("IA") for n in est.model_.standard)
        assert "link side" in " ".join(est.processed_.notes)
        # no gear friction in link-side torques: the data drop it
        assert not any(n.startswith(("FC", "FV")) for n in est.names_), est.report()
    else:
        assert fit.torque is None


def test_a_log_filtered_before_is_not_filtered_again(case):
    name, _, est, _, fit, val = case
    if "filtered at" not in name:
        assert est.processed_.band is None
        return
    assert est.processed_.cutoff is None and 2.0 < est.processed_.band < 8.0
    notes = " ".join(est.processed_.notes)
    assert "filtered before" in notes and "not filtered again" in notes
    assert "stamps made uniform" in notes                 # the clock jitters, not the samples
    assert est._validation_filter(val)[0] is None


def test_the_kuka_like_case_three_logs():
    """Link side, filtered by the logger at 4 Hz, one frequency per joint, stamps jittering,
    200 Hz, two logs of one slow motion fitted together, validated on one twice as fast: least
    squares extrapolates, the consistent estimate handed over does not."""
    description, truth = realistic_arm(0, stribeck=True)
    kw = dict(rate=200, torque="link", prefilter=4.0, stamp_jitter=0.3)
    slow = sine_motion(6, frequencies=1, frequency=0.08, seed=3)
    logs = [log(truth, slow, s, 25.0, **kw) for s in (1, 2)]
    fast = log(truth, sine_motion(6, frequencies=1, frequency=0.16, amplitude=0.9, seed=4), 3,
               25.0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)
        est = DynamicIdentification(description).fit(logs)
        ols = DynamicIdentification(description, estimate="ls", method="ols").fit(logs)
    assert "2 logs fitted together" in " ".join(est.processed_.notes)
    assert "repeats its motion" in " ".join(est.processed_.notes)
    default, least = rms(est.validate(fast).rms), rms(ols.validate(fast).rms)
    cutoff, band = est._validation_filter(fast)
    p = process(fast, cutoff=cutoff, band=band, decimate=1)
    cad = rms(idm(description, p.q, p.qd, p.qdd) - p.tau)
    assert default < cad and default <= 1.02 * least, (default, least, cad, est.report())


# -- the pieces -----------------------------------------------------------------------------

def test_band_edge_tells_a_filtered_signal_from_a_raw_one():
    from scipy.signal import butter, sosfiltfilt

    rng = np.random.default_rng(0)
    t = np.arange(20000) / 1000.0
    x = np.column_stack([np.sin(0.7 * t), np.cos(1.3 * t)]) + 0.01 * rng.normal(size=(t.size, 2))
    assert band_edge(x, 1000.0) is None                         # noise up to Nyquist
    f = sosfiltfilt(butter(5, 5.0, fs=1000.0, output="sos"), x, axis=0)
    edge = band_edge(f, 1000.0)
    assert edge is not None and 5.0 < edge < 30.0


def test_regular_samples_with_a_jittering_clock_keep_their_samples():
    t = np.arange(2000) * 0.005
    q = np.column_stack([np.sin(t), np.cos(0.5 * t)])
    rng = np.random.default_rng(1)
    stamped = np.sort(t + rng.uniform(-0.3, 0.3, t.size) * 0.005)
    data = clean(MeasuredData(stamped, q, None, q))
    assert "stamps made uniform" in " ".join(data.notes)
    np.testing.assert_array_equal(data.q, q)                    # not resampled
    np.testing.assert_allclose(np.diff(data.t), np.diff(data.t)[0])
    sampled = clean(MeasuredData(stamped, np.column_stack([np.sin(stamped),
                                                           np.cos(0.5 * stamped)]), None, q))
    assert "resampled" in " ".join(sampled.notes)             # truly irregular samples


def test_logs_fitted_together_stay_apart():
    description, truth = realistic_arm(0)
    a = log(truth, fourier(1), 1, 8.0, rate=100)
    b = log(truth, fourier(2), 2, 8.0, rate=100)
    joined = join_logs([a, b])
    assert joined.segments == ((0, a.n_samples), (a.n_samples, a.n_samples + b.n_samples))
    assert joined.t[a.n_samples] - joined.t[a.n_samples - 1] > 50 / 100   # a gap
    p = process(joined, cutoff=10.0)
    assert len(p.segments) == 2          # each filtered and differentiated on its own
    with pytest.raises(Exception, match="join_logs"):
        join_logs([a, MeasuredData(a.t, a.q[:, :3])])


def test_a_log_that_repeats_itself_is_cut_by_phase():
    t = np.arange(5000) / 100.0                          # 50 s of a 10 s period
    q = np.column_stack([np.sin(2 * np.pi * t / 10), np.cos(2 * np.pi * 2 * t / 10)])
    block, dist, note = motion_blocks(q, ((0, 5000),), 5)
    assert note and "repeats" in note
    np.testing.assert_array_equal(block[:1000], block[1000:2000])     # twins held out together
    assert sorted(set(block[:1000])) == [0, 1, 2, 3, 4]
    rng = np.random.default_rng(0)
    walk = np.cumsum(rng.normal(size=(5000, 2)), axis=0)
    block, _, note = motion_blocks(walk, ((0, 5000),), 5)
    assert note is None and np.all(np.diff(block) >= 0)                # time blocks


def test_a_cutoff_at_the_end_of_its_range_is_said():
    description, truth = realistic_arm(0)
    clean_log = simulated_log(truth, fourier(1), duration=20.0, rate=200, torque_noise=0.0,
                              encoder_bits=None, velocity_noise=0.0, seed=1)
    with pytest.warns(RobmodWarning, match="highest of the range"):
        est = DynamicIdentification(description, estimate="ls").fit(clean_log)
    assert est.processed_.choice.edge == "highest"
    assert "no minimum inside" in " ".join(est.processed_.notes)


def test_poor_excitation_is_said_plainly():
    description, truth = realistic_arm(0)
    poor = log(truth, sine_motion(6, frequencies=1, frequency=0.1, amplitude=0.3, seed=5), 1,
               20.0, rate=100)
    with pytest.warns(RobmodWarning, match="poor excitation: condition number .*exciting_traj"):
        est = DynamicIdentification(description, estimate="ls").fit(poor)
    assert est.excitation_.poor and est.excitation_.cannot_separate()
    text = est.report()
    assert "cannot separate" in text and "exciting_trajectory(arm6)" in text


def test_slow_joints_keep_their_coulomb_friction():
    """A joint creeping (1e-4 of its top speed) after a move keeps the friction of its motion:
    the Coulomb column is sign(qd) there (it was 0 below 0.1 % of the top speed, which
    doubled the UR10e's joint 5 error on its authors' validation log)."""
    from robmod.identification import identification_model

    description, _ = realistic_arm(0)
    model = identification_model(description)
    qd = np.zeros((40, 6))
    qd[:20], qd[20:30] = 1.0, -1e-4                  # a move, a creep, a rest
    p = process(MeasuredData(np.arange(40) * 0.01, np.zeros((40, 6)), qd), cutoff=None)
    W = model.regressor(p.q, p.qd, p.qdd, still=p.still)
    fc = model.names.index("FC2")
    np.testing.assert_array_equal(np.unique(W[p.qd[:, 1] < 0, 1, fc]), [-1.0])
    np.testing.assert_array_equal(np.unique(W[p.qd[:, 1] == 0, 1, fc]), [0.0])


def test_without_a_prior_the_essential_parameters_are_preferred():
    import dataclasses

    import sympy as sp
    description, truth = realistic_arm(0)
    bare = dataclasses.replace(description, links=tuple(dataclasses.replace(
        link, **{k: sp.Integer(0) for k in ("XX", "YY", "ZZ", "MX", "MY", "MZ", "M")})
        for link in description.links))
    assert not DynamicIdentification(bare).fit(log(truth, fourier(1), 1, 20.0, rate=100)) \
        .model_.prior
    est = DynamicIdentification(bare).fit(log(truth, fourier(1), 1, 20.0, rate=100))
    assert est.consistent_ is None
    assert set(est.choice_.errors) <= {"essential parameters", "least squares"}
    assert est.estimate_ in ("essential parameters", "least squares")


def test_the_consistent_estimate_is_what_to_robot_and_predict_give():
    est = fitted_on_one_log(estimate="consistent")
    assert est.estimate_ == "consistent"
    robot = est.to_robot()                                    # no argument: the one handed over
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.uniform(-1, 1, (3, 20, 6))
    kept = est.model_.offsets and any(n.startswith("OFFSET") for n in est.names_)
    offsets = est.full_params()[-6:] if kept else 0.0
    np.testing.assert_allclose(idm(robot, q, qd, qdd) + offsets, est.predict(q, qd, qdd),
                               atol=1e-6)


def test_a_solution_the_solver_did_not_finish_is_not_handed_over(monkeypatch):
    """A solver stopping short of optimality ('optimal_inaccurate', as Clarabel and SCS do on
    a badly scaled program: the KUKA LWR4+'s logs with prior=None) may return bodies whose
    projection onto the constraints fits the data far outside the budget (+280 % there): the
    consistent estimate refuses it by name instead of handing it over."""
    from robmod.errors import RobmodError
    from robmod.identification import consistency_program as cp_module
    from robmod.identification.consistency import consistent_fit

    est = fitted_on_one_log(estimate="ls")
    assert consistent_fit(est).fit_increase <= 0.06            # the solver finishes
    real = cp_module._solve

    def stops_short(prob, cp, solver, inaccurate=False):
        status = real(prob, cp, solver, inaccurate)
        if any("log_det" in str(a) for a in prob.objective.args):   # the second program
            for v in prob.variables():
                if v.name().startswith("X"):
                    v.value = -v.value                  # far from a body: lifted by projection
            return "optimal_inaccurate"
        return status

    monkeypatch.setattr(cp_module, "_solve", stops_short)
    with pytest.raises(RobmodError, match="stopped short"):
        consistent_fit(est)


def test_validated_on_a_repeat_of_a_fit_motion():
    """Two logs of different motions fitted together (slow, fast), validated on another
    recording of the slow one (the KUKA LWR4+'s splits 2+3 -> 1 and 1+3 -> 2): a model the
    rigid bodies describe loses nothing by the estimate handed over."""
    description, truth = realistic_arm(0, stribeck=True)
    kw = dict(rate=200, torque="link", prefilter=4.0, stamp_jitter=0.3)
    slow = sine_motion(6, frequencies=1, frequency=0.08, seed=3)
    fast = sine_motion(6, frequencies=1, frequency=0.16, amplitude=0.9, seed=4)
    fit = [log(truth, slow, 2, 25.0, **kw), log(truth, fast, 3, 25.0, **kw)]
    repeat = log(truth, slow, 1, 25.0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)
        est = DynamicIdentification(description).fit(fit)
        ols = DynamicIdentification(description, estimate="ls", method="ols").fit(fit)
    held = held_out(est, {"OLS": ols}, repeat)
    best = min(v for k, v in held.items() if k != "default")
    assert held["default"] <= 1.05 * best and held["default"] <= 1.02 * held["OLS"], \
        (held, est.report())


def test_the_command_line_hands_over_the_default(tmp_path, capsys):
    from robmod.cli import main

    description, truth = realistic_arm(0, stribeck=True)
    urdf = tmp_path / "arm6.urdf"
    urdf.write_text(arm_urdf())
    paths = []
    for seed in (1, 2, 3):
        one = log(truth, fourier(seed), seed, 15.0, rate=100, torque="link")
        path = tmp_path / f"log{seed}.csv"
        np.savetxt(path, np.column_stack([one.t, one.q, one.qd, one.tau]), delimiter=",",
                   header=",".join(["t"] + [f"q{j}" for j in range(1, 7)]
                                   + [f"qd{j}" for j in range(1, 7)]
                                   + [f"tau_link{j}" for j in range(1, 7)]), comments="")
        paths.append(str(path))
    assert load_log(paths[0], columns={"tau": "tau_link{j}"}).torque == "link"
    out = tmp_path / "identified.yaml"
    args = ["identify", str(urdf), paths[0], paths[1], "--column", "tau=tau_link{j}",
            "--validate", paths[2], "--out", str(out)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)
        assert main(args) == 0
    text = capsys.readouterr().out
    assert "estimate handed over" in text and "link side" in text and out.exists()
    assert "2 logs fitted together" in text
    assert "IA1" not in text.split("data processing:")[0].split("regrouping")[1]
