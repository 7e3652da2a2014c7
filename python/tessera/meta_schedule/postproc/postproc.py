"""Postproc (``tvm.meta_schedule.postproc.Postproc``): applied to every sampled candidate
before it is measured; ``apply(sch)`` rewrites the schedule and returns False when the
candidate must be discarded. C++ objects (src/meta_schedule/postproc/); PyPostproc is the
base of postprocessors written in Python."""
from ...runtime import Object
from ..._ffi.registry import register_object
from .. import _ffi_api
from ..schedule_rule.schedule_rule import _target_of


@register_object("meta_schedule.Postproc")
class Postproc(Object):
    """A postprocessor (C++). ``apply(sch)`` -> bool."""

    def _initialize_with_tune_context(self, context):
        _ffi_api.PostprocInitializeWithTarget(self, _target_of(context))

    def apply(self, sch):
        return bool(_ffi_api.PostprocApply(self, sch))

    def clone(self):
        return _ffi_api.PostprocClone(self)

    @staticmethod
    def create(kind):
        """The default postprocessors for ``kind`` ("llvm" only)."""
        funcs = {"llvm": _ffi_api.PostprocDefaultLLVM}
        if kind not in funcs:
            raise ValueError(f"Unsupported kind {kind} for postproc creation (Tessera has: {sorted(funcs)})")
        return list(funcs[kind]())


create = Postproc.create


class PyPostproc:
    """Base of postprocessors written in Python: override ``apply(sch) -> bool``."""

    def _initialize_with_tune_context(self, context):
        pass

    def apply(self, sch):
        raise NotImplementedError(f"{type(self).__name__}.apply is not implemented")


__all__ = ["Postproc", "PyPostproc", "create"]
