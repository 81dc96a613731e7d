"""The whole-body controller's QP, filled in C: from the compiled model's M, h, J, J̇qd (one
call, :func:`~robmod.dynamics.contact_problem.whole_body_terms`) and the tasks' desired
accelerations, the cost, the equalities and the torque limits of the QP of
:mod:`.whole_body` written into its arrays in one call, and the torques from its solution in
another -- what some forty NumPy operations a sample did (the same sums, in the same order
but for the tasks' A^T A, to rounding).  Compiled once per machine by robmod's compiler
(:mod:`robmod.symbolic.compile`, cached on disk); without a C compiler (or with
``ROBMOD_BACKEND=numpy``) the NumPy path of :mod:`.whole_body` runs.
"""
from __future__ import annotations

import numpy as np

from ..symbolic.compile import kernel_module
from ..symbolic.fastpath import backend

__all__ = []

_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>

/* nv = 6 + n velocities, ms = 3 ns stance rows (srows: their rows of J), sw swing feet (rows
   3 swing[k] .. of J, their paths: desired position, velocity, acceleration (9 each), their
   positions X (3 per foot), the PD gains kf, df), the base's and the posture's desired
   accelerations gb (6) and gp (n); out: H (nx, nx) and g (nx) of the cost's qdd block, the
   equalities A (6 + ms, nx), b, and (lim != NULL) the torque rows C[5 ns:], lo, up. */
static void fill(int nv, int ms, int sw, const double *M, const double *h, const double *J,
                 const double *drift, const double *qd, const long *srows, const long *swing,
                 const double *paths, const double *X, const double *gb, const double *gp,
                 double wb, double wf, double wp, double kf, double df, double damping,
                 const double *lim, double *H, double *g, double *A, double *b, double *C,
                 double *lo, double *up)
{
    const int nx = nv + ms, n = nv - 6, ns = ms / 3;
    double tg[3 * sw + 1];     /* the swing feet's desired accelerations (whole_body._targets) */
    for (int k = 0; k < 3 * sw; k++) {
        const int r = 3 * swing[k / 3] + k % 3;
        const double *path = paths + 9 * (k / 3) + k % 3, *Jr = J + r * nv;
        double v = 0.0;
        for (int c = 0; c < nv; c++) v += Jr[c] * qd[c];
        tg[k] = path[6] + kf * (path[0] - X[r]) + df * (path[3] - v) - drift[r];
    }
    for (int r = 0; r < nv; r++) {
        for (int c = 0; c < nv; c++) {
            double s = 0.0;
            for (int k = 0; k < 3 * sw; k++) {
                const double *Jr = J + (3 * swing[k / 3] + k % 3) * nv;
                s += Jr[r] * Jr[c];
            }
            H[r * nx + c] = (r == c ? (r < 6 ? wb : wp) : 0.0) + wf * s;
        }
        double s = 0.0;
        for (int k = 0; k < 3 * sw; k++) s += J[(3 * swing[k / 3] + k % 3) * nv + r] * tg[k];
        g[r] = (r < 6 ? -wb * gb[r] : -wp * gp[r - 6]) - wf * s;
    }
    for (int r = 0; r < 6; r++) {
        for (int c = 0; c < nv; c++) A[r * nx + c] = M[r * nv + c];
        for (int k = 0; k < ms; k++) A[r * nx + nv + k] = -J[srows[k] * nv + r];
        b[r] = -h[r];
    }
    for (int k = 0; k < ms; k++) {
        const double *Jk = J + srows[k] * nv;
        double v = 0.0;
        for (int c = 0; c < nv; c++) {
            A[(6 + k) * nx + c] = Jk[c];
            v += Jk[c] * qd[c];
        }
        b[6 + k] = -drift[srows[k]] - damping * v;
    }
    if (lim) {
        for (int j = 0; j < n; j++) {
            double *Cr = C + (5 * ns + j) * nx;
            for (int c = 0; c < nv; c++) Cr[c] = M[(6 + j) * nv + c];
            for (int k = 0; k < ms; k++) Cr[nv + k] = -J[srows[k] * nv + 6 + j];
            lo[5 * ns + j] = -lim[j] - h[6 + j];
            up[5 * ns + j] = lim[j] - h[6 + j];
        }
    }
}

static PyArrayObject *arr(PyObject *o, int type)
{
    return (PyArrayObject *)PyArray_FROM_OTF(o, type, NPY_ARRAY_IN_ARRAY);
}

#define NIN 11
#define NOUT 7
static PyObject *py_fill(PyObject *self, PyObject *args)
{
    PyObject *o[NIN], *p[NOUT], *olim;
    double wb, wf, wp, kf, df, damping;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOddddddO(OOOOOOO)", &o[0], &o[1], &o[2], &o[3],
                          &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &wb, &wf, &wp,
                          &kf, &df, &damping, &olim, &p[0], &p[1], &p[2], &p[3], &p[4], &p[5],
                          &p[6]))
        return NULL;
    /* M h J drift qd srows swing paths X gb gp */
    PyArrayObject *a[NIN] = {NULL}, *lim = NULL;
    int ok = 1;
    for (int i = 0; i < NIN; i++) {
        a[i] = arr(o[i], (i == 5 || i == 6) ? NPY_LONG : NPY_DOUBLE);
        if (!a[i]) ok = 0;
    }
    if (ok && olim != Py_None && !(lim = arr(olim, NPY_DOUBLE))) ok = 0;
    for (int i = 0; ok && i < NOUT; i++)
        if (!PyArray_Check(p[i]) || PyArray_TYPE((PyArrayObject *)p[i]) != NPY_DOUBLE
            || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)p[i])
            || !PyArray_ISWRITEABLE((PyArrayObject *)p[i])) {
            PyErr_SetString(PyExc_TypeError, "fill: the QP's arrays must be writable doubles");
            ok = 0;
        }
    if (ok) {
        const int nv = (int)PyArray_SIZE(a[1]), ms = (int)PyArray_SIZE(a[5]);
        const int sw = (int)PyArray_SIZE(a[6]), nx = nv + ms;
        const npy_intp rows = PyArray_SIZE(a[2]) / nv;      /* 3 per foot */
        int feet_ok = PyArray_SIZE(a[3]) == rows && PyArray_SIZE(a[8]) == rows;
        for (int k = 0; k < sw; k++)
            if (((const long *)PyArray_DATA(a[6]))[k] < 0
                || 3 * ((const long *)PyArray_DATA(a[6]))[k] + 3 > rows) feet_ok = 0;
        for (int k = 0; k < ms; k++)
            if (((const long *)PyArray_DATA(a[5]))[k] < 0
                || ((const long *)PyArray_DATA(a[5]))[k] >= rows) feet_ok = 0;
        if (!feet_ok || PyArray_SIZE(a[0]) != (npy_intp)nv * nv || PyArray_SIZE(a[2]) % nv
            || PyArray_SIZE(a[4]) != nv || PyArray_SIZE(a[7]) != 9 * sw
            || PyArray_SIZE(a[9]) != 6 || PyArray_SIZE(a[10]) != nv - 6
            || PyArray_SIZE((PyArrayObject *)p[0]) != (npy_intp)nx * nx
            || PyArray_SIZE((PyArrayObject *)p[2]) != (npy_intp)(6 + ms) * nx
            || (lim && (PyArray_SIZE(lim) != nv - 6 || PyArray_SIZE((PyArrayObject *)p[4])
                        != (npy_intp)(5 * ms / 3 + nv - 6) * nx))) {
            PyErr_SetString(PyExc_ValueError, "fill: inconsistent sizes");
            ok = 0;
        } else {
            fill(nv, ms, sw, PyArray_DATA(a[0]), PyArray_DATA(a[1]), PyArray_DATA(a[2]),
                 PyArray_DATA(a[3]), PyArray_DATA(a[4]), PyArray_DATA(a[5]),
                 PyArray_DATA(a[6]), PyArray_DATA(a[7]), PyArray_DATA(a[8]),
                 PyArray_DATA(a[9]), PyArray_DATA(a[10]), wb, wf, wp, kf, df, damping,
                 lim ? PyArray_DATA(lim) : NULL,
                 PyArray_DATA((PyArrayObject *)p[0]), PyArray_DATA((PyArrayObject *)p[1]),
                 PyArray_DATA((PyArrayObject *)p[2]), PyArray_DATA((PyArrayObject *)p[3]),
                 PyArray_DATA((PyArrayObject *)p[4]), PyArray_DATA((PyArrayObject *)p[5]),
                 PyArray_DATA((PyArrayObject *)p[6]));
        }
    }
    for (int i = 0; i < NIN; i++) Py_XDECREF(a[i]);
    Py_XDECREF(lim);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* The row a (nx) times Z (nx, nr) into out (nr), skipping a's zeros (the QP's rows are
   sparse); returns a . x0. */
static double row_times(const double *a, const double *x0, const double *Z, int nx, int nr,
                        double *out)
{
    double s = 0.0;
    for (int c = 0; c < nr; c++) out[c] = 0.0;
    for (int k = 0; k < nx; k++) {
        const double ak = a[k];
        if (ak == 0.0) continue;
        s += ak * x0[k];
        for (int c = 0; c < nr; c++) out[c] += ak * Z[k * nr + c];
    }
    return s;
}

/* The equalities A x = b (me rows, full rank) eliminated: A^T = Q R by Householder's
   reflections (Golub & Van Loan 2013, 5.2), x = x0 + Z y with x0 = Q1 R^-T b the solution of
   least norm and Z = Q2 (nx, nr = nx - me) a basis of A's null space; the QP in y:
   Hr = Z^T H Z, gr = Z^T (H x0 + g), lor <= Cr y <= upr with Cr = C Z, lor = lo - C x0 (an
   infinite bound stays infinite).  W (me, nx), HZ (nx, nr), beta (me) work arrays; returns
   0 when A is rank deficient (a pivot below 1e-10 of the largest row's norm). */
static int reduce(int nx, int me, int ni, const double *A, const double *b, const double *H,
                  const double *g, const double *C, const double *lo, const double *up,
                  double *W, double *beta, double *HZ, double *Z, double *x0, double *Hr,
                  double *gr, double *Cr, double *lor, double *upr)
{
    const int nr = nx - me;
    double scale = 0.0;
    for (int i = 0; i < me * nx; i++) {
        W[i] = A[i];            /* row k of W: column k of A^T */
        if (fabs(A[i]) > scale) scale = fabs(A[i]);
    }
    if (scale == 0.0) return 0;
    for (int k = 0; k < me; k++) {
        double *v = W + k * nx, s = 0.0;
        for (int i = k; i < nx; i++) s += v[i] * v[i];
        const double norm = sqrt(s), alpha = v[k] > 0 ? -norm : norm;
        if (norm < 1e-10 * scale) return 0;
        const double vk = v[k] - alpha;
        s += vk * vk - v[k] * v[k];          /* |v|^2 with v[k] = vk */
        v[k] = vk;
        beta[k] = 2.0 / s;
        for (int j = k + 1; j < me; j++) {
            double *w = W + j * nx, d = 0.0;
            for (int i = k; i < nx; i++) d += v[i] * w[i];
            d *= beta[k];
            for (int i = k; i < nx; i++) w[i] -= d * v[i];
        }
        HZ[k] = alpha;                        /* R's diagonal, kept until HZ is used */
    }
    /* R^T u = b (R[j][i] = W[i][j] above the diagonal), x0 = Q (u, 0) */
    for (int i = 0; i < nx; i++) x0[i] = 0.0;
    for (int i = 0; i < me; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++) s -= W[i * nx + j] * x0[j];
        x0[i] = s / HZ[i];
    }
    for (int i = 0; i < nx * nr; i++) Z[i] = 0.0;
    for (int c = 0; c < nr; c++) Z[(me + c) * nr + c] = 1.0;
    for (int k = me - 1; k >= 0; k--) {       /* Q = H_0 H_1 ... applied to (u, 0) and (0, I) */
        const double *v = W + k * nx;
        double d = 0.0;
        for (int i = k; i < nx; i++) d += v[i] * x0[i];
        d *= beta[k];
        for (int i = k; i < nx; i++) x0[i] -= d * v[i];
        for (int c = 0; c < nr; c++) {
            double e = 0.0;
            for (int i = k; i < nx; i++) e += v[i] * Z[i * nr + c];
            e *= beta[k];
            for (int i = k; i < nx; i++) Z[i * nr + c] -= e * v[i];
        }
    }
    for (int r = 0; r < nx; r++)              /* HZ = H Z, g + H x0 into W's first row */
        W[r] = g[r] + row_times(H + r * nx, x0, Z, nx, nr, HZ + r * nr);
    for (int a = 0; a < nr; a++) {
        double s = 0.0;
        for (int k = 0; k < nx; k++) s += Z[k * nr + a] * W[k];
        gr[a] = s;
        for (int c = 0; c < nr; c++) {
            double t = 0.0;
            for (int k = 0; k < nx; k++) t += Z[k * nr + a] * HZ[k * nr + c];
            Hr[a * nr + c] = t;
        }
    }
    for (int r = 0; r < ni; r++) {
        const double s = row_times(C + r * nx, x0, Z, nx, nr, Cr + r * nr);
        lor[r] = lo[r] - s;
        upr[r] = up[r] - s;
    }
    return 1;
}

#define NRED 17
static PyObject *py_reduce(PyObject *self, PyObject *args)
{
    PyObject *p[NRED];
    if (!PyArg_ParseTuple(args, "(OOOOOOO)(OOOOOOOOOO)", &p[0], &p[1], &p[2], &p[3], &p[4],
                          &p[5], &p[6], &p[7], &p[8], &p[9], &p[10], &p[11], &p[12], &p[13],
                          &p[14], &p[15], &p[16]))
        return NULL;
    /* (H g A b C lo up) (W beta HZ Z x0 Hr gr Cr lor upr) */
    for (int i = 0; i < NRED; i++)
        if (!PyArray_Check(p[i]) || PyArray_TYPE((PyArrayObject *)p[i]) != NPY_DOUBLE
            || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)p[i])
            || (i >= 7 && !PyArray_ISWRITEABLE((PyArrayObject *)p[i]))) {
            PyErr_SetString(PyExc_TypeError, "reduce: the QP's arrays must be doubles");
            return NULL;
        }
#define SZ(i) PyArray_SIZE((PyArrayObject *)p[i])
#define D(i) ((double *)PyArray_DATA((PyArrayObject *)p[i]))
    const int nx = (int)SZ(1), me = (int)SZ(3), ni = (int)SZ(5), nr = nx - me;
    if (nr <= 0 || SZ(0) != (npy_intp)nx * nx || SZ(2) != (npy_intp)me * nx
        || SZ(4) != (npy_intp)ni * nx || SZ(6) != ni || SZ(7) < (npy_intp)me * nx
        || SZ(7) < nx || SZ(8) != me || SZ(9) != (npy_intp)nx * nr || SZ(9) < me
        || SZ(10) != (npy_intp)nx * nr || SZ(11) != nx || SZ(12) != (npy_intp)nr * nr
        || SZ(13) != nr || SZ(14) != (npy_intp)ni * nr || SZ(15) != ni || SZ(16) != ni) {
        PyErr_SetString(PyExc_ValueError, "reduce: inconsistent sizes");
        return NULL;
    }
    int ok = reduce(nx, me, ni, D(2), D(3), D(0), D(1), D(4), D(5), D(6), D(7), D(8), D(9),
                    D(10), D(11), D(12), D(13), D(14), D(15), D(16));
#undef SZ
#undef D
    return PyBool_FromLong(ok);
}

/* The base's task (whole_body._base_task): q (7 + n: position, quaternion scalar first),
   qd (6 + n: the base's V, W in its frame), the desired position, velocity and rotation
   (row by row); out (6): R^T a_w - W x V, R^T al_w.  Returns 0 (out untouched) when the
   rotation error is beyond 90 degrees (the Python path takes it). */
static int base_task(const double *q, const double *qd, const double *pd, const double *vd,
                     const double *Rd, double kp, double kd, double *out)
{
    const double n = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
    const double q0 = q[3] / n, q1 = q[4] / n, q2 = q[5] / n, q3 = q[6] / n;
    const double R[9] = {1 - 2 * (q2 * q2 + q3 * q3), 2 * (q1 * q2 - q0 * q3),
                         2 * (q1 * q3 + q0 * q2), 2 * (q1 * q2 + q0 * q3),
                         1 - 2 * (q1 * q1 + q3 * q3), 2 * (q2 * q3 - q0 * q1),
                         2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1),
                         1 - 2 * (q1 * q1 + q2 * q2)};
    double E[9], Vw[3], Ww[3], a[3], al[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)     /* E = Rd R^T */
            E[3 * i + j] = Rd[3 * i] * R[3 * j] + Rd[3 * i + 1] * R[3 * j + 1]
                           + Rd[3 * i + 2] * R[3 * j + 2];
    const double c = 0.5 * (E[0] + E[4] + E[8] - 1.0);
    if (c < 0) return 0;
    const double w[3] = {E[7] - E[5], E[2] - E[6], E[3] - E[1]};
    const double sn = 0.5 * sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    const double f = sn < 1e-12 ? 0.5 : atan2(sn, c) / (2 * sn);
    for (int i = 0; i < 3; i++) {
        Vw[i] = R[3 * i] * qd[0] + R[3 * i + 1] * qd[1] + R[3 * i + 2] * qd[2];
        Ww[i] = R[3 * i] * qd[3] + R[3 * i + 1] * qd[4] + R[3 * i + 2] * qd[5];
    }
    for (int i = 0; i < 3; i++) {
        a[i] = kp * (pd[i] - q[i]) + kd * (vd[i] - Vw[i]);
        al[i] = kp * f * w[i] - kd * Ww[i];
    }
    const double *V = qd, *W = qd + 3;
    const double wxv[3] = {W[1] * V[2] - W[2] * V[1], W[2] * V[0] - W[0] * V[2],
                           W[0] * V[1] - W[1] * V[0]};
    for (int i = 0; i < 3; i++) {
        out[i] = R[i] * a[0] + R[3 + i] * a[1] + R[6 + i] * a[2] - wxv[i];
        out[3 + i] = R[i] * al[0] + R[3 + i] * al[1] + R[6 + i] * al[2];
    }
    return 1;
}

static PyObject *py_base_task(PyObject *self, PyObject *args)
{
    PyObject *o[5];
    double kp, kd;
    if (!PyArg_ParseTuple(args, "OOOOOdd", &o[0], &o[1], &o[2], &o[3], &o[4], &kp, &kd))
        return NULL;
    PyArrayObject *a[5] = {NULL};
    int ok = 1;
    const npy_intp least[5] = {7, 6, 3, 3, 9};
    for (int i = 0; i < 5; i++)
        if (!(a[i] = arr(o[i], NPY_DOUBLE)) || PyArray_SIZE(a[i]) < least[i]) ok = 0;
    PyObject *res = NULL;
    if (ok) {
        npy_intp dims[1] = {6};
        PyArrayObject *out = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
        if (out && base_task(PyArray_DATA(a[0]), PyArray_DATA(a[1]), PyArray_DATA(a[2]),
                             PyArray_DATA(a[3]), PyArray_DATA(a[4]), kp, kd,
                             PyArray_DATA(out))) {
            res = (PyObject *)out;
        } else {
            Py_XDECREF(out);
            if (!PyErr_Occurred()) { Py_INCREF(Py_None); res = Py_None; }
        }
    } else if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_TypeError, "base_task: q (7 + n), qd (6 + n), p, v (3), R (3, 3)");
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(a[i]);
    return res;
}

/* tau = M_j qdd + h_j - Js_j^T f for the QP's solution x = (qdd, f) */
static PyObject *py_torques(PyObject *self, PyObject *args)
{
    PyObject *o[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &o[0], &o[1], &o[2], &o[3], &o[4]))
        return NULL;
    PyArrayObject *a[5] = {NULL};
    int ok = 1;
    for (int i = 0; i < 5; i++)
        if (!(a[i] = arr(o[i], i == 3 ? NPY_LONG : NPY_DOUBLE))) ok = 0;
    PyArrayObject *tau = NULL;
    if (ok) {
        const int nv = (int)PyArray_SIZE(a[1]), ms = (int)PyArray_SIZE(a[3]);
        if (PyArray_SIZE(a[0]) != (npy_intp)nv * nv || PyArray_SIZE(a[4]) != nv + ms) {
            PyErr_SetString(PyExc_ValueError, "torques: inconsistent sizes");
        } else {
            npy_intp dims[1] = {nv - 6};
            tau = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
            const double *M = PyArray_DATA(a[0]), *h = PyArray_DATA(a[1]);
            const double *J = PyArray_DATA(a[2]), *x = PyArray_DATA(a[4]);
            const long *srows = PyArray_DATA(a[3]);
            double *t = tau ? PyArray_DATA(tau) : NULL;
            for (int j = 0; t && j < nv - 6; j++) {
                double s = 0.0, c = 0.0;
                for (int k = 0; k < nv; k++) s += M[(6 + j) * nv + k] * x[k];
                for (int k = 0; k < ms; k++) c += J[srows[k] * nv + 6 + j] * x[nv + k];
                t[j] = s + h[6 + j] - c;
            }
        }
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(a[i]);
    return (PyObject *)tau;
}
"""

_METHODS = (("fill", "py_fill", "the whole-body QP's arrays"),
            ("torques", "py_torques", "the torques of the QP's solution"),
            ("reduce", "py_reduce", "the QP with its equalities eliminated"),
            ("base_task", "py_base_task", "the base's desired acceleration"))


def qp_kernel():
    """The compiled module (``fill(M, h, J, drift, qd, srows, swing, paths, X, a_base,
    a_posture, wb, wf, wp, kp_foot, kd_foot, damping, tau_max or None, (H, g, A, b, C,
    lower, upper))``
    and ``torques(M, h, J, srows, x)``), or None (no compiler, or the NumPy backend)."""
    return None if backend() == "numpy" else kernel_module("rm_wbc_", _SOURCE, _METHODS)


def as_rows(values) -> np.ndarray:
    """Row numbers as the C long integers the kernel reads."""
    return np.ascontiguousarray(values, dtype=np.int_)
