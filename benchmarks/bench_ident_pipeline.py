"""Identification from a controller's log, end to end, against a hand-written peer pipeline.

    python benchmarks/bench_ident_pipeline.py [--n 100000]

The robot: a 6-axis arm described by a URDF (:func:`robmod.testing.measured.arm_urdf`: no
friction, no rotor inertia, diagonal inertias) and the "real" arm behind it
(:func:`~robmod.testing.measured.realistic_arm`); its logs as a controller writes them: a
headerless CSV (time, q, measured qd, motor currents, desired currents), irregular stamps,
16-bit encoders, current noise, torque offsets, a 5 Hz position loop shaken by a disturbance.

* N samples at 1 kHz, end to end: load (CSV -> torques by the drive gains, cleaning,
  resampling) + fit (cut-off by cross-validation, filter, regressor, decimation, WLS; the
  model's structure chosen by cross-validation; the physically consistent estimate, two
  SDPs, and its cross-validation against least squares, two per fold: the estimate handed
  over) + robot description  [target < 2 s for 1e5 samples] (the regressor compiled and the
  libraries imported beforehand);
* the same logs (1 kHz and 100 Hz) through a hand-written Pinocchio + SciPy pipeline, the
  practice of published identification code: zero-phase Butterworth (order 5) at 0.15 of the
  Nyquist frequency on the measured velocities and the accelerations, 0.2 on the currents,
  central differences, ordinary least squares on pin.computeJointTorqueRegressor with rotor,
  friction and offset columns (base columns by QR with column pivoting), measured in the same
  run: both predict the torques of another motion  [target: robmod no worse];
* ``robmod identify`` (the command line, defaults) on the 100 Hz files.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from robmod.identification import (DynamicIdentification, FourierTrajectory,  # noqa: E402
                                   identification_model, load_log)
from robmod.testing.measured import arm_urdf, realistic_arm, simulated_log  # noqa: E402

GAINS = np.array([14.9, 13.3, 11.1, 10.6, 11.0, 11.5])          # drive gains N K_t (N m / A)
COLUMNS = {"t": 0, "q": "1:7", "qd": "7:13", "current": "13:19"}


def motion(seed, amp=0.6):
    rng = np.random.default_rng(seed)
    return FourierTrajectory(np.zeros(6), rng.uniform(-amp, amp, (6, 5)),
                             rng.uniform(-amp, amp, (6, 5)), 0.1)


def write_log(truth, path, seed, rate, duration, traj_seed=None):
    """The controller's headerless CSV; returns the exact torques of the same motion too."""
    kw = dict(duration=duration, rate=rate, jitter=0.2, encoder_bits=16, loop_bandwidth=5.0,
              disturbance=2.0, offsets=[0.3, -0.5, 0.2, 0.1, -0.1, 0.05],
              velocity_noise=0.002, seed=seed)
    traj = motion(seed if traj_seed is None else traj_seed)
    log = simulated_log(truth, traj, torque_noise=0.02, **kw)
    exact = simulated_log(truth, traj, torque_noise=0.0, **kw)
    extra = np.zeros((log.n_samples, 12))                         # desired currents, torques
    np.savetxt(path, np.column_stack([log.t, log.q, log.qd, log.tau / GAINS, extra]),
               delimiter=",", fmt="%.7g")
    return exact


class PinocchioPipeline:
    """The hand-written peer (see the module's notes)."""

    def __init__(self, urdf):
        import pinocchio as pin
        from scipy.linalg import qr

        self.pin = pin
        self.model = pin.buildModelFromUrdf(urdf)
        self.data = self.model.createData()
        n = self.model.nv
        rng = np.random.default_rng(0)
        W = np.vstack([self._rows(*rng.uniform(-3, 3, (3, n))) for _ in range(200)])
        _, R, P = qr(W, pivoting=True, mode="economic")
        rank = int((np.abs(np.diag(R)) > 1e-8 * abs(R[0, 0])).sum())
        self.columns = np.sort(P[:rank])

    def _rows(self, q, qd, qdd):
        Y = self.pin.computeJointTorqueRegressor(self.model, self.data, q, qd, qdd)
        n = len(q)
        return np.hstack([Y, np.diag(qdd), np.diag(qd), np.diag(np.sign(qd)), np.eye(n)])

    @staticmethod
    def _signals(raw):
        from scipy.signal import butter, filtfilt

        t, q, qd, tau = raw[:, 0], raw[:, 1:7], raw[:, 7:13], raw[:, 13:19] * GAINS
        b, a = butter(5, 0.15)
        qdf = filtfilt(b, a, qd, axis=0)
        qdd = np.zeros_like(qdf)
        qdd[1:-1] = (qdf[2:] - qdf[:-2]) / (t[2:] - t[:-2])[:, None]
        qdd = filtfilt(b, a, qdd, axis=0)
        b, a = butter(5, 0.2)
        return t, q, qdf, qdd, tau, filtfilt(b, a, tau, axis=0)

    def _W(self, q, qd, qdd):
        return np.vstack([self._rows(q[k], qd[k], qdd[k])[:, self.columns]
                          for k in range(len(q))])

    def fit(self, raw):
        _, q, qd, qdd, _, tauf = self._signals(raw)
        s = slice(10, -10)
        self.beta = np.linalg.lstsq(self._W(q[s], qd[s], qdd[s]), tauf[s].reshape(-1),
                                    rcond=None)[0]
        return self

    def predict(self, raw):
        t, q, qd, qdd, tau, _ = self._signals(raw)
        return t, (self._W(q, qd, qdd) @ self.beta).reshape(len(q), -1), tau


def rms(x):
    return float(np.sqrt(np.mean(np.asarray(x) ** 2)))


def compare(description, truth, urdf, folder, rate, duration):
    """robmod's defaults and the peer pipeline on the same logs: held-out RMS (N m) against
    the measured and against the exact torques of another motion."""
    fit_csv, val_csv = folder / f"fit_{rate}.csv", folder / f"val_{rate}.csv"
    write_log(truth, fit_csv, 1, rate, duration)
    exact = write_log(truth, val_csv, 2, rate, 20.0, traj_seed=5)
    est = DynamicIdentification(description).fit(load_log(fit_csv, columns=COLUMNS,
                                                          torque_constant=GAINS))
    other = load_log(val_csv, columns=COLUMNS, torque_constant=GAINS)
    v = est.validate(other)
    from robmod.identification import process

    p = process(exact, cutoff=est.processed_.cutoff, decimate=1)
    robmod_true = rms(est.predict(p.q, p.qd, p.qdd) - p.tau)
    t0 = time.perf_counter()
    peer = PinocchioPipeline(str(urdf)).fit(np.loadtxt(fit_csv, delimiter=","))
    t, pred, tau = peer.predict(np.loadtxt(val_csv, delimiter=","))
    t_peer = time.perf_counter() - t0
    s = slice(10, -10)
    true_at = np.column_stack([np.interp(t, exact.t, c) for c in exact.tau.T])
    peer_meas, peer_true = rms((tau - pred)[s]), rms((true_at - pred)[s])
    print(f"  {rate:5d} Hz, {duration:.0f} s: robmod (cut-off {est.processed_.cutoff:.3g} Hz, "
          f"{len(est.names_)} parameters) held-out RMS {rms(v.rms):.3f} N m (vs exact torques "
          f"{robmod_true:.3f}); Pinocchio + SciPy {peer_meas:.3f} N m (vs exact "
          f"{peer_true:.3f}, {t_peer:.1f} s)  [target: robmod <= peer: "
          f"{'yes' if rms(v.rms) <= peer_meas else 'NO'}]")
    return fit_csv, val_csv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    n_samples = ap.parse_args().n
    description, truth = realistic_arm(0)
    folder = Path(tempfile.mkdtemp())
    urdf = folder / "arm6.urdf"
    urdf.write_text(arm_urdf())
    path = folder / "log.csv"
    write_log(truth, path, 1, 1000, (n_samples - 1) / 1000)
    identification_model(description)          # the regressor generated and compiled once
    import cvxpy  # noqa: F401 - the imports done beforehand, as the peer's
    import pandas  # noqa: F401
    import scipy.interpolate  # noqa: F401
    t0 = time.perf_counter()
    data = load_log(path, columns=COLUMNS, torque_constant=GAINS)
    t1 = time.perf_counter()
    est = DynamicIdentification(description).fit(data)
    t2 = time.perf_counter()
    # the robot of the estimate handed over; least squares is no rigid body: the consistent one
    robot = est.to_robot(est.consistent_ if est.estimate_ == "least squares" else None)
    t3 = time.perf_counter()
    total = t3 - t0
    print(f"{description.name}, {n_samples} samples at 1 kHz, end to end {total:.2f} s "
          f"[target < 2 s]: load {t1 - t0:.2f} s, fit {t2 - t1:.2f} s (cut-off "
          f"{est.processed_.cutoff:.3g} Hz by cross-validation, {len(est.names_)} parameters, "
          f"structure and estimate by cross-validation: {est.estimate_}), robot "
          f"{t3 - t2:.2f} s ({robot.name})")
    try:
        import pinocchio  # noqa: F401
    except ImportError:
        print("Pinocchio not installed: no peer comparison")
        return
    print("held-out prediction of another motion (20 s):")
    compare(description, truth, urdf, folder, 1000, 30.0)
    fit_csv, val_csv = compare(description, truth, urdf, folder, 100, 60.0)
    from robmod.cli import main as cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli(["identify", str(urdf), str(fit_csv), "--column", "t=0", "--column", "q=1:7",
                    "--column", "qd=7:13", "--column", "current=13:19", "--torque-constant",
                    *map(str, GAINS), "--validate", str(val_csv)])
    line = [ln for ln in out.getvalue().splitlines() if ln.strip().startswith("all")][-1]
    print(f"  robmod identify {urdf.name} fit_100.csv --column ... --validate val_100.csv: exit "
          f"{code}, validation '{line.strip()}' (RMS N m, relative)")
    os.remove(path)


if __name__ == "__main__":
    main()
