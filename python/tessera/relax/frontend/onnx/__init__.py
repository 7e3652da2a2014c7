"""``tvm.relax.frontend.onnx``: the ONNX importer (``from_onnx``). importer.py loads,
checks and walks the graph; registry.py is the conversion table; ops_*.py hold one
converter per ONNX operator. Importing this package does not import PyTorch."""
from .importer import from_onnx

__all__ = ["from_onnx"]
