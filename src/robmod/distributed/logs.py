"""Identification from a log too big for memory: CSV or Parquet read by ``dask.dataframe``.

The log holds the samples ready for the fit (after filtering and differentiation, e.g.
written from :func:`robmod.identification.least_squares.prepare_data` per file): columns
``q{j}``, ``qd{j}``, ``qdd{j}``, ``tau{j}`` for joints j = 1..NJ by default (any other
names by ``columns``: a pattern with ``{j}`` or a list of names per quantity).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import RobmodError
from .identification import identify_dask

_DEFAULT_LOG_COLUMNS = {"q": "q{j}", "qd": "qd{j}", "qdd": "qdd{j}", "tau": "tau{j}"}


def read_log(path, **kw):
    """A dask DataFrame of a CSV or Parquet file (or glob of files)."""
    import dask.dataframe as dd

    text = str(path)
    if "*" not in text and not Path(text).exists():
        raise RobmodError(f"{path}: no such file")
    if text.endswith(".parquet") or text.endswith(".pq") or Path(text).is_dir():
        return dd.read_parquet(text, **kw)
    if text.endswith(".csv") or text.endswith(".csv.gz"):
        return dd.read_csv(text, **kw)
    raise RobmodError(f"{path}: expected a .csv or .parquet log")


def _log_columns(df, n_joints: int, columns=None, path="log") -> dict:
    """{quantity: [column names of joints 1..NJ]} found in the DataFrame ``df``."""
    spec = dict(_DEFAULT_LOG_COLUMNS)
    spec.update(columns or {})
    lower = {str(c).lower(): c for c in df.columns}
    out = {}
    for what in ("q", "qd", "qdd", "tau"):
        s = spec[what]
        names = list(s) if isinstance(s, (list, tuple)) else [s.format(j=j, i=j - 1)
                                                              for j in range(1, n_joints + 1)]
        if len(names) != n_joints:
            raise RobmodError(f"{path}: {len(names)} columns for {what}, the robot has "
                              f"{n_joints} joints")
        missing = [n for n in names if n.lower() not in lower]
        if missing:
            raise RobmodError(f"{path}: no column {', '.join(missing)} for {what}; columns are "
                              f"{', '.join(map(str, df.columns))}; give columns={{'{what}': ...}}")
        out[what] = [lower[n.lower()] for n in names]
    return out


def identify_log(robot, path, params=None, weights="joint", *, columns=None, client=None,
                 scheduler=None, progress: bool = False, read_options=None):
    """:func:`~robmod.distributed.identification.identify_dask` on a CSV/Parquet log read by
    ``dask.dataframe`` (one partition per block of the file: the log is never in the memory
    of one process)."""
    df = read_log(path, **(read_options or {}))
    nj = len(robot.joints)
    cols = _log_columns(df, nj, columns, path)
    names = [c for w in ("q", "qd", "qdd", "tau") for c in cols[w]]
    table = df[names].optimize() if hasattr(df, "optimize") else df[names]
    full = table.to_dask_array(lengths=True).astype(float)   # one pass for the lengths
    arrays = [full[:, k * nj:(k + 1) * nj] for k in range(4)]
    return identify_dask(robot, *arrays, params=params, weights=weights, client=client,
                         scheduler=scheduler, progress=progress)


__all__ = ["identify_log", "read_log"]
