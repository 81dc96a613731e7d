"""robmod.distributed: compiled models, maps and TSQR identification on a local Dask cluster."""
import pickle

import numpy as np
import pytest

pytest.importorskip("dask.array")
pytest.importorskip("distributed")

import robmod  # noqa: E402
from robmod.distributed import (RemoteModel, evaluate, identify_dask, identify_log,  # noqa: E402
                                local_cluster, manipulability_from_jacobian, workspace_map)
from robmod.errors import RobmodError  # noqa: E402
from robmod.geometry.direct import dgm_model  # noqa: E402
from robmod.kinematics.jacobians import jacobian_model  # noqa: E402
from robmod.testing.random import random_robot  # noqa: E402


@pytest.fixture(scope="module")
def client():
    c = local_cluster(n_workers=2, threads_per_worker=1, processes=False)
    yield c
    cluster = c.cluster
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def rx90():
    return robmod.load_robot("rx90").numeric()


def test_remote_model_pickles_as_source_and_evaluates(rx90, client):
    model = jacobian_model(rx90)
    rm = RemoteModel(model)
    blob = pickle.dumps(rm)
    assert len(blob) < 100_000 and b"sympy" not in blob   # the C source, not the SymPy model
    q = np.random.default_rng(1).uniform(-3, 3, (1000, 6))
    ref = model.compile()(q)
    np.testing.assert_allclose(pickle.loads(blob).split(rm(q)), ref, rtol=0, atol=1e-13)
    J = evaluate(model, q, chunk=256)
    assert J.shape == (1000, 6, 6) and J.chunks[0] == (256, 256, 256, 232)
    np.testing.assert_allclose(client.compute(J).result(), ref, rtol=0, atol=1e-13)


def test_evaluate_dask_input_position_model(rx90, client):
    import dask.array as da

    model = dgm_model(rx90, columns="p")
    q = da.random.default_rng(2).uniform(-1, 1, (700, 6), chunks=(200, 6))
    P = evaluate(model, q)
    got, qn = client.compute([P, q], sync=True)
    np.testing.assert_allclose(got, model.compile()(qn), atol=1e-13)


def test_evaluate_rejects_bad_shapes(rx90):
    with pytest.raises(RobmodError, match=r"shape \(N, 6\)"):
        evaluate(jacobian_model(rx90), np.zeros((10, 5)))
    with pytest.raises(RobmodError, match="customized model"):
        evaluate(lambda q: q, np.zeros((10, 6)))


def test_manipulability_equals_the_kinematics_layer():
    from robmod.kinematics.analysis import manipulability

    rng = np.random.default_rng(0)
    for shape in ((5, 3, 4), (5, 6, 6), (5, 6, 2), (2, 3, 1, 5)):
        J = rng.standard_normal(shape)
        np.testing.assert_allclose(manipulability_from_jacobian(J), manipulability(J),
                                   rtol=1e-10, atol=1e-14)


def test_workspace_map_matches_in_memory(rx90, client):
    n, chunk = 3000, 1000
    m = workspace_map(rx90, n, chunk=chunk, bins=8, seed=5, client=client)
    # the same samples in memory: one generator per block seeded by (seed, block)
    lo, hi = robmod.distributed.joint_box(rx90)
    q = np.vstack([lo + (hi - lo) * np.random.default_rng([5, b]).random((chunk, 6))
                   for b in range(3)])
    p = dgm_model(rx90, columns="p").compile()(q)[..., 0]
    w = np.abs(np.linalg.det(jacobian_model(rx90).compile()(q)))
    assert m.n_samples == n and m.counts.sum() == n
    np.testing.assert_allclose(m.lower, p.min(0), atol=1e-14)
    np.testing.assert_allclose(m.upper, p.max(0), atol=1e-14)
    np.testing.assert_array_equal(m.counts, np.histogramdd(p, bins=m.edges)[0])
    np.testing.assert_allclose(m.w_voxel_sum, np.histogramdd(p, bins=m.edges, weights=w)[0],
                               rtol=1e-12, atol=1e-15)
    occupied = m.counts > 0
    assert np.all(np.isnan(m.w_voxel_mean[~occupied]))
    assert np.all(m.w_voxel_mean[occupied] <= m.w_max * (1 + 1e-12))
    assert m.w_max == pytest.approx(w.max(), rel=1e-12)
    assert m.w_mean == pytest.approx(w.mean(), rel=1e-12)
    np.testing.assert_allclose(m.q_best, q[np.argmax(w)])
    # the RX-90's reach: the box is inside the sphere of radius d3 + r4 (= 0.45 + 0.45 m)
    assert np.linalg.norm(np.maximum(-m.lower, m.upper)) <= np.sqrt(3) * 0.9 + 1e-12
    assert np.all(np.linalg.norm(p, axis=1) <= 0.9 + 1e-12)


def test_workspace_map_rejects_bad_arguments(rx90):
    with pytest.raises(RobmodError, match="n_samples"):
        workspace_map(rx90, 0)
    with pytest.raises(RobmodError, match="rows"):
        workspace_map(rx90, 10, rows=(7,))


@pytest.fixture(scope="module")
def ident_data():
    from robmod.dynamics.newton_euler import idm_model

    rng = np.random.default_rng(3)
    robot = random_robot(rng, n=3)
    N = 2000
    q, qd, qdd = (rng.uniform(-2, 2, (N, 3)) for _ in range(3))
    tau = idm_model(robot).compile()(q, qd, qdd).reshape(N, -1)[:, :3]
    tau = tau + 0.01 * rng.standard_normal((N, 3))
    return robot, q, qd, qdd, tau


@pytest.mark.parametrize("weights", ["joint", "none", [1.0, 2.0, 0.5]])
def test_tsqr_identification_equals_in_memory(ident_data, client, weights):
    from robmod.identification import identify

    robot, q, qd, qdd, tau = ident_data
    ref = identify(robot, q, qd, qdd, tau, weights=weights)
    got = identify_dask(robot, q, qd, qdd, tau, weights=weights, chunk=300, client=client)
    assert got.names == ref.names and got.n_rows == ref.n_rows
    for k in ("beta", "std", "sigma_joint"):
        np.testing.assert_allclose(getattr(got, k), getattr(ref, k), rtol=1e-10, atol=1e-12)
    assert got.condition == pytest.approx(ref.condition, rel=1e-10)
    assert got.residual_rms == pytest.approx(ref.residual_rms, rel=1e-10)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_identify_log(ident_data, client, tmp_path, kind):
    import pandas as pd
    from robmod.identification import identify

    robot, q, qd, qdd, tau = ident_data
    cols = {f"{w}{j + 1}": x[:, j] for w, x in (("q", q), ("qd", qd), ("qdd", qdd),
                                                ("tau", tau)) for j in range(3)}
    path = tmp_path / f"log.{kind}"
    if kind == "csv":
        pd.DataFrame(cols).to_csv(path, index=False, float_format="%.17g")
        options = {"blocksize": 100_000}                   # several partitions
    else:
        pytest.importorskip("pyarrow")
        pd.DataFrame(cols).to_parquet(path, row_group_size=600)
        options = {"split_row_groups": True}
    got = identify_log(robot, path, client=client, read_options=options)
    ref = identify(robot, q, qd, qdd, tau)
    np.testing.assert_allclose(got.beta, ref.beta, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.std, ref.std, rtol=1e-10, atol=1e-12)
    if kind == "parquet":
        return
    with pytest.raises(RobmodError, match="no column for tau"):
        pd.DataFrame({k: v for k, v in cols.items() if k != "tau1"}).to_csv(path, index=False)
        identify_log(robot, path, client=client)


def test_identify_dask_rejects_bad_input(ident_data):
    robot, q, qd, qdd, tau = ident_data
    with pytest.raises(RobmodError, match=r"tau must have shape \(N, 3\)"):
        identify_dask(robot, q, qd, qdd, tau[:, :2])
    with pytest.raises(RobmodError, match="weights"):
        identify_dask(robot, q, qd, qdd, tau, weights=[1.0, -1.0, 1.0])
    bad = tau.copy()
    bad[17, 1] = np.nan
    with pytest.raises(RobmodError, match="NaN"):
        identify_dask(robot, q, qd, qdd, bad, chunk=500)
    with pytest.raises(RobmodError, match="same number of samples"):
        identify_dask(robot, q, qd, qdd, tau[:-1])


def test_tsqr_identification_known_torques(ident_data, client):
    from robmod.identification import identify

    robot, q, qd, qdd, tau = ident_data
    known = np.random.default_rng(8).standard_normal(tau.shape)
    ref = identify(robot, q, qd, qdd, tau + known, tau_known=known)
    got = identify_dask(robot, q, qd, qdd, tau + known, tau_known=known, chunk=700,
                        client=client)
    np.testing.assert_allclose(got.beta, ref.beta, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.std, ref.std, rtol=1e-10, atol=1e-12)


def test_r_factor_combination_is_the_qr_of_the_stack():
    from robmod.distributed.identification import _combine_factors
    from robmod.identification.solver import r_factor

    rng = np.random.default_rng(9)
    A, B = rng.standard_normal((7, 4)), rng.standard_normal((2, 4))   # B shorter than wide
    R = _combine_factors(r_factor(A)[None], r_factor(B)[None])[0]
    S = np.vstack([A, B])
    np.testing.assert_allclose(R.T @ R, S.T @ S, atol=1e-12)          # same Gram matrix
    np.testing.assert_allclose(np.abs(np.diag(R)), np.abs(np.diag(np.linalg.qr(S, mode="r"))))


def test_workspace_map_grid(client):
    """A random 2R arm on a 5 x 5 grid of its joint box: the map of those 25 points."""
    robot = random_robot(np.random.default_rng(2), n=2, prismatic=False)
    m = workspace_map(robot, grid=5, chunk=7, bins=4, rows=(0, 5), client=client)
    lo, hi = robmod.distributed.joint_box(robot)
    axes = [np.linspace(lo[k], hi[k], 5) for k in range(2)]
    q = np.array([[a, b] for a in axes[0] for b in axes[1]])
    p = dgm_model(robot, columns="p").compile()(q)[..., 0]
    J = jacobian_model(robot).compile()(q)
    w = np.abs(np.linalg.det(J[:, [0, 5]]))       # rows vx, wz of J: a square 2 x 2 Jacobian
    assert m.n_samples == 25 and m.counts.sum() == 25 and m.w_max > 0.01
    np.testing.assert_allclose(m.lower, p.min(0), atol=1e-14)
    np.testing.assert_allclose(m.upper, p.max(0), atol=1e-14)
    assert m.w_max == pytest.approx(w.max(), rel=1e-12)
    with pytest.raises(RobmodError, match="n_samples or grid"):
        workspace_map(robot, 10, grid=5, client=client)


def test_worker_processes_build_from_source(rx90, tmp_path, monkeypatch):
    """A worker process with an empty cache gets the C source and compiles it."""
    monkeypatch.setenv("ROBMOD_CACHE", str(tmp_path))
    c = local_cluster(n_workers=1, threads_per_worker=1, processes=True)
    try:
        m = workspace_map(rx90, 2000, chunk=1000, bins=4, seed=1, client=c)
        ref = workspace_map(rx90, 2000, chunk=1000, bins=4, seed=1, client=None,
                            scheduler=c.scheduler.address)
        assert m.w_max == ref.w_max and np.array_equal(m.counts, ref.counts)
        assert any(p.name.startswith("rm_") for p in tmp_path.iterdir())   # built by the worker
    finally:
        from robmod.distributed import close_default

        close_default()
        cluster = c.cluster
        c.close()
        cluster.close()


def test_scheduler_by_address(rx90, client):
    from robmod.distributed import close_default, get_client

    address = client.scheduler.address
    try:
        c = get_client(scheduler=address)
        assert c is get_client(scheduler=address)          # one client per address
        m = workspace_map(rx90, 500, chunk=250, bins=2, scheduler=address, progress=True)
        assert m.n_samples == 500
    finally:
        close_default()
    with pytest.raises(RobmodError, match="address"):
        get_client(scheduler="localhost")
    with pytest.raises(RobmodError, match="not both"):
        get_client(client=client, scheduler=address)


def test_nothing_else_imports_distributed():
    from pathlib import Path

    src = Path(robmod.__file__).parent
    offenders = [p for p in src.rglob("*.py")
                 if "distributed" not in p.parts and "cli" not in p.parts
                 and ("robmod.distributed" in p.read_text() or "from ..distributed" in p.read_text()
                      or "from .distributed" in p.read_text())]
    assert offenders == []


def test_evaluate_dynamic_models_and_regressor(client):
    from robmod.dynamics import ddm_model, idm_model, inertia_matrix_model
    from robmod.identification.regressors import regressor_model

    robot = random_robot(np.random.default_rng(4), n=3)
    rng = np.random.default_rng(5)
    x = [rng.uniform(-2, 2, (300, 3)) for _ in range(3)]
    for make, n_in in ((idm_model, 3), (inertia_matrix_model, 1), (ddm_model, 3),
                       (regressor_model, 3)):
        model = make(robot)
        got = client.compute(evaluate(model, *x[:n_in], chunk=128)).result()
        np.testing.assert_allclose(got, model.compile()(*x[:n_in]), rtol=1e-13, atol=1e-12)


def test_evaluate_with_params_and_several_outputs(client):
    import sympy as sp
    from robmod.symbolic.model import Output, customize

    robot = robmod.load_robot("rx90")              # symbolic D3, RL4: model parameters
    model = dgm_model(robot, columns="p")
    q = np.random.default_rng(6).uniform(-3, 3, (200, 6))
    params = {"D3": 0.45, "RL4": 0.5}
    got = client.compute(evaluate(model, q, params=params, chunk=64)).result()
    np.testing.assert_allclose(got, model.compile()(q, params=params), atol=1e-13)
    with pytest.raises(RobmodError, match="needs params"):
        evaluate(model, q)
    with pytest.raises(RobmodError, match="no value for RL4"):
        evaluate(model, q, params={"D3": 0.45})
    a, b = sp.symbols("a b")
    two = customize("two", lambda ctx: [Output.vector("S", [a + b, a * b]),
                                        Output.matrix("M", [[a, 0], [0, b]])],
                    inputs={"x": (a, b)})
    rm = RemoteModel(two)
    xs = np.array([[1.0, 2.0], [3.0, -1.0]])
    flat = client.compute(evaluate(two, xs)).result()
    S, M = rm.split(flat)
    np.testing.assert_allclose(S, [[3, 2], [2, -3]])
    np.testing.assert_allclose(M, [[[1, 0], [0, 2]], [[3, 0], [0, -1]]])


def test_cli_workspace(capsys, client, tmp_path):
    from robmod.cli import main

    pytest.importorskip("matplotlib")
    png = tmp_path / "ws.png"
    assert main(["workspace", "rx90", "--samples", "2000", "--chunk", "1000", "--bins", "4",
                 "--scheduler", client.scheduler.address, "--plot", str(png),
                 "--plane", "xy"]) == 0
    out = capsys.readouterr().out
    assert "workspace map of 2000 samples" in out and "best configuration" in out
    assert f"plot written to {png}" in out and png.stat().st_size > 1000
    assert main(["workspace", "rx90", "--samples", "0"]) == 2
    assert "n_samples must be a positive integer" in capsys.readouterr().err
    from robmod.distributed import close_default

    close_default()


def test_monte_carlo_closed_loop_runs_equal_the_batched_run(client):
    import robmod
    from robmod.control import ComputedTorque, PDGravity, simulate
    from robmod.distributed import closed_loop_runs

    planar = robmod.load_robot("planar2").numeric()
    rng = np.random.default_rng(0)
    x0 = np.zeros((12, 4))
    x0[:, :2] = rng.uniform(-0.3, 0.3, (12, 2))
    ct = ComputedTorque(planar, omega=10.0)
    res = closed_loop_runs(planar, ct, [0.5, -0.2], 1.0, x0, chunk=5, client=client,
                           saturation=False)
    direct = simulate(planar, ct, [0.5, -0.2], 1.0, x0=x0, saturation=False)
    np.testing.assert_allclose(res.max_error, np.abs(direct.error).max(axis=0), atol=1e-12)
    assert not res.diverged.any()
    stiff = PDGravity(planar, kp=1e9, kd=1e7, dt=1e-2)      # diverges: flagged, no NaN metrics
    bad = closed_loop_runs(planar, stiff, [0.5, 0.5], 0.5, x0[:3], chunk=2, client=client,
                           saturation=False)
    assert bad.diverged.all() and "3 diverged" in repr(bad)
    # a floating robot: its states (B, 13 + 2n), the metrics of its joints
    space = planar.with_base("floating", M=5, XX=0.1, YY=0.1, ZZ=0.1)
    start = np.zeros((4, 13 + 4))
    start[:, 3] = 1.0
    start[:, 7:9] = x0[:4, :2]
    pd = PDGravity(space, 50.0, 10.0)
    runs = closed_loop_runs(space, pd, [0.5, -0.2], 0.3, start, chunk=2, client=client,
                            record_every=10)
    one = simulate(space, pd, [0.5, -0.2], 0.3, x0=start, record_every=10)
    assert one.q.shape == (31, 4, 9)
    np.testing.assert_allclose(runs.final_error, np.abs(one.error[-1]), atol=1e-12)


def test_cli_workspace_on_a_local_cluster_of_n_workers(capsys):
    from robmod.cli import main

    assert main(["workspace", "planar2", "--samples", "4000", "--chunk", "1000",
                 "--workers", "2"]) == 0
    assert "workspace map of 4000 samples" in capsys.readouterr().out
    assert main(["workspace", "planar2", "--workers", "2", "--scheduler", "tcp://x:1"]) == 2
