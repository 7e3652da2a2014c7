"""Struct-info analyses of TVM's relax.analysis: ``get_static_type`` (the type
of a struct info, src/relax/type.cc), the symbolic variables of a struct info
(``tir_vars_in_struct_info``, ``definable_tir_vars_in_struct_info``) and
``erase_to_well_defined`` (src/relax/analysis/struct_info_vars.cc)."""
from ..._ffi.registry import get_global_func
from ...error import TVMTypeError
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
    from ...tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    smap = {}
    for var, value in (shape_var_map or {}).items():
        if isinstance(value, int) and not isinstance(value, bool):
            value = IntImm(str(var.dtype), value)
        smap[var] = value
    sinfo = _erase_shape_vars(sinfo, var_map or {})
    return get_global_func("relax.analysis.erase_to_well_defined")(sinfo, smap)


def _erase_shape_vars(sinfo, var_map):
    """A tensor whose shape is a relax Var: the var's value in ``var_map``, else no shape."""
    from .. import struct_info as si  # pylint: disable=import-outside-toplevel
    from ..expr import Var  # pylint: disable=import-outside-toplevel
    if isinstance(sinfo, si.TensorStructInfo) and isinstance(sinfo.shape, Var):
        for var, value in var_map.items():
            if var.same_as(sinfo.shape):
                return si.TensorStructInfo(value, sinfo.dtype)
        return si.TensorStructInfo(dtype=sinfo.dtype, ndim=sinfo.ndim)
    if isinstance(sinfo, si.TupleStructInfo):
        fields = [_erase_shape_vars(f, var_map) for f in sinfo.fields]
        if all(a.same_as(b) for a, b in zip(fields, sinfo.fields)):
            return sinfo
        return si.TupleStructInfo(fields)
    return sinfo


__all__ = ["get_static_type", "tir_vars_in_struct_info", "definable_tir_vars_in_struct_info", "erase_to_well_defined"]


class BaseCheckResult:  # pylint: disable=too-few-public-methods
    """The results of struct_info_base_check, as TVM names them."""
    FAIL_L0 = 0  # impossible
    FAIL_L1 = 1  # possible only if run-time values agree
    FAIL_L2 = 2  # differs only in symbolic relations needing a run-time check
    PASS = 3


def collect_non_negative_expressions(sinfo):
    """The non-constant PrimExprs that ``sinfo`` implies are >= 0 (tensor and shape
    dimensions; not PrimValue values), de-duplicated in order of first appearance."""
    from .. import struct_info as si  # pylint: disable=import-outside-toplevel
    from ...ir.structural import structural_equal  # pylint: disable=import-outside-toplevel
    from ...tir.expr import IntImm  # pylint: disable=import-outside-toplevel
    _check("collect_non_negative_expressions", sinfo)
    out = []

    def add(dims):
        for d in dims or []:
            if not isinstance(d, IntImm) and not any(structural_equal(d, o) for o in out):
                out.append(d)

    def visit(s):
        if isinstance(s, si.TensorStructInfo):
            shape = s.shape
            add(getattr(shape, "values", None))
        elif isinstance(s, si.ShapeStructInfo):
            add(s.values)
        elif isinstance(s, si.TupleStructInfo):
            for f in s.fields:
                visit(f)
        elif isinstance(s, si.FuncStructInfo):
            for p in s.params or []:
                visit(p)
            visit(s.ret)

    visit(sinfo)
    return out


def _symbolic_vars(func):
    """(defined, used) tir.Vars of a relax Function: defined by the parameters and
    match_casts where they are definable; used anywhere in a struct info."""
    from .. import expr as rx  # pylint: disable=import-outside-toplevel
    defined, used = [], []

    def add(dst, vs):
        for v in vs:
            if not any(v.same_as(o) for o in dst):
                dst.append(v)

    def visit_sinfo(s, definable):
        if s is None:
            return
        if definable:
            add(defined, definable_tir_vars_in_struct_info(s))
        add(used, tir_vars_in_struct_info(s))

    def visit(e):
        if isinstance(e, rx.Function):
            for p in e.params:
                visit_sinfo(p.struct_info_, True)
            visit(e.body)
        elif isinstance(e, rx.SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    if isinstance(b, rx.MatchCast):
                        visit_sinfo(b.struct_info, True)
                    else:
                        visit(b.value)
                    visit_sinfo(b.var.struct_info_, False)
            visit(e.body)
        elif isinstance(e, rx.If):
            visit(e.true_branch)
            visit(e.false_branch)
        elif isinstance(e, rx.Expr):
            visit_sinfo(e.struct_info_, False)

    if not isinstance(func, rx.Function):
        raise TVMTypeError(f"relax.analysis: expected a relax Function, got {type(func).__name__}")
    visit(func)
    return defined, used


def defined_symbolic_vars(func):
    """The tir.Vars that ``func``'s parameters and match_casts define."""
    return _symbolic_vars(func)[0]


def free_symbolic_vars(func):
    """The tir.Vars used in ``func``'s struct infos that nothing in it defines."""
    defined, used = _symbolic_vars(func)
    return [v for v in used if not any(v.same_as(d) for d in defined)]


__all__ += ["BaseCheckResult", "collect_non_negative_expressions", "defined_symbolic_vars", "free_symbolic_vars"]
