"""RayBuilder (``tvm.meta_schedule.builder.RayBuilder``): compiles candidates as tasks on
the workers of a Ray cluster (ray_cluster.py) and writes the returned libraries under a
local artifact directory, so any runner can take them; a build that raises, crashes its
worker or runs past ``timeout_sec`` is a failed build."""
import os
import tempfile

from ... import ir as _ir
from ..ray_cluster import cluster_cpus, ensure_ray, ray_map
from ..worker_pool import WorkerFailure
from .builder import Builder, BuilderResult, check_inputs
from ...error import TVMValueError


def _build_bytes(mod_json, target):
    """Runs on a Ray worker: builds the module, returns the library's bytes."""
    from .builder import build_to_file
    with tempfile.TemporaryDirectory(prefix="tessera_ray_build_") as tmp:
        path = os.path.join(tmp, "candidate.so")
        build_to_file(mod_json, target, path)
        with open(path, "rb") as f:
            return f.read()


class RayBuilder(Builder):
    """``address``: the Ray cluster (None: the current ``ray.init``, else a new local one
    with ``num_cpus``); ``max_in_flight``: builds at once (default: the cluster's CPUs);
    ``timeout_sec`` per build; libraries go to ``artifact_dir`` (default a temporary one)."""

    def __init__(self, address=None, num_cpus=None, timeout_sec=60.0, artifact_dir=None, max_in_flight=None):
        if timeout_sec is not None and timeout_sec <= 0:
            raise TVMValueError(f"RayBuilder(timeout_sec={timeout_sec}) must be positive")
        if max_in_flight is not None and int(max_in_flight) < 1:
            raise TVMValueError(f"RayBuilder(max_in_flight={max_in_flight}) must be at least 1")
        ensure_ray(address, num_cpus)
        self.timeout_sec = timeout_sec
        self.max_in_flight = int(max_in_flight) if max_in_flight else cluster_cpus()
        self._init_artifact_dir(artifact_dir)

    def build(self, build_inputs):
        check_inputs(build_inputs, "RayBuilder")
        args = [(_ir.save_json(inp.mod), inp.target) for inp in build_inputs]
        out = []
        for res in ray_map(__name__, "_build_bytes", args, self.timeout_sec, self.max_in_flight):
            if isinstance(res, WorkerFailure):
                out.append(BuilderResult(None, f"build {res}"))
                continue
            self._count += 1
            path = os.path.join(self.artifact_dir, f"candidate_ray_{os.getpid()}_{self._count}.so")
            with open(path, "wb") as f:
                f.write(res)
            out.append(BuilderResult(path, None))
        return out

    def close(self):
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


__all__ = ["RayBuilder"]
