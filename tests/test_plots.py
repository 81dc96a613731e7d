"""robmod.plot: every kind of picture, rendered with Agg and checked on what was drawn (the
artists' data against values computed here independently), not by eye."""
import inspect
import sys
from types import SimpleNamespace

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import robmod  # noqa: E402
import robmod.plot as rp  # noqa: E402
from robmod.cli import main  # noqa: E402
from robmod.dynamics import dynamic_ellipsoid, inertia_matrix  # noqa: E402
from robmod.errors import RobmodError  # noqa: E402
from robmod.geometry import dgm  # noqa: E402
from robmod.kinematics import jacobian  # noqa: E402

Q6 = np.array([0.3, -0.6, 0.9, 0.2, 0.8, 0.1])


@pytest.fixture(autouse=True)
def close_figures():
    before = set(plt.get_fignums())
    yield
    for n in set(plt.get_fignums()) - before:
        plt.close(n)


@pytest.fixture(scope="module")
def puma():
    return robmod.load_robot("puma560", numeric=True)       # numeric inertial parameters


@pytest.fixture(scope="module")
def planar():
    return robmod.load_robot("planar2", numeric=True)       # a1 = a2 = 1, the tip a tool


def planar_tip(q1, q2):
    """End point and translational Jacobian (x, y rows) of the 2R arm with a1 = a2 = 1."""
    s1, c1, s12, c12 = np.sin(q1), np.cos(q1), np.sin(q1 + q2), np.cos(q1 + q2)
    J = np.array([[-s1 - s12, -s12], [c1 + c12, c12]])
    return np.array([c1 + c12, s1 + s12]), J


# -- the facade -----------------------------------------------------------------------------------

def test_every_plot_follows_the_convention():
    assert sorted(rp.__all__) == sorted(
        name for name in rp.__all__ if name.endswith("_plot"))   # every figure: <thing>_plot
    for name in rp.__all__:
        params = inspect.signature(getattr(rp, name)).parameters
        assert params["path"].default is None and params["ax"].default is None, name
        assert params["ax"].kind is inspect.Parameter.KEYWORD_ONLY, name


def test_missing_matplotlib_names_the_extra(planar, monkeypatch):
    for mod in ("matplotlib", "matplotlib.pyplot", "matplotlib.figure"):
        monkeypatch.setitem(sys.modules, mod, None)
    for path in (None, "x.png"):
        with pytest.raises(RobmodError, match=r"pip install 'robmod\[plot\]'"):
            rp.robot_plot(planar, [0.1, 0.2], path)


def test_a_figure_written_to_a_file_is_not_left_open(planar, tmp_path):
    before = plt.get_fignums()
    fig = rp.robot_plot(planar, [0.1, 0.2], tmp_path / "p.png")
    assert plt.get_fignums() == before and (tmp_path / "p.png").stat().st_size > 1000
    assert fig.axes[0].name == "3d"


def test_plots_draw_on_given_axes(planar):
    fig = plt.figure()
    ax3 = fig.add_subplot(projection="3d")
    assert rp.robot_plot(planar, [0.1, 0.2], ax=ax3) is fig and ax3.lines
    flat = plt.figure().add_subplot()
    with pytest.raises(RobmodError, match="3D Axes"):
        rp.robot_plot(planar, [0.1, 0.2], ax=flat)
    from robmod.trajectory import trapezoidal

    traj = trapezoidal([0.0], [1.0], qd_max=1.0, qdd_max=2.0)
    fig2, axes = plt.subplots(4, 1)
    assert rp.trajectory_plot(traj, ax=axes) is fig2
    with pytest.raises(RobmodError, match="4 Axes"):
        rp.trajectory_plot(traj, ax=axes[:3])


# -- ellipsoids -----------------------------------------------------------------------------------

def drawn_quadric(fig, label, centre):
    """(axes as columns, semi-axis lengths) of the quadric x^T M x = 1 fitted to the points
    of the wireframe labelled ``label`` around ``centre`` (and the fit's residual)."""
    wire = [c for c in fig.axes[0].collections if c.get_label() == label]
    assert len(wire) == 1
    X = np.concatenate([np.asarray(s) for s in wire[0]._segments3d]) - centre
    x, y, z = X.T
    A = np.column_stack([x * x, y * y, z * z, 2 * x * y, 2 * x * z, 2 * y * z])
    m, *_ = np.linalg.lstsq(A, np.ones(len(X)), rcond=None)
    M = np.array([[m[0], m[3], m[4]], [m[3], m[1], m[5]], [m[4], m[5], m[2]]])
    ev, V = np.linalg.eigh(M)
    return V, 1 / np.sqrt(ev), np.abs(A @ m - 1).max()


@pytest.mark.parametrize("kind", ["velocity", "force", "dynamic"])
def test_ellipsoid_drawn_has_the_axes_and_lengths_of_the_svd(puma, kind):
    Jv = jacobian(puma, Q6)[:3]                      # translational rows of 0J_6
    if kind == "dynamic":                            # Yoshikawa: J A^-1, A the inertia matrix
        Jv = Jv @ np.linalg.inv(inertia_matrix(puma, Q6))
    U, s, _ = np.linalg.svd(Jv)
    lengths = 1 / s if kind == "force" else s
    fig = rp.robot_plot(puma, Q6, ellipsoid=[kind], axis_length=0.2)
    V, drawn, residual = drawn_quadric(fig, f"{kind} ellipsoid", dgm(puma, Q6)[:3, 3])
    assert residual < 1e-9
    order = np.argsort(lengths)[::-1]                # drawn: from eigh's ascending 1 / l^2
    np.testing.assert_allclose(drawn, 0.2 * lengths[order] / lengths.max(), rtol=1e-7)
    np.testing.assert_allclose(np.abs(np.sum(V * U[:, order], axis=0)), 1.0, atol=1e-7)


def test_the_three_ellipsoids_together_and_the_facade_names(puma):
    fig = rp.robot_plot(puma, Q6, ellipsoid=["velocity", "force", "dynamic"])
    labels = {c.get_label() for c in fig.axes[0].collections}
    assert {"velocity ellipsoid", "force ellipsoid", "dynamic ellipsoid"} <= labels
    e = robmod.dynamics.manipulability_ellipsoid(puma, Q6, kind="force")
    s = np.linalg.svd(jacobian(puma, Q6)[:3], compute_uv=False)
    np.testing.assert_allclose(np.sort(e.lengths), np.sort(1 / s))


def test_dynamic_ellipsoid_of_the_planar_arm_from_its_inertia_matrix(planar):
    """Siciliano Example 7.2: b11 = 200 + 50 c2, b12 = 22.5 + 25 c2, b22 = 122.5."""
    q = np.array([0.4, 0.9])
    c2 = np.cos(q[1])
    B = np.array([[200 + 50 * c2, 22.5 + 25 * c2], [22.5 + 25 * c2, 122.5]])
    _, J = planar_tip(*q)
    e = dynamic_ellipsoid(planar, q, tool="tip", rows=(0, 1))
    np.testing.assert_allclose(np.sort(e.lengths),
                               np.sort(np.linalg.svd(J @ np.linalg.inv(B), compute_uv=False)))


def rx90_geometry_only():
    """The RX-90 with its lengths but symbolic dynamics (the library's has values)."""
    import dataclasses
    from types import MappingProxyType

    return dataclasses.replace(robmod.load_robot("rx90"),
                               values=MappingProxyType({"D3": 0.45, "RL4": 0.45}))


def test_dynamic_ellipsoid_needs_numeric_inertia():
    rx90 = rx90_geometry_only().numeric()                  # inertial parameters symbolic
    with pytest.raises(RobmodError, match="numeric inertial parameters.*XX6"):
        rp.robot_plot(rx90, Q6, ellipsoid="dynamic")
    with pytest.raises(RobmodError, match="ellipsoid must be one of"):
        rp.robot_plot(rx90, Q6, ellipsoid="kinetic")


def test_force_ellipsoid_of_a_planar_arm_is_unbounded_off_its_plane(planar):
    fig = rp.robot_plot(planar, [0.3, 0.5], ellipsoid=True)
    assert "velocity ellipsoid" in {c.get_label() for c in fig.axes[0].collections}
    fig = rp.robot_plot(planar, [0.3, 0.5], ellipsoid="force", axis_length=0.1)
    wire = [c for c in fig.axes[0].collections if c.get_label().startswith("force")]
    assert wire[0].get_label() == "force ellipsoid (unbounded along 1 axis)"
    z = np.concatenate([np.asarray(s) for s in wire[0]._segments3d])[:, 2]
    assert np.ptp(z) == pytest.approx(2 * 0.3)            # drawn at 3 axis lengths


# -- manipulability maps and workspace slices ------------------------------------------------------

@pytest.mark.parametrize("index", ["manipulability", "sigma_min"])
def test_manipulability_map_of_the_planar_arm(planar, index):
    fig = rp.manipulability_plot(planar, [0.2, 0.0], joints=(1, 2), index=index,
                                 resolution=21, plane="xy")
    left, right = fig.axes[:2]                           # (then the colour bars)
    img = left.images[0].get_array()
    q1 = q2 = np.linspace(-np.pi, np.pi, 21)
    Q1, Q2 = np.meshgrid(q1, q2)                          # rows: q2, columns: q1
    if index == "manipulability":                         # w = a1 a2 |sin q2|
        expected = np.abs(np.sin(Q2))
    else:                                                 # sigma_min^2 of J J^T
        tr = 3 + 2 * np.cos(Q2)
        expected = np.sqrt((tr - np.sqrt(tr ** 2 - 4 * np.sin(Q2) ** 2)) / 2)
    np.testing.assert_allclose(img, expected, atol=1e-12)
    P, _ = planar_tip(Q1.ravel(), Q2.ravel())
    sc = right.collections[0]
    np.testing.assert_allclose(sc.get_offsets(), P.T, atol=1e-12)
    np.testing.assert_allclose(sc.get_array(), expected.ravel(), atol=1e-12)
    x0, x1, y0, y1 = left.images[0].get_extent()          # pixels centred on the grid
    step = 2 * np.pi / 20
    assert (x0, y0) == pytest.approx((-np.pi - step / 2,) * 2)
    assert (x1, y1) == pytest.approx((np.pi + step / 2,) * 2)


def test_manipulability_map_of_a_6r_arm_against_determinants(puma):
    fig = rp.manipulability_plot(puma, Q6, joints=(2, 3), resolution=9,
                                 ranges=((-1.0, 1.0), (0.0, 2.0)))
    a, b = np.linspace(-1, 1, 9), np.linspace(0, 2, 9)
    expected = np.empty((9, 9))
    for r, qb in enumerate(b):
        for c, qa in enumerate(a):
            q = Q6.copy()
            q[1], q[2] = qa, qb
            Jv = jacobian(puma, q)[:3]
            expected[r, c] = np.sqrt(np.linalg.det(Jv @ Jv.T))
    np.testing.assert_allclose(fig.axes[0].images[0].get_array(), expected, rtol=1e-9)
    with pytest.raises(RobmodError, match="two different joint numbers"):
        rp.manipulability_plot(puma, Q6, joints=(2, 2))
    with pytest.raises(RobmodError, match="index must be one of"):
        rp.manipulability_plot(puma, Q6, index="volume")


def test_workspace_slice_of_sampled_points(puma):
    from robmod.kinematics.workspace import _joint_samples

    fig = rp.workspace_plot(puma, plane="xz", samples=3000, thickness=0.2, seed=4)
    Q = _joint_samples(puma, 3000, seed=4)
    assert np.all(np.abs(Q) <= np.pi) and Q.shape == (3000, 6)  # no limits: [-pi, pi]
    P = np.array([dgm(puma, q)[:3, 3] for q in Q])
    keep = np.abs(P[:, 1]) <= 0.1
    sc = fig.axes[0].collections[0]
    np.testing.assert_allclose(sc.get_offsets(), P[keep][:, [0, 2]], atol=1e-12)
    w = [np.sqrt(np.linalg.det(J @ J.T)) for J in jacobian(puma, Q[keep])[:, :3]]
    np.testing.assert_allclose(sc.get_array(), w, rtol=1e-9, atol=1e-12)
    assert f"{keep.sum()} of 3000 samples" in fig.axes[0].get_title()
    fig = rp.workspace_plot(puma, plane="xy", samples=500, index=None)
    assert fig.axes[0].collections[0].get_array() is None   # reachable points only
    with pytest.raises(RobmodError, match="plane must be one of"):
        rp.workspace_plot(puma, plane="xw")


def test_workspace_map_slices():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 3, (4, 5, 6)).astype(float)
    w_sum = counts * rng.uniform(0.1, 1.0, counts.shape)
    edges = (np.linspace(-1, 1, 5), np.linspace(-2, 2, 6), np.linspace(0, 3, 7))
    m = SimpleNamespace(counts=counts, w_voxel_sum=w_sum, edges=edges, n_samples=100,
                        w_max=1.0)
    fig = rp.workspace_plot(m, plane="xz")
    reached, mean = fig.axes[0].images[0].get_array(), fig.axes[1].images[0].get_array()
    c = counts.sum(axis=1)                                   # along y: c[x, z]
    np.testing.assert_allclose(np.ma.filled(reached, 0.0), c.T)
    np.testing.assert_allclose(np.ma.filled(mean, 0.0),
                               np.where(c > 0, w_sum.sum(axis=1) / np.maximum(c, 1), 0.0).T)
    assert fig.axes[0].images[0].get_extent() == pytest.approx((-1, 1, 0, 3))


# -- time series ----------------------------------------------------------------------------------

def test_trajectory_plot_q_to_jerk_against_the_limits():
    from robmod.trajectory import point_to_point

    traj = point_to_point([0.0, 0.0], [1.0, -0.5], "jerk-limited", qd_max=1.0, qdd_max=2.0,
                          qddd_max=10.0)
    fig = rp.trajectory_plot(traj, limits=([1.0, 1.5], [2.0, 2.5]), rate=200)
    t = traj.times(200)
    s = traj.sample(t)
    for a, x in zip(fig.axes, (s.q, s.qd, s.qdd, s.qddd)):
        curves = [ln for ln in a.lines if len(ln.get_xdata()) == len(t)]
        assert len(curves) == 2
        for j, ln in enumerate(curves):
            np.testing.assert_allclose(ln.get_ydata(), x[:, j])
    bounds = sorted(ln.get_ydata()[0] for ln in fig.axes[1].lines if len(ln.get_xdata()) == 2
                    and ln.get_ydata()[0] == ln.get_ydata()[1])
    assert bounds == [-1.5, -1.0, 1.0, 1.5]                  # +-qd_max of both joints
    assert np.max(np.abs(s.qd[:, 0])) <= 1.0 + 1e-9


def test_task_line_plot_errors_and_joints():
    from robmod.spatial import rot_axis
    from robmod.trajectory import task_line

    rx90 = robmod.load_robot("rx90", numeric=True)
    q0 = np.array([0.3, -0.4, 0.5, 0.7, 1.1, -0.2])
    T0 = dgm(rx90, q0)
    T1 = T0.copy()
    T1[:3, 3] += [0.1, -0.2, 0.2]
    T1[:3, :3] = T0[:3, :3] @ rot_axis(np.array([1.0, 2.0, 2.0]) / 3, 0.8)
    line = task_line(rx90, q0, T1, "trapezoidal", v_max=0.5, a_max=2.0, w_max=1.0, wd_max=4.0,
                     n_check=201)
    fig = rp.trajectory_plot(line, rate=40)
    assert len(fig.axes) == 8
    ax = np.array(fig.axes).reshape(4, 2)
    t = line.times(40)
    q = line.sample(t).q
    reached = np.array([dgm(rx90, qq) for qq in q])
    P0 = T0[:3, 3] + np.outer(line.path_parameter(t)[0], T1[:3, 3] - T0[:3, 3])   # (8.53)
    for k in range(3):
        np.testing.assert_allclose(ax[0, 0].lines[k].get_ydata(), P0[:, k], atol=1e-12)
    v = ax[1, 0].lines[0].get_ydata()                        # |v| = rd D
    np.testing.assert_allclose(v, line.path_parameter(t)[1] * 0.3, atol=1e-12)
    assert max(v) <= 0.5 + 1e-12
    dp = ax[2, 0].lines[0].get_ydata()
    np.testing.assert_allclose(dp, np.linalg.norm(reached[:, :3, 3] - P0, axis=1), atol=1e-12)
    assert max(dp) < 1e-9
    R = np.swapaxes(line.pose(t)[:, :3, :3], 1, 2) @ reached[:, :3, :3]
    angle = np.arccos(np.clip((np.trace(R, axis1=1, axis2=2) - 1) / 2, -1, 1))
    np.testing.assert_allclose(ax[3, 0].lines[0].get_ydata(), angle, atol=1e-7)
    for j in range(6):
        np.testing.assert_allclose(ax[0, 1].lines[j].get_ydata(), q[:, j])


def test_simulation_plot_tracking_and_torques(planar):
    from robmod.control import PDGravity, simulate

    ctrl = PDGravity(planar, kp=[25000.0, 12000.0], kd=[5000.0, 2400.0])
    res = simulate(planar, ctrl, [0.8, -0.6], 0.3, x0=np.zeros(4))
    fig = rp.simulation_plot(res)
    q_ax, e_ax, tau_ax = fig.axes
    for j in range(2):
        np.testing.assert_allclose(q_ax.lines[2 * j].get_ydata(), res.q[:, j])
        np.testing.assert_allclose(q_ax.lines[2 * j + 1].get_ydata(), res.q_des[:, j])
        np.testing.assert_allclose(e_ax.lines[j].get_ydata(), res.q_des[:, j] - res.q[:, j])
    curves = [ln for ln in tau_ax.lines if len(ln.get_xdata()) == len(res.t)]
    np.testing.assert_allclose(np.column_stack([c.get_ydata() for c in curves]), res.tau)
    limits = sorted(ln.get_ydata()[0] for ln in tau_ax.lines if len(ln.get_xdata()) == 2)
    if res.tau_limit is not None:
        assert limits == sorted([-x for x in res.tau_limit] + list(res.tau_limit))


@pytest.fixture(scope="module")
def identified(planar):
    from robmod.identification import DynamicIdentification, FourierTrajectory
    from robmod.testing.measured import simulated_log
    from robmod.testing.random import with_random_dynamics

    true = with_random_dynamics(robmod.load_robot("planar2").numeric(),
                                np.random.default_rng(2), friction=True)
    rng = np.random.default_rng(3)
    logs = [simulated_log(true, FourierTrajectory(np.zeros(2), rng.uniform(-0.5, 0.5, (2, 4)),
                                                  rng.uniform(-0.5, 0.5, (2, 4)), 0.2),
                          duration=5.0, rate=500, torque_noise=0.01, seed=s) for s in (1, 2)]
    return DynamicIdentification(true).fit(logs[0]), logs


def test_identification_fit_validation_and_parameters(identified):
    est, logs = identified
    fig = rp.identification_plot(est)
    W, Y, index = est.model_.observation(est.processed_)     # the fitted observation
    N = index.size
    model = (W @ est.full_params()).reshape(2, N)     # the classes the data keep
    ax = np.array(fig.axes).reshape(2, 2)
    for j in range(2):
        measured, predicted = ax[j, 0].lines
        np.testing.assert_allclose(measured.get_ydata(), Y.reshape(2, N)[j])
        np.testing.assert_allclose(predicted.get_ydata(), model[j], atol=1e-9)
        np.testing.assert_allclose(ax[j, 1].lines[0].get_ydata(), Y.reshape(2, N)[j] - model[j],
                                   atol=1e-9)
    check = est.validate(logs[1])
    fig = rp.identification_plot(check)
    for j in range(2):
        np.testing.assert_allclose(fig.axes[2 * j].lines[1].get_ydata(),
                                   check_state(est, logs[1])[:, j])
    fig = rp.parameters_plot(est)
    top, bottom = fig.axes
    line, _, (bars,) = top.containers[0]
    np.testing.assert_allclose(line.get_ydata(), est.params_)
    seg = np.array(bars.get_segments())
    np.testing.assert_allclose(seg[:, 1, 1] - seg[:, 0, 1], 4 * est.std_, rtol=1e-9)
    np.testing.assert_allclose([p.get_height() for p in bottom.patches], est.relative_std_)
    assert [t.get_text() for t in bottom.get_xticklabels()] == list(est.names_)
    with pytest.raises(RobmodError, match="DynamicIdentification or a Validation"):
        rp.identification_plot(logs[0])
    fig = rp.cutoff_plot(est)                                  # the choice of the cut-off
    choice = est.processed_.choice
    mean = [ln for ln in fig.axes[0].lines if ln.get_label() == "mean over the folds"][0]
    ok = np.isfinite(choice.errors)
    np.testing.assert_allclose(mean.get_xdata(), choice.cutoffs[ok])
    np.testing.assert_allclose(mean.get_ydata(), 100 * choice.errors[ok])
    assert est.processed_.cutoff == choice.chosen == choice.cutoffs[np.argmin(choice.errors)]
    with pytest.raises(RobmodError, match="CutoffChoice"):
        rp.cutoff_plot(logs[0])


def check_state(est, log):
    """The torques the estimator predicts on ``log`` processed as its validation does (its
    filter; the Coulomb term 0 where the raw log says a joint is at rest)."""
    from robmod.identification.processing import process

    cutoff, band = est._validation_filter(log)
    p = process(log, cutoff=cutoff, band=band, decimate=1,
                use_measured_velocity=est.use_measured_velocity)
    return est.model_.predict(p.q, p.qd, p.qdd, est.full_params(), still=p.still)


# -- the command line -----------------------------------------------------------------------------

def test_cli_draw_ellipsoids(tmp_path, capsys):
    out = tmp_path / "puma.png"
    assert main(["draw", "puma560", "--q", "0.3", "-o", str(out), "--ellipsoid", "velocity",
                 "force", "dynamic"]) == 0
    assert out.stat().st_size > 1000
    from robmod.description import write_robot

    symbolic = tmp_path / "rx90_symbolic.yaml"
    write_robot(rx90_geometry_only(), symbolic)
    assert main(["draw", str(symbolic), "-o", str(out), "--ellipsoid", "dynamic"]) == 2
    assert "numeric inertial parameters" in capsys.readouterr().err
    assert main(["draw", str(symbolic), "-o", str(out), "--ellipsoid", "dynamic",
                 "--random-dynamics", "1"]) == 0
    assert main(["draw", "rx90", "-o", str(out), "--ellipsoid", "dynamic"]) == 0


def test_cli_identify_plots_the_fit_and_the_parameters(identified, tmp_path, capsys):
    _, logs = identified
    log = tmp_path / "log.csv"
    np.savetxt(log, np.column_stack([logs[0].t, logs[0].q, logs[0].tau]), delimiter=",",
               header="t,q1,q2,tau1,tau2", comments="")
    fit, params = tmp_path / "fit.png", tmp_path / "params.png"
    assert main(["identify", "planar2", str(log), "--plot", str(fit), "--plot-parameters",
                 str(params)]) == 0
    out = capsys.readouterr().out
    assert "fit plot written" in out and "parameters plot written" in out
    assert fit.stat().st_size > 1000 and params.stat().st_size > 1000


def test_simulation_plot_of_a_free_run_and_the_delegating_method(planar, tmp_path):
    from robmod.control import simulate

    run = simulate(planar, lambda tt, q, qd: np.array([1.0, -0.5]), None, 0.2, x0=np.zeros(4),
                   step=0.01, saturation=False)
    fig = rp.simulation_plot(run)
    q_ax, qd_ax, tau_ax = fig.axes
    for j in range(2):                           # no desired motion: q, qd and the torques
        np.testing.assert_allclose(q_ax.lines[j].get_ydata(), run.q[:, j])
        np.testing.assert_allclose(qd_ax.lines[j].get_ydata(), run.qd[:, j])
        np.testing.assert_allclose(tau_ax.lines[j].get_ydata(), [1.0, -0.5][j])
    assert qd_ax.get_ylabel() == "qd"
    fig = run.plot(tmp_path / "run.png", joints=[2])    # delegates to robmod.plot
    assert (tmp_path / "run.png").stat().st_size > 1000 and len(fig.axes[0].lines) == 1
    with pytest.raises(RobmodError, match="no desired motion"):
        run.error
