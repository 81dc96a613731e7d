"""The C of a compiled closed loop around the law: the stages, the Runge-Kutta 4 step of the
plant (on SE(3) for a floating base) and the run over the samples (:mod:`.loop_source` adds the
models and the law).

The state of a run is (q, qd) of RM_NQ and RM_NV values (the joints' RM_N, a floating robot's
base first: RM_BQ = 7 and RM_BV = 6 values more); the law reads the joints, the measurement's
noise and quantization touch the joints only, as :func:`robmod.control.simulate` does.  Every
operation is written in the order of the NumPy path (:func:`robmod.dynamics.integration.rk4`,
:func:`robmod.geometry.integrate`'s exponential of SE(3), the Lie bracket of se(3)), with no
floating-point contraction, so that both paths agree to rounding (the same bits on a fixed
base).
"""
from __future__ import annotations

#: SE(3) of a floating base in C: the exponential step q (+) c v and dexp^-1 of a stage
SE3 = r"""
static void rm_cross(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static void rm_unit4(double *Q)
{
    const double s = sqrt(((Q[0] * Q[0] + Q[1] * Q[1]) + Q[2] * Q[2]) + Q[3] * Q[3]);
    Q[0] = Q[0] / s; Q[1] = Q[1] / s; Q[2] = Q[2] / s; Q[3] = Q[3] / s;
}

/* out = q (+) c v: the exponential of SE(3) of the base's twist, the joints q + c v */
static void rm_fstep(long m, const double *q, const double *v, double c, double *out)
{
    long r, k;
    for (r = 0; r < m; r++) {
        const double *x = q + r * RM_NQ, *y = v + r * RM_NV;
        double *o = out + r * RM_NQ;
        double st[RM_NV], wxv[3], w2[3], dP[3], Q[4], t1[3], t2[3], R[3], dQ[4];
        for (k = 0; k < RM_NV; k++) st[k] = c * y[k];
        {
            const double *sv = st, *sw = st + 3;
            const double tt2 = (sw[0] * sw[0] + sw[1] * sw[1]) + sw[2] * sw[2];
            const double t = sqrt(tt2);
            const int small = t < 1e-4;
            const double ts = small ? 1.0 : t;
            const double a = small ? (0.5 - tt2 / 24) + tt2 * tt2 / 720
                                   : (1 - cos(ts)) / (ts * ts);
            const double b = small ? (1.0 / 6 - tt2 / 120) + tt2 * tt2 / 5040
                                   : (ts - sin(ts)) / pow(ts, 3);
            const double half = small ? (0.5 - tt2 / 48) + tt2 * tt2 / 3840 : sin(ts / 2) / ts;
            rm_cross(sw, sv, wxv);
            rm_cross(sw, wxv, w2);
            for (k = 0; k < 3; k++) dP[k] = (sv[k] + a * wxv[k]) + b * w2[k];
            dQ[0] = cos(t / 2);
            for (k = 0; k < 3; k++) dQ[k + 1] = half * sw[k];
        }
        for (k = 0; k < 4; k++) Q[k] = x[3 + k];
        rm_unit4(Q);
        rm_cross(Q + 1, dP, t1);
        for (k = 0; k < 3; k++) t1[k] = 2 * t1[k];
        rm_cross(Q + 1, t1, t2);
        for (k = 0; k < 3; k++) R[k] = (dP[k] + Q[0] * t1[k]) + t2[k];
        for (k = 0; k < 3; k++) o[k] = x[k] + R[k];
        {
            double cr[3];
            rm_cross(Q + 1, dQ + 1, cr);
            o[3] = Q[0] * dQ[0] - ((Q[1] * dQ[1] + Q[2] * dQ[2]) + Q[3] * dQ[3]);
            for (k = 0; k < 3; k++) o[4 + k] = (Q[0] * dQ[1 + k] + dQ[0] * Q[1 + k]) + cr[k];
        }
        rm_unit4(o + 3);
        for (k = 0; k < RM_N; k++) o[RM_BQ + k] = x[RM_BQ + k] + st[RM_BV + k];
    }
}

/* [a, b] of se(3), twists (v, w): (w_a x v_b - w_b x v_a, w_a x w_b) */
static void rm_bracket(const double *a, const double *b, double *o)
{
    double c1[3], c2[3];
    long k;
    rm_cross(a + 3, b, c1);
    rm_cross(b + 3, a, c2);
    for (k = 0; k < 3; k++) o[k] = c1[k] - c2[k];
    rm_cross(a + 3, b + 3, o + 3);
}

/* out = dexp^-1 at u = c k of the stage velocity v: v + [u, v] / 2 + [u, [u, v]] / 12 */
static void rm_fcorrect(long m, const double *v, double c, const double *kk, double *out)
{
    long r, k;
    for (r = 0; r < m; r++) {
        const double *y = v + r * RM_NV, *x = kk + r * RM_NV;
        double *o = out + r * RM_NV, u[6], once[6], twice[6];
        for (k = 0; k < 6; k++) u[k] = c * x[k];
        rm_bracket(u, y, once);
        rm_bracket(u, once, twice);
        for (k = 0; k < 6; k++) o[k] = (y[k] + 0.5 * once[k]) + twice[k] / 12.0;
        for (k = RM_BV; k < RM_NV; k++) o[k] = y[k];
    }
}
"""


LOOP = r"""
/* the law at one sample for the m states of a block: measured (noise, quantization,
   delay), then the torque (clipped) and the state's update z += dt dz */
static void rm_clip(const double *cfg, double *tau)
{
    long j;
    if (cfg[7] != 0) for (j = 0; j < RM_N; j++) {
        const double lim = cfg[10 + j];
        tau[j] = fmin(fmax(tau[j], -lim), lim);
    }
}

static void rm_stage(long m, int bat, const double *cfg, const double *K, const double *G,
                     const double *rq, const double *rqd, const double *rqdd, const double *q,
                     const double *qd, const double *z, double *tau, double *dz, double *W,
                     double *jq, double *jqd)
{
    long r;
#if RM_BV
    long j;
    for (r = 0; r < m; r++) for (j = 0; j < RM_N; j++) {       /* the joints' state */
        jq[r * RM_N + j] = q[r * RM_NQ + RM_BQ + j];
        jqd[r * RM_N + j] = qd[r * RM_NV + RM_BV + j];
    }
    rm_law(m, bat, G, K, jq, jqd, q, qd, rq, rqd, rqdd, z, tau, RM_NZ ? dz : NULL, W);
#else
    (void)jq; (void)jqd;
    rm_law(m, bat, G, K, q, qd, q, qd, rq, rqd, rqdd, z, tau, RM_NZ ? dz : NULL, W);
#endif
    for (r = 0; r < m; r++) rm_clip(cfg, tau + r * RM_N);
}

#define RM_AXPY(out, x, c, y, cnt) for (i = 0; i < (cnt); i++) (out)[i] = (x)[i] + (c) * (y)[i]
#define RM_COMB(out, x, c, a, b, d, e, cnt) for (i = 0; i < (cnt); i++) \
    (out)[i] = (x)[i] + (c) * ((((a)[i] + 2 * (b)[i]) + 2 * (d)[i]) + (e)[i])
#define RM_JQ(r, j) ((r) * RM_NQ + RM_BQ + (j))     /* joint j of run r in a state's q */
#define RM_JV(r, j) ((r) * RM_NV + RM_BV + (j))     /* and in its qd */

/* the configurations of a stage: q2 = q (+) c k (a vector space: q + c k) */
#define RM_ADVANCE(out, c, kk) \
    if (RM_BV) rm_fstep(m, q, kk, c, out); else { RM_AXPY(out, q, c, kk, mq); }
/* the stage velocity in the step's tangent space (a vector space: itself), in buf */
#define RM_CORRECT(out, buf, v, c, kk) \
    if (RM_BV) { rm_fcorrect(m, v, c, kk, buf); out = buf; } else out = v;

/* a stage: the state at c along kk (velocity) and an (acceleration) -- and dn for the state
   of a continuous law, its torque tt and rate dd there (the reference at Sx) --, then the
   plant's accelerations an2 there (a blow-up stops the run) */
#define RM_DSTAGE(qn, vn, c, kk, an, an2) \
    RM_ADVANCE(qn, c, kk); RM_AXPY(vn, qd, c, an, mv); \
    if (!rm_plant(m, bat, pp, qn, vn, tau, an2)) { status = (int)(k + 1); break; }
#define RM_CSTAGE(qn, vn, zn, c, kk, an, dn, Sx, tt, dd, an2) \
    RM_ADVANCE(qn, c, kk); RM_AXPY(vn, qd, c, an, mv); RM_AXPY(zn, z, c, dn, mz); \
    rm_stage(m, bat, cfg, K, g, Sx, Sx + RM_N, Sx + 2 * RM_N, qn, vn, zn, tt, dd, W, jq, jqd); \
    if (!rm_plant(m, bat, pp, qn, vn, tt, an2)) { status = (int)(k + 1); break; }

/* the step's end: q (+) h/6 (k1 + 2 k2 + 2 k3 + k4) (a vector space: q + h/6 (...)) in qo,
   qd + h/6 (a1 + 2 a2 + 2 a3 + a4) in vo */
#define RM_FINISH(qo, vo) \
    if (RM_BV) { \
        for (i = 0; i < mv; i++) ks[i] = ((qd[i] + 2 * k2[i]) + 2 * k3[i]) + k4[i]; \
        rm_fstep(m, q, ks, h / 6, qo); \
    } else { RM_COMB(qo, q, h / 6, qd, v2, v3, v4, mq); } \
    RM_COMB(vo, qd, h / 6, a1, a2, a3, a4, mv)

/* runs r0 .. r1 of nrun; 0 when done, else 1 + the step at which a state blew up or the
   plant returned a non-finite acceleration (the caller runs the Python path, which names
   the cause) */
int rm_run(long r0, long r1, long nrun, long steps, long substeps, double dt, double hs,
           const double *cfg, const double *K, const double *R, const double *RS,
           const double *X0, const double *G, const double *Z0, const double *NS, const double *PP,
           double *Q, double *QD, double *TAU, double *Z)
{
    const int continuous = cfg[0] != 0;
    const double sq = cfg[1], sqd = cfg[2], rqr = cfg[3], rqdr = cfg[4];
    const long delay = (long)cfg[5], nk = (long)cfg[6];
    const int bat = cfg[8] != 0;
    const long every = (long)cfg[9];      /* samples k = 0, every, 2 every, ... are stored */
    const long N = RM_BLOCK * RM_NQ, NZ = RM_BLOCK * (RM_NZ ? RM_NZ : 1);
    double *mem = malloc(sizeof(double) * (25 * N + 8 * NZ + 2 * (delay + 1) * N + RM_WORK));
    double *q = mem, *qd = q + N, *tau = qd + N, *a1 = tau + N, *a2 = a1 + N, *a3 = a2 + N,
           *a4 = a3 + N, *q2 = a4 + N, *v2 = q2 + N, *q3 = v2 + N, *v3 = q3 + N,
           *q4 = v3 + N, *v4 = q4 + N, *qm = v4 + N, *qdm = qm + N, *t1 = qdm + N,
           *t2 = t1 + N, *t3 = t2 + N, *k2b = t3 + N, *k3b = k2b + N, *k4b = k3b + N,
           *ks = k4b + N, *jq = ks + N, *jqd = jq + N;
    double *z = jqd + N, *dz = z + NZ, *z2 = dz + NZ, *d2 = z2 + NZ, *z3 = d2 + NZ,
           *d3 = z3 + NZ, *z4 = d3 + NZ, *d4 = z4 + NZ, *past = d4 + NZ,
           *W = past + 2 * (delay + 1) * N;
    const double *k2 = k2b, *k3 = k3b, *k4 = k4b;
    long b0, i, k, s, r;
    int status = 0;
    if (!mem) return -1;
    (void)k2b; (void)k3b; (void)k4b; (void)ks;
    for (b0 = r0; b0 < r1 && !status; b0 += RM_BLOCK) {
        const long m = r1 - b0 < RM_BLOCK ? r1 - b0 : RM_BLOCK, mn = m * RM_N, mz = m * RM_NZ;
        const long mq = m * RM_NQ, mv = m * RM_NV;
        const double *g = G + b0 * RM_NG, *pp = PP + b0 * RM_NPP;
        (void)pp;
        for (r = 0; r < m; r++) {
            memcpy(q + r * RM_NQ, X0 + (b0 + r) * (RM_NQ + RM_NV), sizeof(double) * RM_NQ);
            memcpy(qd + r * RM_NV, X0 + (b0 + r) * (RM_NQ + RM_NV) + RM_NQ,
                   sizeof(double) * RM_NV);
        }
        if (RM_NZ) memcpy(z, Z0 + b0 * RM_NZ, sizeof(double) * mz);
        memcpy(Q + b0 * RM_NQ, q, sizeof(double) * mq);
        memcpy(QD + b0 * RM_NV, qd, sizeof(double) * mv);
        for (k = 0; k <= steps; k++) {
            const double *rq = R + k * 3 * RM_N, *rqd = rq + RM_N, *rqdd = rqd + RM_N;
            if (continuous) {
                rm_stage(m, bat, cfg, K, g, rq, rqd, rqdd, q, qd, z, tau, dz, W, jq, jqd);
            } else {
                for (i = 0; i < mq; i++) qm[i] = q[i];
                for (i = 0; i < mv; i++) qdm[i] = qd[i];
                if (nk) {                 /* the joints' encoders: noise drawn beforehand */
                    const double *nq = NS + (k * nk * nrun + b0) * RM_N;
                    if (sq != 0) {
                        for (i = 0; i < mn; i++)
                            qm[RM_JQ(i / RM_N, i % RM_N)] = qm[RM_JQ(i / RM_N, i % RM_N)]
                                + sq * nq[i];
                        nq += nrun * RM_N;
                    }
                    if (sqd != 0) for (i = 0; i < mn; i++)
                        qdm[RM_JV(i / RM_N, i % RM_N)] = qdm[RM_JV(i / RM_N, i % RM_N)]
                            + sqd * nq[i];
                }
                if (rqr != 0) for (i = 0; i < mn; i++) {
                    const long c = RM_JQ(i / RM_N, i % RM_N);
                    qm[c] = nearbyint(qm[c] / rqr) * rqr;
                }
                if (rqdr != 0) for (i = 0; i < mn; i++) {
                    const long c = RM_JV(i / RM_N, i % RM_N);
                    qdm[c] = nearbyint(qdm[c] / rqdr) * rqdr;
                }
                if (delay) {
                    double *slot = past + (k % (delay + 1)) * 2 * N;
                    const double *use = past + ((k > delay ? k - delay : 0) % (delay + 1)) * 2 * N;
                    memcpy(slot, qm, sizeof(double) * mq);
                    memcpy(slot + N, qdm, sizeof(double) * mv);
                    memcpy(t1, use, sizeof(double) * mq);
                    memcpy(t2, use + N, sizeof(double) * mv);
                    memcpy(qm, t1, sizeof(double) * mq);
                    memcpy(qdm, t2, sizeof(double) * mv);
                }
                rm_stage(m, bat, cfg, K, g, rq, rqd, rqdd, qm, qdm, z, tau, dz, W, jq, jqd);
                for (i = 0; i < mz; i++) z[i] = z[i] + dt * dz[i];
            }
            if (k % every == 0)
                for (r = 0; r < m; r++)
                    memcpy(TAU + ((k / every) * nrun + b0 + r) * RM_N, tau + r * RM_N,
                           sizeof(double) * RM_N);
            if (k == steps) break;
            if (continuous) {      /* the law at every stage, its state integrated too */
                const double h = hs, *S = RS + k * 6 * RM_N;   /* t + h/2, t + h */
                /* k1 at t: tau, dz from above */
                if (!rm_plant(m, bat, pp, q, qd, tau, a1)) { status = (int)(k + 1); break; }
                RM_CSTAGE(q2, v2, z2, h / 2, qd, a1, dz, S, t1, d2, a2);
                RM_CORRECT(k2, k2b, v2, h / 2, qd);
                RM_CSTAGE(q3, v3, z3, h / 2, k2, a2, d2, S, t2, d3, a3);
                RM_CORRECT(k3, k3b, v3, h / 2, k2);
                RM_CSTAGE(q4, v4, z4, h, k3, a3, d3, S + 3 * RM_N, t3, d4, a4);
                RM_CORRECT(k4, k4b, v4, h, k3);
                RM_FINISH(t1, t2);
                RM_COMB(z2, z, h / 6, dz, d2, d3, d4, mz);
                memcpy(q, t1, sizeof(double) * mq); memcpy(qd, t2, sizeof(double) * mv);
                memcpy(z, z2, sizeof(double) * mz);
            } else for (s = 0; s < substeps; s++) {
                const double h = hs;
                if (!rm_plant(m, bat, pp, q, qd, tau, a1)) { status = (int)(k + 1); break; }
                RM_DSTAGE(q2, v2, 0.5 * h, qd, a1, a2);
                RM_CORRECT(k2, k2b, v2, 0.5 * h, qd);
                RM_DSTAGE(q3, v3, 0.5 * h, k2, a2, a3);
                RM_CORRECT(k3, k3b, v3, 0.5 * h, k2);
                RM_DSTAGE(q4, v4, h, k3, a3, a4);
                RM_CORRECT(k4, k4b, v4, h, k3);
                RM_FINISH(t1, t2);
                memcpy(q, t1, sizeof(double) * mq); memcpy(qd, t2, sizeof(double) * mv);
            }
            if (status) break;
            for (i = 0; i < mv; i++)
                if (!(fabs(qd[i]) < 1e6)) { status = (int)(k + 1); break; }
            if (status) break;
            if ((k + 1) % every == 0)
                for (r = 0; r < m; r++) {
                    const long row = ((k + 1) / every) * nrun + b0 + r;
                    memcpy(Q + row * RM_NQ, q + r * RM_NQ, sizeof(double) * RM_NQ);
                    memcpy(QD + row * RM_NV, qd + r * RM_NV, sizeof(double) * RM_NV);
                }
        }
        if (RM_NZ) memcpy(Z + b0 * RM_NZ, z, sizeof(double) * mz);
    }
    free(mem);
    return status;
}
"""


__all__ = []
