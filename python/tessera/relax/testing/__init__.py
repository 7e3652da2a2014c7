"""``tvm.relax.testing``: helpers TVM's Relax tests use -- ``nn`` (a small
module API building Relax functions through the current BlockBuilder),
``vm.check_saved_func`` (a saved VM closure agrees with a direct call) and
``runtime_builtin`` (the opcodes of the VM's shape builtins)."""
from . import nn, vm, runtime_builtin
from .vm import check_saved_func

__all__ = ["nn", "vm", "runtime_builtin", "check_saved_func"]
