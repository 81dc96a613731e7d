"""The C source of a compiled closed loop: controller law + plant dynamics + RK4, one function.

:mod:`robmod.control.compiled_loop` runs robmod's own controllers (PID, PD + gravity, computed
torque, passivity-based, adaptive) in C: the customized models they call per sample (the
controller's IDM, gravity torques, velocity torques or base-parameter regressor, Khalil &
Dombre §9.4.2.5) and the plant's direct dynamic model (``ddm_model(method="fewest")``) are printed by
:func:`robmod.symbolic.export.to_c` into one translation unit with the law and the loop of
:func:`robmod.control.simulate` (zero-order hold, RK4 substeps, saturation, measurement noise
drawn beforehand, quantization, delay).  Runs advance in lockstep by blocks of
:data:`~robmod.symbolic.vector_trig.BLOCK`: the plant of a block is one call of the model's
vectorized batch kernel (:mod:`robmod.symbolic.lanes`).

Every operation is written in the order the NumPy path applies it (``q + 0.5 h qd``,
``h / 6 (k1 + 2 k2 + 2 k3 + k4)``, the law's sums left to right), with no floating-point
contraction, so that the compiled loop reproduces the Python path to rounding.

The numbers a run reads are arrays, not constants of the source: the per-run gains ``G``
(``(runs, ng)``), the law's shared constants and the options in ``cfg``; the source depends on
the models and on the law's structure only, and compiles once per (plant, controller kind).
"""
from __future__ import annotations

from ..symbolic.export import C_PREAMBLE, c_layout, to_c
from ..symbolic.extension_wrapper import C_NOT_FINITE
from ..symbolic.lanes import lanes_source
from ..symbolic.vector_trig import BLOCK, PREPASS, batch_source, trig_prepass
from .loop_kernel import LOOP, SE3

#: cfg[] layout shared by the source and :mod:`.compiled_loop`
CFG_FIELDS = ("continuous", "sq", "sqd", "rq", "rqd", "delay", "noise_kinds", "has_limit",
              "batched", "record_every")

def _model_source(model, fname: str, *, batched: bool = False) -> str:
    """The scalar C function ``fname(groups..., out)`` of ``model`` (and its vectorized batch
    kernel ``fname_vbatch`` when ``batched``), without the shared preamble."""
    src, _ = to_c(model, fname, preamble=False)
    if batched:
        vsrc = lanes_source(model, fname, preamble=False)
        kind = "lanes" if vsrc is not None else None
        if vsrc is None:
            vsrc = batch_source(model, fname, preamble=False)
            kind = "trig" if vsrc is not None else "loop"
        src += "\n" + (vsrc or "") + f"\n#define {fname.upper()}_KIND_{kind.upper()} 1\n"
    return src


def _call(model, fname, **groups) -> str:
    """``fname_blk(m, bat, <the model's input groups in its order>, `` (the caller closes it
    with the output array)."""
    names, _ = c_layout(model)
    return f"{fname}_blk(m, bat, {', '.join(groups[g] for g in names)}, "


def _scalar_call(model, fname, **groups) -> str:
    names, _ = c_layout(model)
    return f"{fname}({', '.join(groups[g] for g in names)}, "


def _block_wrapper(model, fname: str) -> str:
    """``fname_blk(m, bat, inputs..., out)``: the scalar function for an unbatched run (as the
    Python path calls ``single`` on 1-D arrays), else the batch kernel on the m states."""
    groups, _ = c_layout(model)
    params = ", ".join(f"const double *a{k}" for k in range(len(groups)))
    args = ", ".join(f"a{k}" for k in range(len(groups)))
    return f"""
static int {fname}_blk(long m, int bat, {params}, double *out)
{{
    if (!bat) {{ {fname}({args}, out); return 1; }}
#if defined({fname.upper()}_KIND_LANES)
    return {fname}_vbatch(m, {args}, out);
#elif defined({fname.upper()}_KIND_TRIG)
    {fname}_vbatch(m, {args}, out); return 1;
#else
    {fname}_batch(m, {args}, out); return 1;
#endif
}}
"""


# -- the laws, over a block of m runs: C writing tau[m n] (unclipped) and dz[m nz] from
# q, qd (m n), the reference rq, rqd, rqdd (n, shared), z (m nz), the gains G (m ng), K.
# RM_EACH loops over the m n values with r the run, j the joint and g the run's gains.
_EACH = ("    for (i = 0; i < m * RM_N; i++) { const long r = i / RM_N, j = i % RM_N; "
         "const double *g = G + r * RM_NG; (void)r; (void)g;")


def _each(*body: str) -> list[str]:
    return [_EACH, *("        " + b for b in body), "    }"]


def _torques(models, key: str, fname: str, out: str, **groups) -> list[str]:
    """The lines writing the joint torques of the controller's model ``key`` into ``out``
    (m n): a floating robot's model (the free-floating one, of its whole state Q, QD) gives
    the base's acceleration first, the joints' torques are its rows after it."""
    if not models.get("floating"):
        return ["    " + _call(models[key], fname, **groups) + f"{out});"]
    return ["    " + _call(models[key], fname, **groups) + "ff);",
            *_each(f"{out}[i] = ff[r * RM_NV + RM_BV + j];")]


def _coulomb_lines(mode: str, off: int, n: int) -> list[str]:
    """IDM without Coulomb + F_V qd + coulomb_torque(...) of :mod:`.plant`: tau += ... with
    K = [fv(n), fc(n), fst(n), bst(n), width] from ``off``."""
    v = "rqd[j]" if mode == "desired" else "qd[i]"
    sgn = "rm_sign(v)" if mode == "desired" else f"tanh(v / K[{off + 4 * n}])"
    return _each(f"const double v = {v}, sg = {sgn};",
                 f"const double fv = K[{off} + j], fc = K[{off + n} + j], "
                 f"fst = K[{off + 2 * n} + j], bst = K[{off + 3 * n} + j];",
                 "double c = fc * sg;",
                 "if (fst != 0) c = c + (fst - fc) * sg * exp(-fabs(v) * bst);",
                 "tau[i] = (tau[i] + fv * qd[i]) + c;")


def law_pid(models, gravity: bool, tau_max: bool) -> list[str]:
    """(9.5) with the switched integral and anti-windup of :class:`~robmod.control.PID`:
    g = [kp, kd, ki], K = [e_min, e_max, tau_max(n)]."""
    lines = _each("tau[i] = (g[j] * (rq[j] - q[i]) + g[RM_N + j] * (rqd[j] - qd[i]))"
                  " + g[2 * RM_N + j] * z[i];")
    if gravity:
        lines += [*_torques(models, "grav", "rm_cgrav", "w", q="Q"),
                  *_each("tau[i] = tau[i] + w[i];")]
    body = ["const double e = rq[j] - q[i];",
            "int on = fabs(e) >= K[0] && fabs(e) <= K[1];"]
    if tau_max:
        body.append("on = on && !(fabs(tau[i]) >= K[2 + j] && rm_sign(e) == rm_sign(tau[i]));")
    return lines + ["    if (dz) {", *_each(*body, "dz[i] = on ? e : 0.0;"), "    }"]


def law_pd_gravity(models, at_desired: bool) -> list[str]:
    """(9.12): g = [kp, kd]; Q(q^d) is one configuration, as in the Python law (a floating
    robot's: its measured base, the desired joints)."""
    if at_desired and models.get("floating"):
        at = ["    for (i = 0; i < m * RM_NQ; i++) FQ[i] = (i % RM_NQ) < RM_BQ ? Q[i] :"
              " rq[i % RM_NQ - RM_BQ];"]
        return [*at, *_torques(models, "grav", "rm_cgrav", "w", q="FQ"),
                *_each("tau[i] = (g[j] * (rq[j] - q[i]) - g[RM_N + j] * qd[i]) + w[i];")]
    if at_desired:
        return ["    " + _scalar_call(models["grav"], "rm_cgrav", q="rq") + "w);",
                *_each("tau[i] = (g[j] * (rq[j] - q[i]) - g[RM_N + j] * qd[i]) + w[j];")]
    return [*_torques(models, "grav", "rm_cgrav", "w", q="Q"),
            *_each("tau[i] = (g[j] * (rq[j] - q[i]) - g[RM_N + j] * qd[i]) + w[i];")]


def _compensated(models, qdd: str, coulomb: str) -> list[str]:
    """tau = the controller's IDM(q, qd, qdd) with its Coulomb term as ``coulomb`` says."""
    if coulomb == "measured":
        return _torques(models, "idm", "rm_cidm", "tau", q="Q", qd="QD", qdd=qdd)
    return (_torques(models, "idm_nc", "rm_cidmnc", "tau", q="Q", qd="QD", qdd=qdd)
            + _coulomb_lines(coulomb, 0, models["n"]))


def law_computed_torque(models, mode: str, coulomb: str) -> list[str]:
    """(9.24), (9.29), (9.31): g = [kp, kd], K = the friction of the controller's model."""
    if mode == "position":
        w = "g[j] * (rq[j] - q[i]) - g[RM_N + j] * qd[i]"
    else:
        w = "(rqdd[j] + g[RM_N + j] * (rqd[j] - qd[i])) + g[j] * (rq[j] - q[i])"
    lines = _each(f"w[i] = {w};")
    if mode == "predictive":
        return lines + [*_each("bq[i] = rq[j]; bqd[i] = rqd[j];"),
                        "    " + _call(models["idm"], "rm_cidm", q="bq", qd="bqd", qdd="w")
                        + "tau);"]
    return lines + _compensated(models, "w", coulomb)


def _sliding() -> list[str]:
    """s = qd - qd_r, qdd_r, qd + s and zeros (Slotine-Li), g = [lam, ...]."""
    return _each("s[i] = qd[i] - (rqd[j] + g[j] * (rq[j] - q[i]));",
                 "w[i] = rqdd[j] + g[j] * (rqd[j] - qd[i]);",
                 "v1[i] = qd[i] + s[i]; z0[i] = 0.0; bqd[i] = rqd[j];")


def law_passivity(models, coulomb: str) -> list[str]:
    """Slotine-Li: g = [lam, kd]; C(q, qd) s by polarization of the velocity torques (a
    floating robot's: of its whole velocity, s moving the joints)."""
    fl = models.get("floating")
    full = ["    for (i = 0; i < m * RM_NV; i++) {",
            "        const long r = i / RM_NV, k = i % RM_NV;",
            "        FS[i] = k < RM_BV ? 0.0 : s[r * RM_N + k - RM_BV];",
            "        FV[i] = QD[i] + FS[i];", "    }"] if fl else []
    v1, sv = ("FV", "FS") if fl else ("v1", "s")
    return [*_sliding(), *_compensated(models, "w", coulomb), *full,
            *_torques(models, "vel", "rm_cvel", "h1", q="Q", qd=v1, qdd="z0"),
            *_torques(models, "vel", "rm_cvel", "h2", q="Q", qd="QD", qdd="z0"),
            *_torques(models, "vel", "rm_cvel", "h3", q="Q", qd=sv, qdd="z0"),
            *_each("tau[i] = (tau[i] - 0.5 * ((h1[i] - h2[i]) - h3[i])) - g[RM_N + j] * s[i];")]


def law_adaptive(models, coulomb: str, friction_cols, coulomb_cols) -> list[str]:
    """Slotine-Li adaptive law on the base-parameter regressor: g = [lam, kd, gamma(p)],
    K = [width]; z the estimate of the base parameters.  The regressor is always the batch
    kernel (the Python law calls it on 2-D arrays)."""
    phi = models["phi"]
    p = len(friction_cols)
    fr = "{" + ", ".join(str(int(b)) for b in friction_cols) + "}"
    fc = "{" + ", ".join(str(int(b)) for b in coulomb_cols) + "}"
    call = "rm_cphi_blk(m, 1, " + _call(phi, "", q="q", qd="QD", qdd="A")[len("_blk(m, bat, "):]

    def phi_at(qd, qdd, out):
        return "    " + call.replace("QD", qd).replace("A", qdd) + f"{out});"

    def vp(v, out):   # the velocity part: Phi(q, v, 0) - Phi(q, 0, 0), friction columns zeroed
        return [phi_at(v, "z0", out),
                f"    for (i = 0; i < m * RM_N * RM_P; i++) {{ {out}[i] = {out}[i] - Y0[i];"
                f" if (rm_fr[i % RM_P]) {out}[i] = 0.0; }}"]

    lines = [f"    static const int rm_fr[{p}] = {fr}, rm_fcol[{p}] = {fc};", "    (void)rm_fcol;",
             *_sliding(), phi_at("qd", "w", "Y"), phi_at("z0", "z0", "Y0"),
             *vp("v1", "P1"), *vp("qd", "P2"), *vp("s", "P3"),
             "    for (i = 0; i < m * RM_N * RM_P; i++) Y[i] = Y[i] - 0.5 * ((P1[i] - P2[i]) - P3[i]);"]
    if coulomb == "desired":
        lines += [phi_at("bqd", "w", "P1"),
                  "    for (i = 0; i < m * RM_N * RM_P; i++) if (rm_fcol[i % RM_P]) Y[i] = P1[i];"]
    elif coulomb == "smooth":
        lines += ["    for (i = 0; i < m * RM_N * RM_P; i++)",
                  "        if (rm_fcol[i % RM_P]) Y[i] = Y[i] * fabs(tanh(qd[i / RM_P] / K[0]));"]
    lines += _each("double acc = 0.0; long c;",
                   "for (c = 0; c < RM_P; c++) acc += Y[i * RM_P + c] * z[r * RM_P + c];",
                   "tau[i] = acc - g[RM_N + j] * s[i];")
    lines += ["    if (dz) for (i = 0; i < m * RM_P; i++) {",
              "        const long r = i / RM_P, c = i % RM_P;",
              "        double acc = 0.0; long j;",
              "        for (j = 0; j < RM_N; j++) acc += Y[(r * RM_N + j) * RM_P + c] * s[r * RM_N + j];",
              "        dz[i] = -G[r * RM_NG + 2 * RM_N + c] * acc;", "    }"]
    return lines


_LAW_HEAD = """
/* workspace: 13 rows of BLOCK nq values, then 5 of BLOCK n p */
#define RM_WORK (13 * RM_BLOCK * RM_NQ + 5 * RM_BLOCK * RM_N * (RM_P ? RM_P : 1))
/* q, qd: the joints' state (m n); Q, QD: the robot's (m nq, m nv; a fixed base's: q, qd) */
static void rm_law(long m, int bat, const double *G, const double *K, const double *q,
                   const double *qd, const double *Q, const double *QD, const double *rq,
                   const double *rqd, const double *rqdd, const double *z, double *tau,
                   double *dz, double *W)
{
    long i;
    const long B = RM_BLOCK * RM_NQ, BP = RM_BLOCK * RM_N * (RM_P ? RM_P : 1);
    double *w = W, *s = w + B, *v1 = s + B, *z0 = v1 + B, *h1 = z0 + B, *h2 = h1 + B,
           *h3 = h2 + B, *bq = h3 + B, *bqd = bq + B, *ff = bqd + B, *FV = ff + B,
           *FS = FV + B, *FQ = FS + B, *Y = FQ + B, *Y0 = Y + BP, *P1 = Y0 + BP,
           *P2 = P1 + BP, *P3 = P2 + BP;
    (void)i; (void)G; (void)K; (void)q; (void)qd; (void)Q; (void)QD; (void)rq; (void)rqd;
    (void)rqdd; (void)z; (void)dz; (void)w; (void)s; (void)v1; (void)z0; (void)h1; (void)h2;
    (void)h3; (void)bq; (void)bqd; (void)ff; (void)FV; (void)FS; (void)FQ; (void)Y; (void)Y0;
    (void)P1; (void)P2; (void)P3; (void)bat;
"""


def loop_source(modname: str, n: int, nz: int, ng: int, nk: int, p: int, plant_model,
                controller_models: dict, law: list[str], *, base: tuple = (0, 0)) -> str:
    """The whole module: models, the law, the plant of a block, the loop ``rm_run`` and an
    empty Python module (so that the shared object is built and cached like a model's);
    ``base``: the base's entries in q and qd (a floating robot's (7, 6))."""
    parts = [_model_source(plant_model, "rm_pddm", batched=True)]
    names = {"idm": "rm_cidm", "idm_nc": "rm_cidmnc", "vel": "rm_cvel", "grav": "rm_cgrav",
             "phi": "rm_cphi"}
    for key, model in controller_models.items():
        if key in names:
            parts.append(_model_source(model, names[key], batched=True))
            parts.append(_block_wrapper(model, names[key]))
    parts.append(_block_wrapper(plant_model, "rm_pddm"))
    trig = any(trig_prepass(m)[0] for m in [plant_model, *controller_models.values()])
    body = "\n".join([C_PREAMBLE, PREPASS if trig else ""] + parts)   # the shared lines once
    plant_call = _call(plant_model, "rm_pddm", q="q", qd="qd", tau="tau", params="pp")
    npp = len(plant_model.parameters)
    head = (f"#pragma STDC FP_CONTRACT OFF\n#define PY_SSIZE_T_CLEAN\n#include <Python.h>\n"
            f"#include <math.h>\n#include <string.h>\n#include <stdlib.h>\n"
            f"#define RM_N {n}\n#define RM_NZ {nz}\n#define RM_NG {ng}\n#define RM_NK {nk}\n"
            f"#define RM_BQ {base[0]}\n#define RM_BV {base[1]}\n"
            f"#define RM_NQ {n + base[0]}\n#define RM_NV {n + base[1]}\n"
            f"#define RM_P {p}\n#define RM_NPP {npp}\n"
            f"#define RM_BLOCK {1 if npp else BLOCK}\n" + C_NOT_FINITE)
    plant = f"""
/* the plant over a block of m states: 1 when every acceleration is finite */
static int rm_plant(long m, int bat, const double *pp, const double *q, const double *qd,
                    const double *tau, double *a)
{{
    long i;
    unsigned long long bad = 0;
    if (!{plant_call}a)) return 0;
    for (i = 0; i < m * RM_NV; i++) bad |= rm_nf(a[i]);
    return bad == 0;
}}
"""
    return (head + body + _LAW_HEAD + "\n".join(law) + "\n}\n" + plant + SE3 + LOOP
            + _module(modname))


def _module(modname: str) -> str:
    return f"""
static struct PyModuleDef rm_def = {{PyModuleDef_HEAD_INIT, "{modname}", NULL, -1, NULL}};
PyMODINIT_FUNC PyInit_{modname}(void) {{ return PyModule_Create(&rm_def); }}
"""


__all__ = []
