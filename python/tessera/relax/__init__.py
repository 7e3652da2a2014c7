"""`tvm.relax` — the parts delivered so far: the virtual machine
(``VirtualMachine``, ``ExecBuilder``, ``Executable``). Other attributes
raise NotImplementedError naming what is missing.
"""
from .._unavailable import missing_attribute
from . import exec_builder, vm_build
from .exec_builder import ExecBuilder
from .vm_build import Executable
from ..runtime.relax_vm import VirtualMachine

__getattr__ = missing_attribute("relax")
