"""Reading a robot's log: CSV (with or without a header), NumPy ``.npz``, Parquet.

A log holds the time, the joint positions and optionally the joint velocities and torques, or
motor currents with the drive gains (``Gamma = N K_t i``).  Columns are found

* by name: by default ``t`` (or ``time``), ``q1..qn``, ``qd1..qn``, ``tau1..taun``,
  ``i1..in``; any other names as a name, a pattern with ``{j}`` (joint 1..n) or ``{i}``
  (0..n-1), a tuple of alternatives, or a list of names, one per joint;
* by position, for headerless files as controllers often write them: an integer (``0``), a
  slice as text (``"1:7"``: the columns 1 to 6, Python's convention) or a list of integers.

The column specification is resolved once (:func:`column_positions`), for this reader and for
the out-of-core one (``identify_log`` of the distributed layer).
"""
from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np

from ..description.arguments import keyword_options, path_argument
from ..errors import ArgumentError, RobmodError
from .data import MeasuredData, clean

#: default column name patterns (first match wins)
DEFAULT_COLUMNS = {
    "t": ("t", "time", "timestamp", "stamp"),
    "q": ("q{j}", "q_{j}", "pos{j}", "position{j}"),
    "qd": ("qd{j}", "qd_{j}", "dq{j}", "vel{j}", "velocity{j}"),
    "qdd": ("qdd{j}", "qdd_{j}", "ddq{j}", "acc{j}"),
    "tau": ("tau{j}", "tau_{j}", "torque{j}", "effort{j}"),
    "current": ("i{j}", "current{j}", "cur{j}"),
}
_POSITION = re.compile(r"^\s*(\d+)\s*(?::\s*(\d+)\s*)?$")


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _read_csv(path: Path):
    with open(path, newline="") as fh:
        first = fh.readline()
        sample = first + fh.read(4096)
    if not first.strip():
        raise RobmodError(f"{path}: empty file")
    if path.suffix.lower() == ".tsv" or "\t" in first:
        delim = "\t"
    elif ";" in first or "," in first:
        delim = ";" if sample.count(";") > sample.count(",") else ","
    else:
        delim = None                                  # numbers separated by spaces
    tokens = [x.strip() for x in (first.split(delim) if delim else first.split())]
    header = None if all(_is_number(x) or x.lower() == "nan" for x in tokens if x) else tokens
    data = _fast_read(path, delim, 1 if header else 0)
    if data is None:
        data = _read_rows(path, delim, header, len(tokens))
    if data.shape[1] != len(tokens):
        raise RobmodError(f"{path}: {data.shape[1]} values per row, the first line has "
                          f"{len(tokens)}")
    return header, [data[:, k] for k in range(data.shape[1])]


def _fast_read(path, delim, skip):
    """The numbers of a CSV by pandas' C reader (empty fields: NaN), else numpy's; None when
    neither reads it (ragged rows, text): the slow reader then names the line."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    try:
        if pd is not None:
            return pd.read_csv(path, header=None, skiprows=skip, dtype=float, engine="c",
                               sep=delim if delim else r"\s+").to_numpy()
        return np.loadtxt(path, delimiter=delim, skiprows=skip, ndmin=2, dtype=float,
                          comments=None)
    except (ValueError, TypeError, IndexError):
        return None
    except Exception as e:          # pandas' ParserError and EmptyDataError
        if type(e).__name__ in ("ParserError", "EmptyDataError"):
            return None
        raise


def _read_rows(path, delim, header, width):
    """The slow reader, for files the fast ones refuse: empty fields are NaN; an error names
    the line."""
    rows = []
    with open(path, newline="") as fh:
        reader = csv.reader(fh, delimiter=delim) if delim else (ln.split() for ln in fh)
        for line_no, row in enumerate(reader, start=1):
            if line_no == 1 and header is not None or not row:
                continue
            if len(row) != width:
                raise RobmodError(f"{path}:{line_no}: {len(row)} values, the "
                                  f"{'header' if header else 'first line'} has {width} columns")
            try:
                rows.append([float(x) if x.strip() not in ("", "nan", "NaN") else np.nan
                             for x in row])
            except ValueError as e:
                raise RobmodError(f"{path}:{line_no}: not a number ({e})") from None
    return np.array(rows, dtype=float).reshape(-1, width)


def _read_table(path: Path):
    """(header or None, columns): the columns of a log file as arrays."""
    suffix = path.suffix.lower()
    if suffix == ".npz":
        with np.load(path, allow_pickle=False) as z:
            return list(z.files), [np.asarray(z[k]) for k in z.files]
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise RobmodError(f"{path}: reading Parquet needs pyarrow: pip install "
                              "'robmod[data]'") from None
        table = pq.read_table(path)
        return list(table.column_names), [table.column(k).to_numpy() for k in
                                          table.column_names]
    if suffix in (".csv", ".txt", ".tsv", ".dat"):
        return _read_csv(path)
    raise ArgumentError(f"{path}: unknown log format {suffix!r}: expected .csv, .txt, .npz or "
                      ".parquet")


def column_positions(header, width: int, spec, n: int | None, what: str, source):
    """The positions of the columns of ``what`` (a list, one per joint, or one for the time)
    given by ``spec`` (see the module's notes), or None when no name matches; ``header``:
    the column names (None for a headerless file), ``width`` the number of columns."""
    positions = None
    if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        positions = [int(spec)]
    elif isinstance(spec, str) and _POSITION.match(spec):
        a, b = _POSITION.match(spec).groups()
        positions = [int(a)] if b is None else list(range(int(a), int(b)))
    elif isinstance(spec, list) and spec and all(isinstance(x, (int, np.integer))
                                                 and not isinstance(x, bool) for x in spec):
        positions = [int(x) for x in spec]
    if positions is not None:
        bad = [p for p in positions if not 0 <= p < width]
        if bad or not positions:
            raise RobmodError(f"{source}: column {bad[0] if bad else spec!r} for {what} does not "
                              f"exist: the file has {width} columns (0 to {width - 1})")
        if n is not None and what != "the time" and len(positions) != n:
            raise RobmodError(f"{source}: {len(positions)} columns for {what}, the robot has "
                              f"{n} joints")
        return positions
    if header is None:
        raise RobmodError(f"{source}: the file has no header line: give the columns by "
                          f"position, e.g. columns={{'t': 0, 'q': '1:7', 'qd': '7:13', "
                          f"'current': '13:19'}} (--column q=1:7)")
    lower = {str(k).lower(): c for c, k in enumerate(header)}
    if isinstance(spec, list):  # explicit column names, one per joint
        missing = [s for s in spec if str(s).lower() not in lower]
        if missing:
            raise RobmodError(f"{source}: no column {', '.join(map(str, missing))} for {what}; "
                              f"columns are {', '.join(map(str, header))}")
        return [lower[str(s).lower()] for s in spec]
    for pat in ((spec,) if isinstance(spec, str) else tuple(spec)):
        if "{" not in pat:
            if pat.lower() in lower:
                return [lower[pat.lower()]]
            continue
        cols, j = [], 1
        while n is None or j <= n:
            c = lower.get(pat.format(j=j, i=j - 1).lower())
            if c is None:
                break
            cols.append(c)
            j += 1
        if cols:
            if n is not None and len(cols) != n:
                raise RobmodError(f"{source}: {len(cols)} columns {pat} for {what}, the robot "
                                  f"has {n} joints")
            return cols
    return None


@keyword_options()
def load_log(path, *, n_joints: int | None = None, columns=None, torque_constant=None,
             gear_ratio=None, time_scale: float = 1.0, torque: str | None = None
             ) -> MeasuredData:
    """Read a log (.csv, .txt, .npz, .parquet) into :class:`MeasuredData`, then
    :func:`~.data.clean` it.

    ``columns``: {"t": ..., "q": ..., "qd": ..., "tau": ..., "current": ...} overriding
    :data:`DEFAULT_COLUMNS`, by name or by position (see the module's notes).  Motor currents
    become joint torques with ``torque_constant`` (N m / A, per joint) and ``gear_ratio`` (per
    joint, default 1: the drive gains when ``torque_constant`` holds them).  ``time_scale``
    converts the time column to seconds (e.g. 1e-3 for milliseconds, 1e-9 for nanoseconds).
    ``torque``: where the torques are measured, 'motor' or 'link' (joint torque sensors after
    the gear); by default what the file says: motor currents are the motor's side, torque
    columns named ``..link..`` or ``..motor..`` that side, else unknown
    (``MeasuredData.torque``).
    """
    if torque not in (None, "link", "motor"):
        raise RobmodError(f"torque must be 'link', 'motor' or None, got {torque!r}")
    path = Path(path_argument(path))
    if not path.exists():
        raise ArgumentError(f"{path}: no such file")
    header, table = _read_table(path)
    spec = dict(DEFAULT_COLUMNS)
    unknown = sorted(set(columns or {}) - set(spec))
    if unknown:
        raise RobmodError(f"columns: unknown quantity {', '.join(unknown)} (expected "
                          f"{', '.join(spec)})")
    spec.update(columns or {})
    if header is None and not columns:
        column_positions(None, len(table), spec["q"], n_joints, "q", path)   # explains
    given = set(columns or {})

    def find(what, n, label):
        if header is None and what not in given:
            return None
        pos = column_positions(header, len(table), spec[what], n, label, path)
        if pos is None:
            return None
        return np.column_stack([np.asarray(table[c], dtype=float) for c in pos])

    t = find("t", None, "the time")
    if t is None:
        raise RobmodError(f"{path}: no time column (looked for {', '.join(spec['t'])}); give "
                          "columns={'t': NAME or position}")
    q = find("q", n_joints, "q")
    if q is None:
        raise RobmodError(f"{path}: no joint position columns (looked for "
                          f"{', '.join(spec['q'])}); give columns={{'q': 'pattern{{j}}'}} or "
                          "positions ('1:7')")
    n = q.shape[1]
    qd, tau = find("qd", n, "qd"), find("tau", n, "tau")
    side = torque
    if tau is not None and side is None and header is not None:
        names = " ".join(str(header[c]).lower() for c in
                         column_positions(header, len(table), spec["tau"], n, "tau", path))
        side = "link" if "link" in names else "motor" if "motor" in names else None
    notes = [f"read {path.name}: {t.shape[0]} rows, {n} joints"
             + (", measured velocities" if qd is not None else "")]
    if tau is None:
        cur = find("current", n, "motor currents")
        if cur is not None:
            if torque_constant is None:
                raise RobmodError(f"{path}: the log has motor currents: give torque_constant "
                                  "(and gear_ratio), one per joint, to turn them into torques")
            kt = np.broadcast_to(np.asarray(torque_constant, float), (n,))
            gr = np.broadcast_to(np.asarray(1.0 if gear_ratio is None else gear_ratio, float),
                                 (n,))
            tau = cur * kt * gr
            side = side or "motor"
            notes.append("torques from motor currents: tau = N K_t i (drive gains "
                         + ", ".join(f"{g:.4g}" for g in kt * gr) + ")")
    if side:
        notes.append(f"torques measured on the {side} side" + (" (as given)" if torque else ""))
    data = MeasuredData(t[:, 0] * time_scale, q, qd, tau, source=str(path), notes=tuple(notes),
                        torque=side)
    return clean(data)


__all__ = ["load_log"]
