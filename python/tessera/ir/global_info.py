"""Module-level global infos: ``tvm.ir.VDevice``, a virtual device (target,
vdevice_id, memory_scope) as TVM's module global_infos list them, an IR
object (src/ir/global_info.cc) compared structurally (TensorStructInfo does
not carry one yet); and ``tvm.ir.GlobalInfo`` / ``tvm.ir.DummyGlobalInfo`` as
Python values (Tessera's IRModule does not store global infos yet:
``I.module_global_infos`` and ``IRModule.update_global_info`` are not
implemented; every DummyGlobalInfo equals every other, as TVM's structural
equality of the fieldless node)."""
from .._ffi.registry import register_object, get_global_func
from ..error import TVMTypeError, TVMValueError
from .base import Node


@register_object("VDevice")
class VDevice(Node):
    """VDevice(target=None, vdevice_id=0, memory_scope="global"); a target may be given as a string."""

    def __init__(self, target=None, vdevice_id=0, memory_scope="global"):
        from ..target import Target  # pylint: disable=import-outside-toplevel

        if target is not None and not isinstance(target, Target):
            if not isinstance(target, (str, dict)):
                raise TVMTypeError(f"VDevice: target must be a Target, a target string or None, got "
                                   f"{type(target).__name__}")
            target = Target(target)
        if isinstance(vdevice_id, bool) or not isinstance(vdevice_id, int) or vdevice_id < 0:
            raise TVMValueError(f"VDevice: vdevice_id must be a non-negative int, got {vdevice_id!r}")
        if not isinstance(memory_scope, str):
            raise TVMTypeError(f"VDevice: memory_scope must be a str, got {type(memory_scope).__name__}")
        self.__init_handle_by_constructor__(get_global_func("ir.VDevice"), target, vdevice_id, memory_scope)

    # Compared and hashed structurally (target, vdevice_id, memory_scope), as the
    # struct infos that will carry it are.
    def __eq__(self, other):
        from .structural import structural_equal  # pylint: disable=import-outside-toplevel

        return isinstance(other, VDevice) and structural_equal(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        from .structural import structural_hash  # pylint: disable=import-outside-toplevel

        return structural_hash(self)


class GlobalInfo:
    """Base of module-level global infos."""

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self).__name__)


class DummyGlobalInfo(GlobalInfo):
    """A global info with no fields (TVM uses it in tests)."""

    def __repr__(self):
        return "DummyGlobalInfo()"


__all__ = ["VDevice", "GlobalInfo", "DummyGlobalInfo"]
