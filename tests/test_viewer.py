"""The 3D viewer (robmod.viewer, MeshCat): the scene tree and the transforms it sends, checked
headless against the DGM and Pinocchio's placement of the URDF's visual meshes; animations
of trajectories, simulations and logs; the command line; once in a real browser."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import robmod
from robmod.errors import ArgumentError, RobmodError
from robmod.geometry import dgm

pytest.importorskip("meshcat")
from robmod.viewer import RecordingVisualizer, animate, view  # noqa: E402

ERD = None
for base in sys.path:
    cand = Path(base) / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
    if cand.is_dir():
        ERD = cand
        break


@pytest.fixture(scope="module")
def rx90():
    return robmod.load_robot("rx90", numeric=True)


def test_the_scene_tree_and_its_transforms_are_the_dgm(rx90):
    rec = RecordingVisualizer()
    q = np.array([0.3, -0.7, 1.1, 0.4, -0.9, 2.0])
    v = view(rx90, q, visualizer=rec)
    tr, objs = rec.transforms(), rec.objects()
    root = "/meshcat/robmod/rx90"
    assert np.allclose(tr[root], np.array(rx90.Z, dtype=float))
    for j in range(1, 7):
        np.testing.assert_allclose(tr[f"{root}/frame{j}"], dgm(rx90, q, j=j), atol=1e-12)
        assert f"{root}/frame{j}/axis" in objs and f"{root}/frame{j}/triad" in objs
    # capsules from O_a(j) to O_j: the RX-90's links 3 (D3) and 4 (RL4)
    for j in (3, 4):
        body = tr[f"{root}/frame{j - 1}/link{j}/body"]
        p = np.linalg.inv(dgm(rx90, q, j=j - 1)) @ dgm(rx90, q, j=j)
        np.testing.assert_allclose(2 * body[:3, 3], p[:3, 3], atol=1e-12)   # centred
        np.testing.assert_allclose(body[:3, 1] * np.linalg.norm(p[:3, 3]), p[:3, 3], atol=1e-12)
    assert v.q is q or np.array_equal(v.q, q)
    with pytest.raises(ArgumentError, match="q: expected 6"):
        v.show(np.zeros(5))


def test_ellipsoid_overlays_follow_the_jacobian(rx90):
    from robmod.kinematics import jacobian, velocity_ellipsoid

    rec = RecordingVisualizer()
    q = np.array([0.3, -0.7, 1.1, 0.4, -0.9, 2.0])
    view(rx90, q, visualizer=rec, ellipsoid=["velocity", "force"], ellipsoid_scale=0.1)
    tr = rec.transforms()
    node = "/meshcat/robmod/rx90/ellipsoid_velocity"
    e = velocity_ellipsoid(jacobian(rx90, q)[:3])
    P, S = tr[node], tr[node + "/shape"]
    np.testing.assert_allclose(P[:3, 3], dgm(rx90, q)[:3, 3], atol=1e-12)
    assert np.linalg.det(P[:3, :3]) == pytest.approx(1.0)
    np.testing.assert_allclose(np.abs(P[:3, :3].T @ e.axes), np.eye(3), atol=1e-9)
    np.testing.assert_allclose(np.diag(S)[:3], np.minimum(0.1 * e.lengths, 0.75 * 1.3), rtol=0.2)
    assert "/meshcat/robmod/rx90/ellipsoid_force/shape" in rec.objects()


@pytest.mark.skipif(ERD is None, reason="example-robot-data is not installed")
def test_urdf_visual_meshes_are_placed_as_pinocchio_places_them():
    pin = pytest.importorskip("pinocchio")
    path = ERD / "ur_description" / "urdf" / "ur5_robot.urdf"
    rec = RecordingVisualizer()
    q = np.array([0.4, -1.1, 0.9, -0.3, 1.2, 0.7])
    v = view(str(path), q, visualizer=rec)
    robot = v.robot
    meshes = [s for s in v.visuals if s.kind == "mesh"]
    assert len(meshes) == 7 and all(s.path.endswith(".dae") for s in meshes)
    model, _, visual = pin.buildModelsFromUrdf(str(path), package_dirs=[str(ERD.parents[1])])
    data = model.createData()
    gdata = pin.GeometryData(visual)
    pin.forwardKinematics(model, data, q)
    pin.updateGeometryPlacements(model, data, visual, gdata)
    Z = np.array(robot.Z, dtype=float)
    tr = rec.transforms()
    checked = 0
    for k, vis in enumerate(v.visuals):
        g = next(i for i, go in enumerate(visual.geometryObjects)
                 if go.name.rsplit("_", 1)[0] == vis.link)
        label = f"frame{vis.frame}"
        world = Z @ tr[f"/meshcat/robmod/ur5/{label}"] @ tr[f"/meshcat/robmod/ur5/{label}/visual{k}"]
        np.testing.assert_allclose(world, gdata.oMg[g].homogeneous, atol=1e-9)
        checked += 1
    assert checked == 7


def test_animations_of_a_trajectory_a_simulation_and_a_log(rx90):
    from robmod.trajectory import point_to_point

    traj = point_to_point(np.zeros(6), np.full(6, 0.5), duration=1.0)
    rec = RecordingVisualizer()
    v = animate(rx90, traj, fps=20.0, visualizer=rec)
    assert len(v.times) == 21 and v.times[-1] == pytest.approx(1.0)
    poses = rec.animation_poses("/meshcat/robmod/rx90/frame6")
    np.testing.assert_allclose(poses, dgm(rx90, traj.sample(v.times).q, j=6), atol=1e-9)
    assert rec.animation().default_framerate == 20.0
    # a measured log: irregular times, resampled
    rng = np.random.default_rng(0)
    t = np.cumsum(rng.uniform(0.005, 0.015, 100))
    q = np.sin(t)[:, None] * np.linspace(0.2, 1.0, 6)

    class Log:
        pass
    log = Log()
    log.t, log.q = t, q
    v.animate(log, fps=25.0)
    assert v.times[0] == t[0] and np.all(np.diff(v.times) == pytest.approx(0.04))
    np.testing.assert_allclose(v.frames[:, 2], np.interp(v.times, t, q[:, 2]))
    with pytest.raises(ArgumentError, match="index a batch"):
        v.animate((t, np.stack([q, q], axis=1)))
    with pytest.raises(ArgumentError, match="fps"):
        v.animate(traj, fps=0)


def test_a_simulation_result_is_animated(rx90):
    from robmod.control import PDGravity, simulate

    res = simulate(rx90, PDGravity(rx90, 2000.0, 300.0), np.full(6, 0.2), 0.2,
                   x0=np.zeros(12))
    rec = RecordingVisualizer()
    v = view(rx90, visualizer=rec).animate(res, fps=50.0)
    np.testing.assert_allclose(rec.animation_poses("/meshcat/robmod/rx90/frame3"),
                               dgm(rx90, v.frames, j=3), atol=1e-9)
    np.testing.assert_allclose(v.frames[-1], res.q[-1], atol=1e-12)


def test_without_meshcat_the_error_names_the_extra(monkeypatch, rx90):
    monkeypatch.setitem(sys.modules, "meshcat", None)
    with pytest.raises(RobmodError, match=r"robmod\[viewer\]"):
        view(rx90)


def _cli(*args, **kw):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-m", "robmod", *args], capture_output=True,
                          text=True, env=env, timeout=300, **kw)


def test_the_camera_frames_the_robot_and_looks_across_its_plane_of_motion():
    """The Panda folded in its vertical plane (x, z): the camera looks across that plane (not
    along it, edge-on, where a folded arm looks straight), from a little above, and every
    frame is in the picture, the robot filling most of it; a planar arm moving in the
    horizontal plane is seen from above."""
    from robmod.viewer.scene import FIELD_OF_VIEW

    panda = robmod.load_robot("panda", numeric=True)
    rec = RecordingVisualizer()
    v = view(panda, [0, -0.6, 0, -2.2, 0, 1.6, 0.8], visualizer=rec)
    target, position = v.camera
    d = (position - target) / np.linalg.norm(position - target)
    assert abs(d[1]) > 0.75 and 0.2 < d[2] < 0.6            # across the x-z plane, above it
    tr = rec.transforms()
    np.testing.assert_allclose(tr["/meshcat"][:3, 3], -target)      # the orbit's centre
    np.testing.assert_allclose(tr["/Grid"], tr["/meshcat"])
    x, y, z = position - target
    assert rec.log[-1][:4] == ("set_property", "/Cameras/default/rotated/<object>", "position",
                               [x, z, -y])
    # the frames in the picture: angles from the line of sight below half the field of view
    from robmod.geometry import frame_origins

    pts = np.array([T[:3, 3] for T in frame_origins(panda, v.q).values()])
    rays = pts - position
    angle = np.arccos(np.clip(rays @ -d / np.linalg.norm(rays, axis=1), -1, 1))
    assert angle.max() < FIELD_OF_VIEW / 2 and angle.max() > 0.5 * FIELD_OF_VIEW / 2
    planar = robmod.load_robot("planar2", numeric=True)
    target, position = view(planar, [0.3, 0.8], visualizer=RecordingVisualizer()).camera
    assert (position - target)[2] / np.linalg.norm(position - target) > 0.7   # from above


def test_a_floating_robot_is_shown_and_its_simulation_animated():
    """A floating robot: show takes its 7 + n values (the base's pose moves the root node) or
    its n joint values (the base at the origin); a simulation of it (q of 7 + n per sample)
    is animated, the root following the base."""
    from dataclasses import replace

    from robmod.control import PID, simulate
    from robmod.geometry import neutral
    from robmod.spatial import quaternion_to_matrix

    arm = robmod.load_robot("rx90", numeric=True).with_base("floating", M=20, XX=1, YY=1,
                                                               ZZ=1)
    arm = replace(arm, gravity=(sp.Float(0),) * 3)
    q = neutral(arm)
    q[:3] = [0.3, -0.2, 0.5]
    q[3:7] = np.array([0.9, 0.1, -0.3, 0.2]) / np.linalg.norm([0.9, 0.1, -0.3, 0.2])
    q[7:] = [0.3, -0.7, 1.1, 0.4, -0.9, 2.0]
    rec = RecordingVisualizer()
    v = view(arm, q, visualizer=rec)
    tr = rec.transforms()
    root = tr["/meshcat/robmod/rx90"]
    np.testing.assert_allclose(root[:3, :3], quaternion_to_matrix(q[3:7]), atol=1e-12)
    np.testing.assert_allclose(root[:3, 3], q[:3])
    np.testing.assert_allclose(tr["/meshcat/robmod/rx90/frame6"], dgm(arm, q, j=6),
                               atol=1e-12)
    v.show(q[7:])                                        # the joints: the base at the origin
    np.testing.assert_allclose(rec.transforms()["/meshcat/robmod/rx90"], np.eye(4))
    with pytest.raises(ArgumentError, match="13 values"):
        v.show(np.zeros(8))
    run = simulate(arm, PID(arm, 50.0, 10.0), np.zeros(6), 0.2, x0=np.r_[q, np.zeros(12)],
                   saturation=False)
    v.animate(run, fps=25.0)
    poses = rec.animation_poses("/meshcat/robmod/rx90")
    assert poses.shape == (6, 4, 4) and np.allclose(v.frames, run.q[::40])
    np.testing.assert_allclose(poses[:, :3, 3], run.q[::40, :3], atol=1e-12)
    np.testing.assert_allclose(poses[-1, :3, :3], quaternion_to_matrix(run.q[-1, 3:7]),
                               atol=1e-12)
    assert np.abs(run.q[-1, 3:7] - run.q[0, 3:7]).max() > 1e-3   # the base turned
    np.testing.assert_allclose(rec.animation_poses("/meshcat/robmod/rx90/frame6"),
                               dgm(arm, v.frames, j=6), atol=1e-9)


def test_command_line_view_writes_the_animated_scene(tmp_path, rx90):
    from robmod.control import PDGravity, simulate

    res = simulate(rx90, PDGravity(rx90, 2000.0, 300.0), np.full(6, 0.2), 0.1, x0=np.zeros(12))
    res.to_csv(tmp_path / "run.csv")
    out = tmp_path / "scene.html"
    r = _cli("view", "rx90", "--q", "0.1", "--traj", str(tmp_path / "run.csv"),
             "--html", str(out), "--ellipsoid")
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    assert len(html) > 10000 and "<html" in html.lower()
    bad = _cli("view", "rx90", "--q", "0.1", "0.2")
    assert bad.returncode == 2 and "--q" in bad.stderr


def test_command_line_html_starts_no_server(tmp_path, monkeypatch, capsys, rx90):
    """--html writes the page from the recorded scene: no MeshCat server, no address."""
    import meshcat

    from robmod.cli import main

    def no_server(*a, **k):
        raise AssertionError("a MeshCat server was started")
    monkeypatch.setattr(meshcat, "Visualizer", no_server)
    out = tmp_path / "scene.html"
    assert main(["view", "rx90", "--q", "0.2", "--html", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "http" not in printed and "scene written" in printed
    html = out.read_text()
    assert "new MeshCat.Viewer" in html and html.count("handle_command_bytearray(rm_bytes") > 20


@pytest.mark.parametrize("kind", ["npz", "parquet", "pos-csv"])
def test_command_line_view_plays_npz_parquet_and_pos_logs(tmp_path, capsys, kind, rx90):
    """robmod view --traj read .npz, .parquet and pos{j} logs as load_log reads them (it
    called load_log(path, n) with n positional, and the error was swallowed)."""
    from robmod.cli import main

    t = np.linspace(0.0, 1.0, 101)
    q = np.sin(t)[:, None] * np.linspace(0.2, 1.0, 6)
    cols = {"t": t, **{f"pos{j + 1}": q[:, j] for j in range(6)}}
    path = tmp_path / {"npz": "log.npz", "parquet": "log.parquet", "pos-csv": "log.csv"}[kind]
    if kind == "npz":
        np.savez(path, **cols)
    elif kind == "parquet":
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        pq.write_table(pa.table(cols), path)
    else:
        np.savetxt(path, np.column_stack(list(cols.values())), delimiter=",",
                   header=",".join(cols), comments="")
    out = tmp_path / "scene.html"
    assert main(["view", "rx90", "--traj", str(path), "--fps", "10", "--html", str(out)]) == 0
    assert out.stat().st_size > 10000
    assert main(["view", "rx90", "--traj", str(tmp_path / "missing.npz"), "--html",
                 str(out)]) != 0
    assert "missing.npz: no such file" in capsys.readouterr().err


def test_command_line_view_of_a_floating_robot_plays_its_simulation(tmp_path):
    """A floating robot's simulation written by to_csv (its base's columns first) is played
    with its base moving."""
    from robmod.cli import main
    from robmod.control import PID, simulate

    path = ERD / "solo_description" / "robots" / "solo12.urdf" if ERD else None
    if path is None:
        pytest.skip("example-robot-data is not installed")
    solo = robmod.read_robot(str(path), base="floating").numeric()
    run = simulate(solo, PID(solo, 5.0, 0.1), np.zeros(12), 0.1)
    run.to_csv(tmp_path / "run.csv")
    assert open(tmp_path / "run.csv").readline().startswith("t,x,y,z,Q0,Q1,Q2,Q3,q1,")
    out = tmp_path / "scene.html"
    assert main(["view", str(path), "--base", "floating", "--traj", str(tmp_path / "run.csv"),
                 "--fps", "50", "--html", str(out)]) == 0
    assert out.stat().st_size > 100000


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


def _screenshot(url, tmp_path, size="800,600"):
    """A headless Chromium's picture of the page ``url`` (RGB array)."""
    from PIL import Image

    shot = tmp_path / "shot.png"
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
           "--use-gl=swiftshader", "--enable-unsafe-swiftshader",
           "--virtual-time-budget=8000", f"--window-size={size}", f"--screenshot={shot}", url]
    subprocess.run(cmd, capture_output=True, timeout=120)
    return np.asarray(Image.open(shot).convert("RGB"), dtype=int)


def _orange(img):
    return (img[..., 0] > 150) & (img[..., 1] > 90) & (img[..., 1] < 200) & (img[..., 2] < 100)


@pytest.mark.skipif(_chromium() is None, reason="no Chromium on this machine")
def test_the_folded_panda_fills_the_page_seen_across_its_plane(tmp_path):
    """The page written without a server, in headless Chromium: the Panda folded (q4 = -2.2)
    spreads over the picture -- its links (orange) span more than a third of its width and
    of its height -- where the former camera showed a thin vertical stroke, the arm seen
    edge-on in a few percent of the page."""
    page = tmp_path / "panda.html"
    v = view("panda", [0, -0.6, 0, -2.2, 0, 1.6, 0.8], visualizer=RecordingVisualizer())
    page.write_text(v.static_html())
    img = _screenshot(page.as_uri(), tmp_path)
    rows, cols = np.nonzero(_orange(img))
    assert rows.size > 5000, "no robot on the page"
    assert np.ptp(cols) > img.shape[1] / 3 and np.ptp(rows) > img.shape[0] / 3


@pytest.mark.skipif(_chromium() is None, reason="no Chromium on this machine")
def test_the_scene_renders_in_a_real_browser(tmp_path, rx90):
    """MeshCat's server on localhost, the page loaded in headless Chromium: the robot's
    capsules (orange) are on the screenshot."""
    v = view(rx90, np.array([0.3, -0.7, 1.1, 0.4, -0.9, 2.0]), open=False)
    try:
        img = _screenshot(v.url(), tmp_path)
    finally:
        v.close()
    assert _orange(img).sum() > 200, "no robot on the page"
