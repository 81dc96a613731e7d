"""Manipulability map of the RX-90 on Dask vs the single-process batched compiled path.

    PYTHONPATH=src python benchmarks/bench_distributed.py            # 10^6 samples
    PYTHONPATH=src python benchmarks/bench_distributed.py --n 100000000 --chunk 1000000 \
        --skip-single                                              # 10^8 (minutes)
    ... --scheduler tcp://host:8786                                # a running cluster

Both paths draw the same samples (one generator per block of ``chunk`` samples) and
reduce them block by block to the bounding box, a 32^3 occupancy histogram and the
max/mean of w = sqrt(det(J J^T)) (Khalil & Dombre, eq. (5.38)).  The single-process
path loops over the blocks with the compiled models (``model.compile()``); the Dask
path is :func:`robmod.distributed.workspace_map` on a 2-worker LocalCluster (1 thread
each, separate processes).  The peak resident memory of the client is printed: it
stays bounded by one block whatever the number of samples.
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np

import robmod
from robmod.distributed import local_cluster, workspace_map
from robmod.distributed.maps import (_block_stats, _map_models, _merge_stats, _reach_bound,
                                     joint_box)


def single_process(robot, n, chunk, seed=0, bins=32):
    dgm, jac = _map_models(robot)
    lo, hi = joint_box(robot)
    r = _reach_bound(robot)
    edges = tuple(np.linspace(-r, r, bins + 1) for _ in range(3))
    acc = None
    for b in range(-(-n // chunk)):
        part = _block_stats(b, seed, lo, hi, n, chunk, dgm, jac, (0, 1, 2, 3, 4, 5), edges)
        acc = part if acc is None else _merge_stats(acc, part)
    return acc


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=100_000)
    ap.add_argument("--scheduler", default=None)
    ap.add_argument("--in-process", action="store_true", help="workers as threads of this process")
    ap.add_argument("--skip-single", action="store_true")
    a = ap.parse_args()
    robot = robmod.load_robot("rx90").numeric()
    single_process(robot, 1000, 1000)                # compile / load the models once
    if a.scheduler:
        from distributed import Client

        client = Client(a.scheduler)
    else:
        client = local_cluster(n_workers=2, threads_per_worker=1, processes=not a.in_process)
    workspace_map(robot, a.chunk, chunk=a.chunk, client=client)   # warm the workers
    base = peak_mb()
    t = time.perf_counter()
    m = workspace_map(robot, a.n, chunk=a.chunk, client=client)
    td = time.perf_counter() - t
    print(f"dask (2 workers): {a.n:.3g} samples in {td:.2f} s = {a.n / td:.3g} samples/s; "
          f"w max {m.w_max:.5f}, mean {m.w_mean:.5f}; client peak RSS {peak_mb():.0f} MB "
          f"({peak_mb() - base:+.0f} MB during the map)")
    client.close()
    if a.skip_single:
        return
    t = time.perf_counter()
    ref = single_process(robot, a.n, a.chunk)
    ts = time.perf_counter() - t
    print(f"single process : {a.n:.3g} samples in {ts:.2f} s = {a.n / ts:.3g} samples/s; "
          f"w max {ref['w_max']:.5f}, mean {ref['w_sum'] / ref['n']:.5f}; "
          f"peak RSS {peak_mb():.0f} MB")
    assert m.w_max == ref["w_max"] and np.isclose(m.w_mean, ref["w_sum"] / ref["n"])
    print(f"overhead at {a.n:.3g} samples: dask / single = {td / ts:.2f} ({td - ts:+.2f} s)")


if __name__ == "__main__":
    main()
