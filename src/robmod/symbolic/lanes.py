"""Batched C kernel vectorized across configurations (structure of arrays).

The scalar function of a customized model evaluates one configuration; its
statements depend on each other, so a compiler cannot give them to the vector
units.  Across configurations, however, the same statement is applied to
independent data.  This kernel takes a block of :data:`BLOCK` configurations:

1. transposes the inputs of the block into one row per input (``rm_in``),
2. computes the sines and cosines of the joint angles four at a time
   (:mod:`.vector_trig`),
3. runs every statement in one loop over the block, reading inputs and
   writing outputs by row: the loop has no branch and no call, so the compiler
   vectorizes it (AVX2, 4 configurations per instruction, when the processor
   has it: a second copy of the kernel is compiled for it and chosen at run
   time),
4. transposes the output rows back.

It checks that every input, parameter and output value is finite (an OR of the bits of
``x - x``, which are zero for a finite x) on the rows of the block, in the cache, four values
per instruction: the kernel returns 0 otherwise, and the plain functions then take their NumPy
path, whose checks name the argument.

Statements that depend on the parameters only (sums of inertial parameters,
products of lengths) are computed once per call, outside the loop.  No
floating-point contraction or reassociation is allowed, so each configuration
gets the same operations, in the same order, as in the scalar function: the
results equal the scalar path's, the sines and cosines aside (vector math
library, 4 ulp).  Models calling functions that do not vectorize (``atan2``,
``pow``...) keep the per-configuration kernel.
"""
from __future__ import annotations

import sympy as sp

from .export import Names, Printer, c_function_body, c_layout
from .vector_trig import BLOCK, PREPASS, trig_prepass

_VECTORIZABLE = (sp.sin, sp.cos, sp.sign, sp.Abs)


MIN_OPS_PER_OUTPUT = 12


def _vectorizable(model) -> bool:
    """True when every statement is arithmetic, sqrt, |x|, sign or a movable sin/cos, and
    the model computes enough per output (at least :data:`MIN_OPS_PER_OUTPUT` operations):
    the DGM and the Jacobian mostly copy (12 to 42 outputs for 40 to 120 operations), and
    transposing their outputs back costs more than vectorizing saves."""
    count = model.count()
    nout = sum(len(o.exprs) for o in model.outputs)
    if count.mults + count.adds < MIN_OPS_PER_OUTPUT * nout:
        return False
    _, where = trig_prepass(model)
    exprs = [rhs for lhs, rhs in model.statements if lhs not in where]
    exprs += [e for o in model.outputs for e in o.exprs]
    for e in exprs:
        for f in sp.preorder_traversal(e):
            if isinstance(f, sp.Function) and not isinstance(f, _VECTORIZABLE):
                return False
            if isinstance(f, (sp.sin, sp.cos)):
                return False  # a sin/cos of parameters or of a statement: scalar libm call
            if f.is_Pow and not (f.exp.is_Integer or f.exp == sp.Rational(1, 2)):
                return False
    return True


def _hoisted(model) -> set:
    """Statements that depend on the parameters only (computed once per call)."""
    params = set(model.inputs.get("params", ()))
    out = set()
    for lhs, rhs in model.statements:
        if rhs.free_symbols <= params | out:
            out.add(lhs)
    return out


def lanes_source(model, fname: str, *, preamble: bool = True) -> str | None:
    """C source of ``int {fname}_vbatch(long n, inputs..., double *out)`` (the arguments of
    ``{fname}_batch``; returns 0 when an input, a parameter or an output value is not finite:
    checked on the rows of each block, in the cache, by ``rm_nf`` of the extension's prelude),
    or None when the model does not vectorize."""
    if not _vectorizable(model):
        return None
    args, where = trig_prepass(model)
    names = Names("c")
    pr = Printer("c", names)
    groups, sizes = c_layout(model)
    total = sum(sizes)
    batched = [g for g in groups if g != "params"]
    width = {g: len(model.inputs[g]) for g in groups}
    row = {}                                          # batched input symbol -> row of rm_in
    for g in batched:
        for k, s in enumerate(model.inputs[g]):
            row[s] = len(row)
    nin, nt = len(row), max(len(args), 1)
    once = _hoisted(model)
    bparams = [f"const double *B_{names(sp.Symbol(g))}" for g in groups]
    sig = f"({', '.join(['long n'] + bparams + ['double *out'])})"
    body = ["{", f"    double rm_in[{max(nin, 1) * BLOCK}], rm_x[{nt * BLOCK}],"
            f" rm_s[{nt * BLOCK}], rm_c[{nt * BLOCK}];",
            f"    double rm_o[{total * BLOCK}];", "    long i0, i, rm_r;",
            "    unsigned long long rm_bad = 0;    /* bits of x - x: 0 while all are finite */"]
    if "params" in groups:
        pname = names(sp.Symbol("params"))
        body.append(f"    for (i = 0; i < {width['params']}; i++) rm_bad |= rm_nf(B_{pname}[i]);")
        for k, s in enumerate(model.inputs["params"]):
            body.append(f"    const double {names(s)} = B_{pname}[{k}];")
    for lhs, rhs in model.statements:
        if lhs in once:
            body.append(f"    const double {names(lhs)} = {pr(rhs)};")
    body += [f"    for (i0 = 0; i0 < n; i0 += {BLOCK}) {{",
             f"        long m = n - i0 < {BLOCK} ? n - i0 : {BLOCK};",
             # a block's rows are written up to m: the lanes after a partial block's m (computed,
             # not kept) read zeros, not what the stack held (a NaN, a denormal that is slow)
             f"        if (m < {BLOCK}) {{ memset(rm_in, 0, sizeof rm_in); "
             "memset(rm_x, 0, sizeof rm_x); memset(rm_s, 0, sizeof rm_s); "
             "memset(rm_c, 0, sizeof rm_c); }",
             "        for (i = 0; i < m; i++) {"]
    for g in batched:
        gname = names(sp.Symbol(g))
        for k, s in enumerate(model.inputs[g]):
            body.append(f"            rm_in[{row[s] * BLOCK} + i] = "
                        f"B_{gname}[(i0 + i) * {width[g]} + {k}];")
    body += ["        }", _row_check("rm_in", nin)]
    computed = [(k, a) for k, a in enumerate(args) if a not in row]   # not a joint variable
    if computed:
        body.append("        for (i = 0; i < m; i++) {")
        inputs_of = sorted({s for _, a in computed for s in a.free_symbols}, key=lambda s: row[s])
        for s in inputs_of:
            body.append(f"            const double {names(s)} = rm_in[{row[s] * BLOCK} + i];")
        for k, a in computed:
            body.append(f"            rm_x[{k * BLOCK} + i] = {pr(a)};")
        body.append("        }")
    for k, a in enumerate(args):        # a joint variable's row is read where it lies
        source = f"rm_in + {row[a] * BLOCK}" if a in row else f"rm_x + {k * BLOCK}"
        body.append(f"        rm_vtrig(m, {source}, rm_s + {k * BLOCK}, rm_c + {k * BLOCK});")
    body.append(f"        for (i = 0; i < {BLOCK}; i++) {{")   # the vectorized loop
    for s, r in row.items():
        body.append(f"            const double {names(s)} = rm_in[{r * BLOCK} + i];")
    reads = {lhs: f"rm_{kind}[{k * BLOCK} + i]" for lhs, (kind, k) in where.items()}
    body += c_function_body(model, names, pr, reads, inputs=False, skip=once,
                            out=lambda k: f"rm_o[{k * BLOCK} + i]", indent=" " * 12)
    body += ["        }", _row_check("rm_o", total),
             "        for (i = 0; i < m; i++) {",
             f"            double *o = out + (i0 + i) * {total};",
             "            long p;",
             f"            for (p = 0; p < {total}; p++) o[p] = rm_o[p * {BLOCK} + i];",
             "        }", "    }", "    return rm_bad == 0;", "}"]
    call = ", ".join(["n"] + [f"B_{names(sp.Symbol(g))}" for g in groups] + ["out"])
    return "\n".join([
        PREPASS if args and preamble else "",
        # a compiler targeting this very processor (RM_NATIVE: zig cc) compiles one copy
        "#if defined(__x86_64__) && defined(__GNUC__) && !defined(RM_NATIVE)",
        f"__attribute__((target(\"avx2\"))) static int {fname}_lanes_avx2{sig}",
        *body,
        "#endif",
        f"static int {fname}_lanes{sig}", *body,
        f"int {fname}_vbatch{sig}", "{",
        "#if defined(__x86_64__) && defined(__GNUC__) && !defined(RM_NATIVE)",
        f"    if (__builtin_cpu_supports(\"avx2\")) return {fname}_lanes_avx2({call});",
        "#endif",
        f"    return {fname}_lanes({call});", "}", ""])


def _row_check(array: str, rows: int) -> str:
    """C: the finiteness of the first m values of each row of a block (a loop over contiguous
    values, vectorized like the statements)."""
    return (f"        for (rm_r = 0; rm_r < {rows}; rm_r++) for (i = 0; i < m; i++) "
            f"rm_bad |= rm_nf({array}[rm_r * {BLOCK} + i]);")


__all__ = []
