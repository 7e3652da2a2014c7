"""``tvm.relax.vm``: the older Unity spelling of the VM entry points
(``relax.vm.build``, ``relax.vm.VirtualMachine``, ``relax.vm.Executable``)."""
from .vm_build import build, Executable
from ..runtime.relax_vm import VirtualMachine

__all__ = ["build", "Executable", "VirtualMachine"]
