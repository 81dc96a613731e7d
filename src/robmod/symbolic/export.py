"""Export of customized models: text (SYMORO's style), Python/NumPy, C, Octave/MATLAB, LaTeX.

One small expression printer serves every language; symbol names are mapped to
safe identifiers of the target language (a parameter called ``lambda`` or
``out`` cannot break the generated code).
"""
from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

import sympy as sp

from ..errors import RobmodError
from ..version import __version__
from .schedule import schedule

_FUNCS = {
    "python": {"sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "asin": "np.arcsin",
               "acos": "np.arccos", "atan": "np.arctan", "atan2": "np.arctan2",
               "sqrt": "np.sqrt", "exp": "np.exp", "Abs": "np.abs", "sign": "np.sign",
               "tanh": "np.tanh"},
    "c": {"sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
          "atan": "atan", "atan2": "atan2", "sqrt": "sqrt", "exp": "exp", "Abs": "fabs",
          "sign": "rm_sign", "tanh": "tanh"},
    "octave": {"sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
               "atan": "atan", "atan2": "atan2", "sqrt": "sqrt", "exp": "exp", "Abs": "abs",
               "sign": "sign", "tanh": "tanh"},
    "text": {"sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
             "atan": "atan", "atan2": "atan2", "sqrt": "sqrt", "exp": "exp", "Abs": "abs",
             "sign": "sign", "tanh": "tanh"},
}
_PI = {"python": "np.pi", "c": "M_PI", "octave": "pi", "text": "pi"}
_RESERVED = {
    "python": set(keyword.kwlist) | {"np", "out", "batch", "shape", "params", "math", "q",
                                     "qd", "qdd", "inputs"},
    "c": {"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
          "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
          "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
          "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "out", "in",
          "n", "i", "M_PI", "sin", "cos", "tan", "sqrt", "exp", "fabs", "atan2", "rm_sign",
          "params", "q", "qd", "qdd"},
    "octave": {"pi", "end", "function", "if", "else", "for", "while", "out", "sin", "cos",
               "params", "q", "qd", "qdd", "i", "j", "e", "Inf", "NaN", "eps"},
    "text": set(),
}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Names:
    """Maps SymPy symbols to identifiers of a language."""

    def __init__(self, lang: str):
        self.lang = lang
        self.map: dict = {}
        self.used: set = set()

    def __call__(self, sym) -> str:
        if sym in self.map:
            return self.map[sym]
        name = str(sym)
        if self.lang != "text":
            if not _IDENT.match(name) or name in _RESERVED[self.lang] or name.startswith("rm_"):
                name = "v_" + re.sub(r"[^A-Za-z0-9_]", "_", name)
            base, k = name, 1
            while name in self.used:
                k += 1
                name = f"{base}_{k}"
        self.used.add(name)
        self.map[sym] = name
        return name


@dataclass
class Printer:
    lang: str
    names: Names

    def num(self, e) -> str:
        if e.is_Integer:
            v = int(e)
            return f"{v}.0" if self.lang == "c" else str(v)
        if e.is_Rational:
            if self.lang == "c":
                return f"({e.p}.0/{e.q}.0)"
            return f"({e.p}/{e.q})"
        if e.is_Float:
            return repr(float(e))
        if e == sp.pi:
            return _PI[self.lang]
        if e is sp.E:
            return {"python": "np.e", "c": "M_E", "octave": "e", "text": "E"}[self.lang]
        return repr(float(e))

    def __call__(self, e) -> str:
        return self.p(e, 0)

    # precedence: 0 sum, 1 product, 2 power/atom
    def p(self, e, prec) -> str:
        if e.is_Symbol:
            return self.names(e)
        if e.is_Number or e in (sp.pi, sp.E):
            s = self.num(e)
            if s.startswith("-") and prec > 0:
                return f"({s})"
            return s
        if e.is_Add:
            terms = list(e.args)
            # positive terms first, as the books write them
            terms.sort(key=lambda t: _is_negative(t))
            out = ""
            for k, t in enumerate(terms):
                neg = _is_negative(t)
                body = self.p(-t if neg else t, 1) if neg else self.p(t, 1)
                if k == 0:
                    out = f"-{body}" if neg else body
                else:
                    out += f" - {body}" if neg else f" + {body}"
            return f"({out})" if prec > 0 else out
        if e.is_Mul:
            coef, factors = e.as_coeff_mul()
            if coef < 0:
                inner = self.p(sp.Mul(-coef, *factors, evaluate=False) if coef != -1 else
                               sp.Mul(*factors, evaluate=False), 1)
                s = f"-{inner}"
                return f"({s})" if prec > 0 else s
            num, den = [], []
            if coef != 1:
                if coef.is_Rational and not coef.is_Integer:
                    num.append(self.num(sp.Integer(coef.p)))
                    den.append(self.num(sp.Integer(coef.q)))
                else:
                    num.append(self.num(coef))
            for f in factors:
                if f.is_Pow and f.exp.is_Integer and f.exp < 0:
                    den.append(self.p(sp.Pow(f.base, -f.exp, evaluate=False)
                                      if f.exp != -1 else f.base, 2))
                else:
                    num.append(self.p(f, 2))
            mul = ".*" if self.lang == "octave" else "*"
            div = "./" if self.lang == "octave" else "/"
            s = mul.join(num) if num else ("1" if self.lang != "c" else "1.0")
            for d in den:
                s += f"{div}{d}"
            return f"({s})" if prec > 1 else s
        if e.is_Pow:
            base, exp = e.base, e.exp
            if exp.is_Integer and 0 < exp <= 4:
                b = self.p(base, 2)
                mul = ".*" if self.lang == "octave" else "*"
                s = mul.join([b] * int(exp))
                return f"({s})" if int(exp) > 1 else s
            if exp.is_Integer and exp < 0:
                one = "1.0" if self.lang == "c" else "1"
                div = "./" if self.lang == "octave" else "/"
                return f"({one}{div}{self.p(sp.Pow(base, -exp, evaluate=False), 2)})"
            if exp == sp.Rational(1, 2):
                return f"{_FUNCS[self.lang]['sqrt']}({self.p(base, 0)})"
            if self.lang == "c":
                return f"pow({self.p(base, 0)}, {self.p(exp, 0)})"
            op = {"python": "**", "octave": ".^", "text": "**"}[self.lang]
            return f"({self.p(base, 2)}{op}{self.p(exp, 2)})"
        if isinstance(e, sp.Function):
            name = type(e).__name__
            fn = _FUNCS[self.lang].get(name)
            if fn is None:
                raise RobmodError(f"function {name} cannot be exported to {self.lang}")
            return f"{fn}({', '.join(self.p(a, 0) for a in e.args)})"
        raise RobmodError(f"cannot export expression {e!r}")


def _is_negative(t) -> bool:
    if t.is_Number:
        return bool(t < 0)
    if t.is_Mul:
        c, _ = t.as_coeff_mul()
        return bool(c < 0)
    return False


def _header_lines(model) -> list[str]:
    out = [model.title or model.name]
    if model.robot:
        out.append(f"robot: {model.robot}")
    out.append(f"generated by robmod {__version__}")
    for g, syms in model.inputs.items():
        if syms:
            out.append(f"input {g}: {', '.join(map(str, syms))}")
    for o in model.outputs:
        out.append(f"output {o.name}: shape {o.shape}")
    return out


def _output_assignments(model):
    """(output name, expression) that are not already a statement of that name."""
    for o in model.outputs:
        for n, e in zip(o.names, o.exprs):
            if not (e.is_Symbol and str(e) == n):
                yield n, e


# ----------------------------------------------------------------------------- text
def to_text(model, cse: bool = False) -> str:
    """The model as the books print it, with SYMORO's 'Number of operations' footer."""
    pr = Printer("text", Names("text"))
    const = model.constant_symbols()
    lines = [f"(* {h} *)" for h in _header_lines(model)]
    lines.append("(* lines starting with * are constant: evaluate them off-line *)"
                 if const else "")
    lines.append("")
    for lhs, rhs in model.statements:
        star = "*" if lhs in const else ""
        lines.append(f"{star}{lhs} = {pr(rhs)}")
    for n, e in _output_assignments(model):
        lines.append(f"{n} = {pr(e)}")
    c = model.count()
    lines.append("")
    lines.append(f"(* Number of operations: {c.mults} '*' or '/', {c.adds} '+' or '-'"
                 f"{f', {c.funcs} function calls' if c.funcs else ''} *)")
    if const:
        k = model.count(constants=True)
        lines.append(f"(* Constant block (off-line): {k.mults} '*' or '/', {k.adds} '+' or '-'"
                     f"{f', {k.funcs} function calls' if k.funcs else ''} *)")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- python
def to_python(model, function_name: str | None = None) -> str:
    """A batched NumPy function ``f(q, qd, ..., params=None)``.

    Each input group is an array of shape (..., len(group)); ``params`` a
    mapping name -> value (scalar or array broadcastable to the batch).
    Returns one array of shape (..., *output.shape) per output (a tuple when
    there are several).
    """
    names = Names("python")
    pr = Printer("python", names)
    fname = function_name or _c_ident(model.name)
    groups = [g for g in model.inputs if g != "params" and model.inputs[g]]
    args = ", ".join(groups + ["params=None"])
    lines = ["# " + h for h in _header_lines(model)]
    lines += ["import numpy as np", "", "", f"def {fname}({args}):"]
    lines.append(f'    """{model.title or model.name} (generated by robmod)."""')
    batch_src = None
    for g in groups:
        lines.append(f"    {g} = np.asarray({g}, dtype=float)")
        if batch_src is None:
            batch_src = g
        for k, s in enumerate(model.inputs[g]):
            lines.append(f"    {names(s)} = {g}[..., {k}]")
    if model.parameters:
        lines.append("    params = params or {}")
        for s in model.parameters:
            lines.append(f"    {names(s)} = params[{str(s)!r}]")
    lines.append(f"    batch = {batch_src}.shape[:-1]" if batch_src else "    batch = ()")
    for lhs, rhs in model.statements:
        lines.append(f"    {names(lhs)} = {pr(rhs)}")
    results = []
    for k, o in enumerate(model.outputs):
        var = f"out{k}"
        lines.append(f"    {var} = np.empty(batch + {tuple(o.shape)!r})")
        flat_index = _indices(o.shape)
        for idx, e in zip(flat_index, o.exprs):
            lines.append(f"    {var}[..., {', '.join(map(str, idx))}] = {pr(e)}")
        results.append(var)
    lines.append(f"    return {results[0] if len(results) == 1 else '(' + ', '.join(results) + ',)'}")
    return "\n".join(lines) + "\n"


def _indices(shape):
    """The index tuples of an array of ``shape`` in row-major order."""
    import itertools

    return list(itertools.product(*(range(s) for s in shape)))


def python_function(model):
    """Compile the generated Python source of ``model`` into a callable."""
    src = to_python(model, "model_function")
    namespace: dict = {}
    import numpy as np

    namespace["np"] = np
    # safe: the source is generated by robmod from a model whose identifiers are sanitized
    code = compile(src, f"<robmod {model.name}>", "exec")
    exec(code, namespace)  # noqa: S102  # safe: generated code, see above
    fn = namespace["model_function"]
    fn.source = src
    return fn


# ----------------------------------------------------------------------------- C
def _c_ident(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return s if re.match(r"^[A-Za-z_]", s) else "m_" + s


def c_layout(model):
    """Input groups in argument order, and output sizes."""
    groups = [g for g in model.inputs if model.inputs[g]]
    sizes = [int(__import__("math").prod(o.shape)) for o in model.outputs]
    return groups, sizes


def c_input_lines(model, names) -> list[str]:
    """``const double q1 = v_q[0];`` ... for every input group (C body of a model function)."""
    lines = []
    for g in c_layout(model)[0]:
        gname = names(sp.Symbol(g))
        for k, s in enumerate(model.inputs[g]):
            lines.append(f"    const double {names(s)} = {gname}[{k}];")
    return lines


def c_function_body(model, names, pr, replaced=None, *, inputs=True, skip=frozenset(),
                    out=lambda k: f"out[{k}]", indent="    ") -> list[str]:
    """The C lines of a model function: inputs, then statements and ``out[k] = ...`` in the
    order of :func:`.schedule.schedule`.  ``replaced``:
    {statement symbol: C expression} used instead of the statement's right-hand side;
    ``inputs=False``: no input lines (the caller declares them); ``skip``: statements the
    caller computes elsewhere; ``out(k)``: the C lvalue of output value k."""
    replaced = replaced or {}
    body = [indent + line.lstrip() for line in c_input_lines(model, names)] if inputs else []
    for kind, lhs, rhs in schedule(model, skip):    # each value just before its first use
        if kind == "statement":
            body.append(f"{indent}const double {names(lhs)} = {replaced.get(lhs) or pr(rhs)};")
        else:
            body.append(f"{indent}{out(lhs)} = {pr(rhs)};")
    return body


#: the lines the C source of every model starts with (once in a unit of several models)
C_PREAMBLE = "\n".join(["#include <math.h>", "#ifndef M_PI",
                        "#define M_PI 3.14159265358979323846", "#endif",
                        "static inline double rm_sign(double x) { return (x > 0) - (x < 0); }"])


def to_c(model, function_name: str | None = None, *, preamble: bool = True) -> tuple[str, str]:
    """(source, header): ``void NAME(const double *q, ..., double *out)`` and a batched loop.

    Inputs are one pointer per input group (``params`` last, never batched);
    outputs are written row-major one after the other into ``out``.
    ``NAME_batch(long n, ...)`` evaluates n configurations stored one after the other.
    ``preamble=False``: without the lines every such source shares (``math.h``, ``M_PI``,
    ``rm_sign``: :data:`C_PREAMBLE`), for a translation unit of several models.
    """
    names = Names("c")
    pr = Printer("c", names)
    fname = function_name or _c_ident(model.name)
    groups, sizes = c_layout(model)
    total = sum(sizes)
    params = [f"const double *{names(sp.Symbol(g))}" for g in groups]
    sig = f"void {fname}({', '.join(params + ['double *out'])})"
    bsig = (f"void {fname}_batch(long n, {', '.join(params + ['double *out'])})")
    guard = f"ROBMOD_{fname.upper()}_H"
    header = "\n".join([f"/* {h} */" for h in _header_lines(model)] + [
        f"#ifndef {guard}", f"#define {guard}", f"#define {fname.upper()}_NOUT {total}",
        f"{sig};", f"{bsig};", "#endif", ""])
    body = ([C_PREAMBLE] if preamble else []) + [f'/* {model.title or model.name} */', "",
                                                 f"{sig}", "{"]
    body += c_function_body(model, names, pr)
    body.append("}")
    body += ["", bsig, "{", "    long i;", "    for (i = 0; i < n; i++) {"]
    call = []
    for g in groups:
        gname = names(sp.Symbol(g))
        if g == "params":
            call.append(gname)
        else:
            call.append(f"{gname} + i*{len(model.inputs[g])}")
    call.append(f"out + i*{total}")
    body.append(f"        {fname}({', '.join(call)});")
    body += ["    }", "}", ""]
    return "\n".join(body), header


# ----------------------------------------------------------------------------- Octave
def to_octave(model, function_name: str | None = None) -> str:
    """An Octave/MATLAB function file: ``function out = NAME(q, ..., params)`` (one configuration
    per call, or column vectors of configurations: the operators are element-wise)."""
    names = Names("octave")
    pr = Printer("octave", names)
    fname = function_name or _c_ident(model.name)
    groups = [g for g in model.inputs if model.inputs[g]]
    outs = [f"out{k + 1}" for k in range(len(model.outputs))]
    lines = [f"function [{', '.join(outs)}] = {fname}({', '.join(groups)})"]
    lines += [f"  % {h}" for h in _header_lines(model)]
    for g in groups:
        for k, s in enumerate(model.inputs[g]):
            lines.append(f"  {names(s)} = {g}({k + 1});")
    for lhs, rhs in model.statements:
        lines.append(f"  {names(lhs)} = {pr(rhs)};")
    for k, o in enumerate(model.outputs):
        shape = o.shape if len(o.shape) == 2 else (o.shape[0], 1)
        lines.append(f"  {outs[k]} = zeros({shape[0]}, {shape[1]});")
        for idx, e in zip(_indices(o.shape), o.exprs):
            ii = ", ".join(str(i + 1) for i in idx)
            lines.append(f"  {outs[k]}({ii}) = {pr(e)};")
    lines.append("end")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- LaTeX
def _latex_name(sym) -> str:
    name = str(sym)
    m = re.match(r"^([A-Za-z]+)(\d+)$", name)
    if m:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    return sp.latex(sym)


def to_latex(model, environment: str = "align*") -> str:
    """The statements as LaTeX equations."""
    syms = {s: sp.Symbol(_latex_name(s)) for s, _ in model.statements}
    for g in model.inputs.values():
        for s in g:
            syms.setdefault(s, sp.Symbol(_latex_name(s)))
    rows = []
    for lhs, rhs in model.statements:
        rows.append(f"{sp.latex(syms[lhs])} &= {sp.latex(rhs.xreplace(syms))}")
    for n, e in _output_assignments(model):
        rows.append(f"{_latex_name(n)} &= {sp.latex(e.xreplace(syms))}")
    return f"\\begin{{{environment}}}\n" + " \\\\\n".join(rows) + f"\n\\end{{{environment}}}"


# ----------------------------------------------------------------------------- files
EXTENSIONS = {"txt": "text", "py": "python", "c": "c", "m": "octave", "tex": "latex"}


def write_models(models, directory, formats) -> str:
    """Write every model of ``models`` (see :func:`write_model_files`); a one-line summary."""
    from pathlib import Path

    written = []
    for model in models:
        written += write_model_files(model, directory, formats=formats)
    return f"wrote {len(written)} files to {Path(directory)}/: " + ", ".join(
        p.name for p in written)


def write_model_files(model, directory, formats=("txt", "py", "c", "m", "tex")):
    """Write ``model`` in each format to ``directory`` (files named after the model)."""
    from pathlib import Path

    from ..description.io_common import write_text_atomic
    from ..errors import RobmodError

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    base = _c_ident(model.name)
    texts = {}
    for fmt in formats:
        fmt = fmt.strip().lower()
        if fmt not in EXTENSIONS:
            raise RobmodError(f"unknown export format {fmt!r}; use {', '.join(EXTENSIONS)}")
        if fmt == "txt":
            texts[f"{base}.txt"] = to_text(model)
        elif fmt == "py":
            texts[f"{base}.py"] = to_python(model, base)
        elif fmt == "c":
            src, hdr = to_c(model, base)
            texts[f"{base}.c"] = f'#include "{base}.h"\n' + src
            texts[f"{base}.h"] = hdr
        elif fmt == "m":
            texts[f"{base}.m"] = to_octave(model, base)
        elif fmt == "tex":
            texts[f"{base}.tex"] = to_latex(model)
    written = []
    for name, text in texts.items():
        write_text_atomic(directory / name, text)
        written.append(directory / name)
    return written


__all__ = []
