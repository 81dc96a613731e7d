"""Unroll the tree of branches of an IGM solution into one customized model.

Each node of the tree (a step solved on one branch path) gets its own
statements, named ``<name>_<path>`` (``th1_2`` is theta1 on the second
branch of step 1; ``K5_21`` the known coefficient K5 on path 2-1).  Known
coefficients and the sines and cosines of angles that are sums or
differences of solved ones are emitted where they are first needed and
shared by the subtree.
"""
from __future__ import annotations

import sympy as sp

from ...symbolic.model import Output, customize
from .formulas import solver_formula
from .system import TARGET


def unroll(sol):
    system, steps = sol.system, sol._steps
    g = system.g
    target = [sp.Symbol(s) for s in TARGET]
    fixed = {j: sp.Symbol(f"q{j}") for j in system.fixed}
    inputs = {"T": tuple(target)}
    if fixed:
        inputs["qf"] = tuple(fixed.values())
    solved = [system.vars[c.var] for c in steps]
    combos: dict = {}

    def combination(v):
        if v.id not in combos:
            combos[v.id] = sol._combination(v, solved)
        return combos[v.id]

    def algorithm(ctx):
        leaves = []

        def value(env, v, tag):
            """The value of variable v (angle theta or prismatic q) on this path."""
            if v.id in env["val"]:
                return env["val"][v.id]
            if v.kind == "prism":
                x = fixed[v.joints[0]]
            elif len(v.joints) == 1 and v.joints[0] in fixed:
                x = ctx.var(fixed[v.joints[0]] + v.offset, f"{v.name}_{tag}")
            else:
                terms = []
                for b, k in combination(v):
                    if k:
                        terms.append(k * value(env, b, tag))
                x = ctx.var(sp.Add(*terms), f"{v.name}_{tag}")
            _set(env, v, x, tag)
            return x

        def _set(env, v, x, tag):
            env["val"][v.id] = x
            if v.kind == "angle":
                tv = v.name[2:]
                env["gen"][v.gens[0]] = ctx.var(sp.sin(x), f"S{tv}_{tag}")
                env["gen"][v.gens[1]] = ctx.var(sp.cos(x), f"C{tv}_{tag}")
            else:
                env["gen"][v.gens[0]] = x

        def ensure(env, x, tag):
            if x in env["gen"]:
                return env["gen"][x]
            role = g.roles[x]
            if role in ("T", "p"):
                return g.symbols[x]
            if role == "K":
                e = ctx.var(sol.expr(g.definition[x], lambda y: ensure(env, y, tag)),
                            f"{sol._knames.get(x, g.symbols[x])}_{tag}")
                env["gen"][x] = e
                return e
            value(env, system.vars[g.owner[x]], tag)
            return env["gen"][x]

        def node(k, path, env):
            if k == len(steps):
                leaves.append((path, env))
                return
            c = steps[k]
            v = system.vars[c.var]
            tag = "".join(str(b + 1) for b in path) or "0"
            memo = {}

            def ev(p):
                return sol.expr(p, lambda y: ensure(env, y, tag))

            vtag = v.name[2:] if v.kind == "angle" else v.name

            def name(e, label):
                if label not in memo:
                    memo[label] = ctx.var(e, f"{label}{vtag}_{tag}")
                return memo[label]

            sp_ = c.extra.get("sing")
            sing = sp.Integer(1) if sp_ is None else ctx.var(
                ev(sp_) / sp.Float(c.extra["sing_typ"], 17), f"sing{k + 1}_{tag}")
            for b in range(c.solver.branches):
                f = solver_formula(c.solver, ev, 1 if b == 0 else -1, name)
                sub = {"gen": dict(env["gen"]), "val": dict(env["val"]),
                       "sing": env["sing"] + [sing]}
                x = ctx.var(f["value"], f"{v.name}_{tag}{b + 1}")
                _set(sub, v, x, f"{tag}{b + 1}")
                node(k + 1, path + (b,), sub)

        node(0, (), {"gen": {}, "val": {}, "sing": []})
        q_rows, res_rows, sing_rows = [], [], []
        for path, env in leaves:
            tag = "".join(str(b + 1) for b in path) or "0"
            row = []
            for j in system.joints:
                if j in fixed:
                    row.append(fixed[j])
                    continue
                v = system.var_of((j,))
                x = value(env, v, tag)
                row.append(x - v.offset if v.kind == "angle" else x)
            q_rows.append(row)
            res = []
            for c in steps:
                for form in c.check:
                    res.append(ctx.var(sol.expr(form, lambda y: ensure(env, y, tag)),
                                       f"res_{tag}"))
            res_rows.append(res or [sp.Integer(0)])
            sing_rows.append(env["sing"] or [sp.Integer(1)])
        return [Output.matrix("q", q_rows), Output.matrix("res", res_rows),
                Output.matrix("sing", sing_rows)]

    return customize(f"{sol.robot.name}_igm", algorithm, sol.robot, inputs=inputs,
                     title=f"Inverse geometric model of {sol.robot.name} ({sol.method}), "
                           f"{sol.n_branches} branches")


__all__ = []
