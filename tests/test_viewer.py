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


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


@pytest.mark.skipif(_chromium() is None, reason="no Chromium on this machine")
def test_the_scene_renders_in_a_real_browser(tmp_path, rx90):
    """MeshCat's server on localhost, the page loaded in headless Chromium: the robot's
    capsules (orange) are on the screenshot."""
    from PIL import Image

    v = view(rx90, np.array([0.3, -0.7, 1.1, 0.4, -0.9, 2.0]), open=False)
    try:
        shot = tmp_path / "shot.png"
        cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
               "--use-gl=swiftshader", "--enable-unsafe-swiftshader",
               "--virtual-time-budget=8000", "--window-size=800,600",
               f"--screenshot={shot}", v.url()]
        subprocess.run(cmd, capture_output=True, timeout=120)
    finally:
        v.close()
    img = np.asarray(Image.open(shot).convert("RGB"), dtype=int)
    orange = (img[..., 0] > 150) & (img[..., 1] > 90) & (img[..., 1] < 200) & (img[..., 2] < 100)
    assert orange.sum() > 200, "no robot on the page"
