"""Core Relax operators (``tvm.relax.op.call_tir`` and friends): each returns
an unnormalized Call of the registered op; the BlockBuilder's normalizer
checks the operands and infers the struct info (src/relax/op/core.cc)."""
from ...ir.expr import GlobalVar
from ...ir.op import Op
from ..expr import Call, Expr, ExternFunc, ShapeExpr, StringImm, Tuple
from ..struct_info import StructInfo, TupleStructInfo, as_struct_info
from ...error import TVMTypeError, TVMValueError


def _args_tuple(args, op):
    if isinstance(args, Expr) and not isinstance(args, Tuple):
        # A single tensor (TVM wraps it), or a var holding a tuple.
        sinfo = args.__getattr__("struct_info_")
        if isinstance(sinfo, TupleStructInfo):
            return args
        return Tuple([args])
    if isinstance(args, (list, tuple)):
        return Tuple(list(args))
    if isinstance(args, Tuple):
        return args
    raise TVMTypeError(f"{op}: args must be a relax Expr or a list of them, got {type(args).__name__}")


def _out_sinfo(out_sinfo, op):
    out_sinfo = as_struct_info(out_sinfo)
    if isinstance(out_sinfo, (list, tuple)):
        out_sinfo = [as_struct_info(s) for s in out_sinfo]
        if not out_sinfo:
            raise TVMValueError(f"{op}: out_sinfo is empty")
        for i, s in enumerate(out_sinfo):
            if not isinstance(s, StructInfo):
                raise TVMTypeError(f"{op}: out_sinfo[{i}] must be a TensorStructInfo, got {type(s).__name__}")
        return out_sinfo[0] if len(out_sinfo) == 1 else TupleStructInfo(list(out_sinfo))
    if not isinstance(out_sinfo, StructInfo):
        raise TVMTypeError(f"{op}: out_sinfo must be a TensorStructInfo or a list of them, got "
                           f"{type(out_sinfo).__name__}")
    return out_sinfo


def call_tir(gvar, args, out_sinfo, tir_vars=None):
    """Calls PrimFunc ``gvar`` in destination-passing style; the output(s) of
    struct info ``out_sinfo`` are allocated by the caller."""
    if not isinstance(gvar, GlobalVar):
        raise TVMTypeError(f"relax.call_tir: gvar must be a GlobalVar, got {type(gvar).__name__}")
    call_args = [gvar, _args_tuple(args, "relax.call_tir")]
    if tir_vars is not None:
        call_args.append(tir_vars if isinstance(tir_vars, Expr) else ShapeExpr(list(tir_vars)))
    return Call(Op.get("relax.call_tir"), call_args, None, [_out_sinfo(out_sinfo, "relax.call_tir")])


def _extern(func, op):
    if isinstance(func, str):
        return ExternFunc(func)
    if isinstance(func, (ExternFunc, StringImm)):
        return func
    raise TVMTypeError(f"{op}: func must be a str or an ExternFunc, got {type(func).__name__}")


def call_dps_packed(func, args, out_sinfo):
    """Calls the registered PackedFunc ``func`` in destination-passing style."""
    return Call(Op.get("relax.call_dps_packed"),
                [_extern(func, "relax.call_dps_packed"), _args_tuple(args, "relax.call_dps_packed")], None,
                [_out_sinfo(out_sinfo, "relax.call_dps_packed")])


def call_pure_packed(func, *args, sinfo_args):
    """Calls the PackedFunc ``func`` (which returns its result) as a pure call."""
    sinfo_args = as_struct_info(sinfo_args)
    if isinstance(sinfo_args, StructInfo):
        sinfo_args = [sinfo_args]
    return Call(Op.get("relax.call_pure_packed"), [_extern(func, "relax.call_pure_packed"), *args], None,
                list(sinfo_args))


def shape_of(expr):
    """The shape of tensor ``expr``."""
    return Call(Op.get("relax.shape_of"), [expr])


def null_value():
    """A null object."""
    return Call(Op.get("relax.null_value"), [])


def print(*values, format=""):  # pylint: disable=redefined-builtin
    """Prints ``values`` at run time (impure)."""
    fmt = format if isinstance(format, StringImm) else StringImm(format)
    return Call(Op.get("relax.print"), [fmt, *values])


def assert_op(condition, format_args=None, format=""):  # pylint: disable=redefined-builtin
    """Fails at run time with the formatted message when ``condition`` (a boolean scalar) is
    false (impure). The call's operands: condition, format string, format arguments."""
    fmt = format if isinstance(format, StringImm) else StringImm(format)
    if format_args is None:
        format_args = []
    elif isinstance(format_args, Expr):
        format_args = [format_args]
    return Call(Op.get("relax.assert_op"), [condition, fmt, *format_args])


__all__ = ["call_tir", "call_dps_packed", "call_pure_packed", "shape_of", "null_value", "print", "assert_op"]
