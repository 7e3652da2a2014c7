"""The input/output signature of a compiled model, kept inside its
executable: ``attach(mod)`` adds a Relax function "tessera_signature"
returning a JSON string (name, shape, dtype of each input of "main", shape
and dtype of each output); ``read(module)`` gets it back from a built or
loaded library (None when absent), so tools can make inputs for it."""
import json

from ..error import TVMValueError

FUNC_NAME = "tessera_signature"


def _tensors(sinfo):
    from ..relax.struct_info import TensorStructInfo, TupleStructInfo  # pylint: disable=import-outside-toplevel

    if isinstance(sinfo, TupleStructInfo):
        return [t for f in sinfo.fields for t in _tensors(f)]
    if isinstance(sinfo, TensorStructInfo) and sinfo.shape is not None and hasattr(sinfo.shape, "values"):
        dims = [int(d.value) if hasattr(d, "value") else str(d) for d in sinfo.shape.values]
        return [{"shape": dims, "dtype": str(sinfo.dtype)}]
    return [{"shape": None, "dtype": str(getattr(sinfo, "dtype", "")) or None}]


def describe(func):
    """The signature dict of the Relax function ``func``."""
    inputs = []
    for param in func.params:
        (info,) = _tensors(param.struct_info)[:1] or [{"shape": None, "dtype": None}]
        inputs.append({"name": param.name_hint, **info})
    return {"inputs": inputs, "outputs": _tensors(func.ret_struct_info)}


def attach(mod):
    """``mod`` with "tessera_signature" describing ``mod["main"]``."""
    from .. import relax  # pylint: disable=import-outside-toplevel

    if any(gv.name_hint == FUNC_NAME for gv in mod.get_global_vars()):
        raise TVMValueError(f"the module already has a function named {FUNC_NAME!r}")
    bb = relax.BlockBuilder()
    with bb.function(FUNC_NAME, []):
        bb.emit_func_output(relax.StringImm(json.dumps(describe(mod["main"]))))
    from ..ir.module import IRModule  # pylint: disable=import-outside-toplevel

    out = IRModule(dict(mod.functions_items()), attrs=mod.attrs)
    out[FUNC_NAME] = bb.get()[FUNC_NAME]
    return out


def read(module):
    """The signature dict stored in ``module`` (a relax.Executable or runtime
    Module from load_module), or None when it has none."""
    from ..relax.vm_build import Executable  # pylint: disable=import-outside-toplevel
    from ..runtime.relax_vm import VirtualMachine  # pylint: disable=import-outside-toplevel
    from .._ffi.registry import get_global_func  # pylint: disable=import-outside-toplevel

    rt_mod = module.mod if isinstance(module, Executable) else module
    if FUNC_NAME not in get_global_func("relax.ExecutableFunctionNames")(rt_mod):
        return None
    from ..runtime.device import cpu  # pylint: disable=import-outside-toplevel

    return json.loads(str(VirtualMachine(rt_mod, cpu())[FUNC_NAME]()))


__all__ = ["attach", "read", "describe", "FUNC_NAME"]
