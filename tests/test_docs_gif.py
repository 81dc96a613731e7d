"""The animated GIF of docs/viewer.md (docs/figures/simulation_gif.py) is written by its
script: a short version here, every frame a picture of the robot."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
Image = pytest.importorskip("PIL.Image")

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "figures" / "simulation_gif.py"


def test_the_simulation_gif_is_written(tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    spec = importlib.util.spec_from_file_location("simulation_gif", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    path = script.write_gif(tmp_path / "sim.gif", frames=5, duration=0.4, dpi=40)
    gif = Image.open(path)
    assert gif.n_frames == 5
    first = np.asarray(gif.convert("RGB"), dtype=int)
    gif.seek(4)
    last = np.asarray(gif.convert("RGB"), dtype=int)
    assert np.abs(first - last).sum() > 0          # it moves
    committed = Image.open(SCRIPT.parents[1] / "images" / "simulation.gif")
    assert committed.n_frames >= 30
