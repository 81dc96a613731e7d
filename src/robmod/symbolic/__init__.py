"""The customizing engine: contexts (dual numbers for derivatives included), customized models,
operation counts, export, compilation."""
from .compile import CompiledModel
from .context import SymbolicContext, NumericContext
from .count import OpCount, count_ops
from .differentiation import derivative
from .dual import Dual, DualContext
from .export_casadi import to_casadi, casadi_operations
from .export_jax import to_jax, jit_function, CPU_COMPILER_OPTIONS
from .cache import clear
from .export_torch import to_torch
from .fastpath import set_backend, backend
from .model import CustomModel, Output, customize

__all__ = [
    # compile
    "CompiledModel",
    # context
    "SymbolicContext", "NumericContext",
    # count
    "OpCount", "count_ops",
    # differentiation, dual
    "derivative", "Dual", "DualContext",
    # export_casadi, export_jax, export_torch
    "to_casadi", "casadi_operations", "to_jax", "jit_function", "CPU_COMPILER_OPTIONS",
    "to_torch",
    # cache, fastpath
    "clear", "set_backend", "backend",
    # model
    "CustomModel", "Output", "customize",
]
