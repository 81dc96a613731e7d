"""The customizing engine: contexts, customized models, operation counts, export, compilation."""
from .context import NumericContext, SymbolicContext
from .count import OpCount, count_ops
from .model import CustomModel, Output, customize

__all__ = ["SymbolicContext", "NumericContext", "CustomModel", "Output", "customize", "OpCount",
           "count_ops"]
