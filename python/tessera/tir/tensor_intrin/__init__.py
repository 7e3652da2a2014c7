"""Tensor intrinsics (``tvm.tir.TensorIntrin``): a description PrimFunc and
an implementation PrimFunc that ``Schedule.tensorize`` swaps in. The
submodules (``tvm.tir.tensor_intrin.x86``, ``.arm_cpu``, ``.rocm``,
``.hexagon``, ``.cuda``, ``.dot_product_common``) register the hardware intrinsics under
TVM's names when imported."""
from ..._ffi.registry import register_object, get_global_func
from ...ir.base import Node


@register_object("tir.TensorIntrin")
class TensorIntrin(Node):
    """``desc`` (the computation) and ``impl`` (what replaces it)."""

    def __init__(self, desc, impl):
        self.__init_handle_by_constructor__(get_global_func("tir.TensorIntrin"), desc, impl)

    @staticmethod
    def register(name, desc, impl, override=False):
        """Registers the intrinsic ``name``; raises ValueError if taken unless ``override``."""
        get_global_func("tir.TensorIntrinRegister")(name, TensorIntrin(desc, impl), bool(override))

    @staticmethod
    def get(name, allow_missing=False):
        try:
            return get_global_func("tir.TensorIntrinGet")(name)
        except ValueError:
            if allow_missing:
                return None
            raise


__all__ = ["TensorIntrin"]
