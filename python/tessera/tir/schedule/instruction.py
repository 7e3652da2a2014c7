"""Schedule instructions (``tvm.tir.schedule.Instruction``) and their kinds
(``tvm.tir.schedule.InstructionKind``, registered by name in C++ beside
each primitive: ``InstructionKind.get("Split")``)."""
from ..._ffi.registry import register_object
from ...ir.base import Node
from . import _ffi_api


@register_object("tir.InstructionKind")
class InstructionKind(Node):
    """A kind of instruction: ``name`` and ``is_pure`` (no effect on the module)."""

    @staticmethod
    def get(name):
        """The registered kind named ``name`` (ValueError naming the known kinds otherwise)."""
        return _ffi_api.InstructionKindGet(name)

    @staticmethod
    def list_kinds():
        """The names of every registered kind."""
        return [str(n) for n in _ffi_api.ListInstructionKinds()]

    def __repr__(self):
        return f"InstructionKind({self.name})"


@register_object("tir.Instruction")
class Instruction(Node):
    """One recorded primitive: ``kind`` (an InstructionKind), ``inputs``, ``attrs``, ``outputs``."""

    def __init__(self, kind, inputs, attrs, outputs):
        if isinstance(kind, str):
            kind = InstructionKind.get(kind)
        self.__init_handle_by_constructor__(_ffi_api.Instruction, kind, list(inputs), list(attrs), list(outputs))

    def __repr__(self):
        return f"Instruction({self.kind.name})"


__all__ = ["Instruction", "InstructionKind"]
