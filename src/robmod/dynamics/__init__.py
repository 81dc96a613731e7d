"""Dynamic models: Newton-Euler inverse dynamics (more to come)."""
from .newton_euler import idm, idm_model, ne_algorithm

__all__ = ["idm", "idm_model", "ne_algorithm"]
