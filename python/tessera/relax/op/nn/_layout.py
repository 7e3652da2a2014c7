"""Legalization of Relax nn ops (conv*, pooling) whose data/kernel/out layouts are not
the canonical ones their TOPI kernels take (NHWC, HWIO, NCHW16c, ...): the operands are
converted into the canonical layout (NCHW, OIHW, ...) by layout-transform kernels of
their own, the canonical call is legalized as usual (the default CPU path included) and
its result converted into out_layout. Layout strings follow TVM's naming (capital: a
primal axis, <factor><lowercase>: a packed sub-axis); inference has validated them
(src/relax/op/nn/nn_layout.cc)."""
import re

from ._common import call_attrs


def parse_layout(layout):
    """[(letter, factor)] of a layout string, factor 0 for a primal axis: "NCHW4c" ->
    [("N", 0), ("C", 0), ("H", 0), ("W", 0), ("c", 4)]."""
    return [(letter, int(factor) if factor else 0) for factor, letter in re.findall(r"(\d*)([A-Za-z])", layout)]


def _sub_factor(axes, primal):
    return next((f for letter, f in axes if letter == primal.lower()), 0)


def layout_shape(src, dst, shape):
    """The shape in layout ``dst`` of a tensor of shape ``shape`` in layout ``src``."""
    s_axes, d_axes = parse_layout(src), parse_layout(dst)
    full = {}
    for (letter, f), extent in zip(s_axes, shape):
        if f == 0:
            full[letter] = extent * max(_sub_factor(s_axes, letter), 1)
    return [f if f else full[letter] // max(_sub_factor(d_axes, letter), 1) for letter, f in d_axes]


def layout_te(x, src, dst):
    """TE compute: ``x`` (layout ``src``) in layout ``dst`` (the same primal axes, permuted
    and/or packed differently)."""
    from .... import te  # pylint: disable=import-outside-toplevel
    from ....tir import floordiv, floormod  # pylint: disable=import-outside-toplevel
    s_axes, d_axes = parse_layout(src), parse_layout(dst)

    def fcompute(*idx):
        full = {}  # canonical index of each primal axis
        for (letter, f), i in zip(d_axes, idx):
            if f == 0:
                sub = _sub_factor(d_axes, letter)
                inner = idx[d_axes.index((letter.lower(), sub))] if sub else 0
                full[letter] = i * sub + inner if sub else i
        src_idx = []
        for letter, f in s_axes:
            primal = letter.upper()
            if f:
                src_idx.append(floormod(full[primal], f))
            else:
                sub = _sub_factor(s_axes, letter)
                src_idx.append(floordiv(full[primal], sub) if sub else full[primal])
        return x(*src_idx)

    return te.compute(layout_shape(src, dst, list(x.shape)), fcompute, name="layout_transform")


def to_layout(bb, x, src, dst, emit=True):
    """``x`` converted from layout ``src`` to ``dst``: a constant by NumPy when the change is a pure
    permutation, anything else by a layout-transform kernel (emitted when ``emit``)."""
    from .... import relax  # pylint: disable=import-outside-toplevel
    if src == dst:
        return x
    if isinstance(x, relax.Constant) and sorted(src) == sorted(dst) and src.isalpha():
        return relax.const(x.data.numpy().transpose([src.index(c) for c in dst]).copy(), str(x.data.dtype))
    call = bb.call_te(layout_te, x, src, dst, primfunc_name_hint="layout_transform")
    return bb.emit(call) if emit else call


def in_canonical_layouts(operands, out_attr, canonical):
    """Decorator of a legalization ``fn(bb, call)`` written for the canonical layouts:
    ``operands`` [(layout attribute, operand index)], ``out_attr`` the output's layout
    attribute (None: the first operand's when unset), ``canonical`` {attribute:
    canonical layout}. A call in other layouts is legalized through transforms around ``fn``."""
    def deco(fn):
        def legalize(bb, call):
            from ...expr import Call  # pylint: disable=import-outside-toplevel
            from .._op_attrs import make_attrs  # pylint: disable=import-outside-toplevel
            a = call_attrs(call)
            given = {attr: a[attr] for attr, _ in operands}
            given[out_attr] = a.get(out_attr) or given[operands[0][0]]
            want = canonical
            if all(given[k] == want[k] for k in given):
                return fn(bb, call)
            args = list(call.args)
            for attr, i in operands:
                args[i] = to_layout(bb, args[i], given[attr], want[attr])
            a.update(want)
            inner = bb.normalize(Call(call.op, args, make_attrs(call.op.name, **{k: v for k, v in a.items() if v is not None})))
            out = bb.emit(fn(bb, inner))
            return to_layout(bb, out, want[out_attr], given[out_attr], emit=False)
        legalize.__doc__ = fn.__doc__
        return legalize
    return deco
