"""Struct-info analyses of TVM's relax.analysis: ``get_static_type`` (the type
of a struct info, src/relax/type.cc), the symbolic variables of a struct info
(``tir_vars_in_struct_info``, ``definable_tir_vars_in_struct_info``) and
``erase_to_well_defined`` (src/relax/analysis/struct_info_vars.cc)."""
from ..._ffi.registry import get_global_func
from ...error import OpNotImplemented, TVMTypeError
from ..struct_info import StructInfo


def _check(name, sinfo):
    if not isinstance(sinfo, StructInfo):
        raise TVMTypeError(f"relax.analysis.{name}: expected a StructInfo, got {type(sinfo).__name__}")


def get_static_type(sinfo):
    """The static type of ``sinfo`` (ObjectType, PrimType, ShapeType, DynTensorType, TupleType, FuncType)."""
    _check("get_static_type", sinfo)
    return get_global_func("relax.analysis.get_static_type")(sinfo)


def tir_vars_in_struct_info(sinfo):
    """The tir.Vars used in ``sinfo``, in first-occurrence order."""
    _check("tir_vars_in_struct_info", sinfo)
    return list(get_global_func("relax.analysis.tir_vars_in_struct_info")(sinfo))


def definable_tir_vars_in_struct_info(sinfo):
    """The tir.Vars that matching ``sinfo`` could define (a dimension or scalar value that is a bare var)."""
    _check("definable_tir_vars_in_struct_info", sinfo)
    return list(get_global_func("relax.analysis.definable_tir_vars_in_struct_info")(sinfo))


def erase_to_well_defined(sinfo, shape_var_map=None, var_map=None):
    """``sinfo`` keeping only what is defined by the tir.Vars of ``shape_var_map``
    (replaced by their values there); other dimensions become unknown."""
    _check("erase_to_well_defined", sinfo)
    if var_map:
        raise OpNotImplemented("relax.analysis.erase_to_well_defined: var_map (relax Vars used as shapes) is not "
                               "supported yet")
    return get_global_func("relax.analysis.erase_to_well_defined")(sinfo, dict(shape_var_map or {}))


__all__ = ["get_static_type", "tir_vars_in_struct_info", "definable_tir_vars_in_struct_info", "erase_to_well_defined"]
