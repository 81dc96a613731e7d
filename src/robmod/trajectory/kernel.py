"""The passes of :mod:`~robmod.trajectory.reachability` as a small compiled C kernel.

The same closed-form steps as the NumPy code (static sets by elimination of u over the
pairs of rows, controllable sets backward, greedy forward pass), written once in C and
compiled on first use with robmod's extension builder
(:func:`~robmod.symbolic.compile.build_from_source`: cached on disk by the hash of the
source).  Without a C compiler the NumPy passes serve (same results to rounding).
``ROBMOD_TOPP_KERNEL=0`` turns the kernel off.
"""
from __future__ import annotations

import hashlib
import os

import numpy as np

_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>

#define XCAP 1e30

static double tol(double x, double y)
{
    double m = 1e-12;
    if (isfinite(x) && fabs(x) > m) m = fabs(x);
    if (isfinite(y) && fabs(y) > m) m = fabs(y);
    return 1e-9 * m;
}

/* X[i] = [x_lo, x_hi] of every grid point, ok[i] = 0 where empty */
static void static_sets(long m, long p, const double *a, const double *b, const double *lo,
                        const double *hi, const double *xmax, double *X, double *ok,
                        double *work)
{
    double *beta = work, *mup = work + p, *mlow = work + 2 * p;
    for (long i = 0; i < m; i++) {
        const double *ai = a + i * p, *bi = b + i * p, *li = lo + i * p, *hi_ = hi + i * p;
        double up = INFINITY, low = -INFINITY;
        int good = 1;
        for (long k = 0; k < p; k++) {
            if (ai[k] != 0) {
                beta[k] = bi[k] / ai[k];
                mup[k] = (ai[k] > 0 ? hi_[k] : li[k]) / ai[k];
                mlow[k] = (ai[k] > 0 ? li[k] : hi_[k]) / ai[k];
            } else if (bi[k] > 0) {
                if (hi_[k] / bi[k] < up) up = hi_[k] / bi[k];
                if (li[k] / bi[k] > low) low = li[k] / bi[k];
            } else if (bi[k] < 0) {
                if (li[k] / bi[k] < up) up = li[k] / bi[k];
                if (hi_[k] / bi[k] > low) low = hi_[k] / bi[k];
            } else if (li[k] > 0 || hi_[k] < 0) {
                good = 0;
            }
        }
        for (long l = 0; l < p; l++) {
            if (ai[l] == 0) continue;
            for (long k = 0; k < p; k++) {
                if (ai[k] == 0 || k == l) continue;
                double coef = beta[k] - beta[l], rhs = mup[k] - mlow[l];
                if (coef > 0) { if (rhs / coef < up) up = rhs / coef; }
                else if (coef < 0) { if (rhs / coef > low) low = rhs / coef; }
                else if (rhs < 0) good = 0;
            }
        }
        if (xmax[i] < up) up = xmax[i];
        if (XCAP < up) up = XCAP;
        if (low < 0) low = 0;
        if (!(low <= up + 1e-9 * (fabs(up) > 1e-12 ? fabs(up) : 1e-12))) good = 0;
        X[2 * i] = low;
        X[2 * i + 1] = up > low ? up : low;
        ok[i] = good;
    }
}

/* one-sided bounds on x at stage i from K_i+1 = [klo, khi]; returns the binding rows */
static void step_bounds(long p, const double *ai, const double *bi, const double *li,
                        const double *hi_, double d, double klo, double khi, double *up,
                        double *low, long *rup, long *rlow)
{
    double u = INFINITY, w = -INFINITY;
    long ru = -1, rw = -1;
    for (long k = 0; k < p; k++) {
        double a = ai[k];
        if (a == 0) continue;
        double e = 2 * d * bi[k] - a;
        if (e == 0) e = 1e-13 * (fabs(a) + 2 * d * fabs(bi[k]));
        double ap = (a > 0 ? a : 0) / e, am = (a < 0 ? a : 0) / e;
        double H = 2 * d * hi_[k] / e, L = 2 * d * li[k] / e, vu, vl;
        if (e > 0) { vu = H - ap * klo - am * khi; vl = L - am * klo - ap * khi; }
        else { vu = L - am * klo - ap * khi; vl = H - ap * klo - am * khi; }
        if (vu < u) { u = vu; ru = k; }
        if (vl > w) { w = vl; rw = k; }
    }
    *up = u; *low = w; *rup = ru; *rlow = rw;
}

/* K backward from x_end; returns -1, or the stage whose set is empty (rows in info) */
static long backward(long N, long p, const double *a, const double *b, const double *lo,
                     const double *hi, const double *X, const double *delta, double x_end,
                     double *K, long *info)
{
    double klo = x_end, khi = x_end;
    K[2 * N] = K[2 * N + 1] = x_end;
    for (long i = N - 1; i >= 0; i--) {
        double up, low;
        long ru, rl;
        step_bounds(p, a + i * p, b + i * p, lo + i * p, hi + i * p, delta[i], klo, khi,
                    &up, &low, &ru, &rl);
        if (X[2 * i + 1] < up) up = X[2 * i + 1];
        if (X[2 * i] > low) low = X[2 * i];
        if (low > up) {
            if (low - up > tol(low, up)) { info[0] = ru; info[1] = rl; return i; }
            low = up;
        }
        K[2 * i] = klo = low;
        K[2 * i + 1] = khi = up;
    }
    return -1;
}

static void forward(long N, long p, const double *a, const double *b, const double *lo,
                    const double *hi, const double *K, const double *delta, double x,
                    double *xs, double *us)
{
    xs[0] = x;
    for (long i = 0; i < N; i++) {
        const double *ai = a + i * p, *bi = b + i * p, *li = lo + i * p, *hi_ = hi + i * p;
        double u = INFINITY, d2 = 2 * delta[i];
        for (long k = 0; k < p; k++) {
            if (ai[k] == 0) continue;
            double v = ((ai[k] > 0 ? hi_[k] : li[k]) - bi[k] * x) / ai[k];
            if (v < u) u = v;
        }
        double nxt = x + d2 * u;
        if (nxt > K[2 * i + 3]) nxt = K[2 * i + 3];
        if (nxt < K[2 * i + 2]) nxt = K[2 * i + 2];
        if (nxt < 0) nxt = 0;
        us[i] = (nxt - x) / d2;
        xs[i + 1] = x = nxt;
    }
}

/* solve(N, p, a, b, lo, hi, xmax, delta, x_start, x_end, X, ok, K, xs, us, info)
   -> 0 done, 1 static set empty somewhere (ok), 2 controllable set empty at info[2] */
static PyObject *rm_solve(PyObject *self, PyObject *args)
{
    long N, p, fail = 0;
    double x_start, x_end;
    Py_buffer bufs[13];
    if (!PyArg_ParseTuple(args, "lly*y*y*y*y*y*ddw*w*w*w*w*w*", &N, &p, &bufs[0], &bufs[1],
                          &bufs[2], &bufs[3], &bufs[4], &bufs[5], &x_start, &x_end, &bufs[6],
                          &bufs[7], &bufs[8], &bufs[9], &bufs[10], &bufs[11]))
        return NULL;
    const double *a = bufs[0].buf, *b = bufs[1].buf, *lo = bufs[2].buf, *hi = bufs[3].buf;
    const double *xmax = bufs[4].buf, *delta = bufs[5].buf;
    double *X = bufs[6].buf, *ok = bufs[7].buf, *K = bufs[8].buf, *xs = bufs[9].buf;
    double *us = bufs[10].buf, *info = bufs[11].buf;
    double *work = malloc(sizeof(double) * 3 * (p > 0 ? p : 1));
    long rows[2] = {-1, -1};
    if (work == NULL) fail = -1;
    Py_BEGIN_ALLOW_THREADS
    if (!fail) {
        static_sets(N + 1, p, a, b, lo, hi, xmax, X, ok, work);
        for (long i = 0; i <= N; i++) if (ok[i] == 0) { fail = 1; break; }
    }
    if (!fail && !(X[2 * N] <= x_end && x_end <= X[2 * N + 1] * (1 + 1e-9))) fail = 3;
    if (!fail) {
        long at = backward(N, p, a, b, lo, hi, X, delta, x_end, K, rows);
        if (at >= 0) { fail = 2; info[0] = rows[0]; info[1] = rows[1]; info[2] = at; }
    }
    if (!fail) {
        if (!(K[0] - tol(K[0], K[0]) <= x_start && x_start <= K[1] + tol(K[1], K[1])))
            fail = 4;
        else
            forward(N, p, a, b, lo, hi, K, delta, x_start < K[0] ? K[0] :
                    (x_start > K[1] ? K[1] : x_start), xs, us);
    }
    Py_END_ALLOW_THREADS
    free(work);
    for (int k = 0; k < 12; k++) PyBuffer_Release(&bufs[k]);
    if (fail < 0) return PyErr_NoMemory();
    return PyLong_FromLong(fail);
}

static PyMethodDef rm_methods[] = {
    {"solve", rm_solve, METH_VARARGS, "static sets, controllable sets, forward pass"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef rm_module = {PyModuleDef_HEAD_INIT, "RM_MODNAME", NULL, -1, rm_methods};

PyMODINIT_FUNC PyInit_RM_MODNAME(void) { return PyModule_Create(&rm_module); }
"""

_MODULE: list = []


def _kernel():
    """The compiled module (``solve``), or None without a C compiler (or when turned off)."""
    if os.environ.get("ROBMOD_TOPP_KERNEL", "1") == "0":
        return None
    if not _MODULE:
        from ..symbolic.compile import build_from_source

        name = "rm_topp_" + hashlib.sha256(_SOURCE.encode()).hexdigest()[:20]
        try:
            _MODULE.append(build_from_source(name, _SOURCE.replace("RM_MODNAME", name)))
        except (OSError, ImportError):
            _MODULE.append(None)
    return _MODULE[0]


def solve(a, b, lo, hi, xmax, delta, x_start, x_end):
    """All passes in C: (status, X (N+1, 2), ok (N+1,), K (N+1, 2), x (N+1,), u (N,),
    info) with status 0 (done), 1 (a static set is empty), 2 (the controllable set at stage
    info[2] is empty, rows info[:2]), 3 (x_end not admissible), 4 (x_start not
    controllable); None without the kernel."""
    mod = _kernel()
    if mod is None:
        return None
    N1, p = a.shape
    c = [np.ascontiguousarray(v, dtype=float) for v in (a, b, lo, hi, xmax, delta)]
    X, ok, K = np.zeros((N1, 2)), np.zeros(N1), np.zeros((N1, 2))
    xs, us, info = np.zeros(N1), np.zeros(N1 - 1), np.zeros(3)
    status = mod.solve(N1 - 1, p, *c, float(x_start), float(x_end), X, ok, K, xs, us, info)
    return status, X, ok.astype(bool), K, xs, us, info.astype(int)


__all__ = []
