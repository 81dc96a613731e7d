"""The C++ source of the CasADi export's compiled graph builder (:mod:`.casadi_graph`): the
walk and the module's function, after :data:`.casadi_graph_reader.READER`.

One function, ``build(statements, outputs, inputs, in_sx, out_sx, types, funcs, to_float, pi,
e)``, reads a model's statements as :class:`~robmod.symbolic.export_casadi._Program` reads
them -- the same cases in the same order, each SymPy node read once, one value per statement,
a symbol found by its object first, a number converted once per object -- and makes each
operation at once with ``casadi_math<SXElem>::fun``, the very function through which
``SX.binary`` and ``SX.unary`` make each element of their result in CasADi's library: the
nodes, their simplifications and so the graph are those of the Python path.  ``in_sx`` and
``out_sx`` are the addresses of ``casadi.SX`` column vectors made in Python (``int(x.this)``:
the C++ object behind the SWIG proxy, owned and kept alive by the caller): the inputs' nodes
are read from the first, the outputs' nodes written into the nonzeros of the second, of the
size checked here (dense vectors: only the elements change, not the sparsity).  It returns
the number of values, or None for a case the Python walk decides (a symbol that is neither an
input nor a statement, a function it does not export, an expression nested deeper than
``RM_DEPTH``, an integer power beyond 2^40): that walk then reports its own error or builds
the graph.  A Python exception raised while reading (by ``to_float``, say) propagates.
"""
from __future__ import annotations

from .casadi_graph_reader import READER

SOURCE = READER + r"""// the walk: one value per statement, one node per operation
struct Walk : Reader {
  PyObject *to_float, *inputs;
  double pi_value, e_value;
  std::vector<SXElem> v;                                      // the values
  ObjectMap<long> ids;                                        // a symbol's object -> value
  std::unordered_map<double, long> numbers;                   // a constant -> value
  ObjectMap<std::pair<bool, long>> coefficients;
  std::vector<std::pair<PyObject *, long>> assigned;          // the statements so far
  PyObject *env = nullptr;    // symbol -> value by equality, made at the first need
  size_t in_env = 0;
  int depth = 0;

  ~Walk() { Py_XDECREF(env); }

  // x's value if it is an input's or a statement's symbol (the same object)
  bool known(PyObject *x, long *out) {
    long *k = ids.find(x);
    if (k) *out = *k;
    return k != nullptr;
  }

  // a new value: the operation `code` of the values a (and b), as SX.unary and SX.binary
  // make each element
  long op(int code, long a, long b = -1) {
    if (v.size() == v.capacity()) v.reserve(2 * v.size());   // no move while v[a] is read
    v.emplace_back();
    casadi::casadi_math<SXElem>::fun(code, v[a], b >= 0 ? v[b] : v[a], v.back());
    return (long)v.size() - 1;
  }

  long number(double x) {
    auto it = numbers.find(x);
    if (it != numbers.end()) return it->second;
    long k = (long)v.size();
    v.emplace_back(x);
    numbers.emplace(x, k);
    return k;
  }

  // (negative, |c| as a value or -1 for 1), once per object
  std::pair<bool, long> coefficient(PyObject *c) {
    std::pair<bool, long> *known = coefficients.find(c);
    if (known) return *known;
    double x;
    if (!exact_double(c, &x)) {
      Ref f(PyObject_CallOneArg(to_float, c));
      x = PyFloat_AsDouble(f.o);
      if (x == -1.0 && PyErr_Occurred()) throw PyFail();
    }
    std::pair<bool, long> out(x < 0, std::fabs(x) == 1.0 ? -1 : number(std::fabs(x)));
    coefficients.put(c, out);
    return out;
  }

  long symbol(PyObject *s) {            // a symbol met as another object than its own
    if (!env) {
      env = PyDict_Copy(inputs);
      if (!env) throw PyFail();
    }
    for (; in_env < assigned.size(); ++in_env) {
      Ref k(PyLong_FromLong(assigned[in_env].second));
      if (PyDict_SetItem(env, assigned[in_env].first, k.o) < 0) throw PyFail();
    }
    PyObject *x = PyDict_GetItemWithError(env, s);
    if (!x) {
      if (PyErr_Occurred()) throw PyFail();
      throw Unsupported();
    }
    long k = PyLong_AsLong(x);
    if (k == -1 && PyErr_Occurred()) throw PyFail();
    return k;
  }

  long pow_int(PyObject *base, long long p) {
    long b = value(base), out = b;
    for (long long i = 1; i < p; ++i) out = op(casadi::OP_MUL, out, b);
    return out;
  }

  long power(PyObject *base, PyObject *exp) {
    if (kind(exp).flags & INTEGER) {
      long long p = integer(exp);
      if (p > 0) return pow_int(base, p);
      if (p < 0) {
        long one = number(1.0);
        return op(casadi::OP_DIV, one, pow_int(base, -p));
      }
    }
    if (exp == half) return op(casadi::OP_SQRT, value(base));
    long a = value(base);
    long b = value(exp);
    return op(casadi::OP_POW, a, b);
  }

  std::pair<bool, long> product(PyObject *t) {
    Ref args(args_of(t));
    Py_ssize_t n = PyTuple_GET_SIZE(args.o);
    PyObject *first = n ? PyTuple_GET_ITEM(args.o, 0) : nullptr;
    bool neg = false;
    long out = -1;
    std::vector<std::pair<PyObject *, long long>> den;
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *f = PyTuple_GET_ITEM(args.o, i);
      long x;
      if (!known(f, &x)) {
        Kind k = kind(f);
        if ((k.flags & NUMBER) && out < 0 && f == first) {
          std::pair<bool, long> c = coefficient(f);
          neg = c.first;
          out = c.second;
          continue;
        }
        if (k.flags & EXACT_POW) {
          Ref fa(args_of(f));
          std::pair<PyObject *, PyObject *> be = two(fa.o);
          if (kind(be.second).flags & INTEGER) {
            long long p = integer(be.second);
            if (p < 0) {
              den.emplace_back(be.first, -p);
              continue;
            }
          }
        }
        x = value(f);
      }
      out = out < 0 ? x : op(casadi::OP_MUL, out, x);
    }
    if (out < 0) out = number(1.0);
    for (auto &d : den) {
      long b = pow_int(d.first, d.second);
      out = op(casadi::OP_DIV, out, b);
    }
    return std::make_pair(neg, out);
  }

  long add(PyObject *e) {
    Ref args(args_of(e));
    Py_ssize_t n = PyTuple_GET_SIZE(args.o);
    prefetch(args.o);
    long out = -1;
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject *t = PyTuple_GET_ITEM(args.o, i);
      bool neg = false;
      long x;
      if (!known(t, &x)) {
        Kind k = kind(t);
        if (k.flags & EXACT_MUL) {
          std::pair<bool, long> p = product(t);
          neg = p.first;
          x = p.second;
        } else if (k.flags & NUMBER) {
          std::pair<bool, long> c = coefficient(t);
          neg = c.first;
          x = c.second < 0 ? number(1.0) : c.second;
        } else {
          x = value(t);
        }
      }
      if (out < 0)
        out = neg ? op(casadi::OP_NEG, x) : x;
      else
        out = op(neg ? casadi::OP_SUB : casadi::OP_ADD, out, x);
    }
    return out;
  }

  long value(PyObject *x) {
    long out;
    if (known(x, &out)) return out;
    if (++depth > RM_DEPTH) throw Unsupported();
    out = value_of(x);
    --depth;
    return out;
  }

  long value_of(PyObject *x) {
    Kind k = kind(x);
    if (k.flags & SYMBOL) return symbol(x);
    if (k.flags & ADD) return add(x);
    if (k.flags & MUL) {
      std::pair<bool, long> p = product(x);
      return p.first ? op(casadi::OP_NEG, p.second) : p.second;
    }
    if (k.flags & NUMBER) {
      std::pair<bool, long> c = coefficient(x);
      long y = c.second < 0 ? number(1.0) : c.second;
      return c.first ? op(casadi::OP_NEG, y) : y;
    }
    if (k.flags & POW) {
      if (k.flags & EXACT_POW) {
        Ref args(args_of(x));
        std::pair<PyObject *, PyObject *> be = two(args.o);
        return power(be.first, be.second);
      }
      Ref base(PyObject_GetAttr(x, s_base));
      Ref exp(PyObject_GetAttr(x, s_exp));
      return power(base.o, exp.o);
    }
    if (x == pi) return number(pi_value);
    if (x == e) return number(e_value);
    if (k.flags & ATAN2) {
      Ref args(args_of(x));
      std::pair<PyObject *, PyObject *> yx = two(args.o);
      long a = value(yx.first);
      long b = value(yx.second);
      return op(casadi::OP_ATAN2, a, b);
    }
    if (k.flags & FUNC) {
      Ref args(args_of(x));
      if (PyTuple_GET_SIZE(args.o) < 1) throw Unsupported();
      return op(k.code, value(PyTuple_GET_ITEM(args.o, 0)));
    }
    throw Unsupported();
  }
};

SX *sx_at(PyObject *address) {
  void *p = PyLong_AsVoidPtr(address);
  if (!p) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "build: a null SX address");
    throw PyFail();
  }
  return static_cast<SX *>(p);
}

PyObject *build(PyObject *, PyObject *args) {
  PyObject *statements, *outputs, *inputs, *in_sx, *out_sx, *types, *funcs, *to_float;
  double pi_value, e_value;
  if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!Odd", &PyTuple_Type, &statements, &PyList_Type,
                        &outputs, &PyDict_Type, &inputs, &PyList_Type, &in_sx, &PyList_Type,
                        &out_sx, &PyTuple_Type, &types, &PyDict_Type, &funcs, &to_float,
                        &pi_value, &e_value))
    return nullptr;
  if (PyTuple_GET_SIZE(types) != 7 || PyList_GET_SIZE(outputs) != PyList_GET_SIZE(out_sx)) {
    PyErr_SetString(PyExc_ValueError, "build: 7 types and one SX per output expected");
    return nullptr;
  }
  try {
    Walk w;
    w.add_t = PyTuple_GET_ITEM(types, 0);
    w.mul_t = PyTuple_GET_ITEM(types, 1);
    w.pow_t = PyTuple_GET_ITEM(types, 2);
    w.atan2_t = PyTuple_GET_ITEM(types, 3);
    w.pi = PyTuple_GET_ITEM(types, 4);
    w.e = PyTuple_GET_ITEM(types, 5);
    w.half = PyTuple_GET_ITEM(types, 6);
    w.funcs = funcs;
    w.to_float = to_float;
    w.inputs = inputs;
    w.pi_value = pi_value;
    w.e_value = e_value;
    Py_ssize_t n_in = PyDict_GET_SIZE(inputs), n_st = PyTuple_GET_SIZE(statements);
    w.v.reserve(4 * (size_t)n_st + (size_t)n_in + 64);
    w.ids.reserve((size_t)(n_st + n_in));
    w.assigned.reserve((size_t)n_st);
    for (Py_ssize_t g = 0; g < PyList_GET_SIZE(in_sx); ++g) {
      const std::vector<SXElem> &nz = sx_at(PyList_GET_ITEM(in_sx, g))->nonzeros();
      w.v.insert(w.v.end(), nz.begin(), nz.end());
    }
    if ((Py_ssize_t)w.v.size() != n_in) {
      PyErr_SetString(PyExc_ValueError, "build: as many input nodes as input symbols expected");
      return nullptr;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (PyDict_Next(inputs, &pos, &key, &val)) {
      long k = PyLong_AsLong(val);
      if (k == -1 && PyErr_Occurred()) throw PyFail();
      if (k < 0 || k >= n_in) throw Unsupported();
      w.ids.put(key, k);
    }
    for (Py_ssize_t i = 0; i < n_st; ++i) {
      w.ahead(statements, i);
      PyObject *st = PyTuple_GET_ITEM(statements, i);
      if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != 2) throw Unsupported();
      PyObject *lhs = PyTuple_GET_ITEM(st, 0), *rhs = PyTuple_GET_ITEM(st, 1);
      long x = (PyObject *)Py_TYPE(rhs) == w.add_t ? w.add(rhs) : w.value(rhs);
      w.ids.put(lhs, x);
      w.assigned.emplace_back(lhs, x);
    }
    std::vector<std::vector<long>> outs;
    for (Py_ssize_t o = 0; o < PyList_GET_SIZE(outputs); ++o) {
      PyObject *exprs = PyList_GET_ITEM(outputs, o);
      if (!PyTuple_Check(exprs)) throw Unsupported();
      outs.emplace_back();
      for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(exprs); ++j)
        outs.back().push_back(w.value(PyTuple_GET_ITEM(exprs, j)));
    }
    for (size_t o = 0; o < outs.size(); ++o) {
      std::vector<SXElem> &nz = sx_at(PyList_GET_ITEM(out_sx, o))->nonzeros();
      if (nz.size() != outs[o].size()) {
        PyErr_SetString(PyExc_ValueError, "build: an output SX of another size");
        return nullptr;
      }
      for (size_t j = 0; j < nz.size(); ++j) nz[j] = w.v[outs[o][j]];
    }
    return PyLong_FromSize_t(w.v.size());
  } catch (PyFail &) {
    return nullptr;
  } catch (Unsupported &) {
    if (PyErr_Occurred()) return nullptr;
    Py_RETURN_NONE;
  } catch (std::exception &ex) {
    PyErr_SetString(PyExc_RuntimeError, ex.what());
    return nullptr;
  }
}

PyMethodDef methods[] = {{"build", build, METH_VARARGS, "the SX graph of a model's statements"},
                         {nullptr, nullptr, 0, nullptr}};
PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "RM_MODNAME", nullptr, -1, methods};

}  // namespace

PyMODINIT_FUNC PyInit_RM_MODNAME(void) {
  s_args = PyUnicode_InternFromString("_args");
  s_p = PyUnicode_InternFromString("p");
  s_q = PyUnicode_InternFromString("q");
  s_mpf = PyUnicode_InternFromString("_mpf_");
  s_base = PyUnicode_InternFromString("base");
  s_exp = PyUnicode_InternFromString("exp");
  if (!s_args || !s_p || !s_q || !s_mpf || !s_base || !s_exp) return nullptr;
  return PyModule_Create(&moddef);
}
"""

__all__ = []
