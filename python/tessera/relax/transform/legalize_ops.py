"""``relax.transform.LegalizeOps()``: replaces each call of a high-level Relax
op that has a legalization ("FLegalize", relax/op/_legalize_registry.py) by
call_tir of a TOPI-generated PrimFunc added through a BlockBuilder (identical
PrimFuncs are shared). Calls of ops with no legalization are left unchanged.
First pass of relax.get_pipeline()'s default build pipeline."""
from ...ir import transform as _ir_transform
from ...ir.op import Op
from ..expr import (Call, SeqExpr, If, Function, VarBinding, MatchCast, DataflowBlock, BindingBlock)
from ..block_builder import BlockBuilder
from ..op._legalize_registry import get_legalize


class _Legalizer:
    def __init__(self, mod):
        self.bb = BlockBuilder(mod)

    def expr(self, e):
        if isinstance(e, SeqExpr):
            return SeqExpr([self.block(b) for b in e.blocks], self.expr(e.body))
        if isinstance(e, If):
            return If(e.cond, self.expr(e.true_branch), self.expr(e.false_branch))
        if isinstance(e, Call) and isinstance(e.op, Op):
            fn = get_legalize(e.op.name)
            if fn is not None:
                return self.bb.normalize(fn(self.bb, e))
        return e

    def block(self, block):
        out = []
        for b in block.bindings:
            if isinstance(b, VarBinding):
                try:
                    value = self.expr(b.value)
                except (TypeError, ValueError, NotImplementedError) as err:
                    if not (isinstance(b.value, Call) and isinstance(b.value.op, Op)):
                        raise
                    # Name the op and the binding (e.g. a tensor of unknown shape that TOPI cannot take).
                    raise type(err)(f"LegalizeOps: cannot legalize {b.value.op.name} bound to "
                                    f"'{b.var.name_hint}': {err}") from err
                out.append(b if value.same_as(b.value) else VarBinding(b.var, value))
            else:
                out.append(b)
        return DataflowBlock(out) if isinstance(block, DataflowBlock) else BindingBlock(out)


@_ir_transform.module_pass(opt_level=0, name="LegalizeOps")
class LegalizeOps:
    """Legalizes the high-level Relax ops of every Relax function to call_tir of TOPI PrimFuncs."""

    def transform_module(self, mod, ctx):  # pylint: disable=unused-argument
        leg = _Legalizer(mod)
        updates = []
        for gv in mod.get_global_vars():
            func = mod[gv]
            if isinstance(func, Function):
                body = leg.expr(func.body)
                if not body.same_as(func.body):
                    updates.append((gv, Function(func.params, body, func.ret_struct_info, func.is_pure,
                                                 func.attrs)))
        for gv, func in updates:
            leg.bb.update_func(gv, func)
        return leg.bb.get()


__all__ = ["LegalizeOps"]
