"""`tvm.topi` — not implemented yet in Tessera (see the open issues).

The package exists so that `from tessera import topi` works in code that also
uses the parts that are delivered; any attribute access raises
NotImplementedError naming what is missing.
"""
from .._unavailable import missing_attribute

__getattr__ = missing_attribute("topi")
