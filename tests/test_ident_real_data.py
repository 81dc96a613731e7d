"""Identification on the public logs of real arms (UR10e, KUKA LWR4+, Franka Panda): runs only
when ``ROBMOD_IDENT_DATA`` names the folder ``benchmarks/bench_ident_real.py`` describes
(assembled by hand from the authors' repositories; nothing of it is in robmod).

In each case the estimate handed over by default predicts the held-out motion better than the
robot's own file and than the published model, no worse than ordinary least squares by more
than 10 %, and the UR10e at or below its authors' processing with Pinocchio, joint 5
included.  The 10 %: on the KUKA's logs no rigid bodies fit within 14-19 % of least squares'
residual (least squares takes e.g. -0.3 kg m^2 of inertia on joint 7, %sigma 8-22 on every
subset of the logs; the published model has negative Coulomb friction on joints 4-7), which
least squares' values reproduce on a repeat of a fit log (splits 2+3 -> 1 and 1+3 -> 2: the
consistent estimate 7-9 % behind) and which make them 3.7 times worse on the motion not seen
(1+2 -> 3).  Every cross-validation of the fit logs (blocks of phase, whole logs) prefers the
consistent estimate on those splits; one that prefers least squares (time blocks, holding
twins of the held-out block) prefers it on 1+2 -> 3 too.
"""
import os
import sys
from pathlib import Path

import pytest

DATA = os.environ.get("ROBMOD_IDENT_DATA")
pytestmark = pytest.mark.skipif(not DATA, reason="ROBMOD_IDENT_DATA is not set")


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_ident_real

    return bench_ident_real


def test_ur10e_at_or_below_the_authors_pipeline(bench):
    pytest.importorskip("pinocchio")
    folder = Path(DATA) / "ur10e"
    robot, fit, val, (raw_fit, raw_val) = bench.ur10e(folder)
    row, est, per_joint = bench.compare("UR10e", robot, fit, val, {})
    peer, peer_joints = bench._ur_peer(folder / "ur10e.urdf", raw_fit, raw_val)
    assert row["default"] <= peer and row["default"] <= row["OLS"]
    assert per_joint[4] <= peer_joints[4]                    # joint 5 (it was twice the peer's)


def test_kuka_fast_motion_and_every_split(bench, tmp_path):
    cad, pub, (fv, fc), logs = bench.kuka(Path(DATA) / "kuka", tmp_path)
    import numpy as np
    from robmod.dynamics import idm

    refs = {"CAD": lambda p: idm(cad, p.q, p.qd, p.qdd),
            "published": lambda p: idm(pub, p.q, p.qd, p.qdd) + fv * p.qd + fc * np.sign(p.qd)}
    for fit_idx, val_idx in (((1, 2), 3), ((2, 3), 1), ((1, 3), 2)):
        row, est, _ = bench.compare("KUKA", cad, [logs[i - 1] for i in fit_idx],
                                    logs[val_idx - 1], refs)
        assert row["default"] < 0.5 * min(row["CAD"], row["published"]), row
        assert row["default"] <= 1.10 * min(row["OLS"], row["WLS"]), row
        if val_idx == 3:                     # the motion twice as fast as the fit's
            assert est.estimate_ == "consistent" and row["default"] < 0.5 * row["OLS"], row
        assert est.processed_.cutoff is None and "filtered before" in " ".join(
            est.processed_.notes)


def test_panda(bench):
    robot, fit, val = bench.panda(Path(DATA) / "panda")
    row, est, _ = bench.compare("Panda", robot, fit, val, {})
    assert row["default"] <= 1.02 * row["OLS"] and row["default"] <= 1.05 * min(
        row["WLS"], row["LS of the structure"])
