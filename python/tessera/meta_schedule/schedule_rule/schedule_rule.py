"""ScheduleRule (``tvm.meta_schedule.schedule_rule.ScheduleRule``): what PostOrderApply
applies to each block. The rules are C++ objects (src/meta_schedule/schedule_rule/);
``apply(sch, block)`` returns the schedules the block leads to (several when the rule
branches the design space). PyScheduleRule is the base of rules written in Python."""
from ...runtime import Object
from ..._ffi.registry import register_object
from .. import _ffi_api
from ...error import OpNotImplemented, TVMValueError


def _target_of(context):
    """The Target a rule is initialized with: the context's, else the host ("llvm")."""
    from ... import target as _target
    tgt = getattr(context, "target", None) if context is not None else None
    if tgt is None:
        return _target.default_host()
    return _target.Target(tgt) if isinstance(tgt, str) else tgt


@register_object("meta_schedule.ScheduleRule")
class ScheduleRule(Object):
    """A schedule rule (C++). ``apply(sch, block)`` -> list of Schedules."""

    def _initialize_with_tune_context(self, context):
        """Reads what the rule needs (cores, vector width) from the context's target."""
        _ffi_api.ScheduleRuleInitializeWithTarget(self, _target_of(context))

    def apply(self, sch, block):
        return list(_ffi_api.ScheduleRuleApply(self, sch, block))

    def clone(self):
        return _ffi_api.ScheduleRuleClone(self)

    @staticmethod
    def create(kind):
        """The default rules for the target kind ``kind``, by its family (the kind attribute
        "meta_schedule.default_rules"): "cpu" for llvm and c, "gpu" for cuda (TVM's CUDA set:
        AutoInline, MultiLevelTiling bound to blockIdx/vthread/threadIdx with shared-memory
        reads, AutoInline, auto-unroll, AutoBind); "cuda-tensorcore" puts
        MultiLevelTilingTensorCore (mma.sync fp16 groups) before the cuda set."""
        from ...target import kind_family  # pylint: disable=import-outside-toplevel
        if kind == "cuda-tensorcore":  # TVM's name: MultiLevelTilingTensorCore (mma.sync groups), then "cuda"
            from ...tir.tensor_intrin import cuda as _cuda_intrin  # noqa: F401  (registers the intrinsics)
            return list(_ffi_api.ScheduleRuleDefaultCUDATensorCore())
        funcs = {"cpu": _ffi_api.ScheduleRuleDefaultLLVM, "gpu": _ffi_api.ScheduleRuleDefaultCUDA}
        family, known = kind_family(kind, "meta_schedule.default_rules")
        if family not in funcs:
            raise TVMValueError(f"Unsupported kind {kind} for schedule rule creation "
                                f"(the kinds with default rules: {known})")
        return list(funcs[family]())


create = ScheduleRule.create


class PyScheduleRule:
    """Base of schedule rules written in Python: override ``apply(sch, block)`` (return a
    list of Schedules) and optionally ``_initialize_with_tune_context(context)``."""

    def _initialize_with_tune_context(self, context):
        pass

    def apply(self, sch, block):
        raise OpNotImplemented(f"{type(self).__name__}.apply is not implemented")

    def clone(self):
        import copy
        return copy.deepcopy(self)


__all__ = ["PyScheduleRule", "ScheduleRule", "create"]
