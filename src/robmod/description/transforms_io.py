"""Constant transforms (base frame Z, tool frames E) as files give them."""
from __future__ import annotations

from typing import Callable

import sympy as sp

from ..errors import FileFormatError
from .robot import GEOMETRIC, transform_matrix


def matrix_from_spec(spec, convert: Callable) -> sp.ImmutableMatrix:
    """A 4x4 transform from a 3x4/4x4 nested list, or a mapping of gamma, b, alpha, d, theta, r.

    ``convert`` turns each entry into a SymPy expression (the restricted parser).
    """
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in GEOMETRIC]
        if unknown:
            raise FileFormatError(f"unknown transform parameter(s) {unknown}; use "
                                  f"{', '.join(GEOMETRIC)} or a 4x4 matrix")
        return transform_matrix(**{k: convert(v) for k, v in spec.items()})
    if not isinstance(spec, list) or len(spec) not in (3, 4) or not all(
            isinstance(row, list) and len(row) == 4 for row in spec):
        raise FileFormatError("a transform must be a 3x4 or 4x4 matrix (list of rows) or a "
                              "mapping of gamma, b, alpha, d, theta, r")
    rows = [[convert(v) for v in row] for row in spec]
    if len(rows) == 3:
        rows.append([sp.Integer(0), sp.Integer(0), sp.Integer(0), sp.Integer(1)])
    return sp.ImmutableMatrix(rows)


def matrix_from_entries(values) -> sp.ImmutableMatrix:
    """A 4x4 transform from its 16 entries, or the 12 of its first 3 rows, row by row."""
    values = list(values)
    if len(values) == 12:
        values += [sp.Integer(0)] * 3 + [sp.Integer(1)]
    return sp.ImmutableMatrix(4, 4, values)


def matrix_entries(m) -> list:
    """The 16 entries of a 4x4 matrix, row by row."""
    return [m[i, k] for i in range(4) for k in range(4)]


__all__ = []
