"""``DecomposeOpsForInference`` (TVM v0.18's name): rewrites ``R.nn.batch_norm`` into
its inference arithmetic, ``(x - mean) * rsqrt(var + eps) * gamma + beta`` broadcast
along the op's axis, keeping the op's (output, mean, var) tuple; every other binding is
left as is. A function pass over the module (or only ``func_name``), written with
PyExprMutator; relax.build does not need it (LegalizeOps lowers batch_norm the same way)."""
import numpy as np

from ...error import TVMTypeError
from ...ir.op import Op
from .. import op as _op
from ..expr import Tuple, const
from ..expr_functor import PyExprMutator, mutator
from .function_pass import function_pass


def _decompose_batch_norm(call):
    data, gamma, beta, mean, var = call.args
    attrs = call.attrs
    ndim = len(data.struct_info.shape.values)
    axis = int(attrs["axis"]) % ndim
    dtype = str(data.struct_info.dtype)
    eps = float(attrs["epsilon"])
    shape = [-1] + [1] * (ndim - axis - 1)

    def along(x):
        return _op.reshape(x, shape) if ndim - axis - 1 else x

    inv = _op.rsqrt(_op.add(var, const(np.asarray(eps, dtype), dtype)))
    out = _op.multiply(_op.subtract(data, along(mean)), along(inv))
    if "scale" not in attrs.keys() or bool(attrs["scale"]):
        out = _op.multiply(out, along(gamma))
    if "center" not in attrs.keys() or bool(attrs["center"]):
        out = _op.add(out, along(beta))
    return Tuple([out, mean, var])


@mutator
class _Decomposer(PyExprMutator):
    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if call.op == Op.get("relax.nn.batch_norm"):
            sinfo = call.args[0].struct_info
            if getattr(sinfo, "shape", None) is not None:
                return self.builder_.normalize(_decompose_batch_norm(call))
        return call


def DecomposeOpsForInference(func_name=None):
    """The pass; with ``func_name`` only that function is rewritten."""
    if func_name is not None and not isinstance(func_name, str):
        raise TVMTypeError(f"DecomposeOpsForInference: func_name must be a str, got {type(func_name).__name__}")

    @function_pass(opt_level=0, name="DecomposeOpsForInference")
    def transform(func, mod, ctx):  # pylint: disable=unused-argument
        if func_name is not None:
            gvar = next((g for g, f in mod.functions_items() if f.same_as(func)), None)
            if gvar is None or gvar.name_hint != func_name:
                return func
        return _Decomposer(mod).visit_expr(func)

    return transform


__all__ = ["DecomposeOpsForInference"]
