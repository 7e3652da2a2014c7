"""``tvm.relax.frontend``: importers of models from other frameworks into
Relax. ``frontend.torch`` holds the PyTorch importers (``from_fx``,
``from_exported_program``; imported on first use, so ``import tessera`` does
not load PyTorch); ``detach_params`` splits the weights that an importer kept
as function inputs off the module."""
from .common import detach_params

__all__ = ["detach_params"]
