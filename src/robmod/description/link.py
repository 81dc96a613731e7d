"""The data of a link and of the joint that moves it, immutable (Khalil & Dombre, ch. 7: the
standard inertial parameters, the rotor inertia and the friction of [7.26]); part of
:mod:`robmod.description.robot`, which re-exports every name of this module."""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from .expr import as_expr, symbol

INERTIAL = ("XX", "XY", "XZ", "YY", "YZ", "ZZ", "MX", "MY", "MZ", "M")
#: rotor inertia, Coulomb, viscous, Stribeck static friction and Stribeck decay
#: ([7.26]: F_C sign(qd) + F_V qd + (F_ST - F_C) sign(qd) exp(-|qd| B_ST))
JOINT_DYNAMIC = ("IA", "FC", "FV", "FST", "BST")
WRENCH = ("FX", "FY", "FZ", "CX", "CY", "CZ")
LIMITS = ("qmin", "qmax", "qdmax", "qddmax", "taumax")
#: every per-link dynamic field, in file order
DYNAMIC = INERTIAL + JOINT_DYNAMIC + WRENCH + ("K",)

_ZERO = sp.Integer(0)


@dataclass(frozen=True)
class JointLimits:
    """Joint limits; ``None`` where unknown."""

    qmin: sp.Expr | None = None
    qmax: sp.Expr | None = None
    qdmax: sp.Expr | None = None
    qddmax: sp.Expr | None = None
    taumax: sp.Expr | None = None

    def is_empty(self) -> bool:
        return all(getattr(self, k) is None for k in LIMITS)


def _default_dynamics(j: int) -> dict:
    """SYMORO's default: symbolic inertial, rotor and friction parameters, no wrench."""
    out = {k: symbol(f"{k}{j}") for k in INERTIAL + ("IA", "FC", "FV")}
    out.update({k: _ZERO for k in ("FST", "BST") + WRENCH})
    out["K"] = None
    return out


@dataclass(frozen=True)
class Link:
    """Dynamic parameters of link j and of the joint j that moves it.

    Inertial parameters are Khalil's standard parameters: the inertia tensor
    about the origin O_j of frame j, in frame j (``XY`` is the matrix entry,
    i.e. minus the product of inertia integral), the first moments
    ``MX MY MZ`` = M_j * (centre of mass in frame j) and the mass ``M``.
    ``FX..CZ`` is the wrench exerted by link j on the environment, in frame j.
    ``K`` is the joint stiffness of an elastic joint (None: rigid).
    """

    j: int
    XX: sp.Expr = _ZERO
    XY: sp.Expr = _ZERO
    XZ: sp.Expr = _ZERO
    YY: sp.Expr = _ZERO
    YZ: sp.Expr = _ZERO
    ZZ: sp.Expr = _ZERO
    MX: sp.Expr = _ZERO
    MY: sp.Expr = _ZERO
    MZ: sp.Expr = _ZERO
    M: sp.Expr = _ZERO
    IA: sp.Expr = _ZERO
    FC: sp.Expr = _ZERO
    FV: sp.Expr = _ZERO
    FST: sp.Expr = _ZERO
    BST: sp.Expr = _ZERO
    FX: sp.Expr = _ZERO
    FY: sp.Expr = _ZERO
    FZ: sp.Expr = _ZERO
    CX: sp.Expr = _ZERO
    CY: sp.Expr = _ZERO
    CZ: sp.Expr = _ZERO
    K: sp.Expr | None = None
    limits: JointLimits = field(default_factory=JointLimits)

    def __post_init__(self):
        for k in DYNAMIC:
            v = getattr(self, k)
            if v is not None and not isinstance(v, sp.Expr):
                object.__setattr__(self, k, as_expr(v))

    @classmethod
    def symbolic(cls, j: int, **overrides) -> "Link":
        values = _default_dynamics(j)
        values.update(overrides)
        return cls(j=j, **values)

    def inertia_matrix(self) -> sp.ImmutableMatrix:
        """The 3x3 inertia tensor jJj about O_j."""
        return sp.ImmutableMatrix([[self.XX, self.XY, self.XZ],
                                   [self.XY, self.YY, self.YZ],
                                   [self.XZ, self.YZ, self.ZZ]])

    def first_moments(self) -> sp.ImmutableMatrix:
        return sp.ImmutableMatrix([self.MX, self.MY, self.MZ])

    def inertial(self) -> tuple:
        """The 10 standard inertial parameters, XX..M."""
        return tuple(getattr(self, k) for k in INERTIAL)

    def wrench(self) -> tuple:
        return tuple(getattr(self, k) for k in WRENCH)


__all__ = ["Link", "JointLimits"]
