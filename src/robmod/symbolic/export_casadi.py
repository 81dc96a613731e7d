"""Export of customized models to CasADi: ``SX`` graphs, ``casadi.Function``.

CasADi is optional: ``pip install 'robmod[casadi]'``.  :func:`to_casadi` builds the model's
statements as one SX graph: each intermediate variable is one SX node, used by reference
wherever the model uses it, so the graph has the model's intermediate variables and its
operation count (a sum of k terms is k - 1 additions and subtractions, a product of k factors
k - 1 multiplications, ``x**2`` one multiplication, a change of sign a subtraction where the
model writes one).  The ``casadi.Function`` takes one vector per input group (``q``, ``qd``,
``qdd``, ``tau``, ``params`` when the model has free parameters) and returns one matrix per
output (a vector as a column; an array of more than two dimensions as (rows of its leading
dimensions, last dimension)).  It is what ``nlpsol`` (IPOPT), ``integrator`` or acados take,
and CasADi's own automatic differentiation applies to it.
"""
from __future__ import annotations

import math

import sympy as sp

from ..arguments import keyword_options, model_argument
from ..errors import ArgumentError, RobmodError

CASADI = "pip install 'robmod[casadi]'"


def _casadi():
    try:
        import casadi
    except ImportError:
        raise RobmodError(f"the CasADi export needs CasADi: {CASADI}") from None
    return casadi


def _groups(model):
    return [g for g in model.inputs if model.inputs[g]]


def _out_shape(shape):
    if len(shape) == 1:
        return (shape[0], 1)
    if len(shape) == 2:
        return tuple(shape)
    return (math.prod(shape[:-1]), shape[-1])


class _SXBuilder:
    """SymPy expressions of a model -> SX nodes (statement symbols by reference)."""

    def __init__(self, ca, env):
        self.ca, self.env = ca, env
        self.funcs = {sp.sin: ca.sin, sp.cos: ca.cos, sp.tan: ca.tan, sp.exp: ca.exp,
                      sp.sign: ca.sign, sp.Abs: ca.fabs, sp.asin: ca.asin, sp.acos: ca.acos,
                      sp.atan: ca.atan, sp.tanh: ca.tanh}

    def __call__(self, e):
        if e.is_Symbol:
            try:
                return self.env[e]
            except KeyError:
                raise RobmodError(f"to_casadi: symbol {e} is neither an input nor a statement "
                                  "of the model") from None
        if e.is_Number or e in (sp.pi, sp.E):
            return self.ca.SX(float(e))
        if e.is_Add:
            pos = [a for a in e.args if not _negative(a)]
            neg = [-a for a in e.args if _negative(a)]
            out = self(pos[0]) if pos else -self(neg.pop(0))
            for a in pos[1:]:
                out = out + self(a)
            for a in neg:
                out = out - self(a)
            return out
        if e.is_Mul:
            coef, factors = e.as_coeff_mul()
            num = [f for f in factors if not (f.is_Pow and f.exp.is_Integer and f.exp < 0)]
            den = [f.base ** -f.exp for f in factors if f not in num]
            if coef not in (1, -1):
                num = [sp.Float(abs(float(coef)))] + num
            out = self(num[0]) if num else self.ca.SX(1.0)
            for f in num[1:]:
                out = out * self(f)
            for f in den:
                out = out / self(f)
            return -out if coef < 0 else out
        if e.is_Pow:
            base, exp = e.base, e.exp
            if exp.is_Integer and exp > 0:
                b = self(base)
                out = b
                for _ in range(int(exp) - 1):
                    out = out * b
                return out
            if exp.is_Integer and exp < 0:
                return 1 / self(base ** -exp)
            if exp == sp.Rational(1, 2):
                return self.ca.sqrt(self(base))
            return self(base) ** self(exp)
        if isinstance(e, sp.atan2):
            return self.ca.atan2(self(e.args[0]), self(e.args[1]))
        f = self.funcs.get(type(e))
        if f is None:
            raise RobmodError(f"to_casadi: function {type(e).__name__} cannot be exported")
        return f(self(e.args[0]))


def _negative(t) -> bool:
    c, _ = t.as_coeff_mul()
    return bool(c < 0)


@keyword_options()
def to_casadi(model, *, name: str | None = None):
    """The model as a ``casadi.Function`` (see the module's docstring) named ``name`` (default:
    the model's name)."""
    model_argument(model, "to_casadi")
    if name is not None and not (isinstance(name, str) and name.isidentifier()):
        raise ArgumentError(f"to_casadi: name must be an identifier (str), got {name!r}")
    ca = _casadi()
    env, args, arg_names = {}, [], []
    for g in _groups(model):
        syms = model.inputs[g]
        x = ca.SX.sym(g, len(syms))
        for k, s in enumerate(syms):
            env[s] = x[k]
        args.append(x)
        arg_names.append(g)
    build = _SXBuilder(ca, env)
    for lhs, rhs in model.statements:
        env[lhs] = build(rhs)
    outs, out_names = [], []
    for o in model.outputs:
        rows, cols = _out_shape(o.shape)
        m = ca.SX.zeros(rows, cols)
        for k, e in enumerate(o.exprs):
            m[k // cols, k % cols] = build(e)
        outs.append(m)
        out_names.append(o.name)
    return ca.Function(name or _ident(model.name), args, outs, arg_names, out_names)


def casadi_operations(function) -> dict:
    """The arithmetic of a ``casadi.Function``'s graph by kind, counted as robmod counts a
    model's: ``mults`` (multiplications and divisions, ``2 x`` and ``x^2`` included), ``adds``
    (additions, subtractions), ``funcs`` (sin, cos, sqrt, sign, ...), ``signs`` (changes of
    sign, free in robmod's counts), with ``instructions`` its ``n_instructions`` (inputs,
    outputs and constants included) and ``nodes`` its ``n_nodes``."""
    ca = _casadi()
    if not isinstance(function, ca.Function):
        raise ArgumentError(f"casadi_operations: function must be a casadi.Function (e.g. "
                            f"model.to_casadi()), got {type(function).__name__}")
    kinds = {ca.OP_MUL: "mults", ca.OP_DIV: "mults", ca.OP_SQ: "mults", ca.OP_TWICE: "mults",
             ca.OP_INV: "mults", ca.OP_ADD: "adds", ca.OP_SUB: "adds", ca.OP_NEG: "signs"}
    skip = {ca.OP_CONST, ca.OP_INPUT, ca.OP_OUTPUT, ca.OP_PARAMETER}
    out = {"mults": 0, "adds": 0, "funcs": 0, "signs": 0}
    for k in range(function.n_instructions()):
        op = function.instruction_id(k)
        if op in skip:
            continue
        out[kinds.get(op, "funcs")] += 1
    out["instructions"] = function.n_instructions()
    out["nodes"] = function.n_nodes()
    return out


def _ident(name):
    import re

    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return s if re.match(r"^[A-Za-z_]", s) else "m_" + s


__all__ = ["to_casadi", "casadi_operations"]
