"""Workspace and manipulability maps over many samples, reduced without materializing them.

Joint samples are drawn on the workers (one generator per block, seeded from ``seed``
and the block index: the same map on any cluster for a given ``chunk``), the DGM and the Jacobian are
the compiled customized models (:mod:`.remote`), and only reductions come back: the
bounding box of the tool position, a 3-D occupancy histogram on a voxel grid, and the
manipulability ``w = sqrt(det(J J^T))`` (Khalil & Dombre, Part I, eq. (5.38);
Siciliano et al., eq. (3.56)): its maximum, its mean and its histogram.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RobmodError
from .cluster import compute
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
    """w = sqrt(det(J J^T)) of a batch (..., m, n) (Khalil & Dombre, eq. (5.38))."""
    m, n = J.shape[-2:]
    if m == n:
        return np.abs(np.linalg.det(J))
    JJ = J @ np.swapaxes(J, -1, -2) if m < n else np.swapaxes(J, -1, -2) @ J
    return np.sqrt(np.clip(np.linalg.det(JJ), 0.0, None))


def joint_box(robot) -> tuple[np.ndarray, np.ndarray]:
    """Sampling box of the joints: their limits, else [-pi, pi] (revolute) or [-1, 1]."""
    from ..kinematics.ik_numeric import joint_domain

    lo, hi = joint_domain(robot, robot.joints)[:2]
    return lo, hi


def _block_stats(seed_block, lo, hi, n_total, chunk, dgm, jac, rows, edges):
    b = int(seed_block[0])
    n = min(chunk, n_total - b * chunk)
    rng = np.random.default_rng([int(seed_block[1]), b])
    q = lo + (hi - lo) * rng.random((n, lo.size))
    p = dgm(q)[:, :3]
    J = jac(q).reshape(n, 6, -1)[:, list(rows)]
    w = manipulability_from_jacobian(J)
    counts = np.histogramdd(p, bins=edges)[0] if edges is not None else np.zeros((0, 0, 0))
    k = int(np.argmax(w))
    return {"n": n, "lo": p.min(0), "hi": p.max(0), "counts": counts, "w_sum": float(w.sum()),
            "w_max": float(w[k]), "q_best": q[k]}


def _merge(a, b):
    best = a if a["w_max"] >= b["w_max"] else b
    return {"n": a["n"] + b["n"], "lo": np.minimum(a["lo"], b["lo"]),
            "hi": np.maximum(a["hi"], b["hi"]), "counts": a["counts"] + b["counts"],
            "w_sum": a["w_sum"] + b["w_sum"], "w_max": best["w_max"], "q_best": best["q_best"]}


def _tree(delayed_parts):
    from dask import delayed

    parts = list(delayed_parts)
    merge = delayed(_merge, pure=True)
    while len(parts) > 1:
        parts = [merge(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                 for i in range(0, len(parts), 2)]
    return parts[0]


def _models(robot, tool, rows):
    from ..geometry.dgm import dgm_model
    from ..kinematics.jacobian import jacobian_model

    dgm = RemoteModel(dgm_model(robot, tool=tool, columns="p"))
    jac = RemoteModel(jacobian_model(robot, tool=tool))
    return dgm, jac


def workspace_map(robot, n_samples: int, *, chunk: int = 100_000, bins: int = 32,
                  box=None, rows=(0, 1, 2, 3, 4, 5), tool=None, seed: int = 0,
                  client=None, scheduler=None, progress: bool = False, models=None) -> WorkspaceMap:
    """Workspace and manipulability of ``robot`` (numeric) over ``n_samples`` random
    joint configurations (uniform in the joint limits, see :func:`joint_box`).

    ``bins``: voxels per axis of the occupancy histogram over ``box`` = (lower, upper)
    (default: a cube of half-side the sum of the link lengths, from a first pass on
    the first block).  ``rows``: rows of the 6 x n Jacobian in w (default all six:
    the 6 x 6 case gives |det J|).  Runs on ``client`` / ``scheduler`` (see
    :func:`robmod.distributed.get_client`); the samples live only on the workers.
    """
    from dask import delayed

    n_samples = int(n_samples)
    if n_samples < 1:
        raise RobmodError(f"n_samples must be a positive integer, got {n_samples}")
    if int(chunk) < 1:
        raise RobmodError(f"chunk must be a positive integer, got {chunk}")
    if int(bins) < 1:
        raise RobmodError(f"bins must be a positive integer, got {bins}")
    rows = tuple(int(r) for r in rows)
    if not rows or any(r < 0 or r > 5 for r in rows):
        raise RobmodError(f"rows must be rows 0..5 of the Jacobian, got {rows}")
    dgm, jac = models if models is not None else _models(robot, tool, rows)
    lo, hi = joint_box(robot)
    if box is None:
        reach = _reach(robot, tool)
        box = (-reach * np.ones(3), reach * np.ones(3))
    lower, upper = (np.asarray(b, dtype=float).reshape(3) for b in box)
    if not np.all(upper > lower):
        raise RobmodError(f"box must be (lower, upper) with upper > lower, got {box}")
    edges = tuple(np.linspace(lower[k], upper[k], int(bins) + 1) for k in range(3))
    chunk = int(chunk)
    stats = delayed(_block_stats, pure=True)
    parts = [stats((b, seed), lo, hi, n_samples, chunk, dgm, jac, rows, edges)
             for b in range(block_count(n_samples, chunk))]
    res = compute([_tree(parts)], client, scheduler, progress)[0]
    return WorkspaceMap(res["n"], res["lo"], res["hi"], res["counts"], edges,
                        res["w_max"], res["w_sum"] / res["n"], res["q_best"])


def _reach(robot, tool=None) -> float:
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
