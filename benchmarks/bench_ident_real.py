"""Identification on the public logs of real arms: robmod's defaults against least squares,
the robot's own file ("CAD") and the published models, on held-out motions.

    python benchmarks/bench_ident_real.py DATA [--only ur10e,kuka,panda]

DATA is a folder the user assembles from the public repositories (nothing of them is in
robmod; the benchmark only reads it):

* ``DATA/ur10e/``: ``ur10e.urdf``, ``ur-20_02_10-30sec_12harm.csv``,
  ``ur-20_01_17-ptp_10_points.csv`` -- github.com/shamilmamedov/dynamic_calibration
  (``URe/urdf/``, ``dataset_ur10e/identification_data/``, ``dataset_ur10e/validation_data/``);
  a UR10e's controller logs at 100 Hz (time, q, measured qd, motor currents, ...), fitted on
  the rows its authors fit (635-3510) and validated on theirs (700-4200 of the point-to-point
  log), drive gains of De Luca et al.; the peer: the authors' processing (zero-phase
  Butterworth of order 5 at 0.15 of the Nyquist frequency on the velocities and
  accelerations, 0.2 on the currents, central differences) with Pinocchio's regressor and
  ordinary least squares, rotor, friction and offset columns;
* ``DATA/kuka/``: ``kuka_lwr4.urdf``, ``kuka_lwr4_identified.urdf``,
  ``measurements_1.npz`` .. ``measurements_3.npz`` -- github.com/kjyv/FloBaRoID (``model/``;
  ``data/KUKA/HW/`` as first committed, before the files moved to Git LFS); a KUKA LWR4+ (7
  axes, joint torque sensors on the link side) at 200 Hz, the logs filtered by the recording
  software, one frequency per joint, three logs -- the first two recordings of one motion
  (same phase, positions correlated at 0.99999), the third twice as fast; fitted on two,
  validated on the third (three splits: 1+2 -> 3 predicts a motion not seen, 2+3 -> 1 and
  1+3 -> 2 a repeat of a fit log); the published model: the identified
  URDF (physically consistent inertias, its friction as the file gives it).  The CAD file
  holds a joint with two ``<origin>`` (robmod refuses it, naming the line): the copy read
  here keeps the first, as urdfdom does;
* ``DATA/panda/``: ``exciting_traj_{time,positions,velocity,torques}.txt`` --
  github.com/marcocognetti/FrankaEmikaPandaDynModel (``matlab/data/Exciting_Traj/
  Trajectory_1/rbt_log/``); a Franka Panda at 1 kHz (joint torque sensors), fitted on the first
  70 % of the log and validated on the rest; the description: robmod's library ``panda``
  (Gaz et al. 2019's feasible parameters), the published model: those with their sigmoid
  friction.

For each case: the held-out RMS torque error (N m, against the measured torques) of the
estimate robmod hands over by default (and which), of the raw least squares (OLS and WLS of
every class), of the least squares of the structure chosen, of the consistent estimate, of
the description and of the published model or peer; the structure chosen; the time of the
fit.  ``tests/test_ident_real_data.py`` runs it when ``ROBMOD_IDENT_DATA`` names DATA.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import robmod  # noqa: E402
from robmod.dynamics import idm  # noqa: E402
from robmod.errors import RobmodWarning  # noqa: E402
from robmod.identification import (DynamicIdentification, MeasuredData,  # noqa: E402
                                   clean, process)

UR_GAINS = np.array([14.87, 13.26, 11.13, 10.62, 11.03, 11.47])     # De Luca et al.
#: Gaz et al. 2019: tau_f = phi1 / (1 + exp(-phi2 (qd + phi3))) - phi1 / (1 + exp(-phi2 phi3))
PANDA_FRICTION = (np.array([0.54615, 0.87224, 0.64068, 1.2794, 0.83904, 0.30301, 0.56489]),
                  np.array([5.1181, 9.0657, 10.136, 5.5903, 8.3469, 17.133, 10.336]),
                  np.array([0.039533, 0.025882, -0.04607, 0.036194, 0.026226, -0.021047,
                            0.0035526]))


def rms(x) -> float:
    return float(np.sqrt(np.mean(np.asarray(x) ** 2)))


# -- the data sets ----------------------------------------------------------------------------

def ur10e(folder: Path):
    """(description, fit, validation, peer (fit raw rows, validation raw rows))."""
    def rows(name, a, b):
        raw = np.loadtxt(folder / name, delimiter=",")[a - 1:b]
        data = MeasuredData(raw[:, 0], raw[:, 1:7], raw[:, 7:13], raw[:, 13:19] * UR_GAINS,
                            source=name, torque="motor")
        return clean(data), raw
    fit, raw_fit = rows("ur-20_02_10-30sec_12harm.csv", 635, 3510)
    val, raw_val = rows("ur-20_01_17-ptp_10_points.csv", 700, 4200)
    return robmod.load_robot(str(folder / "ur10e.urdf")), fit, val, (raw_fit, raw_val)


def _urdf_first_origin(path: Path, out: Path) -> Path:
    """A copy of a URDF whose joints keep their first <origin> only (urdfdom's reading)."""
    text = path.read_text()

    def one(m):
        body, seen = m.group(0), []
        def keep(o):
            seen.append(o)
            return o.group(0) if len(seen) == 1 else ""
        return re.sub(r"<origin[^>]*/>", keep, body)
    out.write_text(re.sub(r"<joint\b.*?</joint>", one, text, flags=re.S))
    return out


def _signed_friction(path: Path):
    """(FV, FC) of each <dynamics> as the file writes them (signed)."""
    pairs = re.findall(r'<dynamics damping="([-0-9.eE]+)" friction="([-0-9.eE]+)"',
                       path.read_text())
    return np.array([float(a) for a, _ in pairs]), np.array([float(b) for _, b in pairs])


def kuka(folder: Path, tmp: Path):
    """(CAD description, published robot (its friction stripped), published (FV, FC), logs)."""
    cad = robmod.load_robot(str(_urdf_first_origin(folder / "kuka_lwr4.urdf",
                                                   tmp / "kuka_lwr4.urdf")))
    published = folder / "kuka_lwr4_identified.urdf"
    text = re.sub(r'<dynamics damping="[-0-9.eE]+" friction="[-0-9.eE]+"\s*/>',
                  '<dynamics damping="0" friction="0"/>', published.read_text())
    (tmp / "published.urdf").write_text(text)
    pub = robmod.load_robot(str(_urdf_first_origin(tmp / "published.urdf",
                                                   tmp / "published1.urdf")))
    logs = []
    for k in (1, 2, 3):
        z = np.load(folder / f"measurements_{k}.npz")
        logs.append(clean(MeasuredData(z["times"] - z["times"][0], z["positions"],
                                       z["velocities"], z["torques"], torque="link",
                                       source=f"measurements_{k}.npz")))
    return cad, pub, _signed_friction(published), logs


def panda(folder: Path):
    """(description, fit, validation): the first 70 % of the log and the rest."""
    def read(name):
        return np.loadtxt(folder / f"exciting_traj_{name}.txt")
    t = read("time")
    q, qd, tau = (read(n).reshape(-1, 7) for n in ("positions", "velocity", "torques"))
    data = clean(MeasuredData(t, q, qd, tau, source="Trajectory_1"))
    cut = int(0.7 * data.n_samples)
    return robmod.load_robot("panda"), data.select(slice(0, cut)), \
        data.select(slice(cut, data.n_samples))


# -- the comparison --------------------------------------------------------------------------

def compare(name, description, fit, val, references):
    """One row: robmod's estimates and the ``references`` {label: function of the processed
    validation samples -> predicted torques} on the held-out ``val``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobmodWarning)
        t0 = time.perf_counter()
        est = DynamicIdentification(description).fit(fit)
        seconds = time.perf_counter() - t0
        raw = {k: DynamicIdentification(description, estimate="ls", method=m).fit(fit)
               for k, m in (("OLS", "ols"), ("WLS", "wls"))}
    row = {"default": rms(est.validate(val).rms),
           "OLS": rms(raw["OLS"].validate(val).rms), "WLS": rms(raw["WLS"].validate(val).rms),
           "LS of the structure": rms(est.validate(val, params=est.ls_params()).rms)}
    if est.consistent_ is not None:
        row["consistent"] = rms(est.validate(val, params=est.consistent_.params).rms)
    cutoff, band = est._validation_filter(val)
    p = process(val, cutoff=cutoff, band=band, decimate=1)
    for label, predict in references.items():
        row[label] = rms(predict(p) - p.tau)
    best = min(v for k, v in row.items() if k in ("OLS", "WLS", "LS of the structure",
                                                   "consistent"))
    kept = ", ".join(est.structure_.kept) if est.structure_ else "every class (set)"
    per_joint = np.round(est.validate(val).rms, 3)
    print(f"| {name} | {row['default']:.4g} ({est.estimate_}) | {row['OLS']:.4g} | "
          f"{row['WLS']:.4g} | {row['LS of the structure']:.4g} | "
          f"{row.get('consistent', float('nan')):.4g} | "
          + " | ".join(f"{label} {row[label]:.4g}" for label in references)
          + f" | {row['default'] / best:.3f} | {kept} | {seconds:.1f} s |")
    return row, est, per_joint


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path)
    ap.add_argument("--only", default="ur10e,kuka,panda")
    args = ap.parse_args(argv)
    only = args.only.split(",")
    print("| case | default | OLS | WLS | LS of the structure | consistent | references | "
          "default / best of robmod's | classes kept | fit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = {}
    tmp = Path(tempfile.mkdtemp())
    if "ur10e" in only and (args.data / "ur10e").is_dir():
        robot, fit, val, (raw_fit, raw_val) = ur10e(args.data / "ur10e")
        peer = _ur_peer(args.data / "ur10e" / "ur10e.urdf", raw_fit, raw_val)
        rows["UR10e"] = compare("UR10e, authors' rows", robot, fit, val,
                                {"URDF": lambda p: idm(robot, p.q, p.qd, p.qdd)})
        print(f"|  | peer (authors' filters + Pinocchio + OLS): {peer[0]:.4g}, per joint "
              f"{np.round(peer[1], 3).tolist()}; robmod's default per joint "
              f"{rows['UR10e'][2].tolist()} |")
    if "kuka" in only and (args.data / "kuka").is_dir():
        cad, pub, (fv, fc), logs = kuka(args.data / "kuka", tmp)
        refs = {"CAD": lambda p: idm(cad, p.q, p.qd, p.qdd),
                "published": lambda p: idm(pub, p.q, p.qd, p.qdd) + fv * p.qd
                + fc * np.sign(p.qd)}
        for fit_idx, val_idx in (((1, 2), 3), ((2, 3), 1), ((1, 3), 2)):
            rows[f"KUKA {fit_idx}->{val_idx}"] = compare(
                f"KUKA LWR4+, fit logs {fit_idx[0]}+{fit_idx[1]}, validate {val_idx}", cad,
                [logs[i - 1] for i in fit_idx], logs[val_idx - 1], refs)
    if "panda" in only and (args.data / "panda").is_dir():
        robot, fit, val = panda(args.data / "panda")
        phi1, phi2, phi3 = PANDA_FRICTION

        def gaz(p):
            f = phi1 / (1 + np.exp(-phi2 * (p.qd + phi3))) - phi1 / (1 + np.exp(-phi2 * phi3))
            return idm(robot, p.q, p.qd, p.qdd) + f
        rows["Panda"] = compare("Panda, first 70 % / last 30 %", robot, fit, val,
                                {"description": lambda p: idm(robot, p.q, p.qd, p.qdd),
                                 "published (Gaz et al.)": gaz})
    return rows


def _ur_peer(urdf, raw_fit, raw_val):
    """(RMS, per joint) of the authors' processing with Pinocchio and ordinary least squares
    (bench_ident_pipeline's peer with the UR10e's drive gains) on the validation rows."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_ident_pipeline as peer_module

    peer_module.GAINS = UR_GAINS
    peer = peer_module.PinocchioPipeline(str(urdf)).fit(raw_fit)
    _, pred, tau = peer.predict(raw_val)
    err = (tau - pred)[10:-10]
    return rms(err), np.sqrt(np.mean(err ** 2, axis=0))


if __name__ == "__main__":
    main()
