"""Legalization shared by the elementwise binary ops and the comparisons
(binary.py, comparison.py): a TOPI broadcast function over the operands,
where an R.Prim operand of known value (a PrimValue, or a var whose struct
info carries the value) or a 0-d constant enters as a scalar; two such scalars give a
PrimValue of the TIR expression. Operands of two dtypes (comparisons) are
compared in NumPy's promoted dtype."""


def _scalar(op_name, operand, arg):
    from ..expr import PrimValue  # pylint: disable=import-outside-toplevel
    from ..struct_info import PrimStructInfo  # pylint: disable=import-outside-toplevel

    from ..expr import Constant  # pylint: disable=import-outside-toplevel

    sinfo = arg.struct_info_
    if isinstance(arg, Constant) and len(arg.data.shape) == 0:
        # A 0-d constant enters the kernel as a TIR constant, as TVM's legalization does.
        from ...tir import const  # pylint: disable=import-outside-toplevel
        value = arg.data.numpy()
        return const(value.item(), str(value.dtype))
    if not isinstance(sinfo, PrimStructInfo):
        return arg
    if isinstance(arg, PrimValue):
        return arg.value
    if sinfo.value is not None:
        return sinfo.value
    return arg  # known at run time only: call_te makes it a scalar parameter of the PrimFunc


def legalize_binary(bb, call, topi_func, name):
    """The legalized form of ``call`` (x1, x2) through ``topi_func``."""
    from ..expr import PrimValue  # pylint: disable=import-outside-toplevel
    from ...ir.expr import PrimExpr  # pylint: disable=import-outside-toplevel

    op_name = call.op.name
    x1 = _scalar(op_name, "x1", call.args[0])
    x2 = _scalar(op_name, "x2", call.args[1])
    d1, d2 = _dtype(x1), _dtype(x2)
    if d1 and d2 and d1 != d2:  # a comparison of two dtypes: compare in their common one
        common = _common_dtype(d1, d2)
        func = topi_func

        def topi_func(a, b, _func=func):  # pylint: disable=function-redefined
            return _func(_cast(a, common), _cast(b, common))
    if isinstance(x1, PrimExpr) and isinstance(x2, PrimExpr):
        return PrimValue(topi_func(x1, x2))
    return bb.call_te(topi_func, x1, x2, primfunc_name_hint=name)


def _dtype(x):
    from ...ir.expr import PrimExpr  # pylint: disable=import-outside-toplevel
    if isinstance(x, PrimExpr):
        return str(x.dtype)
    sinfo = x.struct_info_
    return str(sinfo.dtype) if getattr(sinfo, "dtype", None) else None


def _common_dtype(a, b):
    """A float over an integer; the wider of two of a kind (NumPy's promotion for these cases)."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    try:
        return str(np.promote_types(a, b))
    except TypeError:
        return "float32"


def _cast(x, dtype):
    from ... import te  # pylint: disable=import-outside-toplevel
    if isinstance(x, te.Tensor):
        return x if str(x.dtype) == dtype else te.compute(x.shape, lambda *i: x(*i).astype(dtype), name="T_cast")
    return x if str(x.dtype) == dtype else x.astype(dtype)
