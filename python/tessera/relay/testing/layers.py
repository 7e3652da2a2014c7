"""The builder behind ``relay.testing``'s model workloads: a Relax
BlockBuilder that turns each weight it is asked for into a named parameter of
"main" (after the data input), so that ``create_workload`` (init.py) can fill
them with random values and ``relay.build(params=...)`` can bind them."""
from ... import relax
from ...error import TVMValueError


class WorkloadBuilder:
    """Emits the layers of one model into the function "main"; ``weight``
    makes a parameter named ``name`` of ``shape``."""

    def __init__(self, dtype="float32"):
        self.dtype = dtype
        self.bb = relax.BlockBuilder()
        self.weights = []  # relax.Var, in parameter order
        self._names = set()

    def weight(self, name, shape):
        if name in self._names:
            raise TVMValueError(f"relay.testing: weight {name!r} is declared twice")
        self._names.add(name)
        var = relax.Var(name, relax.TensorStructInfo(tuple(int(d) for d in shape), self.dtype))
        self.weights.append(var)
        return var

    def emit(self, expr):
        return self.bb.emit(expr)

    def conv2d(self, data, name, channels, in_channels, kernel, stride=1, padding=0):
        w = self.weight(f"{name}_weight", (channels, in_channels, kernel, kernel))
        return self.emit(relax.op.nn.conv2d(data, w, strides=(stride, stride), padding=(padding, padding)))

    def batch_norm(self, data, name, channels, epsilon=2e-5, scale=True):
        gamma = self.weight(f"{name}_gamma", (channels,))
        beta = self.weight(f"{name}_beta", (channels,))
        mean = self.weight(f"{name}_moving_mean", (channels,))
        var = self.weight(f"{name}_moving_var", (channels,))
        out = self.emit(relax.op.nn.batch_norm(data, gamma, beta, mean, var, axis=1, epsilon=epsilon, scale=scale))
        return self.emit(relax.TupleGetItem(out, 0))

    def relu(self, data):
        return self.emit(relax.op.nn.relu(data))

    def dense(self, data, name, units, in_units, bias=True):
        w = self.weight(f"{name}_weight", (units, in_units))
        b = self.weight(f"{name}_bias", (units,)) if bias else None
        return self.emit(relax.op.linear(data, w, b))

    def module(self, data, body):
        """The IRModule whose "main" takes ``data`` and the weights and
        returns what ``body(self, data)`` returns."""
        with self.bb.function("main"):
            with self.bb.dataflow():
                out = self.bb.emit_output(body(self, data))
            self.bb.emit_func_output(out, params=[data] + self.weights)
        return self.bb.get()
