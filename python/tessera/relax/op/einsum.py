"""``relax.op.einsum(operands, subscripts)``: Einstein summation of a tuple of tensors
(registered in src/relax/op/einsum.cc with its struct-info inference), legalized here
to one ``te.compute``: the output labels are its axes, the other labels reduce axes
summed over the product of the operands."""
from ...error import TVMTypeError
from ...ir.op import Op
from ..expr import Call, Tuple, TupleGetItem
from ._legalize_registry import register_legalize
from ._op_attrs import check_expr, make_attrs


def einsum(operands, subscripts):
    """Einstein summation of ``operands`` (a list / Tuple of tensors, or a tuple-valued
    Expr) by ``subscripts`` ("ij,jk->ik"; without "->" the labels seen once, sorted)."""
    if isinstance(operands, (list, tuple)):
        for i, t in enumerate(operands):
            check_expr("relax.einsum", f"operands[{i}]", t)
        operands = Tuple(list(operands))
    check_expr("relax.einsum", "operands", operands)
    if not isinstance(subscripts, str):
        raise TVMTypeError(f"relax.einsum: attribute 'subscripts' must be a str, got {type(subscripts).__name__}")
    return Call(Op.get("relax.einsum"), [operands], make_attrs("relax.einsum", subscripts=subscripts))


def _labels(subscripts):
    """(input label strings, output labels), as the inference reads them."""
    lhs, _, out = subscripts.replace(" ", "").partition("->")
    inputs = lhs.split(",")
    if "->" not in subscripts:
        seen = "".join(inputs)
        out = "".join(sorted(c for c in set(seen) if seen.count(c) == 1))
    return inputs, out


@register_legalize("relax.einsum")
def _legalize_einsum(bb, call):
    from ... import te  # pylint: disable=import-outside-toplevel

    inputs, out = _labels(str(call.attrs["subscripts"]))
    out_shape = list(call.struct_info.shape.values)

    def compute(*tensors):
        extent = {}
        for labels, t in zip(inputs, tensors):
            for c, d in zip(labels, t.shape):
                extent.setdefault(c, d)
        reduced = [c for c in dict.fromkeys("".join(inputs)) if c not in out]
        raxes = {c: te.reduce_axis((0, extent[c]), name=f"r{c}") for c in reduced}

        def body(*idx):
            axis = dict(zip(out, idx), **raxes)
            prod = None
            for labels, t in zip(inputs, tensors):
                term = t[tuple(axis[c] for c in labels)]
                prod = term if prod is None else prod * term
            return te.sum(prod, axis=list(raxes.values())) if raxes else prod

        return te.compute(out_shape, body, name="T_einsum")

    operands = call.args[0]
    fields = (list(operands.fields) if isinstance(operands, Tuple)
              else [TupleGetItem(operands, i) for i in range(len(operands.struct_info.fields))])
    return bb.call_te(compute, *fields, primfunc_name_hint="einsum")


__all__ = ["einsum"]
