"""The ONNX -> Relax conversion table: one ``@register`` per ONNX operator (domain,
op type), with the opsets it is converted for and the attribute values it accepts.
The importer checks every node against this table before converting anything
(importer.py), so an unsupported op or attribute value is reported up front."""
from ....error import TVMValueError

MIN_OPSET, MAX_OPSET = 1, 20


class OnnxOp:
    """One converter: ``fn(ctx, inputs, attrs)`` returns the node's output value, or a
    list of values for a node with several outputs. ``attr_values`` maps an attribute
    name to the values accepted (anything else is refused by validation);
    ``max_outputs`` is how many of the node's outputs the converter computes."""

    def __init__(self, op_type, fn, domain, attr_values, max_outputs, since):
        self.op_type = op_type
        self.fn = fn
        self.domain = domain
        self.attr_values = attr_values
        self.max_outputs = max_outputs
        self.since = since


CONVERTERS = {}  # (domain, op_type) -> OnnxOp


def register(*op_types, domain="", attr_values=None, max_outputs=1, since=1):
    """Decorator adding a converter for each of ``op_types`` (same function)."""
    def deco(fn):
        for op_type in op_types:
            key = (domain, op_type)
            if key in CONVERTERS:
                raise TVMValueError(f"ONNX converter for {domain or 'ai.onnx'}::{op_type} is registered twice")
            CONVERTERS[key] = OnnxOp(op_type, fn, domain, dict(attr_values or {}), max_outputs, since)
        return fn
    return deco


def lookup(domain, op_type):
    return CONVERTERS.get(("" if domain == "ai.onnx" else domain, op_type))


__all__ = ["register", "lookup", "CONVERTERS", "OnnxOp", "MIN_OPSET", "MAX_OPSET"]
