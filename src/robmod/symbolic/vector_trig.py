"""Batched C kernel whose sines and cosines come from a vectorized pre-pass.

In a customized model of a 6-7 axis robot the scalar ``sin``/``cos`` of the
joint angles cost about as much as all the multiplications of the DGM or of
the Jacobian (glibc: ~14 ns per sin+cos pair).  For the batched path, the
angles of a block of configurations are gathered and their sines and cosines
computed four at a time by glibc's vector math library (libmvec,
``_ZGVdN4v_sin``/``_ZGVdN4v_cos``, AVX2, max 4 ulp), then the model runs per
configuration reading them from the block.  Only trigonometric statements
whose argument depends on the batched inputs alone are moved; the others stay
in the body.  Without libmvec or AVX2 (checked when compiling and at run
time) the pre-pass uses the scalar functions: same results to rounding.
The single-configuration function is unchanged.
"""
from __future__ import annotations

import sympy as sp

from .export import Names, Printer, c_function_body, c_input_lines, c_layout

BLOCK = 64          # configurations per block: a multiple of 4 (AVX2 lanes)

PREPASS = r"""
#if defined(RM_MVEC) && defined(__x86_64__) && defined(__GNUC__)
/* four doubles in a 256-bit register: the compiler's vector type (what immintrin.h calls
   __m256d), declared here rather than by that header, whose parsing takes a quarter of a
   small model's compile time */
typedef double rm_v4d __attribute__((vector_size(32)));
__attribute__((target("avx2"))) rm_v4d _ZGVdN4v_sin(rm_v4d);
__attribute__((target("avx2"))) rm_v4d _ZGVdN4v_cos(rm_v4d);
__attribute__((target("avx2"))) static void rm_vtrig_avx2(long m, const double *x, double *s,
                                                          double *c)
{
    long i;
    /* the rows hold BLOCK values, a multiple of 4: the last group is computed whole, so that
       each configuration gets the same function wherever it is in the batch */
    for (i = 0; i < m; i += 4) {
        rm_v4d v, vs, vc;
        memcpy(&v, x + i, sizeof v);          /* unaligned loads and stores */
        vs = _ZGVdN4v_sin(v);
        vc = _ZGVdN4v_cos(v);
        memcpy(s + i, &vs, sizeof vs);
        memcpy(c + i, &vc, sizeof vc);
    }
}
static int rm_avx2 = -1;
#endif
static void rm_vtrig(long m, const double *x, double *s, double *c)
{
    long i;
#if defined(RM_MVEC) && defined(__x86_64__) && defined(__GNUC__)
#if defined(RM_NATIVE)      /* compiled for this processor (zig cc): known at compile time,
                               no compiler runtime needed for the CPU query */
#if defined(__AVX2__)
    rm_vtrig_avx2(m, x, s, c);
    return;
#endif
#else
    if (rm_avx2 < 0) rm_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    if (rm_avx2) { rm_vtrig_avx2(m, x, s, c); return; }
#endif
#endif
    for (i = 0; i < m; i++) { s[i] = sin(x[i]); c[i] = cos(x[i]); }
}
"""


def trig_prepass(model):
    """``(args, where)``: the distinct arguments of the movable sin/cos statements and, for
    each such statement's symbol, ``("s" or "c", index of its argument)``."""
    batched = {s for g, syms in model.inputs.items() if g != "params" for s in syms}
    args, where = [], {}
    for lhs, rhs in model.statements:
        if isinstance(rhs, (sp.sin, sp.cos)) and rhs.args[0].free_symbols <= batched:
            a = rhs.args[0]
            if a not in args:
                args.append(a)
            where[lhs] = ("s" if isinstance(rhs, sp.sin) else "c", args.index(a))
    return args, where


def batch_source(model, fname: str, *, preamble: bool = True) -> str | None:
    """C source of ``void {fname}_vbatch(long n, inputs..., double *out)`` (same signature as
    ``{fname}_batch``), or None when the model has no movable sin/cos; ``preamble=False``:
    without :data:`PREPASS` (once in a unit of several models)."""
    args, where = trig_prepass(model)
    if not args:
        return None
    names = Names("c")
    pr = Printer("c", names)
    groups, sizes = c_layout(model)
    total = sum(sizes)
    nt = len(args)
    params = [f"const double *{names(sp.Symbol(g))}" for g in groups]
    decl = c_input_lines(model, names)
    reads = {lhs: f"rm_{kind}[{k * BLOCK}]" for lhs, (kind, k) in where.items()}
    body = [PREPASS if preamble else "",
            f"static void {fname}_t({', '.join(params)}, const double *rm_s, "
            "const double *rm_c, double *out)", "{"]
    body += c_function_body(model, names, pr, reads)
    body.append("}")
    # the batch: per block, the arguments, then the vector sin/cos, then the model
    bparams = [p.replace("*", "*B_", 1) for p in params]
    body += ["", f"void {fname}_vbatch(long n, {', '.join(bparams + ['double *out'])})", "{",
             f"    double rm_x[{nt * BLOCK}] = {{0}}, rm_s[{nt * BLOCK}], rm_c[{nt * BLOCK}];",
             "    long i0, i, k;",
             f"    for (i0 = 0; i0 < n; i0 += {BLOCK}) {{",
             f"        long m = n - i0 < {BLOCK} ? n - i0 : {BLOCK};",
             "        for (i = 0; i < m; i++) {"]
    for g in groups:
        gname = names(sp.Symbol(g))
        off = "" if g == "params" else f" + (i0 + i) * {len(model.inputs[g])}"
        body.append(f"            const double *{gname} = B_{gname}{off};")
    for line in decl:
        body.append("        " + line)
    for k, a in enumerate(args):
        body.append(f"            rm_x[{k * BLOCK} + i] = {pr(a)};")
    body += ["        }",
             f"        for (k = 0; k < {nt}; k++) rm_vtrig(m, rm_x + k * {BLOCK}, "
             f"rm_s + k * {BLOCK}, rm_c + k * {BLOCK});",
             "        for (i = 0; i < m; i++)"]
    call = []
    for g in groups:
        gname = names(sp.Symbol(g))
        call.append(f"B_{gname}" if g == "params"
                    else f"B_{gname} + (i0 + i) * {len(model.inputs[g])}")
    body.append(f"            {fname}_t({', '.join(call)}, rm_s + i, rm_c + i, "
                f"out + (i0 + i) * {total});")
    body += ["    }", "}", ""]
    return "\n".join(body)


__all__ = []
