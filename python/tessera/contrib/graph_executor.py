"""``tvm.contrib.graph_executor``: Relay's graph-executor API as a thin layer
over the Relax VM. ``lib["default"](dev)`` (lib from ``relay.build`` or
``tvm.runtime.load_module`` of its exported library) gives a
``VMGraphExecutor``; ``GraphModule`` wraps it with set_input / run /
get_output. Every run is one call of the VM's "main"."""
import numpy as np

from ..error import OpNotImplemented, TVMError, TVMIndexError, TVMTypeError, TVMValueError
from ..runtime.ndarray import NDArray, array as nd_array
from ..runtime.relax_vm import VirtualMachine


def flatten_outputs(value):
    """The tensors of a VM result, nested tuples flattened in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in flatten_outputs(item)]
    return [value]


class VMGraphExecutor:
    """What ``lib["default"](dev)`` returns: the VM of one executable on one
    device, with the inputs of "main" stored by name between runs.
    ``module["set_input"]`` etc. give its functions, as a runtime module's."""

    _FUNCTIONS = ("set_input", "run", "get_output", "get_input", "get_num_outputs", "get_num_inputs",
                  "get_input_index", "get_input_names")

    def __init__(self, executable, device, num_outputs=None):
        self.vm = VirtualMachine(executable, device)
        self._main = self.vm["main"]
        self.device = device
        arity = self.vm._get_function_arity("main")
        self._names = [self.vm._get_function_param_name("main", i) for i in range(arity)]
        self._inputs = {}
        self._outputs = None
        if num_outputs is None:
            from .model_signature import read  # pylint: disable=import-outside-toplevel

            signature = read(executable)
            num_outputs = len(signature["outputs"]) if signature is not None else None
        self._num_outputs = num_outputs

    def __getitem__(self, name):
        if name not in self._FUNCTIONS:
            raise TVMValueError(f"the graph executor has no function {name!r} (it has: {', '.join(self._FUNCTIONS)})")
        return getattr(self, name)

    def get_input_names(self):
        return list(self._names)

    def get_num_inputs(self):
        return len(self._names)

    def get_input_index(self, name):
        """The position of input ``name`` in "main", -1 when there is none (as TVM)."""
        return self._names.index(name) if name in self._names else -1

    def _name_of(self, key):
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not 0 <= int(key) < len(self._names):
                raise TVMIndexError(f"input index {int(key)} is out of range: the model has {len(self._names)} "
                                    f"input(s) ({', '.join(self._names)})")
            return self._names[int(key)]
        if not isinstance(key, str):
            raise TVMTypeError(f"set_input: the key must be an input name or index, got {type(key).__name__}")
        if key not in self._names:
            raise TVMValueError(f"the model has no input named {key!r} (its inputs: {', '.join(self._names) or 'none'})")
        return key

    @staticmethod
    def _as_ndarray(name, value):
        if isinstance(value, NDArray):
            return value
        try:
            return nd_array(np.ascontiguousarray(np.asarray(value)))
        except (TypeError, ValueError) as err:
            raise TVMTypeError(f"input {name!r}: cannot make an array of a {type(value).__name__}: {err}") from err

    def set_input(self, key=None, value=None, **params):
        """Stores ``value`` for input ``key`` (name or index); keyword arguments
        store several. Keyword names that are not inputs are skipped, as Relay
        does for weights ``relay.build`` already bound."""
        if key is not None:
            name = self._name_of(key)
            if value is None:
                raise TVMValueError(f"set_input({key!r}): no value given")
            self._inputs[name] = self._as_ndarray(name, value)
        for name, val in params.items():
            if name in self._names:
                self._inputs[name] = self._as_ndarray(name, val)

    def _ordered_inputs(self):
        missing = [n for n in self._names if n not in self._inputs]
        if missing:
            raise TVMValueError(f"input(s) not set: {', '.join(missing)} (call set_input first)")
        return [self._inputs[n] for n in self._names]

    def run(self, **input_dict):
        """Runs "main" on the stored inputs (after storing ``input_dict``)."""
        if input_dict:
            self.set_input(**input_dict)
        self._outputs = flatten_outputs(self._main(*self._ordered_inputs()))
        self._num_outputs = len(self._outputs)

    def get_num_outputs(self):
        if self._num_outputs is None:
            raise TVMError("get_num_outputs: this library does not record its outputs (it was not exported "
                           "by relay.build); their number is known after the first run(): call run() first")
        return self._num_outputs

    def get_output(self, index, out=None):
        """Output ``index`` of the last run (tuples flattened), copied into
        ``out`` when given."""
        if self._outputs is None:
            raise TVMError("get_output: the model has not run yet; call run() first")
        if not isinstance(index, (int, np.integer)) or not 0 <= int(index) < len(self._outputs):
            raise TVMIndexError(f"get_output({index!r}): the model has {len(self._outputs)} output(s)")
        value = self._outputs[int(index)]
        if out is None:
            return value
        if tuple(out.shape) != tuple(value.shape) or str(out.dtype) != str(value.dtype):
            raise TVMValueError(f"get_output({index}): out is {tuple(out.shape)} {out.dtype}, the output is "
                                f"{tuple(value.shape)} {value.dtype}")
        out.copyfrom(value)
        return out

    def get_input(self, index):
        name = self._name_of(index)
        if name not in self._inputs:
            raise TVMValueError(f"get_input: input {name!r} has not been set")
        return self._inputs[name]

    def benchmark(self, device, number, repeat, min_repeat_ms):
        self.vm.set_input("main", *self._ordered_inputs())
        return self.vm.time_evaluator("main", device, number=number, repeat=repeat,
                                      min_repeat_ms=min_repeat_ms)()


class GraphModule:
    """``GraphModule(lib["default"](dev))``: set_input / run / get_output as
    Relay's graph executor; ``module`` is the underlying VMGraphExecutor."""

    def __init__(self, module):
        if not isinstance(module, VMGraphExecutor):
            raise TVMTypeError("GraphModule expects lib[\"default\"](dev), where lib comes from relay.build or "
                               f"tvm.runtime.load_module of its exported library; got {type(module).__name__}")
        self.module = module
        self._set_input = module["set_input"]
        self._run = module["run"]
        self._get_output = module["get_output"]
        self._get_input = module["get_input"]
        self._get_num_outputs = module["get_num_outputs"]
        self._get_num_inputs = module["get_num_inputs"]
        self._get_input_index = module["get_input_index"]

    def set_input(self, key=None, value=None, **params):
        self._set_input(key, value, **params)

    def run(self, **input_dict):
        self._run(**input_dict)

    def get_output(self, index, out=None):
        return self._get_output(index, out)

    def get_input(self, index, out=None):
        value = self._get_input(index)
        if out is not None:
            out.copyfrom(value)
            return out
        return value

    def get_num_outputs(self):
        return self._get_num_outputs()

    def get_num_inputs(self):
        return self._get_num_inputs()

    def get_input_index(self, name):
        return self._get_input_index(name)

    def benchmark(self, device, func_name="run", repeat=5, number=5, min_repeat_ms=None, end_to_end=False,
                  **kwargs):
        """Times ``run`` (``repeat`` x ``number`` calls of the VM's "main" on
        the stored inputs, set from ``kwargs`` first); returns a
        BenchmarkResult in seconds. The inputs already live on the CPU, so
        ``end_to_end`` times the same thing."""
        if func_name != "run":
            raise OpNotImplemented(f"benchmark(func_name={func_name!r}): only \"run\" is timed")
        del end_to_end  # the VM runs on the CPU: inputs need no copy
        if kwargs:
            self.set_input(**kwargs)
        return self.module.benchmark(device, int(number), int(repeat), int(min_repeat_ms or 0))

    def __getitem__(self, key):
        return self.module[key]


def create(graph_json_str, libmod, device):
    """Relay's ``graph_executor.create`` needs a graph JSON, which Tessera does
    not produce; refused with the way to do it."""
    raise OpNotImplemented("graph_executor.create(graph_json, lib, dev) is not supported: Tessera's relay.build "
                           "produces a VM executable, not a graph JSON; use "
                           "graph_executor.GraphModule(lib[\"default\"](dev))")


__all__ = ["GraphModule", "VMGraphExecutor", "create", "flatten_outputs"]
