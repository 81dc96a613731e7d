"""Customized symbolic models: ordered statements with inputs and outputs.

A :class:`CustomModel` is what the books print (Khalil & Dombre §3.4, Khalil & Dombre §7.5.2): a list
of statements ``name = expression`` in which every element that needs an
operation is a named intermediate variable, followed by the outputs.  It
carries its inputs (joint variables, velocities, accelerations, symbolic
parameters) and offers the customization passes:

* :meth:`CustomModel.pruned` — dead statements removed backward from the outputs;
* :meth:`CustomModel.substituted` — numeric values of parameters substituted;
  statements that become trivial (a number, a symbol) disappear and are
  propagated, so zero parameters remove whole statements;
* :meth:`CustomModel.constant_block` — statements that depend on parameters
  only (the books' ``*`` lines, evaluated off-line);
* :meth:`CustomModel.with_cse` — optional common sub-expression elimination,
  kept only if it does not increase the operation count;
* :meth:`CustomModel.count` — multiplications, additions and function calls;
* export: text, Python, C, Octave, LaTeX (:mod:`.export`), CasADi (:meth:`CustomModel.to_casadi`),
  JAX (:meth:`CustomModel.to_jax`) and PyTorch (:meth:`CustomModel.to_torch`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import sympy as sp
from sympy.core.parameters import distribute

from ..arguments import keyword_options
from ..errors import ArgumentError
from .context import SymbolicContext, is_trivial
from .count import OpCount, count_ops


@dataclass(frozen=True)
class Output:
    """One output of a model: a named array of expressions (usually statement symbols)."""

    name: str
    shape: tuple[int, ...]
    names: tuple[str, ...]
    exprs: tuple[sp.Expr, ...]
    #: compiled, the checked single call returns the slices along the first axis as a tuple
    #: of new arrays (several matrices of one model: no Python indexing per call)
    parts: bool = False

    @classmethod
    def matrix(cls, name: str, rows, element_names=None) -> "Output":
        rows = [list(r) for r in rows]
        shape = (len(rows), len(rows[0]))
        exprs = tuple(sp.sympify(x) for r in rows for x in r)  # safe: robmod expressions
        if element_names is None:
            element_names = tuple(f"{name}{i + 1}{k + 1}" for i in range(shape[0])
                                  for k in range(shape[1]))
        return cls(name, shape, tuple(element_names), exprs)

    @classmethod
    def vector(cls, name: str, values, element_names=None) -> "Output":
        exprs = tuple(sp.sympify(x) for x in values)  # safe: robmod expressions
        if element_names is None:
            element_names = tuple(f"{name}{i + 1}" for i in range(len(exprs)))
        return cls(name, (len(exprs),), tuple(element_names), exprs)


@dataclass(frozen=True)
class CustomModel:
    """A customized symbolic model (immutable)."""

    name: str
    inputs: Mapping[str, tuple[sp.Symbol, ...]]
    statements: tuple[tuple[sp.Symbol, sp.Expr], ...]
    outputs: tuple[Output, ...]
    title: str = ""
    robot: str = ""
    notes: tuple[str, ...] = ()

    # -- structure --------------------------------------------------------------------------
    @property
    def variable_inputs(self) -> tuple[sp.Symbol, ...]:
        """Inputs that change at run time (all groups but 'params')."""
        return tuple(s for g, syms in self.inputs.items() if g != "params" for s in syms)

    @property
    def parameters(self) -> tuple[sp.Symbol, ...]:
        return tuple(self.inputs.get("params", ()))

    def constant_symbols(self) -> set:
        """Statement symbols whose value depends on parameters only."""
        variable = set(self.variable_inputs)
        const = set()
        for lhs, rhs in self.statements:
            deps = rhs.free_symbols
            if not (deps & variable) and all(d in const or d not in self._defined for d in deps):
                const.add(lhs)
            else:
                variable.add(lhs)
        return const

    @property
    def _defined(self) -> set:
        return {lhs for lhs, _ in self.statements}

    def constant_block(self) -> tuple:
        const = self.constant_symbols()
        return tuple((l, r) for l, r in self.statements if l in const)

    def trig_block(self) -> tuple:
        return tuple((l, r) for l, r in self.statements if isinstance(r, (sp.sin, sp.cos)))

    # -- passes -----------------------------------------------------------------------------
    def pruned(self) -> "CustomModel":
        """Remove the statements no output depends on (backward from the outputs)."""
        live = set()
        for out in self.outputs:
            for e in out.exprs:
                live |= e.free_symbols
        kept = []
        for lhs, rhs in reversed(self.statements):
            if lhs in live:
                kept.append((lhs, rhs))
                live |= rhs.free_symbols
        return replace(self, statements=tuple(reversed(kept)))

    def substituted(self, values: Mapping) -> "CustomModel":
        """Substitute numeric values (``{symbol or name: value}``) and fold what becomes trivial."""
        subs = {}
        for k, v in values.items():
            key = k if isinstance(k, sp.Basic) else sp.Symbol(str(k))
            subs[key] = sp.sympify(v)  # safe: values are numbers or robmod expressions
        with distribute(False):
            stmts = []
            for lhs, rhs in self.statements:
                new = rhs.xreplace(subs) if subs else rhs
                if is_trivial(new):
                    subs[lhs] = new
                else:
                    stmts.append((lhs, new))
            outputs = tuple(replace(o, exprs=tuple(e.xreplace(subs) for e in o.exprs))
                            for o in self.outputs)
        inputs = dict(self.inputs)
        if "params" in inputs:
            inputs["params"] = tuple(p for p in inputs["params"] if p not in subs)
        return replace(self, statements=tuple(stmts), outputs=outputs,
                       inputs=inputs).pruned()

    def with_cse(self) -> "CustomModel":
        """Common sub-expression elimination over the statements; kept only if it saves operations."""
        const = self.constant_symbols()
        body = [(l, r) for l, r in self.statements if l not in const]
        head = [(l, r) for l, r in self.statements if l in const]
        taken = {str(s) for s in self._defined} | {str(s) for g in self.inputs.values()
                                                    for s in g}
        gen = (sp.Symbol(f"X{i}") for i in range(1, 10**9) if f"X{i}" not in taken)
        with distribute(False):
            repl, reduced = sp.cse([r for _, r in body], symbols=gen, optimizations=None,
                                   order="none")
        # each extracted sub-expression must come before its first use
        first_use = {}
        for i, r in enumerate(reduced):
            for s in r.free_symbols:
                first_use.setdefault(s, i)
        extra = {s: e for s, e in repl}
        new_body = []
        placed = set()

        def place(sym):
            # depth first, dependencies before use; a stack, not recursion (no depth limit)
            stack = [sym]
            while stack:
                top = stack[-1]
                if top in placed:
                    stack.pop()
                    continue
                dep = next((d for d in extra[top].free_symbols
                            if d in extra and d not in placed), None)
                if dep is not None:
                    stack.append(dep)
                    continue
                placed.add(top)
                new_body.append((top, extra[top]))
                stack.pop()

        for i, ((lhs, _), r) in enumerate(zip(body, reduced)):
            for s in sorted(r.free_symbols, key=str):
                if s in extra:
                    place(s)
            new_body.append((lhs, r))
        candidate = replace(self, statements=tuple(head + new_body))
        if candidate.count().total <= self.count().total:
            return candidate
        return self

    # -- counting ---------------------------------------------------------------------------
    def count(self, constants: bool = False) -> OpCount:
        """Operations of the on-line part (or, with ``constants=True``, of the constant block)."""
        const = self.constant_symbols()
        total = OpCount()
        for lhs, rhs in self.statements:
            if (lhs in const) == constants:
                total = total + count_ops(rhs)
        if not constants:
            for out in self.outputs:
                for e in out.exprs:
                    total = total + count_ops(e)
        return total

    # -- evaluation and export --------------------------------------------------------------
    def to_text(self, **kw) -> str:
        from .export import to_text

        return to_text(self, **kw)

    def to_python(self, **kw) -> str:
        from .export import to_python

        return to_python(self, **kw)

    def to_c(self, **kw):
        from .export import to_c

        return to_c(self, **kw)

    def to_octave(self, **kw) -> str:
        from .export import to_octave

        return to_octave(self, **kw)

    def to_latex(self, **kw) -> str:
        from .export import to_latex

        return to_latex(self, **kw)

    def to_casadi(self, *, name: str | None = None):
        """The model as a ``casadi.Function`` of one SX graph (``pip install
        'robmod[casadi]'``); see :mod:`robmod.symbolic.export_casadi`."""
        from .export_casadi import to_casadi

        return to_casadi(self, name=name)

    def to_jax(self, *, jit: bool = False):
        """The model as a pure JAX function (jit-able, vmap-able, differentiable; ``pip install
        'robmod[jax]'``); ``jit``: compiled with the CPU options of
        :mod:`robmod.symbolic.export_jax`."""
        from .export_jax import to_jax

        return to_jax(self, jit=jit)

    def to_torch(self, *, compile: bool = False):  # noqa: A002 - torch.compile's word
        """The model as a PyTorch function (batched, differentiable by autograd, float64 or
        float32, on the inputs' device; ``pip install 'robmod[torch]'``); ``compile``: wrapped
        in ``torch.compile``.  See :mod:`robmod.symbolic.export_torch`."""
        from .export_torch import to_torch

        return to_torch(self, compile=compile)

    def _repr_latex_(self):  # Jupyter
        return "$\\displaystyle " + self.to_latex(environment="aligned") + "$"

    def numpy_function(self) -> Callable:
        """A batched pure-NumPy callable built from the generated Python code."""
        from .export import python_function

        return python_function(self)

    def compile(self, **kw):
        """The compiled fast path (C through gcc, cached on disk; NumPy fallback)."""
        from .compile import compile_model

        return compile_model(self, **kw)

    def hash(self) -> str:
        import hashlib

        h = hashlib.sha256()
        h.update(self.name.encode())
        for g, syms in self.inputs.items():
            h.update(f"{g}:{','.join(map(str, syms))};".encode())
        for lhs, rhs in self.statements:
            h.update(f"{lhs}={sp.srepr(rhs)};".encode())
        for o in self.outputs:
            h.update(f"{o.name}{o.shape}{o.names}{[sp.srepr(e) for e in o.exprs]}".encode())
        return h.hexdigest()[:20]


@keyword_options()
def customize(name: str, algorithm: Callable, robot=None, *,
              inputs: Mapping[str, Sequence] | None = None, title: str = "",
              prune: bool = True, trig_names: bool = True) -> CustomModel:
    """Run ``algorithm(ctx)`` symbolically and return the customized model.

    ``algorithm`` returns a sequence of :class:`Output`.  ``inputs`` names the
    input groups (``q``, ``qd``, ``qdd``, ...); the robot's free parameters are
    added as the group ``params``.
    """
    if not isinstance(name, str) or not callable(algorithm):
        raise ArgumentError(f"customize(name, algorithm, ...): a name (str) and an algorithm "
                          f"(a function of a context), got {type(name).__name__}, "
                          f"{type(algorithm).__name__}")
    ctx = SymbolicContext(robot, trig_names=trig_names)
    groups = {k: tuple(v) for k, v in (inputs or {}).items()}
    for syms in groups.values():
        ctx.reserve(*syms)
    if robot is not None:
        ctx.reserve(*robot.symbols)
    with distribute(False):
        outputs = tuple(algorithm(ctx))
    used = set()
    for _, rhs in ctx.statements:
        used |= rhs.free_symbols
    for o in outputs:
        for e in o.exprs:
            used |= e.free_symbols
    defined = {lhs for lhs, _ in ctx.statements}
    declared = {s for g in groups.values() for s in g}
    params = sorted((s for s in used - defined - declared), key=str)
    groups["params"] = tuple(params)
    model = CustomModel(name=name, inputs=groups, statements=tuple(ctx.statements),
                        outputs=outputs, title=title, robot=getattr(robot, "name", ""))
    return model.pruned() if prune else model


__all__ = ["CustomModel", "Output", "customize"]
