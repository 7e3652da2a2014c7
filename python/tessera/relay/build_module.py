"""``relay.build``: Relay's build entry point over ``relax.build``. Binds
``params`` by name into the Relax "main", compiles it with relax.build's
default pipeline and returns a GraphExecutorFactoryModule
(executor_factory.py) for ``graph_executor.GraphModule``."""
import numpy as np

from ..error import OpNotImplemented, TVMTypeError, TVMValueError
from ..ir.module import IRModule


def _count_leaves(sinfo):
    from ..relax.struct_info import TupleStructInfo  # pylint: disable=import-outside-toplevel

    if isinstance(sinfo, TupleStructInfo):
        return sum(_count_leaves(f) for f in sinfo.fields)
    return 1


def _as_target(target, target_host):
    from ..target import Target  # pylint: disable=import-outside-toplevel

    if isinstance(target, dict):
        if len(target) != 1:
            raise OpNotImplemented(f"relay.build: one target is supported, got {len(target)}")
        target = next(iter(target.values()))
    from ..target import default_host  # pylint: disable=import-outside-toplevel

    # The CPU kinds ("llvm", and "c", the host without LLVM); None: the host.
    tgt = Target(default_host() if target is None else target) if not isinstance(target, Target) else target
    if tgt.kind.name not in ("llvm", "c"):
        raise OpNotImplemented(f"relay.build(target={str(tgt)!r}): Tessera compiles for the CPU (\"llvm\" or \"c\") only")
    if target_host is not None:
        host = target_host if isinstance(target_host, Target) else Target(target_host)
        if host.kind.name != tgt.kind.name:
            raise OpNotImplemented(f"relay.build(target_host={str(host)!r}): the host must be the target's kind "
                                   f"({tgt.kind.name!r})")
    return tgt


def build(ir_mod, target=None, target_host=None, executor=None, runtime=None, workspace_memory_pools=None,
          constant_memory_pools=None, params=None, mod_name="default"):
    """Compiles the Relax module ``ir_mod`` (its function "main") for the CPU
    with ``params`` (name -> array) bound as constants; names that are not
    parameters of "main" are skipped, as in Relay. Returns a
    GraphExecutorFactoryModule: ``lib[mod_name](dev)`` for GraphModule."""
    from .. import relax  # pylint: disable=import-outside-toplevel
    from ..runtime.ndarray import NDArray, array as nd_array  # pylint: disable=import-outside-toplevel
    from .executor_factory import GraphExecutorFactoryModule  # pylint: disable=import-outside-toplevel
    from ..contrib import model_signature  # pylint: disable=import-outside-toplevel

    for name, value in (("executor", executor), ("runtime", runtime),
                        ("workspace_memory_pools", workspace_memory_pools),
                        ("constant_memory_pools", constant_memory_pools)):
        if value is not None and not (name == "executor" and "graph" in str(value)):
            raise OpNotImplemented(f"relay.build({name}=...) is not supported: the model runs on the Relax VM")
    if isinstance(ir_mod, relax.Function):
        ir_mod = IRModule.from_expr(ir_mod)
    if not isinstance(ir_mod, IRModule):
        raise TVMTypeError(f"relay.build expects an IRModule, got {type(ir_mod).__name__}")
    if not any(gv.name_hint == "main" for gv in ir_mod.get_global_vars()) or \
            not isinstance(ir_mod["main"], relax.Function):
        raise TVMValueError("relay.build: the module has no Relax function \"main\"")
    if params is not None and not isinstance(params, dict):
        raise TVMTypeError(f"relay.build: params must be a dict of name -> array, got {type(params).__name__}")
    tgt = _as_target(target, target_host)
    names = {p.name_hint for p in ir_mod["main"].params}
    bound = {}
    for key, value in (params or {}).items():
        if key in names:
            bound[key] = value if isinstance(value, NDArray) else nd_array(np.ascontiguousarray(value))
    mod = relax.transform.BindParams("main", bound)(ir_mod) if bound else ir_mod
    # The signature of "main" travels in the executable: an exported library knows its outputs.
    executable = relax.build(model_signature.attach(mod), target=tgt)
    num_outputs = _count_leaves(ir_mod["main"].ret_struct_info)
    return GraphExecutorFactoryModule(executable, ir_mod, tgt, mod_name, num_outputs)


__all__ = ["build"]
