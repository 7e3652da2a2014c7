"""``tvm.relay.frontend``: Relay's model importers, returning ``(mod,
params)``. ``from_onnx`` wraps the Relax ONNX importer; the module is Relax
(see docs/compatibility.md)."""
from .onnx import from_onnx

__all__ = ["from_onnx"]
