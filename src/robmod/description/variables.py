"""Reading and writing the joint variable in the theta / r column.

Robot tables write the joint variable in its column (``theta = th2`` for a
revolute joint 2, ``r = r3`` for a prismatic joint 3, or ``q2 + pi/2`` with an
offset).  robmod stores only the offset; these helpers split and rebuild.
"""
from __future__ import annotations

import sympy as sp

from ..errors import DescriptionError, Location
from .expr import symbol
from .robot import FIXED, PRISMATIC, REVOLUTE, joint_variable


def variable_aliases(j: int, sigma: int) -> tuple[str, ...]:
    """Names accepted for the variable of joint j: ``qj`` and ``thj``/``thetaj`` or ``rj``."""
    if sigma == REVOLUTE:
        return (f"q{j}", f"th{j}", f"theta{j}", f"Th{j}", f"Theta{j}")
    if sigma == PRISMATIC:
        return (f"q{j}", f"r{j}", f"R{j}")
    return ()


def split_variable(expr: sp.Expr, j: int, sigma: int, column: str,
                   location: Location | None = None) -> sp.Expr:
    """Offset of the ``column`` ('theta' or 'r') expression of frame j.

    The variable column of a joint must read ``var + offset`` (``var`` one of
    :func:`variable_aliases`); the other column and fixed frames hold constants
    only.
    """
    loc = (location or Location()).merged(Location(frame=j, field=column))
    var_column = {REVOLUTE: "theta", PRISMATIC: "r"}.get(sigma)
    names = set()
    for jj_sigma in (REVOLUTE, PRISMATIC):
        names.update(variable_aliases(j, jj_sigma))
    present = [s for s in expr.free_symbols if s.name in names]
    if column != var_column:
        if present:
            kind = {REVOLUTE: "revolute", PRISMATIC: "prismatic", FIXED: "fixed"}[sigma]
            raise DescriptionError(
                f"{column} holds joint variable {present[0].name} but frame {j} is {kind} "
                f"(sigma = {sigma}); check sigma", loc)
        return expr
    if len(present) != 1:
        want = " or ".join(variable_aliases(j, sigma)[:2])
        if not present:
            raise DescriptionError(
                f"the {column} column of joint {j} must hold its variable ({want}), optionally "
                f"plus an offset, e.g. '{variable_aliases(j, sigma)[0]}' or "
                f"'{variable_aliases(j, sigma)[0]} + pi/2'; got {expr}", loc)
        raise DescriptionError(f"{column} holds several names for one joint variable: "
                               f"{sorted(s.name for s in present)}", loc)
    var = present[0]
    offset = sp.expand(expr - var)
    if var in offset.free_symbols:
        raise DescriptionError(
            f"{column} must be '{var} + offset' (coefficient 1, no function of {var}); got {expr}",
            loc)
    return offset


def with_variable(frame, column: str, style: str = "q") -> sp.Expr:
    """The column value as a table shows it: the variable (named by ``style``) plus offset."""
    value = getattr(frame, column)
    var_column = {REVOLUTE: "theta", PRISMATIC: "r"}.get(frame.sigma)
    if column != var_column:
        return value
    if style == "q":
        var = joint_variable(frame.j)
    elif style == "symoro":
        var = symbol(f"th{frame.j}" if frame.sigma == REVOLUTE else f"r{frame.j}")
    else:
        raise DescriptionError(f"unknown variable style {style!r}: 'q' or 'symoro'")
    return var + value


__all__ = []
