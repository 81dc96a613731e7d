"""Export of customized models to PyTorch.

PyTorch is optional: ``pip install 'robmod[torch]'``.  :func:`to_torch` gives a function of
``torch.Tensor`` inputs, each (..., n) with any leading batch shape, returning one tensor
(..., *shape) per output, on the inputs' device and in their precision (float64 or float32;
integer inputs become ``torch.get_default_dtype()``).  It is made of PyTorch's own operations
(``*``, ``+``, ``torch.sin``, ...), one per operation of the model, so that autograd
differentiates it (``torch.func.jacfwd``/``jacrev`` and ``vmap`` apply too), and the derivative
models of robmod export the same way (their values are the derivatives autograd would give).

``compile=True`` wraps it in ``torch.compile`` (Inductor: the model's operations fused into a
few C++ or Triton kernels; the first call compiles them, for the inverse
dynamics, a minute or more, longer for the derivative models): it helps repeated calls of one
configuration.  Eager execution runs one PyTorch operation per operation of the model: a few
milliseconds for one configuration; for a batch, each operation runs on contiguous rows of the
inputs (a column ``q[..., k]`` would be strided), a few microseconds each for 10^4
configurations.  On a loaded machine, ``torch.set_num_threads(1)`` is often faster.
"""
from __future__ import annotations

import math

from ..arguments import keyword_options, model_argument
from ..errors import ArgumentError, RobmodError
from .export_arrays import array_function_source, exec_function, split_outputs

TORCH = "pip install 'robmod[torch]'"


def _torch():
    try:
        import torch
    except ImportError:
        raise RobmodError(f"the PyTorch export needs PyTorch: {TORCH}") from None
    return torch


class _Functions:
    """The names the generated source calls through ``np`` (``np.sin``, ``np.arctan2``,
    ``np.pi``, ...), as PyTorch functions; a constant argument (a number) goes through
    :mod:`math`."""

    def __init__(self, torch):
        self.pi, self.e = math.pi, math.e
        table = {"sin": (torch.sin, math.sin), "cos": (torch.cos, math.cos),
                 "tan": (torch.tan, math.tan), "arcsin": (torch.asin, math.asin),
                 "arccos": (torch.acos, math.acos), "arctan": (torch.atan, math.atan),
                 "sqrt": (torch.sqrt, math.sqrt), "exp": (torch.exp, math.exp),
                 "abs": (torch.abs, abs), "tanh": (torch.tanh, math.tanh),
                 "sign": (torch.sign, lambda x: float((x > 0) - (x < 0)))}
        tensor = torch.Tensor
        for name, (t, m) in table.items():
            setattr(self, name, (lambda t, m: lambda x: t(x) if isinstance(x, tensor)
                                 else m(x))(t, m))

        def arctan2(y, x):
            if isinstance(y, tensor) or isinstance(x, tensor):
                ref = y if isinstance(y, tensor) else x
                return torch.atan2(torch.as_tensor(y, dtype=ref.dtype, device=ref.device),
                                   torch.as_tensor(x, dtype=ref.dtype, device=ref.device))
            return math.atan2(y, x)

        self.arctan2 = arctan2


def _helpers(torch):
    """``rm_layout``, ``rm_pack`` of the generated function; the layout ``rm_l`` is (batch
    shape, dtype, device)."""

    def layout(args, n_values):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        floats = [a.dtype for a in tensors if a.is_floating_point()]
        dt = floats[0] if floats else torch.get_default_dtype()
        for other in floats[1:]:
            dt = torch.promote_types(dt, other)
        device = tensors[0].device if tensors else None
        args = tuple(torch.as_tensor(a, dtype=dt, device=device) for a in args)
        batch = torch.broadcast_shapes(*(a.shape[:-1] for a in args)) if args else ()
        # one contiguous row per input value (a column q[..., k] is strided: slow operations)
        args = tuple(a.movedim(-1, 0).contiguous() if a.dim() > 1 else a for a in args)
        return args + ((tuple(batch), dt, device),)

    def pack(values, layout, shapes):
        batch, dt, device = layout
        cols = [v.expand(batch) if isinstance(v, torch.Tensor) else
                torch.full(batch, float(v), dtype=dt, device=device) for v in values]
        flat = (torch.stack(cols, dim=-1) if cols else
                torch.zeros(batch + (0,), dtype=dt, device=device))
        return split_outputs(flat, batch, shapes)

    return {"rm_layout": layout, "rm_pack": pack}


@keyword_options()
def to_torch(model, *, compile: bool = False):  # noqa: A002 - torch.compile's own word
    """The model as a PyTorch function (see the module's docstring): ``f(q, qd, ...,
    [params])``, inputs in the order of ``model.inputs`` (``params``, a vector in the order of
    ``model.parameters``, last); ``compile``: wrapped in ``torch.compile``."""
    model_argument(model, "to_torch")
    if not isinstance(compile, bool):
        raise ArgumentError(f"to_torch: compile must be True or False, got {compile!r}")
    torch = _torch()
    src = array_function_source(model, "{group}[{k}]")
    fn = exec_function(src, {"np": _Functions(torch), **_helpers(torch)},
                       f"<robmod torch {model.name}>",
                       f"{model.title or model.name} (PyTorch, generated by robmod)")
    if compile:
        compiled = torch.compile(fn, dynamic=False)
        compiled.source = src
        return compiled
    return fn


__all__ = ["to_torch"]
