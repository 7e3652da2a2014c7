"""RayRunner (``tvm.meta_schedule.runner.RayRunner``): checks and times candidates as tasks
on the workers of a Ray cluster (ray_cluster.py). The library and the reference travel
as bytes through Ray's object store, so the workers need no shared file system; each
candidate is checked against the unscheduled program's results before it is timed, as
with LocalRunner, and a crash or a run past ``timeout_sec`` is a failed trial."""
import io
import os
import tempfile

from ... import ir as _ir
from ..ray_cluster import cluster_nodes, ensure_ray, import_ray, ray_map
from ..worker_pool import WorkerFailure
from .runner import Reference, Runner, check_inputs, to_runner_results
from ...error import TVMError, TVMValueError


def _reference_bytes(mod_json, target, args_info_json, seed):
    """Runs on a Ray worker: the reference .npz (see runner.compute_reference) as bytes."""
    from .runner import compute_reference
    buf = io.BytesIO()
    compute_reference(mod_json, target, args_info_json, seed, buf)
    return buf.getvalue()


def _run_bytes(lib_bytes, args_info_json, ref_bytes, rtol, atol, number, repeat, min_repeat_ms, flush):
    """Runs on a Ray worker: loads the library from its bytes, checks it against the
    reference (None: no check) and times it."""
    from ...runtime import load_module
    from ..arg_info import ArgInfo
    from .runner import check_and_time, read_reference
    args_info = [ArgInfo.from_json(a) for a in args_info_json]
    with tempfile.TemporaryDirectory(prefix="tessera_ray_run_") as tmp:
        path = os.path.join(tmp, "candidate.so")
        with open(path, "wb") as f:
            f.write(lib_bytes)
        lib = load_module(path)
    reference = None if ref_bytes is None else read_reference(io.BytesIO(ref_bytes))
    return check_and_time(lib, args_info, reference, rtol, atol, number, repeat, min_repeat_ms, flush)


class RayRunner(Runner):
    """``address`` / ``num_cpus``: the Ray cluster (see RayBuilder); ``max_in_flight``:
    candidates measured at once (default: one per node, spread over the nodes, so
    timings on a node do not overlap); ``timeout_sec``, ``number``, ``repeat``,
    ``min_repeat_ms``, ``enable_cpu_cache_flush`` as LocalRunner."""

    def __init__(self, address=None, num_cpus=None, timeout_sec=30.0, number=3, repeat=1, min_repeat_ms=20,
                 enable_cpu_cache_flush=False, max_in_flight=None):
        for name, value in (("number", number), ("repeat", repeat)):
            if int(value) < 1:
                raise TVMValueError(f"RayRunner({name}={value}) must be at least 1")
        if timeout_sec is not None and timeout_sec <= 0:
            raise TVMValueError(f"RayRunner(timeout_sec={timeout_sec}) must be positive")
        if max_in_flight is not None and int(max_in_flight) < 1:
            raise TVMValueError(f"RayRunner(max_in_flight={max_in_flight}) must be at least 1")
        ensure_ray(address, num_cpus)
        self.timeout_sec = timeout_sec
        self.number = int(number)
        self.repeat = int(repeat)
        self.min_repeat_ms = int(min_repeat_ms)
        self.enable_cpu_cache_flush = bool(enable_cpu_cache_flush)
        self.max_in_flight = int(max_in_flight) if max_in_flight else cluster_nodes()
        self._refs = {}   # reference path -> ObjectRef of its bytes

    def make_reference(self, mod, target, args_info, path, seed=0):
        """Computes the reference on a Ray worker and saves it to ``path``."""
        timeout = None if self.timeout_sec is None else self.timeout_sec * 10
        res = ray_map(__name__, "_reference_bytes",
                      [(_ir.save_json(mod), str(target), [a.as_json() for a in args_info], seed)], timeout)[0]
        if isinstance(res, WorkerFailure):
            raise TVMError(f"running the unscheduled program to get reference results failed: {res}")
        with open(path, "wb") as f:
            f.write(res)
        return Reference(path)

    def _reference_ref(self, reference):
        if reference is None:
            return None
        if reference.path not in self._refs:
            with open(reference.path, "rb") as f:
                self._refs[reference.path] = import_ray().put(f.read())
        return self._refs[reference.path]

    def run(self, runner_inputs):
        check_inputs(runner_inputs, "RayRunner")
        args = []
        for inp in runner_inputs:
            with open(inp.artifact_path, "rb") as f:
                lib_bytes = f.read()
            ref = inp.reference
            args.append((lib_bytes, [a.as_json() for a in inp.args_info], self._reference_ref(ref),
                         0.0 if ref is None else ref.rtol, 0.0 if ref is None else ref.atol, self.number,
                         self.repeat, self.min_repeat_ms, self.enable_cpu_cache_flush))
        return to_runner_results(ray_map(__name__, "_run_bytes", args, self.timeout_sec, self.max_in_flight, spread=True))

    def close(self):
        self._refs.clear()


__all__ = ["RayRunner"]
