"""The robot drawing: links from a(j) to j where the DGM puts the frames, joint axes along z_j,
tools, the velocity ellipsoid; `robmod draw`.  Checked on what was drawn, not by eye."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import robmod  # noqa: E402
from robmod.cli import main  # noqa: E402
from robmod.geometry import dgm  # noqa: E402
from robmod.kinematics import jacobian  # noqa: E402
from robmod.plot import robot_plot  # noqa: E402


def _segments(ax, color):
    out = []
    for line in ax.lines:
        if matplotlib.colors.same_color(line.get_color(), color):
            x, y, z = line.get_data_3d()
            out.append(np.array([x, y, z]).T)
    return out


def test_links_are_drawn_between_the_dgm_origins():
    robot = robmod.load_robot("torso2arms", numeric=True)       # a tree with a tool
    q = np.random.default_rng(0).uniform(-1, 1, robot.n_q)
    fig = robot_plot(robot, q)
    ax = fig.axes[0]
    links = _segments(ax, "0.25")
    assert len(links) == robot.n_frames
    for f, seg in zip(robot.frames, links):
        a = np.zeros(3) if f.ant == 0 else dgm(robot, q, j=f.ant)[:3, 3]
        assert np.allclose(seg, [a, dgm(robot, q, j=f.j)[:3, 3]], atol=1e-12)
    axes = _segments(ax, "tab:blue")
    joints = [f for f in robot.frames if f.sigma == 0]
    for f, seg in zip(joints, axes):                 # revolute axes along z_j, centred on O_j
        T = dgm(robot, q, j=f.j)
        d = seg[1] - seg[0]
        assert np.allclose(d / np.linalg.norm(d), T[:3, 2], atol=1e-12)
        assert np.allclose(seg.mean(axis=0), T[:3, 3], atol=1e-12)
    tools = _segments(ax, "tab:green")
    assert len(tools) == len(robot.tools)
    labels = {t.get_text().strip() for t in ax.texts}
    assert {str(f.j) for f in robot.frames} <= labels


def test_velocity_ellipsoid_axes(tmp_path):
    robot = robmod.load_robot("rx90", numeric=True)
    q = np.array([0.3, -0.6, 0.9, 0.2, 0.8, 0.1])
    fig = robot_plot(robot, q, tmp_path / "e.png", ellipsoid=True)
    wire = [c for c in fig.axes[0].collections if c.get_label() == "velocity ellipsoid"]
    assert len(wire) == 1 and (tmp_path / "e.png").stat().st_size > 0
    # the points of the wireframe lie on the ellipsoid U diag(s) S^2 around O_6
    segs = np.concatenate([np.asarray(s) for s in wire[0]._segments3d])
    U, s, _ = np.linalg.svd(jacobian(robot, q)[:3])
    c = dgm(robot, q, j=6)[:3, 3]
    local = (segs - c) @ U / s
    r = np.linalg.norm(local, axis=1)
    assert np.allclose(r, r[0], rtol=1e-9)                # one scale for all points


def test_cli_draw(tmp_path, capsys):
    out = tmp_path / "rx90.png"
    assert main(["draw", "rx90", "--q", "0.1", "-o", str(out)]) == 0
    assert out.stat().st_size > 1000
    assert main(["draw", "rx90", "--q", "1", "2", "-o", str(out)]) == 2
    assert "--q: expected 1 or 6 values" in capsys.readouterr().err
