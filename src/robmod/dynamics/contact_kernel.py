"""The projected Gauss-Seidel sweeps of :mod:`.contact_solver` in C (compiled once per
machine by robmod's compiler, :mod:`robmod.symbolic.compile`, cached on disk like the models):
the NumPy loop's sweeps (the same results to rounding: the sums are taken in another order),
a hundred times faster.  Around them, what a time step of :mod:`.time_stepping` does after the
Delassus model's call: the world's problem turned into the contacts' frames (``frame_pgs``),
and against one plane the whole step (``plane_step``: the contacts found, their problem, the
velocity after the step, the configuration advanced on SE(3)) -- a trotting quadruped's
simulation spent most of its time in that bookkeeping.  Without a C compiler (or with
``ROBMOD_BACKEND=numpy``) the NumPy path runs."""
from __future__ import annotations

from ..symbolic.compile import kernel_module
from ..symbolic.fastpath import backend

__all__ = []

_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>
#include <stdlib.h>

/* the arrays o[0..n) as C-contiguous doubles (a[i]; 0 when one fails, a Python error set) */
static int doubles(PyObject **o, PyArrayObject **a, int n)
{
    int ok = 1;
    for (int i = 0; i < n; i++) {
        a[i] = (PyArrayObject *)PyArray_FROM_OTF(o[i], NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
        if (!a[i]) ok = 0;
    }
    return ok;
}

/* Projected Gauss-Seidel on v = G lam + c (k contacts, 3 rows each: tangent, tangent,
   normal), friction coefficients mu; lam (in: the warm start, projected; out: the impulses),
   v (out); returns the number of sweeps. */
static int pgs(int k, const double *G, const double *c, const double *mu, double *lam,
               double *v, const double *step_t, double tol, int max_iter)
{
    const int m = 3 * k;
    double scale = 1e-12;
    for (int r = 0; r < m; r++) {
        double s = c[r];
        for (int j = 0; j < m; j++) s += G[r * m + j] * lam[j];
        v[r] = s;
        if (fabs(c[r]) > scale) scale = fabs(c[r]);
    }
    int it = 0;
    for (it = 1; it <= max_iter; it++) {
        double change = 0.0;
        for (int i = 0; i < k; i++) {
            const int a = 3 * i;
            double old0 = lam[a], old1 = lam[a + 1], old2 = lam[a + 2];
            double n0 = old0, n1 = old1, n2 = old2;
            const double Bnn = G[(a + 2) * m + a + 2];
            if (Bnn > 0) {
                n2 = old2 - v[a + 2] / Bnn;
                if (n2 < 0.0) n2 = 0.0;
            }
            const double vt0 = v[a] + G[a * m + a + 2] * (n2 - old2);
            const double vt1 = v[a + 1] + G[(a + 1) * m + a + 2] * (n2 - old2);
            const double lim = mu[i] * n2;
            if (lim <= 0) {
                n0 = 0.0;
                n1 = 0.0;
            } else {
                double t0 = old0 - step_t[i] * vt0, t1 = old1 - step_t[i] * vt1;
                double nt = hypot(t0, t1);
                if (nt > lim) {
                    t0 *= lim / nt;
                    t1 *= lim / nt;
                }
                n0 = t0;
                n1 = t1;
            }
            const double d0 = n0 - old0, d1 = n1 - old1, d2 = n2 - old2;
            if (d0 != 0.0 || d1 != 0.0 || d2 != 0.0) {
                lam[a] = n0;
                lam[a + 1] = n1;
                lam[a + 2] = n2;
                for (int r = 0; r < m; r++) {
                    const double dv = G[r * m + a] * d0 + G[r * m + a + 1] * d1
                                      + G[r * m + a + 2] * d2;
                    v[r] += dv;
                    if (fabs(dv) > change) change = fabs(dv);
                }
            }
        }
        if (change <= tol * scale) break;
    }
    return it > max_iter ? max_iter : it;
}

static PyObject *py_pgs(PyObject *self, PyObject *args)
{
    PyObject *oG, *oc, *omu, *olam, *ostep;
    double tol;
    int max_iter;
    if (!PyArg_ParseTuple(args, "OOOOOdi", &oG, &oc, &omu, &olam, &ostep, &tol, &max_iter))
        return NULL;
    PyArrayObject *G = (PyArrayObject *)PyArray_FROM_OTF(oG, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *c = (PyArrayObject *)PyArray_FROM_OTF(oc, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *mu = (PyArrayObject *)PyArray_FROM_OTF(omu, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *st = (PyArrayObject *)PyArray_FROM_OTF(ostep, NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
    PyArrayObject *lam = (PyArrayObject *)PyArray_FROM_OTF(olam, NPY_DOUBLE,
                                                           NPY_ARRAY_ENSURECOPY | NPY_ARRAY_C_CONTIGUOUS);
    if (!G || !c || !mu || !st || !lam) {
        Py_XDECREF(G); Py_XDECREF(c); Py_XDECREF(mu); Py_XDECREF(st); Py_XDECREF(lam);
        return NULL;
    }
    const int k = (int)PyArray_SIZE(mu);
    npy_intp dims[1] = {3 * k};
    PyArrayObject *v = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    int it = 0;
    if (PyArray_SIZE(G) == 9 * (npy_intp)k * k && PyArray_SIZE(c) == 3 * k
        && PyArray_SIZE(lam) == 3 * k && PyArray_SIZE(st) == k) {
        Py_BEGIN_ALLOW_THREADS
        it = pgs(k, (double *)PyArray_DATA(G), (double *)PyArray_DATA(c),
                 (double *)PyArray_DATA(mu), (double *)PyArray_DATA(lam),
                 (double *)PyArray_DATA(v), (double *)PyArray_DATA(st), tol, max_iter);
        Py_END_ALLOW_THREADS
    } else {
        PyErr_SetString(PyExc_ValueError, "pgs: inconsistent sizes");
    }
    Py_DECREF(G); Py_DECREF(c); Py_DECREF(mu); Py_DECREF(st);
    if (PyErr_Occurred()) {
        Py_DECREF(lam); Py_DECREF(v);
        return NULL;
    }
    return Py_BuildValue("NNi", lam, v, it);
}

/* The contact problem of K contacts given in the world frame (v = G lam + c, 3 rows each),
   turned into each contact's frame R_a (columns: tangent, tangent, normal; R row-major
   (K, 3, 3)): Gc = B^T G B, cc = B^T c plus the landing / stabilization term of distances d
   on the normal rows, the warm start (world forces times dt) turned and projected on the
   cones, the tangential steps, the sweeps; out: the impulses in the world frame (lamw) and in
   the contacts' frames (lam) with the velocities v there. */
static int frame_pgs(int k, const double *G, const double *c, const double *R,
                     const double *d, const double *mu, const double *warm, double dt,
                     double stab, double tol, int max_iter, double *work, double *lam,
                     double *v, double *lamw)
{
    const int m = 3 * k;
    double *T = work, *Gc = work + m * m, *cc = work + 2 * m * m, *st = cc + m;
    for (int r = 0; r < m; r++)
        for (int b = 0; b < k; b++)
            for (int j = 0; j < 3; j++) {
                double s = 0.0;
                for (int i = 0; i < 3; i++) s += G[r * m + 3 * b + i] * R[9 * b + 3 * i + j];
                T[r * m + 3 * b + j] = s;
            }
    for (int a = 0; a < k; a++)
        for (int j = 0; j < 3; j++) {
            for (int col = 0; col < m; col++) {
                double s = 0.0;
                for (int i = 0; i < 3; i++) s += R[9 * a + 3 * i + j] * T[(3 * a + i) * m + col];
                Gc[(3 * a + j) * m + col] = s;
            }
            double s = 0.0, w = 0.0;
            for (int i = 0; i < 3; i++) {
                s += R[9 * a + 3 * i + j] * c[3 * a + i];
                w += R[9 * a + 3 * i + j] * (warm[3 * a + i] * dt);
            }
            cc[3 * a + j] = s;
            lam[3 * a + j] = w;
        }
    for (int a = 0; a < k; a++) {
        const double da = d[a];
        cc[3 * a + 2] += (da > 0 ? da : stab * da) / dt;
        double *L = lam + 3 * a;
        if (L[2] < 0.0) L[2] = 0.0;
        const double r = sqrt(L[0] * L[0] + L[1] * L[1]), lim = mu[a] * L[2];
        if (r > lim) {
            L[0] *= lim / r;
            L[1] *= lim / r;
        }
        const double *B = Gc + 3 * a * m + 3 * a;
        const double p = B[0], q = 0.5 * (B[1] + B[m]), e = B[m + 1];
        const double ev = 0.5 * (p + e) + hypot(0.5 * (p - e), q);
        st[a] = ev > 0 ? 1.0 / ev : 0.0;
    }
    const int it = pgs(k, Gc, cc, mu, lam, v, st, tol, max_iter);
    for (int a = 0; a < k; a++)
        for (int i = 0; i < 3; i++) {
            double s = 0.0;
            for (int j = 0; j < 3; j++) s += R[9 * a + 3 * i + j] * lam[3 * a + j];
            lamw[3 * a + i] = s;
        }
    return it;
}

static PyObject *py_frame_pgs(PyObject *self, PyObject *args)
{
    PyObject *o[6];
    double dt, stab, tol;
    int max_iter;
    if (!PyArg_ParseTuple(args, "OOOOOOdddi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &dt,
                          &stab, &tol, &max_iter))
        return NULL;
    PyArrayObject *a[6] = {NULL};
    const int ok = doubles(o, a, 6);
    PyObject *result = NULL;
    if (ok) {
        const int k = (int)PyArray_SIZE(a[4]), m = 3 * k;
        if (PyArray_SIZE(a[0]) != (npy_intp)m * m || PyArray_SIZE(a[1]) != m
            || PyArray_SIZE(a[2]) != 9 * k || PyArray_SIZE(a[3]) != k
            || PyArray_SIZE(a[5]) != m) {
            PyErr_SetString(PyExc_ValueError, "frame_pgs: inconsistent sizes");
        } else {
            npy_intp dims[1] = {m};
            PyArrayObject *lam = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
            PyArrayObject *v = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
            PyArrayObject *lamw = (PyArrayObject *)PyArray_SimpleNew(1, dims, NPY_DOUBLE);
            double *work = (double *)malloc(sizeof(double) * (2 * (size_t)m * m + m + k + 1));
            if (lam && v && lamw && work) {
                int it;
                Py_BEGIN_ALLOW_THREADS
                it = frame_pgs(k, (double *)PyArray_DATA(a[0]), (double *)PyArray_DATA(a[1]),
                               (double *)PyArray_DATA(a[2]), (double *)PyArray_DATA(a[3]),
                               (double *)PyArray_DATA(a[4]), (double *)PyArray_DATA(a[5]), dt,
                               stab, tol, max_iter, work, (double *)PyArray_DATA(lam),
                               (double *)PyArray_DATA(v), (double *)PyArray_DATA(lamw));
                Py_END_ALLOW_THREADS
                result = Py_BuildValue("NNNi", lamw, lam, v, it);
            } else {
                Py_XDECREF(lam); Py_XDECREF(v); Py_XDECREF(lamw);
                PyErr_NoMemory();
            }
            free(work);
        }
    }
    for (int i = 0; i < 6; i++) Py_XDECREF(a[i]);
    return result;
}

static void rm_xw(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* out = q (+) dt v: a floating base's exponential of SE(3) (the formulas of
   robmod.geometry.integrate: nq = 7 + n, nv = 6 + n), else q + dt v */
static void advance_state(int nq, int nv, int floating, const double *q, const double *v,
                          double dt, double *out)
{
    if (!floating) {
        for (int i = 0; i < nq; i++) out[i] = q[i] + dt * v[i];
        return;
    }
    double st[6], wxv[3], wwv[3], dP[3], d[3], Q[4], tt[3], ut[3], ud[3], Qn[4];
    for (int i = 0; i < 6; i++) st[i] = dt * v[i];
    const double *sv = st, *sw = st + 3;
    const double t2 = sw[0] * sw[0] + sw[1] * sw[1] + sw[2] * sw[2], t = sqrt(t2);
    double a, b, half;
    if (t < 1e-4) {
        a = 0.5 - t2 / 24 + t2 * t2 / 720;
        b = 1.0 / 6 - t2 / 120 + t2 * t2 / 5040;
        half = 0.5 - t2 / 48 + t2 * t2 / 3840;
    } else {
        a = (1 - cos(t)) / (t * t);
        b = (t - sin(t)) / (t * t * t);
        half = sin(t / 2) / t;
    }
    rm_xw(sw, sv, wxv);
    rm_xw(sw, wxv, wwv);
    for (int i = 0; i < 3; i++) {
        dP[i] = sv[i] + a * wxv[i] + b * wwv[i];
        d[i] = half * sw[i];
    }
    const double c0 = cos(t / 2);
    double s = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
    for (int i = 0; i < 4; i++) Q[i] = q[3 + i] / s;
    const double *u = Q + 1, w0 = Q[0];
    rm_xw(u, dP, tt);
    for (int i = 0; i < 3; i++) tt[i] *= 2;
    rm_xw(u, tt, ut);
    rm_xw(u, d, ud);
    Qn[0] = w0 * c0 - (u[0] * d[0] + u[1] * d[1] + u[2] * d[2]);
    for (int i = 0; i < 3; i++) {
        out[i] = q[i] + (dP[i] + w0 * tt[i] + ut[i]);
        Qn[1 + i] = w0 * d[i] + c0 * u[i] + ud[i];
    }
    s = sqrt(Qn[0] * Qn[0] + Qn[1] * Qn[1] + Qn[2] * Qn[2] + Qn[3] * Qn[3]);
    for (int i = 0; i < 4; i++) out[3 + i] = Qn[i] / s;
    for (int i = 7; i < nq; i++) out[i] = q[i] + dt * v[i - 1];
}

/* A time step against one plane (unit normal n through p0) from the contact problem's terms
   (flat: the Delassus model's output, robmod.dynamics.contact_problem): the points closer
   than the margin, Coulomb's problem in their frames (frame_pgs), the velocity after the
   step and the state; forces (3K) the mean forces (world), active (K). */
static int plane_step(int K, int nq, int nv, int floating, const double *flat,
                      const double *q, const double *qd, double dt, const double *n,
                      const double *p0, const double *mu, double margin, double stab,
                      const double *warm, double tol, int max_iter, double *work,
                      double *qn, double *v, double *forces, npy_bool *active)
{
    const int m = 3 * K;
    const double *G = flat, *Jv = flat + m * m, *Ja = Jv + m, *af = Ja + 2 * m;
    const double *MJ = af + nv, *X = MJ + m * nv;
    int *idx = (int *)work;
    double *w = work + K + 1, *dist = w, *mus = dist + K, *R = mus + K;
    int KA = 0;
    for (int a = 0; a < K; a++) {
        const double da = (X[3 * a] - p0[0]) * n[0] + (X[3 * a + 1] - p0[1]) * n[1]
                          + (X[3 * a + 2] - p0[2]) * n[2];
        active[a] = da < margin;
        if (da < margin) {
            idx[KA] = a;
            dist[KA] = da;
            mus[KA] = mu[a];
            KA++;
        }
    }
    for (int i = 0; i < nv; i++) v[i] = qd[i] + dt * af[i];
    for (int i = 0; i < m; i++) forces[i] = 0.0;
    int it = 0;
    if (KA > 0) {
        const int mA = 3 * KA;
        double t[3] = {1.0, 0.0, 0.0}, t1[3], t2[3];
        if (!(fabs(n[0]) < 0.9)) { t[0] = 0.0; t[1] = 1.0; }
        const double tn = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
        for (int i = 0; i < 3; i++) t1[i] = t[i] - tn * n[i];
        const double nt = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
        for (int i = 0; i < 3; i++) t1[i] /= nt;
        rm_xw(n, t1, t2);
        double *Gs = R + 9 * KA, *c = Gs + mA * mA, *ws = c + mA, *lam = ws + mA;
        double *vv = lam + mA, *lamw = vv + mA, *fw = lamw + mA;
        for (int a = 0; a < KA; a++) {
            for (int i = 0; i < 3; i++) {
                R[9 * a + 3 * i] = t1[i];
                R[9 * a + 3 * i + 1] = t2[i];
                R[9 * a + 3 * i + 2] = n[i];
                const int r = 3 * idx[a] + i;
                c[3 * a + i] = Jv[r] + dt * Ja[r];
                ws[3 * a + i] = warm[r];
                for (int b = 0; b < KA; b++)
                    for (int j = 0; j < 3; j++)
                        Gs[(3 * a + i) * mA + 3 * b + j] = G[r * m + 3 * idx[b] + j];
            }
        }
        it = frame_pgs(KA, Gs, c, R, dist, mus, ws, dt, stab, tol, max_iter, fw, lam, vv,
                       lamw);
        for (int i = 0; i < nv; i++) {
            double s = 0.0;
            for (int a = 0; a < KA; a++)
                for (int j = 0; j < 3; j++) s += MJ[(3 * idx[a] + j) * nv + i] * lamw[3 * a + j];
            v[i] += s;
        }
        for (int a = 0; a < KA; a++)
            for (int j = 0; j < 3; j++) forces[3 * idx[a] + j] = lamw[3 * a + j] / dt;
    }
    advance_state(nq, nv, floating, q, v, dt, qn);
    return it;
}

static PyObject *py_plane_step(PyObject *self, PyObject *args)
{
    PyObject *o[7];
    int floating, max_iter;
    double dt, margin, stab, tol;
    if (!PyArg_ParseTuple(args, "OOOOOOOiddddi", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                          &o[6], &floating, &dt, &margin, &stab, &tol, &max_iter))
        return NULL;
    PyArrayObject *a[7] = {NULL};
    const int ok = doubles(o, a, 7);
    PyObject *result = NULL;
    if (ok) {
        const int nq = (int)PyArray_SIZE(a[1]), nv = (int)PyArray_SIZE(a[2]);
        const int K = (int)PyArray_SIZE(a[5]), m = 3 * K;
        if (PyArray_SIZE(a[0]) != (npy_intp)m * m + 3 * m + nv + (npy_intp)m * nv + m
            || PyArray_SIZE(a[3]) != 3 || PyArray_SIZE(a[4]) != 3 || PyArray_SIZE(a[6]) != m
            || nq != nv + (floating ? 1 : 0) || (floating && nq < 7)) {
            PyErr_SetString(PyExc_ValueError, "plane_step: inconsistent sizes");
        } else {
            npy_intp dq[1] = {nq}, dv[1] = {nv}, df[1] = {m}, dk[1] = {K};
            PyArrayObject *qn = (PyArrayObject *)PyArray_SimpleNew(1, dq, NPY_DOUBLE);
            PyArrayObject *v = (PyArrayObject *)PyArray_SimpleNew(1, dv, NPY_DOUBLE);
            PyArrayObject *f = (PyArrayObject *)PyArray_SimpleNew(1, df, NPY_DOUBLE);
            PyArrayObject *act = (PyArrayObject *)PyArray_SimpleNew(1, dk, NPY_BOOL);
            double *work = (double *)malloc(sizeof(double) * (
                3 * (size_t)m * m + 16 * (size_t)m + 16 * (size_t)K + 8));
            if (qn && v && f && act && work) {
                int it;
                Py_BEGIN_ALLOW_THREADS
                it = plane_step(K, nq, nv, floating, (double *)PyArray_DATA(a[0]),
                                (double *)PyArray_DATA(a[1]), (double *)PyArray_DATA(a[2]),
                                dt, (double *)PyArray_DATA(a[3]), (double *)PyArray_DATA(a[4]),
                                (double *)PyArray_DATA(a[5]), margin, stab,
                                (double *)PyArray_DATA(a[6]), tol, max_iter, work,
                                (double *)PyArray_DATA(qn), (double *)PyArray_DATA(v),
                                (double *)PyArray_DATA(f), (npy_bool *)PyArray_DATA(act));
                Py_END_ALLOW_THREADS
                result = Py_BuildValue("NNNNi", qn, v, f, act, it);
            } else {
                Py_XDECREF(qn); Py_XDECREF(v); Py_XDECREF(f); Py_XDECREF(act);
                PyErr_NoMemory();
            }
            free(work);
        }
    }
    for (int i = 0; i < 7; i++) Py_XDECREF(a[i]);
    return result;
}
"""

_METHODS = (("pgs", "py_pgs", "projected Gauss-Seidel sweeps"),
            ("frame_pgs", "py_frame_pgs", "the sweeps of a problem in the world frame"),
            ("plane_step", "py_plane_step", "a time step against a plane"))


def _module():
    return None if backend() == "numpy" else kernel_module("rm_pgs_", _SOURCE, _METHODS)


def pgs_kernel():
    """The compiled ``pgs(G, c, mu, lam, step_t, tol, max_iter) -> (lam, v, sweeps)``, or
    None (no compiler, or the NumPy backend)."""
    module = _module()
    return None if module is None else module.pgs


def frame_kernel():
    """The compiled ``frame_pgs(G, c, frames, d, mu, warm, dt, stabilization, tol, max_iter)
    -> (impulses in the world, impulses and velocities in the contacts' frames, sweeps)``:
    :func:`~robmod.dynamics.time_stepping.frame_impulses` in one call (the world's problem
    turned into the contacts' frames, the warm start projected, the sweeps), or None."""
    module = _module()
    return None if module is None else module.frame_pgs


def plane_kernel():
    """The compiled ``plane_step(flat, q, qd, normal, point, mu, warm, floating, dt, margin,
    stabilization, tol, max_iter) -> (q, qd, forces, active, sweeps)``: a time step of
    :mod:`~robmod.dynamics.time_stepping` against one plane from the Delassus model's flat
    output (the contacts found, their problem solved, the velocity and the configuration
    advanced) in one call, or None."""
    module = _module()
    return None if module is None else module.plane_step
