"""Relax analyses (``tvm.relax.analysis``): well-formedness (src/relax/analysis/well_formed.cc)."""
import logging

from ...ir.module import IRModule
from ..expr import Function
from . import _ffi_api
from ...error import TVMTypeError

_LOG = logging.getLogger("tvm.relax.analysis")


def well_formed_errors(obj, check_struct_info=True):
    """The well-formedness violations of ``obj`` (IRModule or relax Function),
    one message per violation naming the function and the binding (Tessera
    extension; :func:`well_formed` logs them)."""
    if not isinstance(obj, (IRModule, Function)):
        raise TVMTypeError(f"well_formed: expected an IRModule or a relax Function, got {type(obj).__name__}")
    return [str(e) for e in _ffi_api.WellFormedErrors(obj, bool(check_struct_info))]


def well_formed(obj, check_struct_info=True):
    """Whether ``obj`` is well formed: each var defined once and before use,
    dataflow vars used only in their dataflow block, symbolic dims bound
    before use, pure functions and dataflow blocks free of impure calls,
    A-normal form, struct info present (unless ``check_struct_info`` is
    False) and called GlobalVars in the module. Violations are logged as
    warnings on the "tvm.relax.analysis" logger."""
    errors = well_formed_errors(obj, check_struct_info)
    for err in errors:
        _LOG.warning("%s", err)
    return not errors


def struct_info_base_check(base, derived):
    """How ``base`` relates to ``derived``: 3 pass, 2/1 needs a run-time check, 0 impossible (TVM's BaseCheckResult)."""
    return int(_ffi_api.StructInfoBaseCheck(base, derived))


def struct_info_lca(lhs, rhs):
    """The least struct info both ``lhs`` and ``rhs`` belong to."""
    return _ffi_api.StructInfoLCA(lhs, rhs)


__all__ = ["well_formed", "well_formed_errors", "struct_info_base_check", "struct_info_lca"]

