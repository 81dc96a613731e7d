"""Identification from a log too big for memory: CSV or Parquet read by ``dask.dataframe``.

The log holds the samples ready for the fit (after filtering and differentiation, e.g. the
``processed_`` samples of a :class:`~robmod.identification.DynamicIdentification` written per
file): columns ``q{j}``, ``qd{j}``, ``qdd{j}``, ``tau{j}`` for joints j = 1..NJ by default;
any other columns as :func:`robmod.identification.load_log` takes them (a name, a pattern with
``{j}`` or ``{i}``, a list of names, or positions: ``"1:7"``), resolved by the same function.
"""
from __future__ import annotations

from pathlib import Path

from ..description.arguments import keyword_options
from ..errors import ArgumentError, RobmodError
from ..identification.logfile import DEFAULT_COLUMNS, column_positions
from .identification import identify_dask


@keyword_options()
def read_log(path, *, options=None):
    """A dask DataFrame of a CSV or Parquet file (or glob of files); ``options``: those of
    ``dask.dataframe.read_csv`` / ``read_parquet`` (a mapping)."""
    kw = dict(options or {})
    import dask.dataframe as dd

    text = str(path)
    if "*" not in text and not Path(text).exists():
        raise ArgumentError(f"{path}: no such file")
    if text.endswith(".parquet") or text.endswith(".pq") or Path(text).is_dir():
        return dd.read_parquet(text, **kw)
    if text.endswith(".csv") or text.endswith(".csv.gz"):
        return dd.read_csv(text, **kw)
    raise ArgumentError(f"{path}: expected a .csv or .parquet log")


def _log_columns(df, n_joints: int, columns=None, path="log") -> dict:
    """{quantity: [column names of joints 1..NJ]} found in the DataFrame ``df``."""
    spec = {k: DEFAULT_COLUMNS[k] for k in ("q", "qd", "qdd", "tau")}
    spec.update(columns or {})
    header = [str(c) for c in df.columns]
    out = {}
    for what in ("q", "qd", "qdd", "tau"):
        pos = column_positions(header, len(header), spec[what], n_joints, what, path)
        if pos is None:
            raise RobmodError(f"{path}: no column for {what} (looked for {spec[what]}); columns "
                              f"are {', '.join(header)}; give columns={{'{what}': ...}}")
        out[what] = [df.columns[c] for c in pos]
    return out


@keyword_options()
def identify_log(robot, path, *, params=None, weights="joint", columns=None, client=None,
                 scheduler=None, progress: bool = False, read_options=None):
    """:func:`~robmod.distributed.identification.identify_dask` on a CSV/Parquet log read by
    ``dask.dataframe`` (one partition per block of the file: the log is never in the memory
    of one process)."""
    df = read_log(path, options=read_options)
    nj = len(robot.joints)
    cols = _log_columns(df, nj, columns, path)
    names = [c for w in ("q", "qd", "qdd", "tau") for c in cols[w]]
    table = df[names].optimize() if hasattr(df, "optimize") else df[names]
    full = table.to_dask_array(lengths=True).astype(float)   # one pass for the lengths
    arrays = [full[:, k * nj:(k + 1) * nj] for k in range(4)]
    return identify_dask(robot, *arrays, params=params, weights=weights, client=client,
                         scheduler=scheduler, progress=progress)


__all__ = ["identify_log", "read_log"]
