"""LocalBuilder (``tvm.meta_schedule.builder.LocalBuilder``): compiles scheduled candidates
to shared libraries, each in a worker process (worker_pool), so a candidate that crashes
or hangs the compiler is a failed build, not a failed tuning."""
import os

from ... import ir as _ir
from ..worker_pool import WorkerFailure, WorkerPool
from .builder import Builder, BuilderResult, check_inputs
from ...error import TVMValueError


def _build_in_worker(mod_json, target, out_path):
    """Runs in a worker: builds the module and writes it to ``out_path``."""
    from .builder import build_to_file
    return build_to_file(mod_json, target, out_path)


class LocalBuilder(Builder):
    """Builds in ``max_workers`` worker processes (default: one per CPU), each build
    limited to ``timeout_sec``; libraries are written under ``artifact_dir``
    (a fresh temporary directory by default)."""

    def __init__(self, max_workers=None, timeout_sec=60.0, artifact_dir=None):
        if max_workers is None:
            max_workers = max(1, os.cpu_count() or 1)
        if timeout_sec is not None and timeout_sec <= 0:
            raise TVMValueError(f"LocalBuilder(timeout_sec={timeout_sec}) must be positive")
        self.timeout_sec = timeout_sec
        self._pool = WorkerPool(int(max_workers))
        self._init_artifact_dir(artifact_dir)

    def build(self, build_inputs):
        check_inputs(build_inputs, "LocalBuilder")
        args = []
        for inp in build_inputs:
            self._count += 1
            path = os.path.join(self.artifact_dir, f"candidate_{os.getpid()}_{self._count}.so")
            args.append((_ir.save_json(inp.mod), inp.target, path))
        out = []
        for res in self._pool.map(__name__, "_build_in_worker", args, self.timeout_sec):
            if isinstance(res, WorkerFailure):
                out.append(BuilderResult(None, f"build {res}"))
            else:
                out.append(BuilderResult(res, None))
        return out

    def close(self):
        self._pool.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


__all__ = ["LocalBuilder"]
