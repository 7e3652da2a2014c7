"""The Relax virtual machine from Python (``tvm.runtime.relax_vm``, also
``tvm.relax.VirtualMachine``): runs an Executable built by ``relax.build``
or by ``relax.ExecBuilder``, or loaded with ``tvm.runtime.load_module``.
The interpreter is C++ (src/runtime/vm); this class is a thin front."""
from .._ffi.registry import get_global_func
from ..error import TVMError
from .device import Device
from .module import Module, BenchmarkResult
from ..error import OpNotImplemented, TVMTypeError, TVMValueError


class VirtualMachine:
    """``VirtualMachine(rt_mod, device)``: ``vm["main"](*args)`` calls a
    function; ``set_input`` / ``invoke_stateful`` / ``get_outputs`` call it
    with inputs stored once; ``time_evaluator`` times it from C++."""

    NAIVE_ALLOCATOR = 1
    POOLED_ALLOCATOR = 2

    def __init__(self, rt_mod, device, memory_cfg=None, profile=False):
        self._profile = bool(profile)
        self._kernel_flops = getattr(rt_mod, "kernel_flops", None)  # an Executable's (relax.build) FLOP counts
        if memory_cfg not in (None, "naive", "pooled"):
            raise TVMValueError(f"VirtualMachine(memory_cfg={memory_cfg!r}): use None, \"naive\" or \"pooled\" "
                                "(the VM pools storage either way; \"naive\" is accepted as TVM's name for it)")
        if not isinstance(rt_mod, Module):
            mod = getattr(rt_mod, "mod", None)
            if not isinstance(mod, Module):
                raise TVMTypeError("VirtualMachine expects an Executable or a runtime Module, got "
                                   f"{type(rt_mod).__name__}")
            rt_mod = mod
        if rt_mod.type_key != "relax.Executable":
            raise TVMTypeError(f"VirtualMachine expects a relax.Executable (from relax.build, or load_module of an "
                               f"exported executable), got a {rt_mod.type_key} module")
        devices = list(device) if isinstance(device, (list, tuple)) else [device]
        for d in devices:
            if not isinstance(d, Device):
                raise TVMTypeError(f"VirtualMachine: device must be a tvm.runtime.Device (e.g. tvm.cpu()), "
                                   f"got {type(d).__name__}")
        self.module = rt_mod["vm_load_executable"]()
        init = []
        for d in devices:
            init += [int(d.device_type), int(d.device_id), self.POOLED_ALLOCATOR]
        self.module["vm_initialization"](*init)
        self.device = devices[0]
        self._invoke_closure = self.module["invoke_closure"]
        self._save_function = self.module["save_function"]
        self._set_input = self.module["set_input"]
        self._invoke_stateful = self.module["invoke_stateful"]
        self._get_output = self.module["get_output"]
        self._get_output_arity = self.module["get_output_arity"]
        self._get_function_arity = self.module["get_function_arity"]
        self._get_function_param_name = self.module["get_function_param_name"]

    def __getitem__(self, key):
        return self.module[key]

    def profile(self, func_name, *args):
        """Calls ``func_name`` once with every callee timed (the VM must be made
        with ``profile=True``, as in TVM); returns a ``tvm.runtime.profiling.Report``:
        per kernel / VM builtin and argument shapes, calls, total and mean time,
        share, GFLOP/s where the kernel's FLOP count is known, and the VM's own
        overhead. Print it, or take ``.csv()`` / ``.json()``."""
        from .profiling import Report  # pylint: disable=import-outside-toplevel

        if not self._profile:
            raise TVMError("VirtualMachine.profile needs a VirtualMachine made with profile=True")
        args = self._convert_func_args(func_name, args, {})
        rows = list(self.module["profile"](func_name, *args))
        total_ns, _ = rows.pop()
        flops = self._kernel_flops() if self._kernel_flops is not None else {}
        return Report([tuple(r) for r in rows], int(total_ns), flops)

    def invoke_closure(self, closure, *args):
        """Calls a closure returned by a VM function."""
        return self._invoke_closure(closure, *args)

    def save_function(self, func_name, saved_name, *args, include_return=True, **kwargs):
        """Binds ``args`` (and keyword arguments by parameter name) to
        ``func_name``; ``vm[saved_name]()`` then calls it without converting
        arguments again."""
        args = self._convert_func_args(func_name, args, kwargs)
        self._save_function(func_name, saved_name, bool(include_return), *args)

    def set_input(self, func_name, *args, **kwargs):
        """Stores the inputs of ``func_name`` (by position or parameter name)
        for ``invoke_stateful``."""
        args = self._convert_func_args(func_name, args, kwargs)
        self._set_input(func_name, *args)

    def invoke_stateful(self, func_name):
        """Runs ``func_name`` on the inputs of ``set_input``; the result is
        read with ``get_outputs``."""
        self._invoke_stateful(func_name)

    def get_outputs(self, func_name):
        """The result of the last ``invoke_stateful(func_name)`` (tuples as
        Python tuples)."""

        def rec(*idx):
            arity = self._get_output_arity(func_name, *idx)
            if arity == -1:
                return self._get_output(func_name, *idx)
            return tuple(rec(*idx, i) for i in range(arity))

        return rec()

    def set_instrument(self, instrument):
        raise OpNotImplemented("VirtualMachine.set_instrument is not supported")

    def time_evaluator(self, func_name, dev, number=10, repeat=1, min_repeat_ms=0, cooldown_interval_ms=0,
                       repeats_to_cooldown=1, f_preproc=""):
        """A function that calls ``func_name`` ``number`` times per repeat,
        ``repeat`` times, from C++, and returns a BenchmarkResult (seconds per
        call). Called with no arguments after ``set_input``, it times
        ``invoke_stateful(func_name)``."""
        for key, value, default in (("cooldown_interval_ms", cooldown_interval_ms, 0),
                                    ("repeats_to_cooldown", repeats_to_cooldown, 1), ("f_preproc", f_preproc, "")):
            if value != default:
                raise OpNotImplemented(f"time_evaluator({key}={value!r}) is not supported; "
                                          f"leave it at its default {default!r}")
        timer = get_global_func("runtime.TimeEvaluate")
        func = self.module[func_name]
        stateful = self._invoke_stateful

        def evaluator(*args):
            if args or func_name == "invoke_stateful":
                results = timer(func, dev, int(number), int(repeat), int(min_repeat_ms), *args)
            else:
                try:
                    arity = self._get_function_arity(func_name)
                except ValueError:
                    arity = 0  # a closure of save_function (found by self.module[func_name]): no arguments
                if arity == 0:
                    results = timer(func, dev, int(number), int(repeat), int(min_repeat_ms))
                else:
                    results = timer(stateful, dev, int(number), int(repeat), int(min_repeat_ms), func_name)
            return BenchmarkResult(results)

        return evaluator

    def _convert_func_args(self, func_name, args, kwargs):
        """Positional arguments, keyword ones placed by parameter name; NumPy arrays
        (also inside tuples / lists) become NDArrays, as TVM's VirtualMachine._convert."""
        args = [_from_numpy(a) for a in args]
        kwargs = {k: _from_numpy(v) for k, v in kwargs.items()}
        if not kwargs:
            return list(args)
        arity = self._get_function_arity(func_name)
        names = [self._get_function_param_name(func_name, i) for i in range(arity)]
        out = list(args) + [None] * (arity - len(args))
        for key, value in kwargs.items():
            if key not in names:
                raise TVMTypeError(f"{func_name}() got an unexpected keyword argument '{key}' "
                                   f"(parameters: {', '.join(names)})")
            i = names.index(key)
            if i < len(args):
                raise TVMTypeError(f"{func_name}() got multiple values for argument '{key}'")
            out[i] = value
        missing = [names[i] for i in range(len(args), arity) if names[i] not in kwargs]
        if missing:
            raise TVMTypeError(f"{func_name}() missing {len(missing)} argument(s): {', '.join(missing)}")
        return out


def _from_numpy(value):
    import numpy as np  # pylint: disable=import-outside-toplevel
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, np.bool_):
        from .ndarray import array  # pylint: disable=import-outside-toplevel
        return array(np.asarray(value))
    if isinstance(value, (tuple, list)):
        return type(value)(_from_numpy(v) for v in value)
    return value


__all__ = ["VirtualMachine"]
