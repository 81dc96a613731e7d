"""A compiled customized model that travels to Dask workers as its C source.

:class:`RemoteModel` holds the generated C source of a model's extension module
(:func:`robmod.symbolic.compile.extension_source`) and the layout of its inputs and
outputs: a few tens of kilobytes of text, not the SymPy model.  On a worker the
extension is built on first use with :func:`~robmod.symbolic.compile.build_from_source`
(the shared object is cached on disk, ``$ROBMOD_CACHE``, under the hash of its source:
a worker compiles once, or loads what another process compiled) and kept in a
per-process table keyed by that hash.  Without a C compiler on the client, the
model itself is pickled and evaluated by its generated NumPy function.
"""
from __future__ import annotations

import math
import threading

import numpy as np

from ..description.arguments import keyword_options
from ..errors import ArgumentError, RobmodError
from ..symbolic.compile import build_from_source, compiler, extension_source
from ..symbolic.export import c_layout

_LOADED: dict[str, object] = {}     # source hash (module name) -> extension module or callable
_LOCK = threading.Lock()


class RemoteModel:
    """Picklable batched evaluator of a :class:`~robmod.symbolic.model.CustomModel`.

    ``f(*inputs, params=None)`` like :class:`~robmod.symbolic.compile.CompiledModel`:
    each input group an array ``(n, len(group))``; returns the outputs concatenated and
    flattened, ``(n, nout)`` (``split`` gives them their shapes).
    """

    @keyword_options()
    def __init__(self, model, *, params=None):
        if not (hasattr(model, "statements") and hasattr(model, "inputs")):
            raise ArgumentError(f"expected a customized model (robmod.symbolic.model.CustomModel), "
                              f"got {type(model).__name__}")
        groups, sizes = c_layout(model)
        self.name = model.name
        self.var_groups = tuple(g for g in groups if g != "params")
        self.input_sizes = tuple(len(model.inputs[g]) for g in self.var_groups)
        self.output_names = tuple(o.name for o in model.outputs)
        self.shapes = tuple(tuple(o.shape) for o in model.outputs)
        self.sizes = tuple(sizes)
        self.nout = int(sum(sizes))
        names = model.parameters
        if names:
            if params is None:
                raise RobmodError(f"model {model.name} needs params: "
                                  f"{', '.join(map(str, names))}")
            try:
                self.params = np.array([float(params[str(s)]) for s in names])
            except KeyError as e:
                raise RobmodError(f"params: no value for {e.args[0]} "
                                  f"(model {model.name} needs {', '.join(map(str, names))})")
        else:
            self.params = None
        if compiler() is not None:
            self.key, self.source = extension_source(model)
            self.model = None
        else:  # no compiler here: ship the model, evaluated by NumPy on the workers
            self.key, self.source, self.model = f"np_{model.hash()}", None, model

    def __repr__(self):
        return (f"RemoteModel({self.name}, inputs {dict(zip(self.var_groups, self.input_sizes))},"
                f" outputs {dict(zip(self.output_names, self.shapes))})")

    def _backend(self):
        fn = _LOADED.get(self.key)
        if fn is None:
            with _LOCK:
                fn = _LOADED.get(self.key)
                if fn is None:
                    if self.source is not None:
                        fn = build_from_source(self.key, self.source)
                        if fn is None:
                            raise RobmodError(f"model {self.name}: the worker cannot compile "
                                              f"its C source (no compiler or Python headers)")
                    else:
                        fn = self.model.numpy_function()
                    _LOADED[self.key] = fn
        return fn

    def __call__(self, *inputs, params=None) -> np.ndarray:
        if len(inputs) != len(self.var_groups):
            raise RobmodError(f"model {self.name} takes inputs {', '.join(self.var_groups)}, "
                              f"got {len(inputs)} arrays")
        arrays = [np.ascontiguousarray(x, dtype=float) for x in inputs]
        n = arrays[0].shape[0] if arrays else 1
        for g, size, a in zip(self.var_groups, self.input_sizes, arrays):
            if a.shape != (n, size):
                raise RobmodError(f"input {g} of model {self.name} must have shape "
                                  f"({n}, {size}), got {a.shape}")
        fn = self._backend()
        p = self.params
        if self.source is not None:
            out = np.empty((n, self.nout))
            fn.batch(n, *arrays, *([p] if p is not None else []), out)
            return out
        pd = None if p is None else dict(zip(map(str, self.model.parameters), p))
        res = fn(*arrays, params=pd)
        res = res if isinstance(res, tuple) else (res,)
        return np.concatenate([r.reshape(n, -1) for r in res], axis=1)

    def split(self, flat):
        """The outputs of ``flat`` (..., nout) with their shapes (a tuple when several)."""
        outs, pos = [], 0
        for shape, size in zip(self.shapes, self.sizes):
            outs.append(flat[..., pos:pos + size].reshape(flat.shape[:-1] + shape))
            pos += size
        return outs[0] if len(outs) == 1 else tuple(outs)


@keyword_options()
def remote_model(model, *, params=None) -> RemoteModel:
    """A :class:`RemoteModel` of ``model`` (a CustomModel, or a RemoteModel returned as is)."""
    if isinstance(model, RemoteModel):
        return model
    if not hasattr(model, "statements") or not hasattr(model, "inputs"):
        raise ArgumentError(f"expected a customized model (robmod.symbolic.model.CustomModel), "
                          f"got {type(model).__name__}")
    return RemoteModel(model, params=params)


def _block(rm, *blocks):
    out = rm(*blocks)
    return rm.split(out) if len(rm.shapes) == 1 else out


@keyword_options()
def evaluate(model, *inputs, params=None, chunk: int = 65536):
    """The model over Dask arrays (or NumPy arrays, chunked here) of samples ``(N, len(group))``.

    Lazy: returns a Dask array ``(N, *shape)`` of the output (``(N, nout)`` with the
    outputs concatenated when the model has several; ``RemoteModel.split`` separates
    them), computed block by block on the workers by ``dask.array.map_blocks``.
    """
    import dask.array as da

    rm = remote_model(model, params=params)
    if len(inputs) != len(rm.var_groups):
        raise RobmodError(f"model {rm.name} takes inputs {', '.join(rm.var_groups)}, "
                          f"got {len(inputs)} arrays")
    arrays = []
    for g, size, x in zip(rm.var_groups, rm.input_sizes, inputs):
        x = x if isinstance(x, da.Array) else da.from_array(np.asarray(x, dtype=float),
                                                           chunks=(chunk, -1))
        if x.ndim != 2 or x.shape[1] != size:
            raise ArgumentError(f"input {g} of model {rm.name} must have shape (N, {size}), "
                              f"got {x.shape}")
        arrays.append(x.rechunk({1: -1}))
    if len({a.shape[0] for a in arrays}) > 1:
        raise RobmodError(f"inputs of model {rm.name} have different numbers of samples: "
                          f"{[a.shape[0] for a in arrays]}")
    arrays = [arrays[0]] + [a.rechunk({0: arrays[0].chunks[0]}) for a in arrays[1:]]
    rows = arrays[0].chunks[0]
    if len(rm.shapes) == 1:
        shape = rm.shapes[0]
        chunks = (rows,) + tuple((s,) for s in shape)
        new_axis = list(range(2, 1 + len(shape))) if len(shape) > 1 else None
        drop = None if shape else 1
    else:
        chunks, new_axis, drop = (rows, (rm.nout,)), None, None
    kw = {}
    if new_axis:
        kw["new_axis"] = new_axis
    if drop is not None:
        kw["drop_axis"] = drop
    return da.map_blocks(_block, rm, *arrays, chunks=chunks, dtype=float,
                         meta=np.empty((0,) * len(chunks)), **kw)


def block_count(n: int, chunk: int) -> int:
    return max(1, math.ceil(n / chunk))


__all__ = ["RemoteModel", "remote_model", "evaluate"]
