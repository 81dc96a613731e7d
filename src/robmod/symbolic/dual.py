"""Forward-mode differentiation of an algorithm: a context whose scalars are dual numbers.

A :class:`Dual` is a value with its tangents, ``x + sum_w x_w eps_w`` (one infinitesimal
``eps_w`` per direction of differentiation, ``eps_w eps_v = 0``): the chain rule applied to
every operation as the algorithm runs.  Value and tangents are scalars of another context --
SymPy expressions of a :class:`~robmod.symbolic.context.SymbolicContext` or NumPy arrays of
a :class:`~robmod.symbolic.context.NumericContext` -- so that the one algorithm of a model
gives its derivatives both as a customized symbolic model and as batched numbers:

* :class:`DualContext` wraps a context: the joint variables it is asked to differentiate
  with respect to are *seeded* (``q_k`` carries the tangent 1 in direction ``q_k``, or
  ``qd_k`` in the single direction of time for a time derivative); parameters and constants
  have no tangent;
* ``ctx.var(x, name)`` names the value ``name`` and each tangent ``D{name}_{w}``: every
  intermediate variable of the recursion gets its derivative variables, next to it, so the
  derivative keeps the recursion's structure (Khalil & Dombre §7.5.2: the customized model's
  savings -- zero and one elements folded as they are built -- apply to the tangents too);
* tangents are sparse (a dict over the directions, zeros never stored): the tangent of
  W_j with respect to q_k, k > j, is never built.

Derivatives of ``sign`` (Coulomb friction) are taken as zero (it is constant almost
everywhere); ``abs``, ``exp``, ``sqrt``, ``atan2`` and the sines and cosines of the joint
angles (whose tangents reuse the model's own ``S_j``, ``C_j``) follow the usual rules.
"""
from __future__ import annotations

import sympy as sp

from ..arguments import keyword_options
from ..errors import ArgumentError, RobmodError
from .algebra import add, mul, numeric_constant


def _zero(x) -> bool:
    c = numeric_constant(x)
    return c is not None and c == 0


def dual(value, tangents):
    """A :class:`Dual`, or ``value`` itself when every tangent is zero (so that the algebra
    keeps folding constants)."""
    t = {k: x for k, x in tangents.items() if not _zero(x)}
    return Dual(value, t) if t else value


def _negated(e):
    """-e with the sign distributed over a sum (as the algebra builds its expressions)."""
    return sp.Add(*[-a for a in e.args]) if e.is_Add else -e


def value_of(x):
    return x.v if isinstance(x, Dual) else x


def tangents_of(x) -> dict:
    return x.t if isinstance(x, Dual) else {}


class Dual:
    """A scalar ``v`` of a context with its tangents ``t`` ({direction: scalar}, non-zero
    only).  The operators follow the chain rule; NumPy defers to them."""

    __array_ufunc__ = None      # NumPy arrays defer to the reflected operators
    __slots__ = ("v", "t")

    def __init__(self, v, t):
        self.v, self.t = v, t

    def __repr__(self):
        return f"Dual({self.v!r}, {self.t!r})"

    # -- arithmetic ---------------------------------------------------------------------
    def __add__(self, o):
        if isinstance(o, Dual):
            t = dict(self.t)
            for k, x in o.t.items():
                t[k] = add(t[k], x) if k in t else x
            return dual(add(self.v, o.v), t)
        return Dual(add(self.v, o), self.t)

    __radd__ = __add__

    def __neg__(self):
        return Dual(-self.v, {k: -x for k, x in self.t.items()})

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, Dual):
            t = {k: mul(x, o.v) for k, x in self.t.items()}
            for k, x in o.t.items():
                t[k] = add(t[k], mul(self.v, x)) if k in t else mul(self.v, x)
            return dual(mul(self.v, o.v), t)
        if _zero(o):
            return 0
        return dual(mul(self.v, o), {k: mul(x, o) for k, x in self.t.items()})

    __rmul__ = __mul__

    def reciprocal(self):
        inv = 1 / self.v
        minus_sq = -mul(inv, inv)
        return Dual(inv, {k: mul(minus_sq, x) for k, x in self.t.items()})

    def __truediv__(self, o):
        if isinstance(o, Dual):
            return self * o.reciprocal()
        return self * (1 / o)

    def __rtruediv__(self, o):
        return self.reciprocal() * o

    def __pow__(self, n):
        if isinstance(n, Dual):
            raise RobmodError("a dual number to a dual power is not supported")
        c = numeric_constant(n)
        if c is not None and c == 2:
            return self * self
        vn1 = self.v ** (n - 1)
        return Dual(vn1 * self.v, {k: mul(mul(n, vn1), x) for k, x in self.t.items()})


class DualContext:
    """A context whose joint variables carry tangents (see the module's docstring).

    ``ctx``: the context of the values and tangents; ``seeds``: ``{(j, group): {direction:
    scalar}}`` (group ``"q"``, ``"qd"``, ``"qdd"``), the tangents of the joint variables, and
    ``{("base", group): [{direction: scalar}, ...]}`` those of the base's entries (one dict
    per entry) of a mobile or floating robot;
    a dependent (mimic) joint without seeds of its own takes m times its leader's;
    ``name(name, direction)``: the name of a tangent variable (default ``D{name}_{w}``).
    In a symbolic base, an expression named twice gets one variable, and one named as the
    negation of another is that one's negation; ``memo`` (a dict) shares this between
    contexts, so that two algorithms run in one model share their common statements (the
    frame matrices, say).
    """

    @keyword_options()
    def __init__(self, ctx, seeds, *, name=None, memo=None):
        if not all(hasattr(ctx, a) for a in ("var", "joint", "param", "symbolic")):
            raise ArgumentError(f"DualContext: ctx must be a context (SymbolicContext, "
                                f"NumericContext), got {type(ctx).__name__}")
        if not (isinstance(seeds, dict) and all(
                isinstance(t, dict) or k[0] == "base" and all(isinstance(x, dict) for x in t)
                for k, t in seeds.items())):
            raise ArgumentError("DualContext: seeds must be a dict {(joint, group): {direction: "
                                f"tangent}}, got {type(seeds).__name__}")
        if name is not None and not callable(name):
            raise ArgumentError(f"DualContext: name must be a function (name, direction) -> "
                                f"str, got {type(name).__name__}")
        if memo is not None and not isinstance(memo, dict):
            raise ArgumentError(f"DualContext: memo must be a dict, got {type(memo).__name__}")
        self.inner = ctx
        self.seeds = seeds
        self.symbolic = ctx.symbolic
        self.robot = getattr(ctx, "robot", None)
        self._name = name or (lambda n, w: f"D{n}_{w}")
        self.memo = {} if memo is None else memo

    # -- naming -----------------------------------------------------------------------------
    def _var(self, x, name):
        if not self.symbolic:
            return x
        key = sp.sympify(x)  # safe: expressions built by robmod algorithms
        sym = self.memo.get(key)
        if sym is None:
            minus = self.memo.get(_negated(key))
            if minus is not None:   # the rotation's derivative: d(Rz(q)^T v)/dq = v' x z
                return -minus
            sym = self.memo[key] = self.inner.var(key, name)
        return sym

    def var(self, x, name: str):
        if isinstance(x, Dual):
            return dual(self._var(x.v, name),
                        {k: self._var(t, self._name(name, k)) for k, t in x.t.items()})
        return self._var(x, name)

    def vec(self, exprs, name: str, suffixes=("1", "2", "3")):
        return [self.var(e, f"{name}{s}") for e, s in zip(exprs, suffixes)]

    def reserve(self, *names):
        self.inner.reserve(*names)

    # -- inputs -----------------------------------------------------------------------------
    def joint(self, j: int, group: str = "q"):
        v = self.inner.joint(j, group)
        t = self.seeds.get((j, group))
        mimic = self.robot.mimic if self.robot is not None else {}
        if t is None and j in mimic:    # q_j = m q_i + c: tangents m times q_i's
            i, m, _ = mimic[j]
            t = {k: mul(m, s) for k, s in self.seeds.get((i, group), {}).items()}
        return dual(v, t or {})

    def base(self, group: str = "q") -> list:
        values = self.inner.base(group)
        tangents = self.seeds.get(("base", group)) or [{}] * len(values)
        return [dual(v, t) for v, t in zip(values, tangents)]

    def param(self, x):
        return self.inner.param(x)

    def const(self, x):
        return self.inner.const(x)

    # -- functions --------------------------------------------------------------------------
    def sincos(self, angle, tag: str):
        if not isinstance(angle, Dual):
            return self.inner.sincos(angle, tag)
        s, c = self.inner.sincos(angle.v, tag)
        return (Dual(s, {k: mul(c, x) for k, x in angle.t.items()}),
                Dual(c, {k: -mul(s, x) for k, x in angle.t.items()}))

    def fn(self, name: str, *args):
        if not any(isinstance(a, Dual) for a in args):
            return self.inner.fn(name, *args)
        f = self.inner.fn
        if name == "sign":          # constant almost everywhere (Coulomb friction)
            return f("sign", value_of(args[0]))
        if name == "atan2":         # (x dy - y dx) / (x^2 + y^2)
            y, x = args
            yv, xv, ty, tx = value_of(y), value_of(x), tangents_of(y), tangents_of(x)
            inv = 1 / add(mul(xv, xv), mul(yv, yv))
            return dual(f("atan2", yv, xv),
                        {k: mul(add(mul(xv, ty.get(k, 0)), -mul(yv, tx.get(k, 0))), inv)
                         for k in [*ty, *(k for k in tx if k not in ty)]})
        x = args[0]
        v = x.v
        if name == "abs":
            d = f("sign", v)
        elif name == "exp":
            e = f("exp", v)
            return Dual(e, {k: mul(e, t) for k, t in x.t.items()})
        elif name == "sqrt":
            r = f("sqrt", v)
            return Dual(r, {k: mul(t, 1 / mul(2, r)) for k, t in x.t.items()})
        else:
            raise RobmodError(f"the derivative of {name} is not implemented")
        return Dual(f(name, v), {k: mul(d, t) for k, t in x.t.items()})


# -- seeds and tangents of the joint variables ------------------------------------------

def direction(group: str, j) -> str:
    """The name of the direction of joint j's variable of ``group`` (that of the input:
    ``q3``, ``QP3``, ``QDP3``, ``GAM3``), which names the tangent variables ``D..._q3``; a
    mobile or floating base's velocity coordinates ``"b1".."b6"``: ``TB1..TB6`` (its pose in
    the tangent space), ``V01..W03``, ``VD01..WP03`` (its twist, acceleration), ``FB1..FB6``
    (a wrench on it)."""
    from ..description.base import BASE_INPUTS
    from ..description.robot import joint_acceleration, joint_variable, joint_velocity

    if isinstance(j, str):
        k = int(j[1:])
        return BASE_INPUTS[group][k - 1] if group in ("qd", "qdd") else \
            f"{'TB' if group == 'q' else 'FB'}{k}"
    symbol = {"q": joint_variable, "qd": joint_velocity, "qdd": joint_acceleration}.get(group)
    return f"GAM{j}" if symbol is None else str(symbol(j))


def seeds(order, groups) -> dict:
    """The seeds of a :class:`DualContext`: a unit tangent for each variable of ``groups``
    (a base's twist and acceleration, ``"b1".."b6"`` in ``order``, too: its pose's
    are :func:`robmod.geometry.floating.base_seeds`)."""
    out = {(j, g): {direction(g, j): 1} for g in groups for j in order
           if not isinstance(j, str)}
    base = [j for j in order if isinstance(j, str)]
    for g in groups:
        if base and g != "q":
            out["base", g] = [{direction(g, j): 1} for j in base]
    return out


def tangent_matrix(values, order, group):
    """Rows over ``values`` (scalars, duals or None), columns over the variables of
    ``group`` of the frames ``order``: the tangents."""
    return [[tangents_of(v).get(direction(group, k), 0) for k in order] for v in values]


__all__ = ["Dual", "DualContext"]
