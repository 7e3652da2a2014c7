"""``relax.ExecBuilder``: writes VM bytecode by hand (TVM's API). Functions
are emitted inside ``with ib.function(name, num_inputs):``; operands are
``ib.r(i)`` (register), ``ib.imm(v)``, ``ib.c(i)`` (constant), ``ib.f(name)``
(function), ``ib.vm_state()`` and ``ib.void_arg()``; ``ib.get()`` checks the
program and returns an Executable."""
from enum import IntEnum

from .._ffi.registry import get_global_func, register_object
from ..runtime.object import Object
from ..runtime.ndarray import NDArray
from ..runtime.data_type import DataType
from ..runtime.container import ShapeTuple
from .vm_build import Executable
from ..error import TVMTypeError, TVMValueError


def _api(name):
    return get_global_func("relax.ExecBuilder" + name)


class SpecialReg(IntEnum):
    """Registers outside the register file."""

    VOID_ARG = (1 << 54) + 0
    VM_STATE = (1 << 54) + 1


class VMFuncKind(IntEnum):
    PACKED_FUNC = 0
    VM_FUNC = 1


class VMFuncScope:
    """The scope of one function being emitted (a context manager)."""

    stack = []

    def __init__(self, exit_callback):
        self.exit_callback = exit_callback

    def __enter__(self):
        VMFuncScope.stack.append(self)
        return self

    def __exit__(self, ptype, value, trace):
        VMFuncScope.stack.pop()
        if ptype is None:
            self.exit_callback()


@register_object("relax.ExecBuilder")
class ExecBuilder(Object):
    """Builds an Executable instruction by instruction."""

    def __init__(self):
        self.__init_handle_by_constructor__(_api("Create"))

    def r(self, idx):
        return _api("R")(self, int(idx))

    def imm(self, value):
        return _api("Imm")(self, int(value))

    def c(self, idx):
        return _api("C")(self, int(idx))

    def f(self, name):
        return _api("F")(self, name)

    def void_arg(self):
        return self.r(SpecialReg.VOID_ARG)

    void_register = void_arg

    def vm_state(self):
        return self.r(SpecialReg.VM_STATE)

    def declare_function(self, func_name, kind=VMFuncKind.PACKED_FUNC):
        _api("DeclareFunction")(self, func_name, int(kind))

    def function(self, func_name, num_inputs=0, param_names=None):
        _api("EmitFunction")(self, func_name, int(num_inputs or 0),
                             None if param_names is None else [str(p) for p in param_names])
        return VMFuncScope(lambda: _api("EndFunction")(self, func_name))

    def _check_scope(self):
        if not VMFuncScope.stack:
            raise TVMValueError("emit should happen in a function scope")

    def convert_constant(self, const):
        if isinstance(const, DataType):
            return _api("ConvertDataType")(self, str(const))
        if isinstance(const, tuple):
            const = ShapeTuple(const)
        return _api("ConvertConstant")(self, const)

    def emit_call(self, name, args=None, dst=None):
        """Calls function ``name`` (a VM function or a packed function)."""
        self._check_scope()
        if dst is None:
            dst = SpecialReg.VOID_ARG
        converted = []
        for arg in args or []:
            if isinstance(arg, (tuple, NDArray, DataType, ShapeTuple)):
                converted.append(self.convert_constant(arg))
            elif isinstance(arg, int) and not isinstance(arg, bool):
                converted.append(int(arg))
            else:
                raise TVMTypeError(f"emit_call({name!r}): argument {arg!r} is not an operand (use ib.r/imm/c/f) "
                                   "nor a constant (NDArray, DataType, ShapeTuple, tuple)")
        _api("EmitCall")(self, name, converted, int(dst))

    def emit_ret(self, result):
        self._check_scope()
        _api("EmitRet")(self, int(result))

    def emit_goto(self, pc_offset):
        self._check_scope()
        _api("EmitGoto")(self, int(pc_offset))

    def emit_if(self, cond, false_offset):
        self._check_scope()
        _api("EmitIf")(self, int(cond), int(false_offset))

    def get(self):
        """Checks the program and returns the Executable."""
        return Executable(_api("Get")(self))


__all__ = ["ExecBuilder", "SpecialReg", "VMFuncKind"]
