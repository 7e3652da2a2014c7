"""``tvm.relax.frontend.torch``: PyTorch importers. ``from_fx`` converts a
torch.fx.GraphModule, ``from_exported_program`` a torch.export.ExportedProgram,
both through the conversion table of converters.py (base_translator.py holds the
shared machinery). Importing this package imports PyTorch."""
from .fx_translator import from_fx
from .exported_program_translator import from_exported_program

__all__ = ["from_fx", "from_exported_program"]
