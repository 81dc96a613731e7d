"""Forward-mode differentiation of customized models.

For a model whose statements are ``x = f(y, ...)``, :func:`derivative` adds the
statements ``Dx_w = sum_y df/dy Dy_w`` for each variable ``w`` asked for (the
chain rule applied statement by statement, never on expanded expressions), and
outputs the derivatives of the outputs.  ``sin``/``cos`` of the joint angles map
back to the model's own ``S``/``C`` variables, so derivatives stay customized.
"""
from __future__ import annotations

from dataclasses import replace

import sympy as sp
from sympy.core.parameters import distribute

from ..arguments import keyword_options, records
from ..errors import RobmodError
from .context import SymbolicContext, is_trivial
from .model import CustomModel, Output


@keyword_options()
def derivative(model: CustomModel, wrt, *, keep_outputs: bool = True) -> CustomModel:
    """The model extended with d(outputs)/d(w) for every symbol w of ``wrt``.

    New outputs are named ``D{output}_{w}``, each of the output's shape.
    """
    if not (hasattr(model, "statements") and hasattr(model, "inputs")):
        raise RobmodError(f"derivative: model must be a customized model (CustomModel), got "
                          f"{type(model).__name__}")
    wrt = [sp.Symbol(str(w)) if not isinstance(w, sp.Symbol) else w
           for w in records(wrt, "wrt (the symbols to differentiate by)")]
    trig = {rhs: lhs for lhs, rhs in model.statements if isinstance(rhs, (sp.sin, sp.cos))}
    ctx = SymbolicContext()
    ctx.reserve(*(str(l) for l, _ in model.statements))
    ctx.reserve(*(str(s) for g in model.inputs.values() for s in g))
    # d[sym][w]: derivative of a statement symbol or input with respect to w
    d: dict = {}
    stmts = list(model.statements)

    def dexpr(expr, w):
        total = 0
        for y in expr.free_symbols:
            dy = w_of(y, w)
            if dy == 0:
                continue
            part = expr.diff(y)
            if trig:
                part = part.xreplace(trig)
            total = total + part * dy
        return total

    def w_of(y, w):
        if y == w:
            return 1
        return d.get(y, {}).get(w, 0)

    with distribute(False):
        for lhs, rhs in stmts:
            for w in wrt:
                dv = dexpr(rhs, w)
                if dv != 0:
                    if trig:
                        dv = dv.xreplace(trig)
                    d.setdefault(lhs, {})[w] = ctx.var(dv, f"D{lhs}_{w}")
        outs = []
        for o in model.outputs:
            for w in wrt:
                exprs = []
                names = []
                for n, e in zip(o.names, o.exprs):
                    dv = dexpr(e, w)
                    if dv != 0 and not is_trivial(sp.sympify(dv)):  # safe: robmod expressions
                        dv = ctx.var(dv, f"D{n}_{w}")
                    exprs.append(sp.sympify(dv))  # safe: robmod expressions
                    names.append(f"D{n}_{w}")
                outs.append(Output(f"D{o.name}_{w}", o.shape, tuple(names), tuple(exprs)))
    outputs = (tuple(model.outputs) if keep_outputs else ()) + tuple(outs)
    new = replace(model, name=f"{model.name}_d", statements=tuple(stmts) + tuple(ctx.statements),
                  outputs=outputs, title=f"{model.title} and its derivatives")
    return new.pruned()


__all__ = ["derivative"]
