"""The command line of control (robmod simulate) and identification (robmod identify)."""
import dataclasses
from types import MappingProxyType

import numpy as np
import pytest

import robmod
from robmod.description import write_robot
from robmod.cli import main
from robmod.identification import FourierTrajectory
from robmod.testing.measured import simulated_log
from robmod.testing.random import with_random_dynamics


def test_simulate_writes_series_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out, png = tmp_path / "run.csv", tmp_path / "run.png"
    assert main(["simulate", "planar2", "--to", "0.5", "-0.3", "--time", "0.5", "--out",
                 str(out), "--plot", str(png), "--no-saturation"]) == 0
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert data.shape[1] == 1 + 4 * 2 and png.stat().st_size > 0
    np.testing.assert_allclose(data[-1, 7:9], [0.5, -0.3])     # q_des at the end
    assert np.abs(data[-1, 1:3] - [0.5, -0.3]).max() < 1e-3
    assert "ComputedTorque" in capsys.readouterr().out


def test_simulate_without_options_moves_the_robot_and_plots_it(tmp_path, monkeypatch, capsys):
    """robmod simulate ROBOT tracked q = 0 to q = 0 and printed a table of zeros: now every
    joint moves by a quarter of its range (at most 0.8 rad), and the plot is written."""
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "panda", "--out", "run.csv"]) == 0
    out = capsys.readouterr().out
    data = np.loadtxt("run.csv", delimiter=",", skiprows=1)
    q0, q1 = data[0, 1:8], data[-1, 1:8]
    np.testing.assert_allclose(q1 - q0, [0.8, 0.8, 0.8, -0.75, 0.8, 0.8, 0.8], atol=1e-3)
    assert (tmp_path / "run.png").stat().st_size > 10000 and "plot written to run.png" in out
    assert main(["simulate", "planar2", "--no-plot"]) == 0
    assert not (tmp_path / "planar2-simulation.png").exists()
    assert main(["simulate", "planar2", "--time", "0.3"]) == 0
    assert (tmp_path / "planar2-simulation.png").exists()


def test_simulate_refuses_symbolic_dynamics(capsys, tmp_path):
    path = tmp_path / "rx90_symbolic.yaml"          # the RX-90 table without numeric dynamics
    write_robot(dataclasses.replace(robmod.load_robot("rx90"),
                                    values=MappingProxyType({"D3": 0.45, "RL4": 0.45})), path)
    assert main(["simulate", str(path), "--to", "0.5"]) == 2
    assert "symbolic" in capsys.readouterr().err


def test_identify_from_a_csv_log(tmp_path, capsys):
    true = with_random_dynamics(robmod.load_robot("planar2").numeric(),
                                np.random.default_rng(2), friction=True)
    rng = np.random.default_rng(3)

    def log_file(name, seed):
        traj = FourierTrajectory(np.zeros(2), rng.uniform(-0.5, 0.5, (2, 4)),
                                 rng.uniform(-0.5, 0.5, (2, 4)), 0.2)
        log = simulated_log(true, traj, duration=10.0, rate=500, torque_noise=0.01, seed=seed)
        path = tmp_path / name
        np.savetxt(path, np.column_stack([log.t, log.q, log.tau]), delimiter=",",
                   header="time,pos_0,pos_1,eff_0,eff_1", comments="")
        return path
    fit, check = log_file("fit.csv", 1), log_file("check.csv", 2)
    args = ["identify", "planar2", str(fit), "--column", "t=time", "--column", "q=pos_{i}",
            "--column", "tau=eff_{i}", "--validate", str(check)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "WLS" in out and "validation" in out
    assert main(["identify", "planar2", str(fit)]) == 2          # default column names absent
    assert "no joint position columns" in capsys.readouterr().err
