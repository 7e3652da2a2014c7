"""Relax nn operators other than convolution and pooling, with TVM v0.18's
signatures: ``relax.op.nn.relu / leakyrelu / gelu / gelu_tanh / silu / softmax /
log_softmax / layer_norm / group_norm / batch_norm / dropout``. Struct-info inference and
the attribute signatures (the defaults, which ``signature_defaults`` gives
the constructors) are in src/relax/op/nn/nn.cc; each op's legalization to TOPI
("FLegalize") is registered here next to its constructor."""
from .._legalize_registry import register_legalize
from ._common import make_call, int_attr, int_list, float_attr, bool_attr, call_attrs, signature_defaults
from ....error import TVMValueError


def _topi():
    from .... import topi  # pylint: disable=import-outside-toplevel
    return topi


def relu(data):
    """max(data, 0) elementwise."""
    return make_call("relax.nn.relu", [("data", data)], None)


@signature_defaults("relax.nn.leakyrelu")
def leakyrelu(data, alpha):
    """data if data > 0 else alpha * data, elementwise."""
    return make_call("relax.nn.leakyrelu", [("data", data)],
                     {"alpha": float_attr("relax.nn.leakyrelu", "alpha", alpha)})


def gelu(data):
    """GELU, erf form: 0.5 * data * (1 + erf(data / sqrt(2)))."""
    return make_call("relax.nn.gelu", [("data", data)], None)


def gelu_tanh(data):
    """GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return make_call("relax.nn.gelu_tanh", [("data", data)], None)


def silu(data):
    """data * sigmoid(data)."""
    return make_call("relax.nn.silu", [("data", data)], None)


@signature_defaults("relax.nn.softmax")
def softmax(data, axis):
    """Softmax of ``data`` along ``axis``."""
    return make_call("relax.nn.softmax", [("data", data)], {"axis": int_attr("relax.nn.softmax", "axis", axis)})


@signature_defaults("relax.nn.log_softmax")
def log_softmax(data, axis):
    """Log-softmax of ``data`` along ``axis``."""
    return make_call("relax.nn.log_softmax", [("data", data)],
                     {"axis": int_attr("relax.nn.log_softmax", "axis", axis)})


@signature_defaults("relax.nn.layer_norm")
def layer_norm(data, gamma, beta, axes, epsilon, center, scale):
    """(data - mean) / sqrt(var + epsilon) * gamma + beta over ``axes``
    (gamma is not applied when ``scale`` is False, beta not when ``center`` is False)."""
    name = "relax.nn.layer_norm"
    axes = [axes] if isinstance(axes, int) and not isinstance(axes, bool) else axes
    if not isinstance(axes, (list, tuple)) or not axes:
        raise TVMValueError(f"{name}: axes must be an int or a non-empty list of ints, got {axes!r}")
    attrs = {"axes": int_list(name, "axes", axes, (len(axes),)), "epsilon": float_attr(name, "epsilon", epsilon),
             "center": bool_attr(name, "center", center), "scale": bool_attr(name, "scale", scale)}
    return make_call(name, [("data", data), ("gamma", gamma), ("beta", beta)], attrs)


@signature_defaults("relax.nn.group_norm")
def group_norm(data, gamma, beta, num_groups, channel_axis, axes, epsilon, center, scale):
    """Group normalization: the channels along ``channel_axis`` in ``num_groups`` groups,
    each normalized over its channels and ``axes``, then * gamma + beta per channel."""
    name = "relax.nn.group_norm"
    axes = [axes] if isinstance(axes, int) and not isinstance(axes, bool) else axes
    if not isinstance(axes, (list, tuple)):
        raise TVMValueError(f"{name}: axes must be an int or a list of ints, got {axes!r}")
    attrs = {"num_groups": int_attr(name, "num_groups", num_groups),
             "channel_axis": int_attr(name, "channel_axis", channel_axis),
             "axes": int_list(name, "axes", axes, (len(axes),)), "epsilon": float_attr(name, "epsilon", epsilon),
             "center": bool_attr(name, "center", center), "scale": bool_attr(name, "scale", scale)}
    return make_call(name, [("data", data), ("gamma", gamma), ("beta", beta)], attrs)


@signature_defaults("relax.nn.batch_norm")
def batch_norm(data, gamma, beta, moving_mean, moving_var, axis, epsilon, center, scale, momentum):
    """Batch normalization with the moving statistics (inference); the call's value is the tuple
    (out, moving_mean, moving_var) as in TVM. ``momentum`` only matters for training, which is not supported."""
    name = "relax.nn.batch_norm"
    attrs = {"axis": int_attr(name, "axis", axis), "epsilon": float_attr(name, "epsilon", epsilon),
             "center": bool_attr(name, "center", center), "scale": bool_attr(name, "scale", scale),
             "momentum": float_attr(name, "momentum", momentum)}
    return make_call(name, [("data", data), ("gamma", gamma), ("beta", beta), ("moving_mean", moving_mean),
                            ("moving_var", moving_var)], attrs)


@signature_defaults("relax.nn.dropout")
def dropout(data, rate):
    """Dropout for inference: the tuple (data, mask) whose first field equals ``data``
    (no element is dropped) and whose mask is all ones."""
    return make_call("relax.nn.dropout", [("data", data)], {"rate": float_attr("relax.nn.dropout", "rate", rate)})


def _unary(name, topi_fn):
    def legalize(bb, call):
        return bb.call_te(topi_fn(), call.args[0], primfunc_name_hint=name)
    register_legalize("relax.nn." + name)(legalize)


_unary("relu", lambda: _topi().nn.relu)
_unary("gelu", lambda: _topi().nn.gelu)
_unary("gelu_tanh", lambda: _topi().nn.gelu_tanh)
_unary("silu", lambda: _topi().nn.silu)


@register_legalize("relax.nn.leakyrelu")
def _legalize_leakyrelu(bb, call):
    return bb.call_te(_topi().nn.leaky_relu, call.args[0], call_attrs(call)["alpha"], primfunc_name_hint="leakyrelu")


@register_legalize("relax.nn.softmax")
def _legalize_softmax(bb, call):
    a = call_attrs(call)
    return bb.call_te(_topi().nn.softmax, call.args[0], axis=a["axis"], primfunc_name_hint="softmax")


@register_legalize("relax.nn.log_softmax")
def _legalize_log_softmax(bb, call):
    a = call_attrs(call)
    return bb.call_te(_topi().nn.log_softmax, call.args[0], axis=a["axis"], primfunc_name_hint="log_softmax")


@register_legalize("relax.nn.layer_norm")
def _legalize_layer_norm(bb, call):
    a = call_attrs(call)
    data, gamma, beta = call.args
    return bb.call_te(_topi().nn.layer_norm, data, gamma if a["scale"] else None, beta if a["center"] else None,
                      axis=a["axes"], epsilon=a["epsilon"], primfunc_name_hint="layer_norm")


@register_legalize("relax.nn.group_norm")
def _legalize_group_norm(bb, call):
    a = call_attrs(call)
    data, gamma, beta = call.args
    return bb.call_te(_topi().nn.group_norm, data, gamma if a["scale"] else None, beta if a["center"] else None,
                      a["num_groups"], a["channel_axis"], a["axes"], epsilon=a["epsilon"],
                      primfunc_name_hint="group_norm")


@register_legalize("relax.nn.batch_norm")
def _legalize_batch_norm(bb, call):
    a = call_attrs(call)
    data, gamma, beta, mean, var = call.args
    return bb.call_te(_topi().nn.batch_norm, data, gamma, beta, mean, var, axis=a["axis"], epsilon=a["epsilon"],
                      center=a["center"], scale=a["scale"], primfunc_name_hint="batch_norm")


def _dropout_inference(data):
    from .... import te  # pylint: disable=import-outside-toplevel
    from ....tir import op as tir_op  # pylint: disable=import-outside-toplevel
    out = te.compute(data.shape, lambda *i: data(*i), name="T_dropout", tag="elemwise")
    mask = te.compute(data.shape, lambda *i: tir_op.const(1, data.dtype), name="T_dropout_mask", tag="elemwise")
    return [out, mask]


@register_legalize("relax.nn.dropout")
def _legalize_dropout(bb, call):
    return bb.call_te(_dropout_inference, call.args[0], primfunc_name_hint="dropout")


__all__ = ["relu", "leakyrelu", "gelu", "gelu_tanh", "silu", "softmax", "log_softmax", "layer_norm", "group_norm", "batch_norm", "dropout"]
