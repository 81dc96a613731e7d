"""The first part of the C++ source of the CasADi export's compiled graph builder
(:mod:`.casadi_graph_walk` has the rest): the headers, the reading of SymPy's objects -- the
kinds of their types read once from SymPy's class attributes (``is_Add``, ``is_Mul``, ...), their
arguments read from the ``_args`` slot where the type has one, a number's double computed
where it is exact (a Float of at most 53 bits, a Rational of small integers), the objects of
the next statements and terms fetched into the cache ahead of their reading -- and a map from
objects to values by address (open addressing, as Python's ``id``)."""
from __future__ import annotations

READER = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <casadi/casadi.hpp>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#define RM_DEPTH 2000
#ifdef Py_T_OBJECT_EX
#define RM_T_OBJECT_EX Py_T_OBJECT_EX
#else
#define RM_T_OBJECT_EX T_OBJECT_EX
#endif

namespace {

using casadi::SX;
using casadi::SXElem;

struct PyFail {};        // a Python exception is set
struct Unsupported {};   // a case the Python walk decides

enum : unsigned {
  SYMBOL = 1u, ADD = 2u, MUL = 4u, NUMBER = 8u, POW = 16u, INTEGER = 32u, FLOAT = 64u,
  RATIONAL = 128u, EXACT_MUL = 256u, EXACT_POW = 512u, ATAN2 = 1024u, FUNC = 2048u
};
const int N_FLAGS = 8;
const char *const FLAG_NAMES[N_FLAGS] = {"is_Symbol", "is_Add", "is_Mul", "is_Number",
                                         "is_Pow", "is_Integer", "is_Float", "is_Rational"};
const unsigned FLAG_BITS[N_FLAGS] = {SYMBOL, ADD, MUL, NUMBER, POW, INTEGER, FLOAT, RATIONAL};
PyObject *s_args, *s_p, *s_q, *s_mpf, *s_base, *s_exp;

struct Kind {            // what SymPy's class attributes say of a type
  unsigned flags;
  int code;              // CasADi's operation of a function (FUNC)
  Py_ssize_t args_at;    // the offset of its slot _args in an object, or -1
};

// a map from objects (their addresses, as Python's id) to values: open addressing
template <class V> struct ObjectMap {
  std::vector<std::pair<const void *, V>> slots;
  size_t used = 0;
  int shift = 60;

  ObjectMap() : slots(16) {}
  size_t at(const void *p) const {
    return (size_t)(((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> shift);
  }
  V *find(const void *p) {
    size_t mask = slots.size() - 1;
    for (size_t i = at(p);; i = (i + 1) & mask) {
      if (slots[i].first == p) return &slots[i].second;
      if (!slots[i].first) return nullptr;
    }
  }
  void reserve(size_t n) {
    size_t size = slots.size();
    int shift_ = shift;
    while (size < 2 * n + 16) { size <<= 1; --shift_; }
    if (size == slots.size()) return;
    std::vector<std::pair<const void *, V>> old(size);
    old.swap(slots);
    shift = shift_;
    used = 0;
    for (auto &s : old)
      if (s.first) put(s.first, s.second);
  }
  void put(const void *p, V v) {      // insert or replace
    if (2 * (used + 1) > slots.size()) reserve(2 * used + 2);
    size_t mask = slots.size() - 1;
    for (size_t i = at(p);; i = (i + 1) & mask) {
      if (slots[i].first == p) { slots[i].second = v; return; }
      if (!slots[i].first) { slots[i].first = p; slots[i].second = v; ++used; return; }
    }
  }
};

struct Ref {             // a new reference, released at the end of its scope
  PyObject *o;
  explicit Ref(PyObject *p) : o(p) { if (!p) throw PyFail(); }
  ~Ref() { Py_XDECREF(o); }
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
};

// an exact int below 2^53 in magnitude, else false
bool small_int(PyObject *n, long long *out) {
  if (!PyLong_CheckExact(n)) return false;
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(n, &overflow);
  if (x == -1 && PyErr_Occurred()) throw PyFail();
  if (overflow || x > (1LL << 53) || x < -(1LL << 53)) return false;
  *out = x;
  return true;
}

// (first, second) of an expression's arguments (a tuple)
std::pair<PyObject *, PyObject *> two(PyObject *args) {
  if (PyTuple_GET_SIZE(args) < 2) throw Unsupported();
  return std::make_pair(PyTuple_GET_ITEM(args, 0), PyTuple_GET_ITEM(args, 1));
}

// what the walk reads of SymPy's objects: the kinds of their types (by SymPy's class
// attributes, as the Python walk tests them), their arguments, their numbers
struct Reader {
  PyObject *add_t, *mul_t, *pow_t, *atan2_t, *pi, *e, *half, *funcs;
  ObjectMap<Kind> kinds;

  Kind kind(PyObject *o) {
    PyTypeObject *t = Py_TYPE(o);
    Kind *known = kinds.find(t);
    if (known) return *known;
    Kind k{0u, -1, -1};
    for (int i = 0; i < N_FLAGS; ++i) {
      PyObject *a = PyObject_GetAttrString((PyObject *)t, FLAG_NAMES[i]);
      if (!a) { PyErr_Clear(); throw Unsupported(); }
      bool is_bool = PyBool_Check(a), set = a == Py_True;
      Py_DECREF(a);
      if (!is_bool) throw Unsupported();
      if (set) k.flags |= FLAG_BITS[i];
    }
    if ((PyObject *)t == mul_t) k.flags |= EXACT_MUL;
    if ((PyObject *)t == pow_t) k.flags |= EXACT_POW;
    int sub = PyObject_IsSubclass((PyObject *)t, atan2_t);
    if (sub < 0) throw PyFail();
    if (sub) k.flags |= ATAN2;
    PyObject *code = PyDict_GetItemWithError(funcs, (PyObject *)t);
    if (code) {
      k.flags |= FUNC;
      k.code = (int)PyLong_AsLong(code);
      if (k.code == -1 && PyErr_Occurred()) throw PyFail();
    } else if (PyErr_Occurred()) {
      throw PyFail();
    }
    PyObject *slot = PyObject_GetAttr((PyObject *)t, s_args);    // a member descriptor
    if (!slot) {
      PyErr_Clear();
    } else {
      if (Py_TYPE(slot) == &PyMemberDescr_Type) {
        PyMemberDef *m = ((PyMemberDescrObject *)slot)->d_member;
        if (m->type == RM_T_OBJECT_EX) k.args_at = m->offset;
      }
      Py_DECREF(slot);
    }
    kinds.put(t, k);
    return k;
  }

  // the items of a tuple and their _args fetched into the cache ahead of their reading (a
  // model's objects are scattered in memory: without it, each costs a cache miss in turn)
  void prefetch(PyObject *items) {
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    for (Py_ssize_t i = 0; i < n; ++i) __builtin_prefetch(PyTuple_GET_ITEM(items, i));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *x = PyTuple_GET_ITEM(items, i);
      Kind *k = kinds.find(Py_TYPE(x));
      if (k && k->args_at >= 0) {
        PyObject *a = *(PyObject **)((char *)x + k->args_at);
        if (a) __builtin_prefetch(a);
      }
    }
  }

  // the statements after the i-th fetched into the cache by stages: the pair 8 ahead, its
  // right-hand side 4 ahead, that one's arguments 2 ahead
  void ahead(PyObject *statements, Py_ssize_t i) {
    Py_ssize_t n = PyTuple_GET_SIZE(statements);
    if (i + 8 < n) __builtin_prefetch(PyTuple_GET_ITEM(statements, i + 8));
    if (i + 4 < n) {
      PyObject *st = PyTuple_GET_ITEM(statements, i + 4);
      if (PyTuple_Check(st) && PyTuple_GET_SIZE(st) == 2) __builtin_prefetch(PyTuple_GET_ITEM(st, 1));
    }
    if (i + 2 < n) {
      PyObject *st = PyTuple_GET_ITEM(statements, i + 2);
      if (PyTuple_Check(st) && PyTuple_GET_SIZE(st) == 2) {
        PyObject *rhs = PyTuple_GET_ITEM(st, 1);
        Kind *k = kinds.find(Py_TYPE(rhs));
        if (k && k->args_at >= 0) {
          PyObject *a = *(PyObject **)((char *)rhs + k->args_at);
          if (a) __builtin_prefetch(a);
        }
      }
    }
  }

  // an expression's _args (a new reference to a tuple), read from its slot where the type has
  // one; anything but a tuple is left to the Python walk
  PyObject *args_of(PyObject *x) {
    Py_ssize_t at = kind(x).args_at;
    if (at >= 0) {
      PyObject *a = *(PyObject **)((char *)x + at);
      if (a && PyTuple_Check(a)) {
        Py_INCREF(a);
        return a;
      }
    }
    PyObject *a = PyObject_GetAttr(x, s_args);
    if (a && !PyTuple_Check(a)) {
      Py_DECREF(a);
      throw Unsupported();
    }
    return a;
  }

  // the double _float gives where it is one rounding (or none): a Float of at most 53 bits in
  // the normal range, a Rational of integers below 2^53; false: _float itself decides
  bool exact_double(PyObject *c, double *out) {
    unsigned flags = kind(c).flags;
    if (flags & FLOAT) {
      Ref m(PyObject_GetAttr(c, s_mpf));
      long long sign, man, exp, bc;
      if (!PyTuple_CheckExact(m.o) || PyTuple_GET_SIZE(m.o) != 4 ||
          !small_int(PyTuple_GET_ITEM(m.o, 0), &sign) ||
          !small_int(PyTuple_GET_ITEM(m.o, 1), &man) ||
          !small_int(PyTuple_GET_ITEM(m.o, 2), &exp) ||
          !small_int(PyTuple_GET_ITEM(m.o, 3), &bc))
        return false;
      if (man == 0) {
        if (sign != 0 || exp != 0 || bc != 0) return false;   // mpmath's infinities, nan
        *out = 0.0;
        return true;
      }
      if (man < 0 || bc < 1 || bc > 53 || exp + bc - 1 < -1022 || exp + bc > 1024)
        return false;
      double x = std::ldexp((double)man, (int)exp);
      *out = sign ? -x : x;
      return true;
    }
    if (flags & RATIONAL) {
      Ref p(PyObject_GetAttr(c, s_p));
      Ref q(PyObject_GetAttr(c, s_q));
      long long a, b;
      if (!small_int(p.o, &a) || !small_int(q.o, &b) || b <= 0) return false;
      *out = b == 1 ? (double)a : (double)a / (double)b;
      return true;
    }
    return false;
  }

  long long integer(PyObject *n) {      // an Integer's p
    Ref p(PyObject_GetAttr(n, s_p));
    int overflow = 0;
    long long out = PyLong_AsLongLongAndOverflow(p.o, &overflow);
    if (out == -1 && PyErr_Occurred()) throw PyFail();
    if (overflow || out > (1LL << 40) || out < -(1LL << 40)) throw Unsupported();
    return out;
  }

};

"""

__all__ = []
