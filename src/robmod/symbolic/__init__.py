"""The customizing engine: contexts (dual numbers for derivatives included), customized models,
operation counts, export, compilation."""
from .compile import CompiledModel
from .context import SymbolicContext, NumericContext
from .count import OpCount, count_ops
from .differentiation import derivative
from .dual import Dual, DualContext
from .fastpath import set_backend, backend, clear
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
    # fastpath
    "set_backend", "backend", "clear",
    # model
    "CustomModel", "Output", "customize",
]
