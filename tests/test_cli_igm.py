"""``robmod igm``: all solutions of a pose, every one reproducing it; IGM files in ``models``."""
import re

import numpy as np
import pytest

import robmod
from robmod.cli import main
from robmod.geometry.direct import dgm


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def solutions(out, n):
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= n + 3 and parts[0].isdigit() and parts[-1] == "ok":
            rows.append([float(x) for x in parts[1:n + 1]])
    return np.array(rows)


def test_igm_rx90_from_joint_values(capsys):
    q = [0.1, -0.4, 0.3, 0.2, 0.5, -0.1]
    code, out, _ = run(capsys, "igm", "rx90", "--q", *map(str, q))
    assert code == 0
    assert "Paul's method" in out and "8 solution(s) of 8 branch(es)" in out
    sols = solutions(out, 6)
    assert len(sols) == 8
    num = robmod.load_robot("rx90", numeric=True)
    T = dgm(num, np.array(q))
    for s in sols:  # printed with 6 decimals
        assert np.max(np.abs(dgm(num, s) - T)) < 1e-5
    assert np.min(np.max(np.abs(sols - q), axis=1)) < 1e-6


@pytest.mark.parametrize("orientation,values", [
    ("rpy", ["0", "1.2", "0.4"]), ("zxz", ["0.3", "0.8", "-0.2"]),
    ("quaternion", ["0.9", "0.1", "0.3", "0.2"]), ("angle-axis", ["0.5", "0", "1", "1"]),
])
def test_igm_pose_orientation_sets(capsys, orientation, values):
    code, out, _ = run(capsys, "igm", "rx90", "--pose", "0.3", "0.1", "0.5", *values,
                       "--orientation", orientation)
    assert code == 0 and "solution(s)" in out
    errs = [float(m) for m in re.findall(r"\s(\d\.\de[-+]\d\d)\s+ok", out)]
    assert errs and max(errs) < 1e-12


def test_igm_redundant_with_fixed_joint_and_steps(capsys):
    q = [0.1, -0.4, 0.3, -1.2, 0.5, 1.1, 0.3]
    code, out, _ = run(capsys, "igm", "panda", "--q", *map(str, q), "--fixed", "7=0.3",
                       "--steps")
    assert code == 0
    assert "type" in out and "branches" in out  # the derivation was printed
    sols = solutions(out, 7)
    assert len(sols) >= 2 and np.allclose(sols[:, 6], 0.3)


def test_igm_out_of_reach_and_bad_input(capsys):
    code, out, _ = run(capsys, "igm", "rx90", "--pose", "5", "5", "5", "0", "0", "0")
    assert code == 1 and "out of reach" in out
    code, _, err = run(capsys, "igm", "rx90", "--pose", "1", "2", "3")
    assert code == 2 and "needs 6 values" in err
    code, _, err = run(capsys, "igm", "rx90", "--matrix", *(["2"] * 12))
    assert code == 2 and "not a rotation" in err
    code, _, err = run(capsys, "igm", "rx90", "--q", "1", "2")
    assert code == 2 and "needs 6 values" in err
    code, _, err = run(capsys, "igm", "panda", "--q", *(["0.2"] * 7), "--fixed", "x")
    assert code == 2 and "J=VALUE" in err


def test_igm_scara_matrix(capsys):
    num = robmod.load_robot("scara", numeric=True)
    T = dgm(num, np.array([0.1, -0.4, 0.3, 0.2]))
    code, out, _ = run(capsys, "igm", "scara", "--matrix", *[f"{x:.12f}" for x in T[:3].ravel()])
    assert code == 0 and "2 solution(s)" in out


def test_models_writes_igm(capsys, tmp_path):
    code, out, _ = run(capsys, "models", "scara", "--out", str(tmp_path), "--print")
    assert code == 0 and "Inverse geometric model of scara" in out
    names = {p.name for p in tmp_path.iterdir()}
    assert {"scara_igm.txt", "scara_igm.c", "scara_igm.py", "scara_igm_solution.txt"} <= names
    assert "multiplications" in (tmp_path / "scara_igm.txt").read_text().lower() or \
        "number of operations" in (tmp_path / "scara_igm.txt").read_text().lower()


def test_igm_tree_chain_with_tool(capsys):
    code, out, _ = run(capsys, "igm", "torso2arms", "--q", "0.3", "0.1", "0.2", "0.3", "0.4",
                       "0.5", "0.6", "--tool", "right_hand")
    assert code == 0 and "q5" in out and "2 solution(s)" in out
    code, _, err = run(capsys, "igm", "torso2arms", "--q", *(["0.1"] * 7))
    assert code == 2 and "--frame" in err
