"""The default TIR lowering pipeline (``tvm.tir.get_default_tir_pipeline()``):
the named Sequential that ``tvm.build`` and ``tvm.lower`` run (docs/pipeline.md)."""
from . import _ffi_api


def get_default_tir_pipeline():
    """The Sequential ``tir.default_pipeline`` of the lowering passes, in order."""
    return _ffi_api.get_default_tir_pipeline()


__all__ = ["get_default_tir_pipeline"]
