"""The projected Gauss-Seidel sweeps of :mod:`.contact_solver` in C (compiled once per
machine by robmod's compiler, :mod:`robmod.symbolic.compile`, cached on disk like the models):
the NumPy loop's sweeps (the same results to rounding: the sums are taken in another order),
a hundred times faster -- the simulation of a walking robot spent most of its time there.  Without a C compiler
(or with ``ROBMOD_BACKEND=numpy``) the NumPy loop runs."""
from __future__ import annotations

import hashlib

import numpy as np

from ..symbolic.compile import build_from_source
from ..symbolic.fastpath import backend

__all__ = []

_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <math.h>

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

static PyMethodDef methods[] = {
    {"pgs", py_pgs, METH_VARARGS, "projected Gauss-Seidel sweeps"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "RM_MODNAME", NULL, -1, methods};

PyMODINIT_FUNC PyInit_RM_MODNAME(void)
{
    import_array();
    return PyModule_Create(&moddef);
}
"""

_STATE = {"module": None, "tried": False}


def pgs_kernel():
    """The compiled ``pgs(G, c, mu, lam, step_t, tol, max_iter) -> (lam, v, sweeps)``, or
    None (no compiler, or the NumPy backend)."""
    if backend() == "numpy":
        return None
    if not _STATE["tried"]:
        _STATE["tried"] = True
        name = "rm_pgs_" + hashlib.sha1(_SOURCE.encode()).hexdigest()[:16]
        module = build_from_source(name, _SOURCE.replace("RM_MODNAME", name))
        _STATE["module"] = None if module is None else module.pgs
    return _STATE["module"]
