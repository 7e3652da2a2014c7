"""AutoInline (C++: src/meta_schedule/schedule_rule/auto_inline.cc): inlines a block into
its consumers, or a spatial block into its single producer, under TVM's conditions."""
from ..._ffi.registry import register_object
from .. import _ffi_api
from .schedule_rule import ScheduleRule
from ...error import TVMTypeError


@register_object("meta_schedule.AutoInline")
class AutoInline(ScheduleRule):
    """TVM's signature: ``AutoInline(into_producer, into_consumer, inline_const_tensor,
    disallow_if_then_else, require_injective, require_ordered, disallow_op=None)``;
    ``disallow_op`` names TIR ops ("tir.exp") a block may not contain to be inlined."""

    def __init__(self, into_producer, into_consumer, inline_const_tensor, disallow_if_then_else,
                 require_injective, require_ordered, disallow_op=None):
        if disallow_op is not None and (isinstance(disallow_op, str) or not isinstance(disallow_op, (list, tuple))):
            raise TVMTypeError(f"AutoInline(disallow_op=...) must be a list of op names, got {disallow_op!r}")
        self.__init_handle_by_constructor__(
            _ffi_api.ScheduleRuleAutoInline, bool(into_producer), bool(into_consumer), bool(inline_const_tensor),
            bool(disallow_if_then_else), bool(require_injective), bool(require_ordered),
            None if disallow_op is None else list(disallow_op))
