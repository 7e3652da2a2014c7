"""``relay.testing.create_workload``: random values for the weight parameters
of a workload's "main" (every parameter after the data input), chosen by the
weight's name as TVM's initializer does: He-normal for ``*_weight``, ones for
``*_gamma`` / ``*_moving_var``, zeros for biases, betas and moving means."""
import numpy as np

from ... import nd
from ...error import TVMTypeError
from ...ir.module import IRModule


def _init_value(name, shape, dtype, rng):
    if name.endswith("_weight"):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        return rng.standard_normal(shape).astype(dtype) * np.asarray(np.sqrt(2.0 / max(1, fan_in)), dtype)
    if name.endswith(("_gamma", "_moving_var")):
        return np.ones(shape, dtype)
    return np.zeros(shape, dtype)


def create_workload(mod, seed=0, num_inputs=1):
    """``(mod, params)``: ``params`` maps the name of each weight parameter of
    ``mod["main"]`` (those after its first ``num_inputs``) to an NDArray."""
    if not isinstance(mod, IRModule):
        raise TVMTypeError(f"create_workload expects an IRModule, got {type(mod).__name__}")
    rng = np.random.default_rng(seed)
    params = {}
    for var in list(mod["main"].params)[num_inputs:]:
        sinfo = var.struct_info
        shape = tuple(int(d) for d in sinfo.shape.values)
        params[var.name_hint] = nd.array(_init_value(var.name_hint, shape, str(sinfo.dtype), rng))
    return mod, params
