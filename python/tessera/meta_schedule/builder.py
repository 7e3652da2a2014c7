"""Builders (``tvm.meta_schedule.builder``): compile scheduled candidates to shared
libraries. LocalBuilder builds each candidate in a worker process (worker_pool), so a
candidate that crashes or hangs the compiler is a failed build, not a failed tuning."""
import os
import tempfile

from .. import ir as _ir
from .worker_pool import WorkerFailure, WorkerPool


class BuilderInput:
    """``mod``: the scheduled IRModule to build; ``target``: a Target or its string."""

    def __init__(self, mod, target, params=None):
        if params is not None:
            raise NotImplementedError("BuilderInput(params=...) is not supported (no Relax params in TIR builds)")
        self.mod = mod
        self.target = str(target)


class BuilderResult:
    """``artifact_path`` (the built library) or ``error_msg``."""

    def __init__(self, artifact_path, error_msg):
        self.artifact_path = artifact_path
        self.error_msg = error_msg

    def __repr__(self):
        return f"BuilderResult(artifact_path={self.artifact_path!r}, error_msg={self.error_msg!r})"


class Builder:
    """The builder interface: ``build(list[BuilderInput]) -> list[BuilderResult]``."""

    def build(self, build_inputs):
        raise NotImplementedError

    def close(self):
        pass


def _build_in_worker(mod_json, target, out_path):
    """Runs in a worker: builds the module and writes it to ``out_path``."""
    from .. import build, ir
    mod = ir.load_json(mod_json)
    lib = build(mod, target=target)
    lib.export_library(out_path)
    return out_path


class LocalBuilder(Builder):
    """Builds in ``max_workers`` worker processes (default: one per CPU), each build
    limited to ``timeout_sec``; libraries are written under ``artifact_dir``
    (a fresh temporary directory by default)."""

    def __init__(self, max_workers=None, timeout_sec=60.0, artifact_dir=None):
        if max_workers is None:
            max_workers = max(1, os.cpu_count() or 1)
        if timeout_sec is not None and timeout_sec <= 0:
            raise ValueError(f"LocalBuilder(timeout_sec={timeout_sec}) must be positive")
        self.timeout_sec = timeout_sec
        self._pool = WorkerPool(int(max_workers))
        self._tmp = None
        if artifact_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="tessera_ms_build_")
            artifact_dir = self._tmp.name
        os.makedirs(artifact_dir, exist_ok=True)
        self.artifact_dir = artifact_dir
        self._count = 0

    def build(self, build_inputs):
        args = []
        for inp in build_inputs:
            if not isinstance(inp, BuilderInput):
                raise TypeError(f"LocalBuilder.build expects BuilderInput items, got {type(inp).__name__}")
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


__all__ = ["Builder", "BuilderInput", "BuilderResult", "LocalBuilder"]
