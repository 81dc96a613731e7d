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
719 operations) compiled to 266 sines and cosines and 4,127 element-wise operations.  The function therefore lays every
value out along one extra axis of width ``w`` (the inputs are gathered into it: ``q[..., [k,
k]]``), so that every statement has the output's shape and index, and hands the values over in
one step:

* a batch of configurations (or a model of more than :data:`SELECT_MAX` values): ``w = 2`` and
  one variadic ``lax.reduce`` (the maximum of the two equal copies) whose operands are the
  output values -- the one operation of XLA that gives a single loop many outputs.  On the CPU
  it computes every value once per configuration, four configurations per AVX2 instruction;
* one configuration of a model of at most :data:`SELECT_MAX` values (and each configuration
  under ``jax.vmap``): ``w`` = the number of values and ``lax.select_n`` on the position along
  that axis, one fused loop whose values LLVM computes once (no per-output buffers).

The compiled program then has as many sines and cosines as the model has, and about its
operation count (``tests/test_export_graphs.py`` checks it on the compiled HLO).
:data:`CPU_COMPILER_OPTIONS` (the legacy CPU emitters) are kept for :func:`jit_function`: with
JAX's default fusion emitters the same program compiles several times slower.
"""
from __future__ import annotations

import numpy as np

from ..arguments import keyword_options, model_argument
from ..errors import ArgumentError, RobmodError
from .export_arrays import array_function_source, exec_function, split_outputs

JAX = "pip install 'robmod[jax]'"

#: XLA options for jitting robmod's models on the CPU (see the module's docstring)
CPU_COMPILER_OPTIONS = {"xla_cpu_use_fusion_emitters": False}

#: models with at most this many output values are assembled by ``lax.select_n`` for one
#: configuration (its cost grows as the square of the number of values)
SELECT_MAX = 64


def _jax_numpy():
    try:
        import jax.numpy as jnp
    except ImportError:
        raise RobmodError(f"the JAX export needs JAX: {JAX}") from None
    return jnp


def _jax_source(model, function_name: str = "model_function") -> str:
    """Python source of the JAX function (``np`` stands for ``jax.numpy``; the layout helpers
    are those of :func:`_helpers`)."""
    return array_function_source(model, "rm_col({group}, {k}, rm_l)", function_name)


def _helpers(jnp):
    """The layout helpers of the generated function (see the module's docstring): the layout
    ``rm_l`` is (batch shape, width of the extra axis, dtype)."""
    from jax import lax

    def layout(args, n_values):
        dt = jnp.result_type(float, *args)
        args = tuple(jnp.asarray(a, dtype=dt) for a in args)
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in args)) if args else ()
        w = 2 if (batch or n_values > SELECT_MAX) else max(n_values, 1)
        return args + ((batch, w, dt),)

    def col(a, k, layout):
        return a[..., np.full(layout[1], k)]

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
            flat = jnp.stack(lax.reduce(values, lows, maximum, (len(batch),)), axis=-1)
        elif len(values) > 1:
            flat = lax.select_n(lax.broadcasted_iota(np.int32, full, len(batch)), *values)
        else:
            flat = values[0]
        return split_outputs(flat, batch, shapes)

    return {"rm_layout": layout, "rm_col": col, "rm_pack": pack}


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
    fn = exec_function(_jax_source(model), {"np": jnp, **_helpers(jnp)},
                       f"<robmod jax {model.name}>",
                       f"{model.title or model.name} (JAX, generated by robmod)")
    return jit_function(fn) if jit else fn


__all__ = ["to_jax", "jit_function", "CPU_COMPILER_OPTIONS"]
