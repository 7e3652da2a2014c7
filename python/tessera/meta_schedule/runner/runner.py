"""The runner interface (``tvm.meta_schedule.runner.Runner``): RunnerInput, RunnerResult,
Reference, and the two steps every runner performs in its worker: computing the
reference (the unscheduled program's results on random inputs) and checking a candidate
against it before timing it -- a mismatch is an error, so a wrong candidate is never chosen."""
import numpy as np
from ...error import OpNotImplemented, TVMTypeError, TVMValueError


class RunnerInput:
    """``artifact_path`` (a BuilderResult's library), ``device_type`` ("cpu" or "cuda": where
    the arrays are allocated and the candidate timed), ``args_info`` (list of TensorInfo)
    and ``reference`` (a Reference, or None to skip the check)."""

    def __init__(self, artifact_path, device_type, args_info, reference=None):
        if device_type not in ("cpu", "llvm", "cuda"):
            raise TVMValueError(f"RunnerInput(device_type={device_type!r}): expected 'cpu' or 'cuda'")
        self.artifact_path = artifact_path
        self.device_type = "cuda" if device_type == "cuda" else "cpu"
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


class Runner:
    """The runner interface: ``run(list[RunnerInput]) -> list[RunnerResult]`` and
    ``make_reference(mod, target, args_info, path, seed) -> Reference``."""

    def run(self, runner_inputs):
        raise OpNotImplemented

    def make_reference(self, mod, target, args_info, path, seed=0):
        raise OpNotImplemented

    def close(self):
        pass


def to_runner_results(results):
    """RunnerResults from what the workers returned: run times, or a WorkerFailure
    (an error, a crash or a timeout) recorded as the trial's error."""
    from ..worker_pool import WorkerFailure
    return [RunnerResult(None, f"run {res}") if isinstance(res, WorkerFailure) else RunnerResult(res, None)
            for res in results]


def check_inputs(runner_inputs, who):
    for inp in runner_inputs:
        if not isinstance(inp, RunnerInput):
            raise TVMTypeError(f"{who}.run expects RunnerInput items, got {type(inp).__name__}")


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
            raise TVMValueError(f"cannot make random inputs of dtype {info.dtype}")
    return arrays


def reference_target(target):
    """Where the unscheduled program runs for the reference results: ``target`` itself for a
    CPU target; the host (tvm.target.default_host()) for a device target, whose unscheduled
    program (no thread binding) cannot run on the device."""
    from ... import target as _target
    tgt = target if isinstance(target, _target.Target) else _target.Target(str(target))
    return str(tgt) if tgt.kind.device_type == 1 else str(_target.default_host())


def compute_reference(mod_json, target, args_info_json, seed, out):
    """Builds the unscheduled module (for the host when ``target`` is a device target), runs
    it on random inputs and saves inputs and results to ``out`` (a path or a file object) as .npz."""
    from ... import build, ir, nd
    from ..arg_info import ArgInfo
    args_info = [ArgInfo.from_json(a) for a in args_info_json]
    inputs = random_inputs(args_info, seed)
    lib = build(ir.load_json(mod_json), target=reference_target(target))
    arrays = [nd.array(a.copy()) for a in inputs]
    lib["main"](*arrays)
    np.savez(out, **{f"in{i}": a for i, a in enumerate(inputs)},
             **{f"out{i}": a.numpy() for i, a in enumerate(arrays)})


def read_reference(source):
    """(inputs, expected outputs) from a .npz path or file object."""
    with np.load(source) as data:
        n = len([k for k in data.files if k.startswith("in")])
        return [data[f"in{i}"] for i in range(n)], [data[f"out{i}"] for i in range(n)]


def _flush_cpu_cache(buf=[]):  # noqa: B006 -- persistent scratch buffer of this worker
    if not buf:
        buf.append(np.zeros(64 << 20 >> 3))
    buf[0] += 1.0


def mismatches(got, want, rtol, atol):
    """(number of elements of ``got`` that differ from ``want``, largest difference where
    both are finite).
    The tolerance scales with the largest finite magnitude of ``want``; NaN and infinities
    must sit at the same places with the same sign (random inputs make NaN where an op is
    undefined -- rsqrt of a negative batch_norm variance --, and so does every correct
    schedule)."""
    if want.dtype.kind not in "fc":
        bad = int(np.sum(got != want))
        return bad, float(np.max(np.abs(got.astype("float64") - want))) if bad else 0.0
    finite = np.isfinite(want)
    scale = float(np.max(np.abs(want[finite]))) if finite.any() else 0.0
    close = np.isclose(got, want, rtol=rtol, atol=atol * max(1.0, scale), equal_nan=True)
    bad = int(np.sum(~close))
    both = finite & np.isfinite(got)
    diff = float(np.max(np.abs(got[both].astype("float64") - want[both]))) if both.any() else 0.0
    return bad, diff


def check_and_time(lib, args_info, reference, rtol, atol, number, repeat, min_repeat_ms, flush,
                   device_type="cpu"):
    """Runs ``lib["main"]`` once on the reference inputs (arrays on ``device_type``'s device 0)
    and compares every argument with the reference (``reference`` = (inputs, expected) or
    None to skip), then times it: ``repeat`` times ``number`` calls, the CPU cache flushed
    first when ``flush``."""
    from ... import nd, cpu, cuda
    dev = cuda(0) if device_type == "cuda" else cpu()
    if reference is not None:
        inputs, expected = reference
        arrays = [nd.array(a.copy(), dev) for a in inputs]
        lib["main"](*arrays)
        for i, (got, want) in enumerate(zip(arrays, expected)):
            bad, max_diff = mismatches(got.numpy(), want, rtol, atol)
            if bad:
                raise TVMValueError(f"wrong result: argument {i} differs from the unscheduled program's "
                                    f"in {bad} of {want.size} elements (max abs diff where finite {max_diff:.3g})")
    else:
        arrays = [nd.array(a, dev) for a in random_inputs(args_info, 0)]
    evaluator = lib.time_evaluator("main", dev, number=number, repeat=1, min_repeat_ms=min_repeat_ms)
    secs = []
    for _ in range(repeat):
        if flush:
            _flush_cpu_cache()
        secs.extend(float(t) for t in evaluator(*arrays).results)
    return secs


def check_and_time_interleaved(libs, args_info, reference, rtol, atol, number, rounds, min_repeat_ms,
                               device_type="cpu"):
    """Checks each of ``libs`` (None: failed to load) like check_and_time, then times them
    interleaved in this process: ``rounds`` rounds, each timing every candidate once
    (``number`` calls, at least ``min_repeat_ms``) in turn, so a load that comes and goes
    hits all of them alike. Returns per candidate the list of its per-round seconds, or
    the error text (str) of a candidate whose check failed."""
    from ... import nd, cpu, cuda
    dev = cuda(0) if device_type == "cuda" else cpu()
    out, timers = [], []
    for lib in libs:
        if isinstance(lib, str):
            out.append(lib)
            timers.append(None)
            continue
        try:
            check_and_time(lib, args_info, reference, rtol, atol, 1, 1, 0, False, device_type)
        except Exception as err:  # noqa: BLE001 -- the candidate's failure, recorded
            out.append(f"{type(err).__name__}: {err}")
            timers.append(None)
            continue
        out.append([])
        timers.append(lib.time_evaluator("main", dev, number=number, repeat=1, min_repeat_ms=min_repeat_ms))
    inputs = reference[0] if reference is not None else random_inputs(args_info, 0)
    arrays = [nd.array(a.copy(), dev) for a in inputs]
    for _ in range(rounds):
        for secs, timer in zip(out, timers):
            if timer is not None:
                secs.append(float(timer(*arrays).mean))
    return out


def measure_interleaved(runner, runner_inputs, rounds):
    """Per input, the list of its per-round seconds or an error text (str): the runner's
    own ``run_interleaved`` when it has one (LocalRunner: one worker process), else
    ``rounds`` calls of ``runner.run`` on all the inputs (still interleaved by round)."""
    if hasattr(runner, "run_interleaved"):
        return runner.run_interleaved(runner_inputs, rounds)
    out = [[] for _ in runner_inputs]
    for _ in range(rounds):
        for i, res in enumerate(runner.run(runner_inputs)):
            if isinstance(out[i], str):
                continue
            if res.error_msg is not None or not res.run_secs:
                out[i] = res.error_msg or "no run time"
            else:
                out[i].append(sum(res.run_secs) / len(res.run_secs))
    return out


__all__ = ["Reference", "Runner", "check_and_time_interleaved", "measure_interleaved", "RunnerInput", "RunnerResult", "check_and_time", "compute_reference", "mismatches",
           "random_inputs", "read_reference", "reference_target"]
