"""Mutators (``tvm.meta_schedule.mutator``): variants of a candidate's trace for the
evolutionary search. The mutators are C++ (src/meta_schedule/mutator/); this package
gives them TVM's Python names."""
from .mutator import (Mutator, MutateComputeLocation, MutateParallel, MutateThreadBinding, MutateTileSize, MutateUnroll,
                      default_probs)

__all__ = ["Mutator", "MutateComputeLocation", "MutateParallel", "MutateThreadBinding", "MutateTileSize", "MutateUnroll",
           "default_probs"]
