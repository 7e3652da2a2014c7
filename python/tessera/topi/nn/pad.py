"""Constant padding written in TE: ``topi.nn.pad`` (used by conv2d and pooling)."""
from ...error import TVMTypeError, TVMValueError
from ...tir import op as _tir_op
from ... import te


def pad(data, pad_before, pad_after=None, pad_value=0.0, name="PadInput"):
    """``data`` padded with ``pad_value``: pad_before/pad_after per dimension."""
    if not isinstance(data, te.Tensor):
        raise TVMTypeError(f"topi.nn.pad: expected a te.Tensor, got {type(data).__name__}")
    ndim = len(data.shape)
    pad_after = pad_before if pad_after is None else pad_after
    if len(pad_before) != ndim or len(pad_after) != ndim:
        raise TVMValueError(f"topi.nn.pad: {data.name} has {ndim} dimensions but pad_before/pad_after have "
                            f"{len(pad_before)}/{len(pad_after)} entries")
    if any(int(p) < 0 for p in list(pad_before) + list(pad_after)):
        raise TVMValueError("topi.nn.pad: negative padding")
    if all(int(p) == 0 for p in list(pad_before) + list(pad_after)):
        return data
    shape = [d + int(b) + int(a) for d, b, a in zip(data.shape, pad_before, pad_after)]
    value = _tir_op.const(pad_value, data.dtype)

    def fcompute(*i):
        conds, idx = [], []
        for k, (v, b) in enumerate(zip(i, pad_before)):
            b = int(b)
            if b == 0 and int(pad_after[k]) == 0:
                idx.append(v)
                continue
            if b:
                conds.append(v >= b)
            if int(pad_after[k]):
                conds.append(v < data.shape[k] + b)
            idx.append(v - b if b else v)
        return _tir_op.if_then_else(_tir_op.all(*conds), data(*idx), value)

    return te.compute(shape, fcompute, name=name, tag="injective,pad")


__all__ = ["pad"]
