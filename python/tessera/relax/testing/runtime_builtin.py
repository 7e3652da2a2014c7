"""The opcodes of the VM shape builtins ``vm.builtin.match_shape`` /
``match_prim_value`` (MatchShapeCode) and ``vm.builtin.make_shape`` /
``make_prim_value`` (MakeShapeCode), with the values the runtime reads
(src/runtime/vm/builtins.cc)."""
from enum import IntEnum


class MatchShapeCode(IntEnum):
    """How match_shape checks one dimension."""

    NO_OP = 0
    ASSERT_EQUAL_TO_IMM = 1
    STORE_TO_HEAP = 2
    ASSERT_EQUAL_TO_LOAD = 3


class MakeShapeCode(IntEnum):
    """Where make_shape takes one dimension from."""

    USE_IMM = 0
    LOAD_SHAPE = 1


__all__ = ["MatchShapeCode", "MakeShapeCode"]
