"""Forward-mode differentiation of customized models.

For a model whose statements are ``x = f(y, ...)``, :func:`derivative` adds the
statements ``Dx_w = sum_y df/dy Dy_w`` for each variable ``w`` asked for (the
chain rule applied statement by statement, never on expanded expressions), and
outputs the derivatives of the outputs.  The statements are replayed on dual numbers
(:mod:`robmod.symbolic.dual`): ``sin``/``cos`` of the joint angles map back to the model's
own ``S``/``C`` variables, so derivatives stay customized; ``sign`` (Coulomb friction) has a
zero derivative, ``|x|`` the derivative ``sign(x)``.
"""
from __future__ import annotations

from dataclasses import replace

import sympy as sp
from sympy.core.parameters import distribute

from ..arguments import keyword_options, model_argument, records
from ..errors import RobmodError
from .algebra import add, mul
from .context import SymbolicContext, is_trivial
from .dual import Dual, dual, tangents_of, value_of
from .model import CustomModel, Output


@keyword_options()
def derivative(model: CustomModel, wrt, *, keep_outputs: bool = True) -> CustomModel:
    """The model extended with d(outputs)/d(w) for every symbol w of ``wrt``.

    New outputs are named ``D{output}_{w}``, each of the output's shape.
    """
    model_argument(model, "derivative")
    wrt = [sp.Symbol(str(w)) if not isinstance(w, sp.Symbol) else w
           for w in records(wrt, "wrt (the symbols to differentiate by)")]
    trig = {rhs: lhs for lhs, rhs in model.statements if isinstance(rhs, (sp.sin, sp.cos))}
    ctx = SymbolicContext()
    ctx.reserve(*(str(l) for l, _ in model.statements))
    ctx.reserve(*(str(s) for g in model.inputs.values() for s in g))
    env = {w: Dual(w, {w: 1}) for w in wrt}
    with distribute(False):
        for lhs, rhs in model.statements:
            val = _replay(rhs, env, trig)
            t = {w: ctx.var(x, f"D{lhs}_{w}") for w, x in tangents_of(val).items()}
            if t:
                env[lhs] = dual(lhs, t)
        outs = []
        for o in model.outputs:
            vals = [_replay(e, env, trig) for e in o.exprs]
            for w in wrt:
                exprs, names = [], []
                for n, v in zip(o.names, vals):
                    dv = sp.sympify(tangents_of(v).get(w, 0))  # safe: robmod expressions
                    if not is_trivial(dv):
                        dv = ctx.var(dv, f"D{n}_{w}")
                    exprs.append(dv)
                    names.append(f"D{n}_{w}")
                outs.append(Output(f"D{o.name}_{w}", o.shape, tuple(names), tuple(exprs)))
    outputs = (tuple(model.outputs) if keep_outputs else ()) + tuple(outs)
    new = replace(model, name=f"{model.name}_d",
                  statements=tuple(model.statements) + tuple(ctx.statements),
                  outputs=outputs, title=f"{model.title} and its derivatives")
    return new.pruned()


def _replay(e, env, trig):
    """``e`` evaluated on the dual numbers ``env`` (symbols without one are constants)."""
    if e.is_Symbol:
        return env.get(e, e)
    if e.is_Number or not e.free_symbols & env.keys():
        return e
    args = [_replay(a, env, trig) for a in e.args]
    if e.is_Add:
        return add(*args)
    if e.is_Mul:
        out = args[0]
        for a in args[1:]:
            out = mul(out, a)
        return out
    if e.is_Pow:
        base, exp = args
        if isinstance(exp, Dual):
            raise RobmodError(f"derivative: a power with a variable exponent: {e}")
        return base ** exp
    x = args[0]
    v, t = value_of(x), tangents_of(x)
    if isinstance(e, (sp.sin, sp.cos)):
        if isinstance(e, sp.sin):
            other = trig.get(sp.cos(v), sp.cos(v))
        else:
            other = -trig.get(sp.sin(v), sp.sin(v))
        return dual(e, {w: mul(other, dx) for w, dx in t.items()})
    if isinstance(e, sp.sign):
        return e
    if isinstance(e, sp.Abs):
        return dual(e, {w: mul(sp.sign(v), dx) for w, dx in t.items()})
    if isinstance(e, sp.exp):
        return dual(e, {w: mul(e, dx) for w, dx in t.items()})
    if isinstance(e, sp.atan2):
        y, xx = args
        yv, xv, ty, tx = value_of(y), value_of(xx), tangents_of(y), tangents_of(xx)
        inv = 1 / add(mul(xv, xv), mul(yv, yv))
        return dual(e, {w: mul(add(mul(xv, ty.get(w, 0)), -mul(yv, tx.get(w, 0))), inv)
                        for w in [*ty, *(w for w in tx if w not in ty)]})
    raise RobmodError(f"derivative: the derivative of {type(e).__name__} is not implemented")


__all__ = ["derivative"]
