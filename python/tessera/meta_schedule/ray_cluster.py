"""The Ray cluster behind RayBuilder and RayRunner: connects to it (or starts a local one)
and runs ``module.function(*args)`` as Ray tasks with a time limit, like worker_pool does
with local processes: an exception, a crashed worker or a task past its limit is
reported as a WorkerFailure for that item, never raised in the tuning process."""
import importlib
import os
import time

from .worker_pool import WorkerFailure
from ..error import TVMImportError, TVMValueError

_REMOTE = {}
_STARTED = {}   # "args": the (address, num_cpus) this module last called ray.init with


def import_ray():
    try:
        import ray  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise TVMImportError("RayBuilder / RayRunner need the ray package (pip install ray; scripts/setup.sh "
                             "installs it)") from None
    return ray


def ensure_ray(address=None, num_cpus=None):
    """Ray, initialized: a running cluster is used as it is (``address`` / ``num_cpus``
    that differ from how it was started are refused); otherwise ``address`` (None starts
    a local cluster with ``num_cpus`` CPUs) is joined, with PYTHONPATH set on the
    workers so that they import this tessera (a remote cluster needs tessera at the same
    path or installed)."""
    if address is not None and num_cpus is not None:
        raise TVMValueError("num_cpus only applies when starting a local Ray cluster (address=None); the CPUs of "
                            f"the cluster at {address!r} are its own")
    ray = import_ray()
    if ray.is_initialized():
        if (address is not None or num_cpus is not None) and _STARTED.get("args") != (address, num_cpus):
            raise TVMValueError(f"Ray is already initialized (ray.init was called elsewhere or with other "
                                f"arguments), so address={address!r} / num_cpus={num_cpus!r} cannot be applied; "
                                "leave them out to use the running cluster, or call ray.shutdown() first")
        return ray
    import tessera  # pylint: disable=import-outside-toplevel
    paths = [os.path.dirname(os.path.dirname(os.path.abspath(tessera.__file__)))]
    paths += [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    kwargs = {"runtime_env": {"env_vars": {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}},
              "include_dashboard": False, "log_to_driver": False}
    if address is not None:
        kwargs["address"] = address
    elif num_cpus is not None:
        kwargs["num_cpus"] = int(num_cpus)
    ray.init(**kwargs)
    _STARTED["args"] = (address, num_cpus)
    return ray


def _call(module, name, *args):
    return getattr(importlib.import_module(module), name)(*args)


def _remote():
    ray = import_ray()
    if "call" not in _REMOTE:
        _REMOTE["call"] = ray.remote(num_cpus=1, max_retries=0)(_call)
    return _REMOTE["call"]


def cluster_cpus():
    ray = import_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def cluster_nodes():
    ray = import_ray()
    return max(1, sum(1 for n in ray.nodes() if n.get("Alive")))


def _failure(ray, name, err):
    if isinstance(err, ray.exceptions.RayTaskError):
        cause = getattr(err, "cause", None)
        if cause is not None and not isinstance(cause, ray.exceptions.RayError):
            return WorkerFailure("error", f"{type(cause).__name__}: {cause}")
        return WorkerFailure("error", str(err))
    return WorkerFailure("crash", f"{name}: the Ray worker died or the task was lost ({type(err).__name__}: {err})")


def ray_map(module, name, arg_list, timeout, max_in_flight=None, spread=False):
    """Runs ``module.name(*args)`` for each args tuple as a Ray task, at most
    ``max_in_flight`` at once (SPREAD over the nodes when ``spread``); for each item its
    result or a WorkerFailure ("error", "crash" or "timeout": a task running past
    ``timeout`` seconds since it was submitted is cancelled)."""
    ray = import_ray()
    fn = _remote()
    opts = {"scheduling_strategy": "SPREAD"} if spread else {}
    limit = max(1, int(max_in_flight)) if max_in_flight else max(1, len(arg_list))
    results = [None] * len(arg_list)
    pending, next_i = {}, 0
    while next_i < len(arg_list) or pending:
        while next_i < len(arg_list) and len(pending) < limit:
            ref = fn.options(**opts).remote(module, name, *arg_list[next_i])
            pending[ref] = (next_i, time.monotonic())
            next_i += 1
        wait_for = None
        if timeout is not None:
            oldest = min(start for _, start in pending.values())
            wait_for = max(0.0, oldest + timeout - time.monotonic())
        done, _ = ray.wait(list(pending), num_returns=1, timeout=wait_for)
        for ref in done:
            i, _ = pending.pop(ref)
            try:
                results[i] = ray.get(ref)
            except ray.exceptions.RayError as err:
                results[i] = _failure(ray, name, err)
        if timeout is not None:
            now = time.monotonic()
            for ref, (i, start) in list(pending.items()):
                if now - start >= timeout:
                    ray.cancel(ref, force=True)
                    del pending[ref]
                    results[i] = WorkerFailure("timeout", f"{name} ran past its time limit of {timeout} s "
                                                          "on the Ray cluster")
    return results


__all__ = ["cluster_cpus", "cluster_nodes", "ensure_ray", "import_ray", "ray_map"]
