"""Runners (``tvm.meta_schedule.runner``): time built candidates and check their results.
LocalRunner runs each candidate in a separate worker process with a time limit; before
timing, it runs the candidate once on the task's random inputs and compares every
buffer with the unscheduled program's result (a mismatch is an error, so a wrong
candidate is never chosen). Runner is the interface; a Ray-based runner is not provided."""
import numpy as np

from .worker_pool import WorkerFailure, WorkerPool


class RunnerInput:
    """``artifact_path`` (a BuilderResult's library), ``device_type`` ("cpu"),
    ``args_info`` (list of TensorInfo) and ``reference`` (a Reference, or None to skip the check)."""

    def __init__(self, artifact_path, device_type, args_info, reference=None):
        if device_type not in ("cpu", "llvm"):
            raise ValueError(f"RunnerInput(device_type={device_type!r}): only 'cpu' is supported")
        self.artifact_path = artifact_path
        self.device_type = "cpu"
        self.args_info = list(args_info)
        self.reference = reference


class RunnerResult:
    """``run_secs`` (list of seconds per call) or ``error_msg``."""

    def __init__(self, run_secs, error_msg):
        self.run_secs = run_secs
        self.error_msg = error_msg

    def __repr__(self):
        return f"RunnerResult(run_secs={self.run_secs}, error_msg={self.error_msg!r})"


class Reference:
    """Random inputs for every argument and the arguments' values after the unscheduled
    program ran on them (saved to ``path`` as .npz)."""

    def __init__(self, path, rtol=1e-3, atol=1e-4):
        self.path = path
        self.rtol = rtol
        self.atol = atol


def random_inputs(args_info, seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for info in args_info:
        dt = np.dtype(info.dtype)
        if dt.kind == "f":
            arrays.append(rng.uniform(-1.0, 1.0, size=info.shape).astype(dt))
        elif dt.kind in "iu":
            arrays.append(rng.integers(0, 8, size=info.shape).astype(dt))
        elif dt.kind == "b":
            arrays.append(rng.integers(0, 2, size=info.shape).astype(dt))
        else:
            raise ValueError(f"cannot make random inputs of dtype {info.dtype}")
    return arrays


def _reference_in_worker(mod_json, target, args_info_json, seed, path):
    """Runs in a worker: builds the unscheduled module, runs it on random inputs, saves both."""
    from .. import build, ir, nd, cpu
    from .arg_info import ArgInfo
    args_info = [ArgInfo.from_json(a) for a in args_info_json]
    inputs = random_inputs(args_info, seed)
    lib = build(ir.load_json(mod_json), target=target)
    arrays = [nd.array(a.copy()) for a in inputs]
    lib["main"](*arrays)
    np.savez(path, **{f"in{i}": a for i, a in enumerate(inputs)},
             **{f"out{i}": a.numpy() for i, a in enumerate(arrays)})
    return path


_cache = {}


def _load_reference(path):
    if path not in _cache:
        with np.load(path) as data:
            n = len([k for k in data.files if k.startswith("in")])
            _cache.clear()
            _cache[path] = ([data[f"in{i}"] for i in range(n)], [data[f"out{i}"] for i in range(n)])
    return _cache[path]


def _flush_cpu_cache(buf=[]):  # noqa: B006 -- persistent scratch buffer of this worker
    if not buf:
        buf.append(np.zeros(64 << 20 >> 3))
    buf[0] += 1.0


def _run_in_worker(artifact_path, args_info_json, ref, number, repeat, min_repeat_ms, flush):
    """Runs in a worker: loads the library, checks it against the reference, times it."""
    from .. import nd, cpu
    from ..runtime import load_module
    from .arg_info import ArgInfo
    args_info = [ArgInfo.from_json(a) for a in args_info_json]
    lib = load_module(artifact_path)
    if ref is not None:
        path, rtol, atol = ref
        inputs, expected = _load_reference(path)
        arrays = [nd.array(a.copy()) for a in inputs]
        lib["main"](*arrays)
        for i, (got, want) in enumerate(zip(arrays, expected)):
            got = got.numpy()
            scale = float(np.max(np.abs(want))) if want.size else 0.0
            if not np.allclose(got, want, rtol=rtol, atol=atol * max(1.0, scale)):
                bad = int(np.sum(~np.isclose(got, want, rtol=rtol, atol=atol * max(1.0, scale))))
                raise ValueError(f"wrong result: argument {i} differs from the unscheduled program's "
                                 f"in {bad} of {want.size} elements (max abs diff "
                                 f"{float(np.max(np.abs(got.astype('float64') - want))):.3g})")
    else:
        arrays = [nd.array(a) for a in random_inputs(args_info, 0)]
    evaluator = lib.time_evaluator("main", cpu(), number=number, repeat=1, min_repeat_ms=min_repeat_ms)
    secs = []
    for _ in range(repeat):
        if flush:
            _flush_cpu_cache()
        secs.extend(float(t) for t in evaluator(*arrays).results)
    return secs


class Runner:
    """The runner interface: ``run(list[RunnerInput]) -> list[RunnerResult]``."""

    def run(self, runner_inputs):
        raise NotImplementedError

    def make_reference(self, mod, target, args_info, path, seed=0):
        raise NotImplementedError

    def close(self):
        pass


class LocalRunner(Runner):
    """Times candidates one at a time in a worker process: ``number`` calls per repeat
    (more if a repeat is shorter than ``min_repeat_ms``), ``repeat`` repeats, the CPU
    cache flushed before each repeat when ``enable_cpu_cache_flush``; a candidate
    running past ``timeout_sec`` (checking and timing together) is an error."""

    def __init__(self, timeout_sec=30.0, number=3, repeat=1, min_repeat_ms=20, enable_cpu_cache_flush=False):
        for name, value in (("number", number), ("repeat", repeat)):
            if int(value) < 1:
                raise ValueError(f"LocalRunner({name}={value}) must be at least 1")
        if timeout_sec is not None and timeout_sec <= 0:
            raise ValueError(f"LocalRunner(timeout_sec={timeout_sec}) must be positive")
        self.timeout_sec = timeout_sec
        self.number = int(number)
        self.repeat = int(repeat)
        self.min_repeat_ms = int(min_repeat_ms)
        self.enable_cpu_cache_flush = bool(enable_cpu_cache_flush)
        self._pool = WorkerPool(1)

    def make_reference(self, mod, target, args_info, path, seed=0):
        """Builds and runs the unscheduled ``mod`` in the worker; a Reference (or the
        WorkerFailure's message as a RuntimeError)."""
        from .. import ir as _ir
        res = self._pool.map(__name__, "_reference_in_worker",
                             [(_ir.save_json(mod), str(target), [a.as_json() for a in args_info], seed, path)],
                             None if self.timeout_sec is None else self.timeout_sec * 10)[0]
        if isinstance(res, WorkerFailure):
            raise RuntimeError(f"running the unscheduled program to get reference results failed: {res}")
        return Reference(res)

    def run(self, runner_inputs):
        args = []
        for inp in runner_inputs:
            if not isinstance(inp, RunnerInput):
                raise TypeError(f"LocalRunner.run expects RunnerInput items, got {type(inp).__name__}")
            ref = None if inp.reference is None else (inp.reference.path, inp.reference.rtol, inp.reference.atol)
            args.append((inp.artifact_path, [a.as_json() for a in inp.args_info], ref, self.number,
                         self.repeat, self.min_repeat_ms, self.enable_cpu_cache_flush))
        out = []
        for res in self._pool.map(__name__, "_run_in_worker", args, self.timeout_sec):
            if isinstance(res, WorkerFailure):
                out.append(RunnerResult(None, f"run {res}"))
            else:
                out.append(RunnerResult(res, None))
        return out

    def close(self):
        self._pool.close()


__all__ = ["LocalRunner", "Reference", "Runner", "RunnerInput", "RunnerResult"]
