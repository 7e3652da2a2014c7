"""Shared body of the packages that exist for import compatibility but are
not implemented yet (relax, te, topi, meta_schedule): any attribute access
raises NotImplementedError naming what is missing."""
from .error import OpNotImplemented


def missing_attribute(package):
    """A module-level ``__getattr__`` for ``package``."""

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise OpNotImplemented(f"tessera.{package}.{name} is not implemented yet")

    return __getattr__
