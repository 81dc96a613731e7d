"""Workspace and manipulability maps over many samples, reduced without materializing them.

Joint samples are drawn on the workers (one generator per block, seeded from ``seed``
and the block index: the same map on any cluster for a given ``chunk``), the DGM and the Jacobian are
the compiled customized models (:mod:`.remote`), and only reductions come back: the
bounding box of the tool position, a 3-D occupancy histogram on a voxel grid, and the
manipulability ``w = sqrt(det(J J^T))`` (Khalil & Dombre, eq. (5.38); |det J| for a
square J, eq. (5.39)): its maximum, its mean, and its sum per voxel (the
manipulability map, :attr:`WorkspaceMap.w_voxel_mean`).
"""
from __future__ import annotations

from dataclasses import dataclass

from dask import delayed

import numpy as np

from ..description.arguments import jacobian_array, keyword_options
from ..errors import RobmodError
from .cluster import compute
from .reduce import tree_reduce
from .remote import RemoteModel, block_count


@dataclass
class WorkspaceMap:
    """Small results of a workspace/manipulability map."""
    n_samples: int
    lower: np.ndarray          # bounding box of the tool position (3,)
    upper: np.ndarray
    counts: np.ndarray         # occupancy counts on the voxel grid (bins, bins, bins)
    edges: tuple               # 3 arrays of bin edges (bins + 1,)
    w_max: float               # manipulability sqrt(det(J J^T))
    w_mean: float
    q_best: np.ndarray         # a sample where w is maximal
    w_voxel_sum: np.ndarray    # sum of w over the samples of each voxel (like counts)

    @property
    def w_voxel_mean(self) -> np.ndarray:
        """The manipulability map: mean w of the samples in each voxel (NaN where none)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counts > 0, self.w_voxel_sum / np.maximum(self.counts, 1),
                            np.nan)

    @property
    def occupied_volume(self) -> float:
        """Volume of the voxels reached by at least one sample (m^3 for metres)."""
        cell = np.prod([e[1] - e[0] for e in self.edges])
        return float((self.counts > 0).sum() * cell)

    def __str__(self):
        return (f"workspace map of {self.n_samples} samples: box {self.lower} .. {self.upper}; "
                f"occupied volume {self.occupied_volume:.4g}; manipulability max "
                f"{self.w_max:.4g}, mean {self.w_mean:.4g}")


def manipulability_from_jacobian(J: np.ndarray) -> np.ndarray:
    """w = sqrt(det(J J^T)) of a batch (..., m, n) (Khalil & Dombre, eq. (5.38)): |det J|
    when m = n (eq. (5.39)), 0 when m > n; the values of
    :func:`robmod.kinematics.analysis.manipulability`, by determinants (faster than SVDs)."""
    J = jacobian_array(J)
    m, n = J.shape[-2:]
    if m == n:
        return np.abs(np.linalg.det(J))
    if m > n:
        return np.zeros(J.shape[:-2])
    return np.sqrt(np.clip(np.linalg.det(J @ np.swapaxes(J, -1, -2)), 0.0, None))


@keyword_options()
def joint_box(robot) -> tuple[np.ndarray, np.ndarray]:
    """Sampling box of the joints: their limits, else [-pi, pi] (revolute) or [-1, 1]."""
    from ..kinematics.ik_numeric import joint_domain

    lo, hi = joint_domain(robot, robot.joints)[:2]
    return lo, hi


def _block_samples(block: int, seed: int, lo, hi, n_total: int, chunk: int, grid=None):
    """The joint samples of block ``block`` (rows block*chunk .. of the n_total samples):
    uniform in the box [lo, hi] from a generator seeded by (seed, block), or the points
    of a regular grid of ``grid`` values per joint (row-major order)."""
    start = block * chunk
    n = min(chunk, n_total - start)
    if grid is None:
        rng = np.random.default_rng([int(seed), int(block)])
        return lo + (hi - lo) * rng.random((n, lo.size))
    idx = np.unravel_index(np.arange(start, start + n), (int(grid),) * lo.size)
    t = np.column_stack(idx) / max(int(grid) - 1, 1)
    return lo + (hi - lo) * t


def _block_stats(block, seed, lo, hi, n_total, chunk, dgm, jac, rows, edges, grid=None):
    """Partial results of one block: count, box, occupancy counts, sum and max of w."""
    q = _block_samples(block, seed, lo, hi, n_total, chunk, grid)
    n = q.shape[0]
    p = dgm(q)[:, :3]
    J = jac(q).reshape(n, 6, -1)[:, list(rows)]
    w = manipulability_from_jacobian(J)
    k = int(np.argmax(w))
    return {"n": n, "lo": p.min(0), "hi": p.max(0), "counts": np.histogramdd(p, bins=edges)[0],
            "w_sum": float(w.sum()), "w_max": float(w[k]), "q_best": q[k],
            "w_voxel": np.histogramdd(p, bins=edges, weights=w)[0]}


def _merge_stats(a, b):
    """The partial results of two groups of samples combined."""
    best = a if a["w_max"] >= b["w_max"] else b
    return {"n": a["n"] + b["n"], "lo": np.minimum(a["lo"], b["lo"]),
            "hi": np.maximum(a["hi"], b["hi"]), "counts": a["counts"] + b["counts"],
            "w_sum": a["w_sum"] + b["w_sum"], "w_max": best["w_max"], "q_best": best["q_best"],
            "w_voxel": a["w_voxel"] + b["w_voxel"]}


def _map_models(robot, tool=None):
    """(DGM position, Jacobian) of ``robot`` as :class:`RemoteModel`."""
    from ..geometry.direct import dgm_model
    from ..kinematics.jacobians import jacobian_model

    dgm = RemoteModel(dgm_model(robot, tool=tool, columns="p"))
    jac = RemoteModel(jacobian_model(robot, tool=tool))
    return dgm, jac


@keyword_options()
def workspace_map(robot, n_samples: int | None = None, *, grid: int | None = None,
                  chunk: int = 100_000, bins: int = 32, box=None, rows=(0, 1, 2, 3, 4, 5),
                  tool=None, seed: int = 0, client=None, scheduler=None,
                  progress: bool = False) -> WorkspaceMap:
    """Workspace and manipulability of ``robot`` (numeric) over ``n_samples`` random joint
    configurations (uniform in the joint limits, see :func:`joint_box`), or over a regular
    grid of ``grid`` values per joint (``grid ** NJ`` samples).

    ``bins``: voxels per axis of the occupancy histogram over ``box`` = (lower, upper)
    (default: the cube of half-side :func:`_reach_bound`).  ``rows``: rows of the 6 x NJ
    Jacobian in w (default all six: for NJ = 6, w = |det J|).  Runs on ``client`` /
    ``scheduler`` (see :func:`robmod.distributed.get_client`); the samples exist only on
    the workers, one block of ``chunk`` at a time, and small partial results are combined
    by a tree of tasks.
    """
    lo, hi = joint_box(robot)
    if grid is not None:
        if isinstance(grid, bool) or not isinstance(grid, (int, np.integer)) or grid < 1:
            raise RobmodError(f"grid must be a positive integer (values per joint), got {grid!r}")
        if n_samples is not None and n_samples != grid ** lo.size:
            raise RobmodError(f"give n_samples or grid: grid={grid} means {grid ** lo.size} "
                              f"samples, not {n_samples}")
        n_samples = int(grid) ** lo.size
    for name, v in (("n_samples", n_samples), ("chunk", chunk), ("bins", bins)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise RobmodError(f"{name} must be a positive integer, got {v!r}")
    rows = tuple(int(r) for r in rows)
    if not rows or any(r < 0 or r > 5 for r in rows):
        raise RobmodError(f"rows must be rows 0..5 of the Jacobian, got {rows}")
    dgm, jac = _map_models(robot, tool)
    if box is None:
        reach = _reach_bound(robot, tool)
        box = (-reach * np.ones(3), reach * np.ones(3))
    try:
        lower, upper = (np.asarray(b, dtype=float).reshape(3) for b in box)
    except (TypeError, ValueError):
        raise RobmodError(f"box must be (lower, upper), two 3-vectors, got {box!r}") from None
    if not np.all(upper > lower):
        raise RobmodError(f"box must be (lower, upper) with upper > lower, got {box}")
    edges = tuple(np.linspace(lower[k], upper[k], int(bins) + 1) for k in range(3))
    n_samples, chunk = int(n_samples), int(chunk)
    stats = delayed(_block_stats, pure=True)
    parts = [stats(b, seed, lo, hi, n_samples, chunk, dgm, jac, rows, edges, grid)
             for b in range(block_count(n_samples, chunk))]
    res = compute([tree_reduce(parts, _merge_stats)], client=client, scheduler=scheduler,
                progress=progress)[0]
    return WorkspaceMap(res["n"], res["lo"], res["hi"], res["counts"], edges,
                        res["w_max"], res["w_sum"] / res["n"], res["q_best"],
                        res["w_voxel"])


def _reach_bound(robot, tool=None) -> float:
    """An upper bound of the distance from frame 0 to the end frame (sum of |d|, |r|, the
    prismatic ranges and the tool offset), at least 1e-3."""
    total = 0.0
    for f in robot.frames:
        for k in ("d", "r"):
            try:
                total += abs(float(getattr(f, k)))
            except (TypeError, ValueError):
                raise RobmodError(f"workspace_map needs a numeric robot (frame {f.j} field {k} "
                                  f"is {getattr(f, k)}): use robot.numeric()") from None
    lo, hi = joint_box(robot)
    from ..description.robot import PRISMATIC

    for k, j in enumerate(robot.joints):
        if robot.frame(j).sigma == PRISMATIC:
            total += max(abs(lo[k]), abs(hi[k]))
    if tool is not None:  # the longest tool offset of the description
        total += max([float(np.linalg.norm(np.array(t.T[:3, 3], dtype=float)))
                      for t in robot.tools] or [0.0])
    return max(total * 1.05, 1e-3)


__all__ = ["workspace_map", "WorkspaceMap", "joint_box", "manipulability_from_jacobian"]
