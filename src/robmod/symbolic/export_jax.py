"""Export of customized models to JAX.

JAX is optional: ``pip install 'robmod[jax]'``.  :func:`to_jax` gives a pure function of
``jax.numpy`` arrays, each input (..., n) with any leading batch shape, returning one array
(..., *shape) per output: jit-able, vmap-able, differentiable (``jax.jacfwd``, ``jax.grad``), and
on an accelerator when JAX has one.  Its precision is JAX's: float32 unless ``jax_enable_x64``
is set (``jax.config.update("jax_enable_x64", True)``, which robot dynamics usually wants).

**Written so that XLA compiles it as written.**  A customized model shares its intermediate
variables between many outputs (sin q_2 and the first link's velocity reach every element of
the inertia matrix).  XLA on the CPU cannot give one fused loop several outputs, and its fusion
pass copies a value into every consumer it reaches through a different index mapping: written
as scalars stacked into the result, the inertia matrix of the Panda's URDF (12 function calls,
719 operations) compiled to 266 sines and cosines and 4,127 element-wise operations.  The
function therefore lays every value out along one extra axis of two equal copies (the inputs
are gathered into it: ``q[..., [k, k]]``), so that every statement has the output's shape and
index, and hands all the values over in one variadic ``lax.reduce`` (the maximum of the two
copies) whose operands are the output values -- the one operation of XLA that gives a single
loop many outputs.  On the CPU it computes every value once per configuration, four
configurations per AVX2 instruction, for a batch as for one configuration, and for each
configuration under ``jax.vmap`` (which batches the reduce as robmod's own batch axis).  The
compiled program has as many sines and cosines as the model, and about its operation count
(``tests/test_export_agreement.py`` checks it on the compiled HLO).

**Traced at the cost of its operations.**  The statements call JAX's element-wise primitives
(``lax.mul``, ``lax.add``, ``lax.sin``, ...) on operands of one shape and type (no promotion or
broadcasting rules at each operation: a model's constants are Python floats), every operation
takes the source location of the call of the model (JAX otherwise records and lowers the
Python traceback of each of the thousands of operations), and Python's cyclic garbage
collector waits while the model is traced (tracing allocates many short-lived objects, and each
full collection walks the whole heap, a robot's symbolic models included).  The Panda's IDM
derivatives (9,211 operations) are traced and lowered in about a fifth of a second instead of
1-2 s: their first call is then XLA's compilation.

:data:`CPU_COMPILER_OPTIONS` (the legacy CPU emitters) are kept for :func:`jit_function`: with
JAX's default fusion emitters the same program compiles several times slower.
"""
from __future__ import annotations

import ast
import functools
import gc
import math
import types

import numpy as np

from ..arguments import keyword_options, model_argument
from ..errors import ArgumentError, RobmodError
from .export_arrays import array_function_source, exec_function, split_outputs

JAX = "pip install 'robmod[jax]'"

#: XLA options for jitting robmod's models on the CPU (see the module's docstring)
CPU_COMPILER_OPTIONS = {"xla_cpu_use_fusion_emitters": False}

#: the derivatives (``jax.jvp``) of one configuration of a model with at most this many output
#: values are assembled by ``lax.select_n`` (its cost grows as the square of the values)
SELECT_MAX = 64

# the functions the printed source calls through ``np`` -> lax's element-wise primitives
_LAX_FUNCTIONS = {"sin": "sin", "cos": "cos", "tan": "tan", "sqrt": "sqrt", "exp": "exp",
                  "abs": "abs", "sign": "sign", "tanh": "tanh", "arctan2": "atan2",
                  "arcsin": "asin", "arccos": "acos", "arctan": "atan"}
_LAX_OPERATORS = {ast.Mult: "mul", ast.Add: "add", ast.Sub: "sub", ast.Div: "div"}


#: the functions of the printed source on Python numbers (a model's constants)
_MATH = types.SimpleNamespace(
    pi=math.pi, e=math.e, sin=math.sin, cos=math.cos, tan=math.tan, sqrt=math.sqrt,
    exp=math.exp, abs=abs, tanh=math.tanh, arctan2=math.atan2, arcsin=math.asin,
    arccos=math.acos, arctan=math.atan, sign=lambda x: float((x > 0) - (x < 0)))


def _jax_numpy():
    try:
        import jax.numpy as jnp
    except ImportError:
        raise RobmodError(f"the JAX export needs JAX: {JAX}") from None
    return jnp


def _jax_source(model, function_name: str = "model_function") -> str:
    """Python source of the JAX function as printed (``np`` stands for ``jax.numpy``; the
    layout helpers are those of :func:`_helpers`); :func:`_lax_tree` turns its statements into
    calls of lax's primitives."""
    return array_function_source(model, "rm_col({group}, {k}, rm_l)", function_name)


def _call(name, *args):
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


class _Lax:
    """The printed statements -> calls of lax's element-wise primitives (``rm_mul``,
    ``rm_sin``, ...) on arrays of the layout's shape and type.  A constant part of an
    expression stays Python arithmetic; each constant operand is made once per call as a
    scalar of the arrays' type (lax's primitives take no mixed types)."""

    def __init__(self):
        self.constants: dict = {}           # source of a constant -> its index

    def constant(self, node):
        """The name of the constant ``node`` (``rm_k[i]``), computed on Python numbers (its
        functions and pi those of ``rm_math``: JAX's would be traced)."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                    and sub.value.id == "np":
                sub.value = ast.Name("rm_math", ast.Load())
        key = ast.dump(node)
        i = self.constants.setdefault(key, (len(self.constants), node))[0]
        return ast.Subscript(ast.Name("rm_k", ast.Load()), ast.Constant(i), ast.Load())

    def operand(self, node, constant):
        return self.constant(node) if constant else node

    def __call__(self, node):
        """(converted node, constant) of a printed expression."""
        if isinstance(node, ast.Constant):
            v = node.value
            return (ast.Constant(float(v)) if isinstance(v, int) and not isinstance(v, bool)
                    else node), True
        if isinstance(node, ast.Name):
            return node, False
        if isinstance(node, ast.Attribute):             # np.pi, np.e
            return node, isinstance(node.value, ast.Name) and node.value.id == "np"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            x, const = self(node.operand)
            if const or isinstance(node.op, ast.UAdd):
                return ast.UnaryOp(node.op, x), const
            return _call("rm_neg", x), False
        if isinstance(node, ast.BinOp):
            (a, ca), (b, cb) = self(node.left), self(node.right)
            name = _LAX_OPERATORS.get(type(node.op))
            if ca and cb:
                return ast.BinOp(a, node.op, b), True
            if name is None:                            # a power: jnp's **
                return ast.BinOp(a, node.op, b), False
            return _call("rm_" + name, self.operand(a, ca), self.operand(b, cb)), False
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"
                and node.func.attr in _LAX_FUNCTIONS):
            args = [self(a) for a in node.args]
            if all(c for _, c in args):
                return ast.Call(node.func, [a for a, _ in args], []), True
            return _call("rm_" + _LAX_FUNCTIONS[node.func.attr],
                         *[self.operand(a, c) for a, c in args]), False
        return node, False                              # rm_col(...): an input's column


def _lax_tree(src: str) -> ast.Module:
    """The generated function with each statement ``X = expression`` computed by lax's
    primitives (a constant statement: the constant), the constants made after the layout:
    ``rm_k = rm_constants((...), rm_l)``."""
    tree = ast.parse(src)
    body = tree.body[0].body
    lax = _Lax()
    for st in body[1:-1]:
        value, const = lax(st.value)
        st.value = lax.constant(value) if const else value
    values = ast.Tuple([node for _, node in lax.constants.values()], ast.Load())
    body.insert(1, ast.Assign([ast.Name("rm_k", ast.Store())],
                              _call("rm_constants", values, ast.Name("rm_l", ast.Load()))))
    return ast.fix_missing_locations(tree)


def _helpers(jnp, select: bool):
    """The layout helpers and primitives of the generated function (see the module's
    docstring): the layout ``rm_l`` is (batch shape, width of the extra axis, dtype); with
    ``select``, one configuration of a model of at most :data:`SELECT_MAX` values lays them
    along an axis as long as the values, assembled by ``lax.select_n`` (differentiated)."""
    from jax import lax

    def layout(args, n_values):
        dt = jnp.result_type(float, *args)
        args = tuple(jnp.asarray(a, dtype=dt) for a in args)
        batch = tuple(np.broadcast_shapes(*(a.shape[:-1] for a in args))) if args else ()
        w = max(n_values, 1) if select and not batch and n_values <= SELECT_MAX else 2
        return args + ((batch, w, dt),)

    def col(a, k, layout):
        x = a[..., np.full(layout[1], k)]
        full = layout[0] + (layout[1],)
        return x if x.shape == full else jnp.broadcast_to(x, full)

    def maximum(a, b):
        return tuple(lax.max(x, y) for x, y in zip(a, b))

    def pack(values, layout, shapes):
        batch, w, dt = layout
        full = batch + (w,)
        values = tuple(jnp.broadcast_to(jnp.asarray(v, dtype=dt), full) for v in values)
        if not values:
            flat = jnp.zeros(batch + (0,), dt)
        elif w == 2:
            lows = tuple(jnp.array(-jnp.inf, dtype=dt) for _ in values)
            outs = lax.reduce(values, lows, maximum, (len(batch),))
            # side by side along a new last axis (under jax.vmap too: no transposition)
            flat = jnp.concatenate([v[..., None] for v in outs], axis=-1)
        elif len(values) > 1:
            flat = lax.select_n(lax.broadcasted_iota(np.int32, full, len(batch)), *values)
        else:
            flat = values[0]
        return split_outputs(flat, batch, shapes)

    def constants(values, layout):
        dt = np.dtype(layout[2])
        return [np.array(float(v), dtype=dt) for v in values]

    out = {"rm_layout": layout, "rm_col": col, "rm_pack": pack, "rm_constants": constants,
           "rm_math": _MATH,
           "rm_neg": lax.neg}
    for name in (*_LAX_OPERATORS.values(), *_LAX_FUNCTIONS.values()):
        out["rm_" + name] = getattr(lax, name)
    return out


def _traced_as_one(fn):
    """``fn`` whose operations take the source location of its call, Python's cyclic garbage
    collector paused while it runs (see the module's docstring)."""
    try:
        from jax.extend.source_info_util import current, user_context
    except ImportError:         # an older JAX: each operation keeps its own location
        current = user_context = None

    @functools.wraps(fn)
    def model_function(*args):
        enabled = gc.isenabled()
        gc.disable()
        try:
            if user_context is None:
                return fn(*args)
            with user_context(current().traceback):
                return fn(*args)
        finally:
            if enabled:
                gc.enable()

    return model_function


def jit_function(fn):
    """``jax.jit(fn)``, with :data:`CPU_COMPILER_OPTIONS` when JAX runs on the CPU."""
    _jax_numpy()
    import jax

    if not callable(fn):
        raise ArgumentError(f"jit_function: fn must be a function (e.g. to_jax(model)), got "
                            f"{type(fn).__name__}")
    opts = CPU_COMPILER_OPTIONS if jax.default_backend() == "cpu" else None
    return jax.jit(fn, compiler_options=opts)


@keyword_options()
def to_jax(model, *, jit: bool = False):
    """The model as a pure JAX function (see the module's docstring): ``f(q, qd, ...,
    [params])``, inputs in the order of ``model.inputs`` (``params``, a vector in the order of
    ``model.parameters``, last); ``jit``: compiled by :func:`jit_function`."""
    model_argument(model, "to_jax")
    jnp = _jax_numpy()
    import jax

    src = _jax_source(model)
    label = f"<robmod jax {model.name}>"
    code = compile(_lax_tree(src), label, "exec")
    doc = f"{model.title or model.name} (JAX, generated by robmod)"
    plain = _traced_as_one(exec_function(code, {"np": jnp, **_helpers(jnp, False)}, label, doc))
    select = []

    @jax.custom_jvp
    def model_function(*args):
        return plain(*args)

    @model_function.defjvp
    def model_function_jvp(primals, tangents):
        # differentiated through lax.select_n for one configuration (JAX's derivative of a
        # variadic reduce splits it value by value: XLA would copy each one's dependencies)
        if not select:
            select.append(_traced_as_one(exec_function(
                code, {"np": jnp, **_helpers(jnp, True)}, label, doc)))
        return jax.jvp(select[0], primals, tangents)

    fn = model_function
    fn.__doc__, fn.source = doc, src
    return jit_function(fn) if jit else fn


__all__ = ["to_jax", "jit_function", "CPU_COMPILER_OPTIONS"]
