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

How the graph is built: by default in C++, by a small extension module compiled once per
machine against the ``casadi`` wheel's own headers and library (:mod:`.casadi_graph`) that
reads the statements' SymPy expressions and makes each node with the function through which
``SX.binary``/``SX.unary`` make theirs -- about a tenth of a microsecond per node, the Panda's
IDM derivatives (8,500 values) in 3-5 ms, less than CasADi's own ``jacobian`` of the exported
IDM takes.  Where it cannot be built (no C++ compiler, no headers, ``set_backend("numpy")``)
the same graph is built in Python (:class:`_Program`: one walk over the expressions, then one
vectorized SX operation per level of the graph and operation code), 3-5 times slower, after one
warning saying why.  Both give the same graph, node for node (tests/test_export_casadi_compiled.py).
"""
from __future__ import annotations

import gc
import math

import sympy as sp
from mpmath.libmp import round_nearest as _round_nearest, to_float as _to_float

from ..arguments import keyword_options, model_argument
from ..errors import ArgumentError, RobmodError
from .casadi_graph import graph_builder
from .fastpath import backend

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


def _functions(ca) -> dict:
    """SymPy's functions that the export makes as CasADi's operations: type -> code."""
    return {f: op for f, op in (
        (sp.sin, ca.OP_SIN), (sp.cos, ca.OP_COS), (sp.tan, ca.OP_TAN), (sp.exp, ca.OP_EXP),
        (sp.sign, ca.OP_SIGN), (sp.Abs, ca.OP_FABS), (sp.asin, ca.OP_ASIN),
        (sp.acos, ca.OP_ACOS), (sp.atan, ca.OP_ATAN), (sp.tanh, ca.OP_TANH))}


def _float(c) -> float:
    """float(c) of a SymPy number: a Float's binary value rounded to the nearest double as
    SymPy's float() does, without its normalization at every call (30 times faster)."""
    mpf = getattr(c, "_mpf_", None)
    if mpf is not None:
        return _to_float(mpf, rnd=_round_nearest)
    if c.is_Rational:
        return c.p / c.q if c.q != 1 else float(c.p)
    return float(c)


class _Program:
    """A model's statements as element-wise operations on numbered values (three-address
    code), read in one lean walk over the SymPy expressions' own structure (no SymPy
    comparison, no new SymPy expression, each node read once): a sum of k terms is k - 1
    additions and subtractions (a term with a negative coefficient is subtracted), a product of
    k factors k - 1 multiplications and divisions (a negative integer power divides), ``x**2``
    one multiplication.  The values are the inputs, the constants and the operations' results,
    numbered as met; each operation is filed under its level (1 + its operands' highest, the
    inputs' and constants' being 0) and CasADi's operation code, as the key
    ``level * CODES + code`` of ``ops``: (first operands, second operands or -1, values)."""

    CODES = 256         # above CasADi's operation codes

    def __init__(self, ca, model, inputs):
        self.ca = ca
        self.n_inputs = len(inputs)
        self.level: list = [0] * self.n_inputs  # value -> level
        self.ops: dict = {}                     # level * CODES + code -> (first operands,
        self.numbers: dict = {}                 # second operands or -1, values); float -> value
        self.signed: dict = {}                  # id(SymPy number) -> (negative, value or -1)
        self.keep: list = []                    # the SymPy numbers of ``signed``, kept alive
        self.funcs = _functions(ca)
        self.unary = {ca.OP_NEG, ca.OP_SQRT, *self.funcs.values()}
        self.constants = {sp.pi: float(sp.pi), sp.E: float(sp.E)}
        self.env = dict(inputs)                 # symbol -> value
        self.ids = {id(s): k for s, k in inputs.items()}    # id(symbol) -> value, the same
        self._walk(model)

    def _walk(self, model):
        """The statements and outputs read into ``level`` and ``ops``.  The hot paths (a sum of
        products of symbols and numbers) are written out with local names: one dictionary
        look-up per symbol, by the object's id first (a symbol met again is the same object;
        an equal one made apart is found by value)."""
        ca, ids, env, level, ops = self.ca, self.ids, self.env, self.level, self.ops
        l_app, ops_get, CODES = level.append, ops.get, self.CODES
        MUL, ADD, SUB, NEG = ca.OP_MUL, ca.OP_ADD, ca.OP_SUB, ca.OP_NEG
        Mul, Pow = sp.Mul, sp.Pow
        coefficient, number, value = self.coefficient, self.number, self.value

        def product(t):
            """(negative, value of |t|) of a product, whose numeric coefficient (SymPy keeps
            it first) may be negative."""
            factors, neg, out, den = t._args, False, -1, None
            for f in factors:
                x = ids.get(id(f))
                if x is None:
                    if f.is_Number and out < 0 and f is factors[0]:
                        neg, out = coefficient(f)
                        continue
                    if type(f) is Pow and f.exp.is_Integer and f.exp.p < 0:
                        den = [f] if den is None else den + [f]
                        continue
                    x = value(f)
                if out < 0:
                    out = x
                else:
                    la, lb = level[out], level[x]
                    lv = (la if la > lb else lb) + 1
                    k = len(level)
                    l_app(lv)
                    g = ops_get(lv * CODES + MUL)
                    if g is None:
                        g = ops[lv * CODES + MUL] = ([], [], [])
                    g[0].append(out)
                    g[1].append(x)
                    g[2].append(k)
                    out = k
            if out < 0:
                out = number(1.0)
            if den is not None:
                for f in den:
                    out = self.op(ca.OP_DIV, out, self._pow(f.base, -f.exp))
            return neg, out

        def add(e):
            out = -1
            for t in e._args:
                x = ids.get(id(t))
                neg = False
                if x is None:
                    if type(t) is Mul:
                        neg, x = product(t)
                    elif t.is_Number:
                        neg, x = coefficient(t)
                        if x < 0:
                            x = number(1.0)
                    else:
                        x = value(t)
                if out < 0:
                    out = self.op(NEG, x) if neg else x
                else:
                    la, lb = level[out], level[x]
                    lv = (la if la > lb else lb) + 1
                    k = len(level)
                    l_app(lv)
                    key = lv * CODES + (SUB if neg else ADD)
                    g = ops_get(key)
                    if g is None:
                        g = ops[key] = ([], [], [])
                    g[0].append(out)
                    g[1].append(x)
                    g[2].append(k)
                    out = k
            return out

        self._product, self._add = product, add
        Add = sp.Add
        for lhs, rhs in model.statements:
            x = add(rhs) if type(rhs) is Add else value(rhs)
            ids[id(lhs)] = env[lhs] = x
        self.outputs = [[value(e) for e in o.exprs] for o in model.outputs]

    def op(self, code, a, b=-1):
        """A new value: the operation ``code`` of the values a (and b)."""
        lv = self.level
        level = lv[a]
        if b >= 0 and lv[b] > level:
            level = lv[b]
        level += 1
        k = len(lv)
        lv.append(level)
        key = level * self.CODES + code
        group = self.ops.get(key)
        if group is None:
            group = self.ops[key] = ([], [], [])
        group[0].append(a)
        group[1].append(b)
        group[2].append(k)
        return k

    def number(self, v: float) -> int:
        """The constant v (one value per number)."""
        k = self.numbers.get(v)
        if k is None:
            k = self.numbers[v] = len(self.level)
            self.level.append(0)
        return k

    def coefficient(self, c):
        """(negative, |c| as a value or -1 for 1) of a SymPy number, converted once per
        object (SymPy's float() of a Float costs more than the operation)."""
        out = self.signed.get(id(c))
        if out is None:
            v = _float(c)
            out = self.signed[id(c)] = (v < 0, -1 if abs(v) == 1.0 else self.number(abs(v)))
            self.keep.append(c)
        return out

    def value(self, e) -> int:
        """The value of the expression e (new operations for what it computes)."""
        x = self.ids.get(id(e))
        if x is not None:
            return x
        if e.is_Symbol:
            return self._symbol(e)
        if e.is_Add:
            return self._add(e)
        if e.is_Mul:
            neg, x = self._product(e)
            return self.op(self.ca.OP_NEG, x) if neg else x
        if e.is_Number:
            neg, x = self.coefficient(e)
            x = self.number(1.0) if x < 0 else x
            return self.op(self.ca.OP_NEG, x) if neg else x
        if e.is_Pow:
            return self._pow(e.base, e.exp)
        if e is sp.pi or e is sp.E:
            return self.number(self.constants[e])
        if isinstance(e, sp.atan2):
            return self.op(self.ca.OP_ATAN2, self.value(e.args[0]), self.value(e.args[1]))
        code = self.funcs.get(type(e))
        if code is None:
            raise RobmodError(f"to_casadi: function {type(e).__name__} cannot be exported")
        return self.op(code, self.value(e.args[0]))

    def _symbol(self, e) -> int:
        try:
            return self.env[e]
        except KeyError:
            raise RobmodError(f"to_casadi: symbol {e} is neither an input nor a statement "
                              "of the model") from None

    def _pow(self, base, exp):
        if exp.is_Integer and exp.p > 0:
            b = self.value(base)
            out = b
            for _ in range(exp.p - 1):
                out = self.op(self.ca.OP_MUL, out, b)
            return out
        if exp.is_Integer and exp.p < 0:
            return self.op(self.ca.OP_DIV, self.number(1.0), self._pow(base, -exp))
        if exp is sp.S.Half:
            return self.op(self.ca.OP_SQRT, self.value(base))
        return self.op(self.ca.OP_POW, self.value(base), self.value(exp))

    def build(self, args):
        """SX vectors of the output values.  The operations of one level and one code are made
        by one element-wise SX operation on the vectors of their operands, which CasADi turns
        into the same nodes as one scalar operation each, in C++: a few calls through the
        Python bindings per level instead of one per node (each costs as much as the node).
        Value k is element ``pos[k]`` of one SX vector: the inputs, the constants, then the
        operations by level and code."""
        ca = self.ca
        n, n_in = len(self.level), self.n_inputs
        store = ca.SX.zeros(n)
        get, put, Slice = store.get_nz, store.set_nz, ca.Slice
        pos = list(range(n_in)) + [0] * (n - n_in)
        if n_in:
            put(ca.vertcat(*args), False, Slice(0, n_in))
        p = n_in
        if self.numbers:
            for k in self.numbers.values():
                pos[k] = p
                p += 1
            put(ca.SX(ca.DM(list(self.numbers))), False, Slice(n_in, p))
        binary, unary, unary_codes = ca.SX.binary, ca.SX.unary, self.unary
        levels: dict = {}
        for key in sorted(self.ops):
            levels.setdefault(key // self.CODES, []).append(key)
        for keys in levels.values():
            # every operand of the level in one vector (the second operands in another)
            groups = [(key % self.CODES, *self.ops[key]) for key in keys]
            xa = get(False, [pos[a] for _, firsts, _, _ in groups for a in firsts])
            seconds = [pos[b] for c, _, sec, _ in groups if c not in unary_codes for b in sec]
            xb = get(False, seconds) if seconds else None
            ia = ib = 0
            for c, _, _, values in groups:
                m = len(values)
                x = xa if len(groups) == 1 else xa.get_nz(False, Slice(ia, ia + m))
                ia += m
                if c in unary_codes:
                    part = unary(c, x)
                else:
                    y = xb if len(seconds) == m else xb.get_nz(False, Slice(ib, ib + m))
                    ib += m
                    part = binary(c, x, y)
                put(part, False, Slice(p, p + m))
                for k in values:
                    pos[k] = p
                    p += 1
        return [get(False, [pos[k] for k in values]) for values in self.outputs]


@keyword_options()
def to_casadi(model, *, name: str | None = None):
    """The model as a ``casadi.Function`` (see the module's docstring) named ``name`` (default:
    the model's name)."""
    model_argument(model, "to_casadi")
    if name is not None and not (isinstance(name, str) and name.isidentifier()):
        raise ArgumentError(f"to_casadi: name must be an identifier (str), got {name!r}")
    ca = _casadi()
    inputs, args, arg_names = {}, [], []
    for g in _groups(model):
        syms = model.inputs[g]
        for s in syms:
            inputs[s] = len(inputs)
        args.append(ca.SX.sym(g, len(syms)))
        arg_names.append(g)
    values = _compiled_values(ca, model, inputs, args)
    if values is None:
        values = _python_values(ca, model, inputs, args)
    outs, out_names = [], []
    for o, v in zip(model.outputs, values):
        rows, cols = _out_shape(o.shape)
        outs.append(ca.reshape(v, cols, rows).T)      # row-major values
        out_names.append(o.name)
    return ca.Function(name or _ident(model.name), args, outs, arg_names, out_names)


def _python_values(ca, model, inputs, args):
    """The outputs' SX vectors built in Python (:class:`_Program`)."""
    enabled = gc.isenabled()
    gc.disable()        # many short-lived objects: no full collection of a large heap meanwhile
    try:
        return _Program(ca, model, inputs).build(args)
    finally:
        if enabled:
            gc.enable()


def _compiled_values(ca, model, inputs, args):
    """The outputs' SX vectors made by the compiled builder (:mod:`.casadi_graph`), or None
    (``set_backend("numpy")``: no compiled code; no builder: it warned; or a case that the
    Python walk decides)."""
    if backend() == "numpy":
        return None
    builder = graph_builder(ca)
    if builder is None:
        return None
    outs = [ca.SX.zeros(len(o.exprs)) for o in model.outputs]
    made = builder.build(tuple(model.statements), [tuple(o.exprs) for o in model.outputs],
                         inputs, [int(a.this) for a in args], [int(o.this) for o in outs],
                         (sp.Add, sp.Mul, sp.Pow, sp.atan2, sp.pi, sp.E, sp.S.Half),
                         _functions(ca), _float, float(sp.pi), float(sp.E))
    return None if made is None else outs


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
