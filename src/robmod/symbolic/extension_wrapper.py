"""The C side of a compiled model's extension module (:mod:`.compile`).

The entries, vectorcall functions taking NumPy buffers:

* ``single(inputs...)``: one configuration, a new array, no check;
* ``checked(inputs...)``: one configuration; None unless the inputs are 1-D float64 arrays of
  the model's sizes and every input and output value is finite (the plain functions' single
  call); with ``RM_PARTS`` (an output marked ``parts``), a tuple of the output's slices
  along its first axis, new arrays;
* ``batch(n, inputs..., out[, counter])`` and ``checked_batch(...)``: n configurations with
  the GIL released; with a shared counter, several threads take chunks of one batch in turn.

The module's source puts before this text the model's functions and the constants
``RM_NG``, ``RM_NOUT``, ``rm_sizes``, ``rm_batched``, ``RM_CALL_SINGLE``, ``RM_CALL_RANGE``...
(:func:`.compile.extension_source`).
"""
from __future__ import annotations

# before the model's functions: the finiteness test of one value, used by the wrapper's checks
# and by the vectorized kernel's (:mod:`.lanes`): the bits of x - x, zero for a finite x,
# those of a NaN otherwise
C_NOT_FINITE = r"""
static inline unsigned long long rm_nf(double x)
{
    double d = x - x;
    unsigned long long b;
    memcpy(&b, &d, sizeof b);
    return b;
}
"""

C_WRAPPER = r"""
static PyArrayObject *rm_arr(PyObject *o, npy_intp need, const char *what)
{
    PyArrayObject *a;
    if (PyArray_Check(o) && PyArray_TYPE((PyArrayObject *)o) == NPY_DOUBLE &&
        PyArray_IS_C_CONTIGUOUS((PyArrayObject *)o)) {
        a = (PyArrayObject *)o;
        Py_INCREF(a);
    } else {
        a = (PyArrayObject *)PyArray_FROMANY(o, NPY_DOUBLE, 0, 0, NPY_ARRAY_IN_ARRAY);
        if (a == NULL) return NULL;
    }
    if (PyArray_SIZE(a) < need) {
        PyErr_Format(PyExc_ValueError, "%s has %zd values, %zd needed", what,
                     (Py_ssize_t)PyArray_SIZE(a), (Py_ssize_t)need);
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* single(inputs...) -> new array of the output shape (one configuration) */
static PyObject *rm_single(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *b[RM_NG + 1];
    PyObject *res;
    int k;
    if (nargs != RM_NG) {
        PyErr_SetString(PyExc_TypeError, "wrong number of arguments");
        return NULL;
    }
    for (k = 0; k < RM_NG; k++) {
        b[k] = rm_arr(args[k], rm_sizes[k], "input");
        if (b[k] == NULL) { while (--k >= 0) Py_DECREF(b[k]); return NULL; }
    }
    res = PyArray_SimpleNew(RM_OUT_NDIM, (npy_intp *)rm_out_dims, NPY_DOUBLE);
    if (res != NULL) {
        b[RM_NG] = (PyArrayObject *)res;
        RM_CALL_SINGLE;
    }
    for (k = 0; k < RM_NG; k++) Py_DECREF(b[k]);
    return res;
}

/* checked(inputs...) -> the output of one configuration, or None when an input is not a
   1-D float64 array of exactly its size, holds NaN/inf, or the output is not finite (the
   caller then takes its checking path, which names the argument) */
static int rm_finite(const double *x, npy_intp n)
{
    /* one OR over the bits of x - x: a loop without exit that the compiler vectorizes */
    unsigned long long bad = 0;
    npy_intp i;
    for (i = 0; i < n; i++) bad |= rm_nf(x[i]);
    return bad == 0;
}

static PyObject *rm_checked(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *b[RM_NG + 1];
    PyObject *res;
    int k;
    if (nargs != RM_NG) Py_RETURN_NONE;
    for (k = 0; k < RM_NG; k++) {
        PyObject *o = args[k];
        if (!PyArray_Check(o) || PyArray_TYPE((PyArrayObject *)o) != NPY_DOUBLE ||
            !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)o) ||
            PyArray_NDIM((PyArrayObject *)o) != 1 ||
            PyArray_SIZE((PyArrayObject *)o) != rm_sizes[k] ||
            !rm_finite((const double *)PyArray_DATA((PyArrayObject *)o), rm_sizes[k]))
            Py_RETURN_NONE;
        b[k] = (PyArrayObject *)o;
    }
#ifdef RM_PARTS
    /* the output's slices along its first axis, each a new array, in a tuple */
    {
        double o[RM_NOUT];
        const npy_intp each = RM_NOUT / RM_PARTS;
        RM_CALL_SINGLE_TO(o);
        if (!rm_finite(o, RM_NOUT)) Py_RETURN_NONE;
        res = PyTuple_New(RM_PARTS);
        if (res == NULL) return NULL;
        for (k = 0; k < RM_PARTS; k++) {
            PyObject *a = PyArray_SimpleNew(RM_OUT_NDIM - 1, (npy_intp *)rm_out_dims + 1,
                                            NPY_DOUBLE);
            if (a == NULL) { Py_DECREF(res); return NULL; }
            memcpy(PyArray_DATA((PyArrayObject *)a), o + k * each, each * sizeof(double));
            PyTuple_SET_ITEM(res, k, a);
        }
        return res;
    }
#endif
    res = PyArray_SimpleNew(RM_OUT_NDIM, (npy_intp *)rm_out_dims, NPY_DOUBLE);
    if (res == NULL) return NULL;
    b[RM_NG] = (PyArrayObject *)res;
    RM_CALL_SINGLE;
    if (!rm_finite((const double *)PyArray_DATA((PyArrayObject *)res), RM_NOUT)) {
        Py_DECREF(res);
        Py_RETURN_NONE;
    }
    return res;
}

/* configurations i0 .. i0 + m - 1 of the batch b (inputs..., out); check: returns 0 when an
   input or an output value is NaN or infinite (out undefined) */
static int rm_range(PyArrayObject **b, long i0, long m, int check)
{
    const double *P[RM_NG + 1];
    double *O = (double *)PyArray_DATA(b[RM_NG]) + i0 * RM_NOUT;
    int k;
    for (k = 0; k < RM_NG; k++)
        P[k] = (const double *)PyArray_DATA(b[k]) + (rm_batched[k] ? i0 * rm_sizes[k] : 0);
    if (!check) {
        RM_CALL_RANGE(m, P, O);
        return 1;
    }
#ifdef RM_FUSED_CHECK   /* the vectorized kernel checks its blocks itself */
    return RM_CALL_RANGE(m, P, O);
#else                   /* by chunks that stay in the cache: check inputs, run, check outputs */
    {
        const double *Q[RM_NG + 1];
        long j, c;
        for (k = 0; k < RM_NG; k++)
            if (!rm_batched[k] && !rm_finite(P[k], rm_sizes[k])) return 0;
        for (j = 0; j < m; j += RM_CHECK_CHUNK) {
            c = m - j < RM_CHECK_CHUNK ? m - j : RM_CHECK_CHUNK;
            for (k = 0; k < RM_NG; k++) {
                Q[k] = P[k] + (rm_batched[k] ? j * rm_sizes[k] : 0);
                if (rm_batched[k] && !rm_finite(Q[k], c * rm_sizes[k])) return 0;
            }
            RM_CALL_RANGE(c, Q, O + j * RM_NOUT);
            if (!rm_finite(O + j * RM_NOUT, c * RM_NOUT)) return 0;
        }
        return 1;
    }
#endif
}

/* batch(n, inputs..., out[, counter]) : n configurations, inputs and out C-contiguous float64.
   checked_batch(...): the same, returns False (out undefined) when an input or an output value
   is NaN or infinite.  With counter (an int64 array, first value 0), the threads that call it
   on the same batch take chunks of RM_SHARE_CHUNK configurations in turn, without the GIL:
   a thread that starts late, or whose core is taken away for a while, does less. */
static PyObject *rm_run(PyObject *const *args, Py_ssize_t nargs, int check)
{
    PyArrayObject *b[RM_NG + 1];
    long long *counter = NULL;
    long n;
    int k, ok = 1;
    if (nargs == RM_NG + 3) {
        PyObject *c = args[RM_NG + 2];
        if (!PyArray_Check(c) || PyArray_TYPE((PyArrayObject *)c) != NPY_INT64 ||
            !PyArray_ISWRITEABLE((PyArrayObject *)c) || PyArray_SIZE((PyArrayObject *)c) < 1 ||
            !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)c)) {
            PyErr_SetString(PyExc_ValueError, "counter must be a writable int64 array");
            return NULL;
        }
        counter = (long long *)PyArray_DATA((PyArrayObject *)c);
    } else if (nargs != RM_NG + 2) {
        PyErr_SetString(PyExc_TypeError, "wrong number of arguments");
        return NULL;
    }
    n = PyLong_AsLong(args[0]);
    if (n < 0 || PyErr_Occurred()) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "n must be >= 0");
        return NULL;
    }
    for (k = 0; k <= RM_NG; k++) {
        npy_intp need = k < RM_NG ? (rm_batched[k] ? n * rm_sizes[k] : rm_sizes[k]) : n * RM_NOUT;
        if (k == RM_NG) {
            PyObject *o = args[k + 1];
            if (!PyArray_Check(o) || PyArray_TYPE((PyArrayObject *)o) != NPY_DOUBLE ||
                !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)o) ||
                !PyArray_ISWRITEABLE((PyArrayObject *)o) ||
                PyArray_SIZE((PyArrayObject *)o) < need) {
                PyErr_SetString(PyExc_ValueError, "out must be a writable C-contiguous float64 "
                                                  "array of the right size");
                b[k] = NULL;
            } else {
                b[k] = (PyArrayObject *)o;
                Py_INCREF(o);
            }
        } else {
            b[k] = rm_arr(args[k + 1], need, "input");
        }
        if (b[k] == NULL) { while (--k >= 0) Py_DECREF(b[k]); return NULL; }
    }
    Py_BEGIN_ALLOW_THREADS
    if (counter == NULL) {
        ok = rm_range(b, 0, n, check);
    } else {
        for (;;) {
            long long i0 = __atomic_fetch_add(counter, RM_SHARE_CHUNK, __ATOMIC_RELAXED);
            if (i0 >= n) break;
            if (!rm_range(b, (long)i0, n - i0 < RM_SHARE_CHUNK ? n - i0 : RM_SHARE_CHUNK, check)) {
                ok = 0;
                __atomic_store_n(counter, (long long)n, __ATOMIC_RELAXED);  /* the others stop */
                break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    for (k = 0; k <= RM_NG; k++) Py_DECREF(b[k]);
    if (check) return PyBool_FromLong(ok);
    Py_RETURN_NONE;
}

static PyObject *rm_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return rm_run(args, nargs, 0);
}

static PyObject *rm_checked_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return rm_run(args, nargs, 1);
}

static PyMethodDef rm_methods[] = {
    {"single", (PyCFunction)(void (*)(void))rm_single, METH_FASTCALL, "one configuration"},
    {"checked", (PyCFunction)(void (*)(void))rm_checked, METH_FASTCALL, "one checked configuration"},
    {"batch", (PyCFunction)(void (*)(void))rm_batch, METH_FASTCALL, "n configurations"},
    {"checked_batch", (PyCFunction)(void (*)(void))rm_checked_batch, METH_FASTCALL,
     "n checked configurations"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef rm_module = {PyModuleDef_HEAD_INIT, "RM_MODNAME", NULL, -1, rm_methods};

PyMODINIT_FUNC PyInit_RM_MODNAME(void)
{
    import_array();
    return PyModule_Create(&rm_module);
}
"""


__all__ = []
