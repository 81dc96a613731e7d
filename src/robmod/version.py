"""The version of robmod (a leaf module any layer may import)."""
__version__ = "0.1.0"

__all__ = []  # robmod.__version__ is the public name
