"""LocalRunner (``tvm.meta_schedule.runner.LocalRunner``): checks and times built candidates
one at a time in a separate worker process with a time limit (worker_pool), so a
candidate that crashes or hangs is a failed trial."""
from ..worker_pool import WorkerFailure, WorkerPool
from .config import EvaluatorConfig
from .runner import Reference, Runner, check_inputs, to_runner_results
from ...error import TVMError, TVMValueError


def _reference_in_worker(mod_json, target, args_info_json, seed, path):
    """Runs in a worker: builds the unscheduled module, runs it on random inputs, saves both."""
    from .runner import compute_reference
    compute_reference(mod_json, target, args_info_json, seed, path)
    return path


_cache = {}


def _load_reference(path):
    from .runner import read_reference
    if path not in _cache:
        _cache.clear()
        _cache[path] = read_reference(path)
    return _cache[path]


def _device_usable(device_type):
    """Whether the worker's device still takes a copy (a faulting CUDA kernel leaves the
    process's context unusable)."""
    if device_type != "cuda":
        return True
    import numpy as np
    from ... import nd, cuda
    try:
        nd.array(np.zeros(1, "float32"), cuda(0)).numpy()
        return True
    except Exception:  # noqa: BLE001 -- any failure means unusable
        return False


def _run_in_worker(artifact_path, args_info_json, ref, number, repeat, min_repeat_ms, flush, device_type="cpu"):
    """Runs in a worker: loads the library, checks it against the reference, times it. A
    failure that leaves the GPU unusable in this process restarts the worker."""
    try:
        return _check_and_time_in_worker(artifact_path, args_info_json, ref, number, repeat, min_repeat_ms, flush,
                                         device_type)
    except Exception as err:
        if _device_usable(device_type):
            raise
        from ..worker_pool import RestartWorker
        raise RestartWorker(f"{type(err).__name__}: {err} (the {device_type} device is unusable in this worker "
                            "after it; the next candidate runs in a fresh one)") from err


def _check_and_time_in_worker(artifact_path, args_info_json, ref, number, repeat, min_repeat_ms, flush, device_type):
    from ...runtime import load_module
    from ..arg_info import ArgInfo
    from .runner import check_and_time
    args_info = [ArgInfo.from_json(a) for a in args_info_json]
    lib = load_module(artifact_path)
    reference, rtol, atol = None, 0.0, 0.0
    if ref is not None:
        path, rtol, atol = ref
        reference = _load_reference(path)
    return check_and_time(lib, args_info, reference, rtol, atol, number, repeat, min_repeat_ms, flush,
                          device_type)


def _run_interleaved_in_worker(artifact_paths, args_info_json, ref, number, rounds, min_repeat_ms, device_type):
    """Runs in a worker: loads every library (a load failure is that candidate's error)
    and times them interleaved (runner.check_and_time_interleaved)."""
    from ...runtime import load_module
    from ..arg_info import ArgInfo
    from .runner import check_and_time_interleaved
    args_info = [ArgInfo.from_json(a) for a in args_info_json]
    libs = []
    for path in artifact_paths:
        try:
            libs.append(load_module(path))
        except Exception as err:  # noqa: BLE001 -- the candidate's failure, recorded
            libs.append(f"{type(err).__name__}: {err}")
    reference, rtol, atol = None, 0.0, 0.0
    if ref is not None:
        path, rtol, atol = ref
        reference = _load_reference(path)
    return check_and_time_interleaved(libs, args_info, reference, rtol, atol, number, rounds, min_repeat_ms,
                                      device_type)


class LocalRunner(Runner):
    """Times candidates one at a time in a worker process: ``number`` calls per repeat
    (more if a repeat is shorter than ``min_repeat_ms``), ``repeat`` repeats, the CPU
    cache flushed before each repeat when ``enable_cpu_cache_flush``; a candidate
    running past ``timeout_sec`` (checking and timing together) is an error."""

    def __init__(self, timeout_sec=30.0, evaluator_config=None, *, number=None, repeat=None, min_repeat_ms=None,
                 enable_cpu_cache_flush=None):
        # TVM's form: evaluator_config (EvaluatorConfig; its None fields TVM's defaults).
        # Tessera's keywords (number=3, repeat=1, min_repeat_ms=20 unless given) are the
        # other form; the two do not mix.
        keywords = {"number": number, "repeat": repeat, "min_repeat_ms": min_repeat_ms,
                    "enable_cpu_cache_flush": enable_cpu_cache_flush}
        if evaluator_config is not None:
            given = [k for k, v in keywords.items() if v is not None]
            if given:
                raise TVMValueError(f"LocalRunner: give either evaluator_config or {', '.join(given)}, not both")
            config = EvaluatorConfig._normalized(evaluator_config, "LocalRunner")
        else:
            defaults = {"number": 3, "repeat": 1, "min_repeat_ms": 20, "enable_cpu_cache_flush": False}
            config = EvaluatorConfig(**{k: defaults[k] if v is None else v for k, v in keywords.items()})
            for name in ("number", "repeat"):
                if int(getattr(config, name)) < 1:
                    raise TVMValueError(f"LocalRunner({name}={getattr(config, name)}) must be at least 1")
        if timeout_sec is not None and timeout_sec <= 0:
            raise TVMValueError(f"LocalRunner(timeout_sec={timeout_sec}) must be positive")
        self.timeout_sec = timeout_sec
        self.evaluator_config = config
        self.number = int(config.number)
        self.repeat = int(config.repeat)
        self.min_repeat_ms = int(config.min_repeat_ms)
        self.enable_cpu_cache_flush = bool(config.enable_cpu_cache_flush)
        self._pool = WorkerPool(1)

    def make_reference(self, mod, target, args_info, path, seed=0):
        """Builds and runs the unscheduled ``mod`` in the worker; a Reference (or the
        WorkerFailure's message as a RuntimeError)."""
        from ... import ir as _ir
        res = self._pool.map(__name__, "_reference_in_worker",
                             [(_ir.save_json(mod), str(target), [a.as_json() for a in args_info], seed, path)],
                             None if self.timeout_sec is None else self.timeout_sec * 10)[0]
        if isinstance(res, WorkerFailure):
            raise TVMError(f"running the unscheduled program to get reference results failed: {res}")
        return Reference(res)

    def run(self, runner_inputs):
        check_inputs(runner_inputs, "LocalRunner")
        args = []
        for inp in runner_inputs:
            ref = None if inp.reference is None else (inp.reference.path, inp.reference.rtol, inp.reference.atol)
            args.append((inp.artifact_path, [a.as_json() for a in inp.args_info], ref, self.number,
                         self.repeat, self.min_repeat_ms, self.enable_cpu_cache_flush, inp.device_type))
        return to_runner_results(self._pool.map(__name__, "_run_in_worker", args, self.timeout_sec))

    def run_interleaved(self, runner_inputs, rounds):
        """Times ``runner_inputs`` (one workload: same args_info and reference) side by
        side in one worker: ``rounds`` rounds of ``number`` calls of each in turn. Per
        input, its per-round seconds or an error text (str); a worker failure (crash,
        timeout) is every input's error."""
        check_inputs(runner_inputs, "LocalRunner.run_interleaved")
        if not runner_inputs:
            return []
        first = runner_inputs[0]
        ref = None if first.reference is None else (first.reference.path, first.reference.rtol,
                                                    first.reference.atol)
        args = ([inp.artifact_path for inp in runner_inputs], [a.as_json() for a in first.args_info], ref,
                self.number, int(rounds), self.min_repeat_ms, first.device_type)
        limit = None if self.timeout_sec is None else self.timeout_sec * len(runner_inputs) * (1 + int(rounds))
        res = self._pool.map(__name__, "_run_interleaved_in_worker", [args], limit)[0]
        if isinstance(res, WorkerFailure):
            return [f"run {res}"] * len(runner_inputs)
        return res

    def close(self):
        self._pool.close()


__all__ = ["LocalRunner"]
