"""``relax.analysis.estimate_memory_usage``: how many bytes the tensors of each
Relax function take without and with static memory planning
(StaticPlanBlockMemory), read off the lowered IR: every
``R.builtin.alloc_tensor`` and ``R.memory.alloc_tensor`` counts its tensor's
bytes "without planning"; "with planning" counts every
``R.memory.alloc_storage`` plus the unplanned ``R.builtin.alloc_tensor``s.
Tensors of symbolic shape are counted apart. Control flow is not followed:
both branches of an If count."""
from ...ir.expr import GlobalVar
from ...ir.module import IRModule
from ...ir.op import Op
from ...runtime.data_type import DataType
from ..expr import Function, ShapeExpr
from ..expr_functor import PyExprVisitor, visitor
from ...error import TVMTypeError


class _Usage:
    def __init__(self):
        self.static_tensors = 0      # tensors of constant size
        self.dynamic_tensors = 0     # tensors of symbolic size
        self.unplanned_bytes = 0     # bytes of all constant-size tensors
        self.planned_blocks = 0      # storages + unplanned constant-size tensors
        self.planned_bytes = 0


def _const_bytes(shape, dtype):
    if not isinstance(shape, ShapeExpr):
        return None
    n = 1
    for d in shape.values:
        if not hasattr(d, "value") or not isinstance(d.value, int):
            return None
        n *= d.value
    t = DataType(str(dtype))
    return n * ((t.bits + 7) // 8) * t.lanes


@visitor
class _AllocationCounter(PyExprVisitor):
    """Adds the allocations called in a function (its nested functions and both
    branches of each If included) to ``usage``."""

    def __init__(self, usage, ops):
        self.usage = usage
        self.ops = ops

    def visit_call_(self, call):
        if not isinstance(call.op, Op):
            return
        usage, ops = self.usage, self.ops
        if call.op == ops["builtin"] or call.op == ops["tensor"]:
            planned = call.op == ops["tensor"]
            shape, dtype = (call.args[2], call.args[3]) if planned else (call.args[0], call.args[1])
            nbytes = _const_bytes(shape, dtype.value)
            if nbytes is None:
                usage.dynamic_tensors += 1
                return
            usage.static_tensors += 1
            usage.unplanned_bytes += nbytes
            if not planned:
                usage.planned_blocks += 1
                usage.planned_bytes += nbytes
        elif call.op == ops["storage"]:
            size = call.args[0]
            nbytes = int(size.values[0].value) if isinstance(size, ShapeExpr) and hasattr(size.values[0], "value") \
                else None
            if nbytes is not None:
                usage.planned_blocks += 1
                usage.planned_bytes += nbytes


def memory_usage(mod):
    """{function name: (bytes without planning, bytes with planning)} over the
    constant-size allocations of each Relax function of ``mod``."""
    return {name: (u.unplanned_bytes, u.planned_bytes) for name, u in _analyze(mod).items()}


def _analyze(mod):
    if isinstance(mod, Function):
        mod = IRModule({GlobalVar("main"): mod})
    if not isinstance(mod, IRModule):
        raise TVMTypeError(f"estimate_memory_usage expects an IRModule or a relax.Function, got {type(mod).__name__}")
    ops = {"builtin": Op.get("relax.builtin.alloc_tensor"), "tensor": Op.get("relax.memory.alloc_tensor"),
           "storage": Op.get("relax.memory.alloc_storage")}
    out = {}
    for gv, func in mod.functions.items():
        if isinstance(func, Function):
            usage = _Usage()
            _AllocationCounter(usage, ops).visit_expr(func)
            out[gv.name_hint] = usage
    return out


def estimate_memory_usage(mod):
    """A text report, per Relax function, of the bytes its tensors take without
    and with static memory planning (run it on a module after CallTIRRewrite,
    before and after StaticPlanBlockMemory)."""
    lines = []
    for name, u in sorted(_analyze(mod).items()):
        lines.append(f"- Function {name}:")
        dyn = f" and {u.dynamic_tensors} of symbolic size" if u.dynamic_tensors else ""
        lines.append(f" * Without memory planning: {u.static_tensors} constant-size tensor(s){dyn}, "
                     f"{u.unplanned_bytes} bytes ({u.unplanned_bytes / 2**30:.4} GB).")
        lines.append(f" * With memory planning: {u.planned_blocks} constant-size allocation(s), "
                     f"{u.planned_bytes} bytes ({u.planned_bytes / 2**30:.4} GB).")
        if u.unplanned_bytes:
            lines.append(f" * Memory planning reduces constant memory size to "
                         f"{u.planned_bytes / u.unplanned_bytes:.1%}.")
    return "Memory usage estimation:\n" + "\n".join(lines) + "\n" if lines else ""


__all__ = ["estimate_memory_usage", "memory_usage"]
