"""The result of Paul's method: steps, text in the books' style, batched numeric evaluation.

The numeric evaluation is a customized model (:func:`robmod.symbolic.model.customize`):
the tree of branches is unrolled (one set of statements per node of the tree,
names suffixed by the branch path), and the outputs are, per branch, the joint
values, the residuals of the equations that were solved (to tell the valid
branches) and the singularity measures of the steps.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import sympy as sp

from ...errors import RobmodError
from ...symbolic.export import Names, Printer
from . import equations as E
from . import polys as P
from ..igm_result import IGMResult
from .check import robot_values
from .formulas import EPS, describe, solver_formula


@dataclass(frozen=True)
class IGMStep:
    """One step of the solution: which variable, from which equations, of which type."""

    variable: str                 # 'q1', 'q2 + q3', ...
    joints: tuple
    type: str                     # 'type 2', 'type 3', 'type 6', ...
    form: str                     # the equation form of Appendix 1
    equations: tuple              # (where, equation text)
    rule: str                     # how a two-unknown system was reduced ('' if none)
    derived: str                  # the derived equation (text) when rule is set
    coefficients: tuple           # (name, expression text)
    formula: str                  # value with eps = +-1
    branches: int
    singular: str = ""
    no_solution: str = ""


class IGMSolution:
    """Analytic IGM by Paul's method (build it with :func:`robmod.geometry.inverse.igm_model`)."""

    def __init__(self, system, steps):
        self.system = system
        self.robot = system.robot
        self.fixed = system.fixed
        self._steps = steps
        self.n_branches = int(np.prod([c.solver.branches for c in steps])) if steps else 1
        self._knames = {}
        for c in steps:
            for f in c.forms + _data_polys(c):
                self._collect_k(f)
        self.method = self._method()
        # the robot's joint numbers of q1..qn (differs for the chain of a tree)
        self.robot_joints = tuple(self.robot.joints)

    # ---- naming -------------------------------------------------------------------------------
    def _collect_k(self, p):
        g = self.system.g
        for x in sorted(P.gens_of(p)):
            if g.roles[x] == "K" and x not in self._knames:
                self._knames[x] = sp.Symbol(f"K{len(self._knames) + 1}")

    def _sym(self, gen):
        g = self.system.g
        return self._knames[gen] if g.roles[gen] == "K" else g.symbols[gen]

    def _number(self, c):
        c = Fraction(c)
        if c.denominator == 1:
            return sp.Integer(c.numerator)
        if not any(r == "p" for r in self.system.g.roles):
            return sp.Float(float(c), 15)
        return sp.Rational(c.numerator, c.denominator)

    def expr(self, p, sym=None):
        """SymPy expression of a polynomial (generators through ``sym``)."""
        sym = sym or self._sym
        return sp.Add(*[sp.Mul(self._number(c), *[sym(x) ** e for x, e in m])
                        for m, c in sorted(p.items())])

    def var_label(self, v) -> str:
        return " + ".join(f"q{j}" for j in v.joints)

    def _method(self) -> str:
        kinds = [all(self.system.equations[i].position for i in c.eqs) for c in self._steps]
        k = 0
        while k < len(kinds) and kinds[k]:
            k += 1
        text = "Paul's method"
        if 0 < k < len(kinds) and not any(kinds[k:]):
            pos = ", ".join(self.var_label(self.system.vars[c.var]) for c in self._steps[:k])
            text += (f", decoupled (Pieper): position ({pos}) from the position equations, "
                     f"then orientation")
        return text

    # ---- steps and text -----------------------------------------------------------------------
    @cached_property
    def steps(self) -> tuple:
        out = []
        pr = Printer("text", Names("text"))
        sysm = self.system
        for c in self._steps:
            v = sysm.vars[c.var]
            eqs = tuple((sysm.equations[i].where(sysm.n), f"{pr(self.expr(f))} = 0")
                        for i, f in zip(c.eqs, c.forms))
            rule = derived = ""
            if c.rule == "SQ":
                e = sysm.vars[c.eliminated]
                rule = (f"{c.label}: squaring and adding the two equations eliminates "
                        f"{self.var_label(e)} and leaves an equation in {self.var_label(v)}")
                derived = f"{pr(self.expr(c.derived['poly']))} = 0"
            elif c.rule == "ELIM":
                e = sysm.vars[c.eliminated]
                phi = self.expr({c.derived["phi"]: 1})
                rule = (f"common factor {pr(phi)} of {self.var_label(e)} eliminated "
                        f"(assumed non-zero)")
                derived = f"{pr(self.expr(c.derived['poly']))} = 0"
            f = solver_formula(c.solver, self.expr, EPS, name=lambda e, lab: sp.Symbol(lab),
                               clip=False)
            name = self._value_name(v)
            coeffs = tuple((k, pr(e)) for k, e in f["coeffs"].items())
            formula = f"{name} = {pr(f['value'])}" + ("  (eps = +1, -1)"
                                                       if c.solver.branches == 2 else "")
            sing = E.sing_text(c.solver) if c.extra.get("sing") is not None else ""
            nosol = ""
            if f["nosol"] is not None and not sp.sympify(f["nosol"][0]).is_number:  # safe: generated condition
                nosol = f"{pr(f['nosol'][0])} {f['nosol'][1]}"
            typ = c.label if c.rule != "SQ" else f"{c.label} (derived {_derived_type(c)})"
            out.append(IGMStep(self.var_label(v), v.joints, typ, describe(c.solver), eqs,
                               rule, derived, coeffs, formula, c.solver.branches, sing, nosol))
        return tuple(out)

    def _value_name(self, v) -> str:
        if v.kind == "prism":
            return f"q{v.joints[0]}"
        off = sp.sympify(v.offset)  # safe: description expression
        label = "th" + "".join(str(j) for j in v.joints)
        if off == 0 and len(v.joints) == 1:
            return f"q{v.joints[0]}"
        return label

    def joint_formulas(self) -> list:
        """Text: how each joint follows from the solved variables."""
        out = []
        solved = [self.system.vars[c.var] for c in self._steps]
        for j in self.system.joints:
            if j in self.fixed:
                out.append(f"q{j} given")
                continue
            v = self.system.var_of((j,))
            if v.kind == "prism":
                continue
            coefs = [(s_, k) for s_, k in self._combination(v, solved) if k]
            coefs.sort(key=lambda t: -t[1])
            terms = ""
            for s_, k in coefs:
                sign = "-" if k < 0 else "+"
                mag = "" if abs(k) == 1 else f"{abs(k)}*"
                terms += f" {sign} {mag}{self._value_name(s_)}"
            terms = terms[3:] if terms.startswith(" + ") else "-" + terms[3:]
            off = sp.sympify(self.robot.frame(j).theta)  # safe: description expression
            if off != 0:
                terms += f" - ({off})"
            if terms != f"q{j}":
                out.append(f"q{j} = {terms}")
        return out

    def _combination(self, v, solved):
        basis = solved + [self.system.var_of((j,)) for j in self.fixed]
        M = sp.Matrix([list(b.vector) for b in basis]).T
        sol, params = M.gauss_jordan_solve(sp.Matrix(list(v.vector)))
        sol = sol.subs({p: 0 for p in params})
        return [(b, int(k)) for b, k in zip(basis, sol)]

    def to_text(self) -> str:
        r = self.robot
        free = [j for j in self.system.joints if j not in self.fixed]
        lines = [f"Inverse geometric model of {r.name} by {self.method}",
                 f"Target U0 = 0T{self.system.n} = [[sx, nx, ax, Px], [sy, ny, ay, Py], "
                 f"[sz, nz, az, Pz]]; unknowns {', '.join(f'q{j}' for j in free)}"
                 + (f"; given {', '.join(f'q{j}' for j in self.fixed)}" if self.fixed else ""),
                 f"Number of solutions (branches): {self.n_branches}", ""]
        pr = Printer("text", Names("text"))
        if self._knames:
            lines.append("Known intermediate variables:")
            g = self.system.g
            for gen, s in self._knames.items():
                lines.append(f"  {s} = {pr(self.expr(g.definition[gen]))}")
            lines.append("")
        for k, st in enumerate(self.steps, 1):
            lines.append(f"{k}. {st.variable}: {st.type} ({st.form})")
            for where, eq in st.equations:
                lines.append(f"     {where}:  {eq}")
            if st.rule:
                lines.append(f"     {st.rule}:  {st.derived}")
            for name, e in st.coefficients:
                lines.append(f"     {name} = {e}")
            lines.append(f"     {st.formula}")
            if st.singular:
                lines.append(f"     singular (undetermined) if {st.singular}")
            if st.no_solution:
                lines.append(f"     no solution if {st.no_solution}")
        extra = self.joint_formulas()
        if extra:
            lines += ["", "Joint variables:"] + [f"  {x}" for x in extra]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        types = ", ".join(f"{s.variable}: {s.type}" for s in self.steps)
        return f"<IGMSolution {self.robot.name}: {self.n_branches} branches; {types}>"

    # ---- numeric model ------------------------------------------------------------------------
    @cached_property
    def model(self):
        """The customized model: inputs T (12 target elements) and qf (given joints)."""
        from .unroll import unroll

        return unroll(self)

    @cached_property
    def _function(self):
        return self.model.numpy_function()

    def use_compiled(self) -> str:
        """Evaluate with the compiled model (C through gcc when available); the backend."""
        from ..direct import dgm_model

        compiled = self.model.compile()
        self.__dict__["_function"] = compiled
        if self.full_task:  # the DGM check of evaluate() compiled as well
            self.__dict__["_dgm_function"] = dgm_model(self.robot).compile()
        return compiled.backend

    def _dgm(self, q, prm):
        f = self.__dict__.get("_dgm_function")
        if f is None:
            from ..direct import dgm

            return dgm(self._numeric_robot(prm), q)[..., :3, :]
        return f(q, params=prm if f.model.parameters else None)

    @cached_property
    def _scale(self) -> float:
        vals = robot_values(self.robot, self.model.parameters)
        total = 0.0
        for f in self.robot.frames:
            for x in (f.d, f.r, f.b):
                try:
                    total += abs(float(sp.sympify(x).xreplace(  # safe: description expr
                        {sp.Symbol(str(k)): v for k, v in vals.items()})))
                except TypeError:
                    pass
        return total

    @property
    def full_task(self) -> bool:
        """Six unknown joints: the IGM must reach the whole pose."""
        return len(self.system.joints) - len(self.fixed) == 6

    def _numeric_robot(self, prm):
        key = tuple(sorted(prm.items()))
        cache = self.__dict__.setdefault("_robots", {})
        if key not in cache:
            cache[key] = self.robot.numeric(prm) if prm else self.robot
        return cache[key]

    @cached_property
    def _default_params(self) -> dict:
        names = self.model.parameters
        return {str(k): v for k, v in robot_values(self.robot, names).items()}

    def params(self, params=None) -> dict:
        """Values of the model's parameters: ``params``, else the description's values; a
        parameter with neither is refused (never replaced by a made-up number)."""
        given = {str(k): float(v) for k, v in (params or {}).items()}
        known = {str(k) for k in self.robot.values}
        missing = [str(n) for n in self.model.parameters
                   if str(n) not in given and str(n) not in known]
        if missing:
            raise RobmodError(f"igm: {', '.join(missing)} {'has' if len(missing) == 1 else 'have'}"
                              f" no value in robot {self.robot.name!r}: give params="
                              f"{{{', '.join(repr(m) + ': ...' for m in missing)}}} or use "
                              "robot.numeric({...})")
        out = {k: v for k, v in self._default_params.items() if k in known}
        out.update(given)
        return out

    def evaluate(self, T, qfixed=None, params=None, tol=1e-9, sing_tol=1e-12) -> IGMResult:
        """All branches at targets T (..., 4, 4) or (..., 3, 4): an :class:`IGMResult` with
        ``singular`` and ``residual`` per branch.

        A branch is valid when its joint values are finite and the residuals of the
        equations solved (types 1, 2 and the pairs of types 4-8) are below
        ``tol * (1 + L + |P|)^2`` (L: sum of the robot's lengths); the type-3 steps
        (atan2 of two equations) are not checked, so that a robot with fewer than six
        joints gets the solution of what its task constrains.  With six unknown joints
        the DGM of the branch must also reproduce T (rotation to ``tol``, position to
        ``tol (1 + L + |P|)``).  A branch is singular when
        a step's singularity measure (e.g. X^2 + Y^2 of a type-2 equation), relative to
        its value at random configurations, is below ``sing_tol``.
        """
        T = np.asarray(T, dtype=float)
        if T.shape[-2:] not in ((4, 4), (3, 4)):
            raise RobmodError(f"T must have shape (..., 4, 4) or (..., 3, 4), got {T.shape}")
        batch = T.shape[:-2]
        t12 = np.ascontiguousarray(T[..., :3, :4].swapaxes(-1, -2).reshape(batch + (12,)))
        args = [t12]
        if self.fixed:
            if qfixed is None:
                raise RobmodError(f"give the values of {', '.join(f'q{j}' for j in self.fixed)}"
                                  " (qfixed)")
            qf = np.broadcast_to(np.asarray(qfixed, dtype=float).reshape(
                np.shape(qfixed)[:-1] + (len(self.fixed),) if np.ndim(qfixed) else
                (len(self.fixed),)), batch + (len(self.fixed),))
            args.append(np.ascontiguousarray(qf))
        with np.errstate(all="ignore"):
            prm = self.params(params)
            q, res, sing = self._function(*args, params=prm if self.model.parameters else None)
            scale = 1.0 + self._scale + np.linalg.norm(T[..., :3, 3], axis=-1)[..., None]
            resid = np.max(np.abs(res), axis=-1)
            finite = np.all(np.isfinite(q), axis=-1) & np.isfinite(resid)
            valid = finite & (resid <= tol * scale ** 2)
            if self.full_task:
                # six unknowns: the whole pose must be reached (a formula that is singular
                # where the robot is not would otherwise pass its own equations)
                Tq = self._dgm(np.where(np.isfinite(q), q, 0.0), prm)
                err_r = np.max(np.abs(Tq[..., :3, :3] - T[..., None, :3, :3]), axis=(-1, -2))
                err_p = np.max(np.abs(Tq[..., :3, 3] - T[..., None, :3, 3]), axis=-1)
                resid = np.maximum(resid, np.maximum(err_r, err_p / scale))
                valid &= (err_r <= tol) & (err_p <= tol * scale)
            singular = np.any(np.abs(sing) <= sing_tol, axis=-1)
        return IGMResult(q, valid, "paul", singular=singular & finite, residual=resid)

    def solve(self, T, qfixed=None, params=None, tol=1e-9) -> IGMResult:
        """:meth:`evaluate` with the default singularity tolerance; unpacks as ``q, valid``:
        q (..., n_branches, n_joints), valid (..., n_branches)."""
        return self.evaluate(T, qfixed, params, tol)


def _data_polys(c) -> tuple:
    out = []
    for v in c.solver.data.values():
        if isinstance(v, dict):
            out.append(v)
        elif isinstance(v, tuple):
            for row in v:
                out.extend(row)
    if c.derived:
        out.append(c.derived["poly"])
    return tuple(out)


def _derived_type(c) -> str:
    return {"type2": "type 2", "quad": "second degree in r", "type1": "type 1"}[c.solver.kind]


__all__ = ["IGMSolution", "IGMStep"]
