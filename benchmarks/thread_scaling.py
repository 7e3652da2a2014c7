"""Where a model loses when it runs on more threads: builds one model of
benchmarks/models.py (untuned, relax.build(mod, "llvm")) and profiles every
kernel in the model with vm.profile at 1 thread and at N threads, with the
thread pool's affinity (runtime.SetParallelAffinity) on and off and its long
polls (runtime.SetParallelLongPoll) off, all in one
process, interleaved; prints per kernel the minimum over the rounds, its
speed-up over 1 thread, the end-to-end median latency and process CPU time of
each setting, and the pool's counters per call (runtime.ParallelPoolStats)
(--no-profile: latency only; --features A:B: a slice of MobileNetV2's layers,
e.g. 13:16 its three 96-channel blocks at 14x14; --ort: ONNX Runtime too).
`python benchmarks/thread_scaling.py --model mobilenet_v2 --threads 2`.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frontend_models import onnx_session  # noqa: E402
from models import MODELS, build_model  # noqa: E402


def settings(threads):
    """(label, threads, affinity, long polls) of each measured setting."""
    return [("1 thread", 1, True, True), (f"{threads} thr, no affinity", threads, False, True),
            (f"{threads} thr, short polls", threads, True, False), (f"{threads} thr, default", threads, True, True)]


def main(model_name="mobilenet_v2", batch=1, threads=2, rounds=15, top=25, calls=3, profile=True, features=None, ort=False):
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel
    from tessera.relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel

    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    model, shape = build_model(torch, model_name, batch)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    if features:  # a slice of MobileNetV2's layers, fed what the layers before it produce
        a, b = (int(v) for v in features.split(":"))
        x = model.features[:a](torch.from_numpy(x)).numpy()
        model = torch.nn.Sequential(*model.features[a:b])
    mod = from_exported_program(torch.export.export(model, (torch.from_numpy(x),)), unwrap_unit_return_tuple=True)
    ex = tvm.relax.build(mod, target="llvm")
    vm = tvm.relax.VirtualMachine(ex, tvm.cpu(), profile=True)
    f, nd_x = vm["main"], tvm.nd.array(x)
    set_threads = tvm.get_global_func("runtime.SetNumThreads")
    set_affinity = tvm.get_global_func("runtime.SetParallelAffinity")
    set_long_poll = tvm.get_global_func("runtime.SetParallelLongPoll")
    pool_stats = tvm.get_global_func("runtime.ParallelPoolStats")
    configs = settings(threads)
    if ort:  # ONNX Runtime at `threads` threads, timed in the same rounds
        with tempfile.TemporaryDirectory() as tmp:
            sess = onnx_session(torch, model, x, os.path.join(tmp, "m.onnx"), threads)
        configs.append((f"ORT {threads} threads", threads, None, None))
    best = {}      # (kernel, shapes) -> [min us per setting]
    count = {}
    latency = [[] for _ in configs]
    cpu = [[] for _ in configs]  # process CPU time per call (all threads)
    pool = [np.zeros(4) for _ in configs]  # pool counters summed over the timed calls
    print(f"{model_name}{'.features[' + features + ']' if features else ''} batch {batch}: {rounds} interleaved rounds; load average {os.getloadavg()[0]:.1f}")
    for _ in range(rounds):
        for k, (_, n, aff, poll) in enumerate(configs):
            if aff is None:
                call = lambda: sess.run(None, {"x": x})  # noqa: E731
            else:
                set_threads(n)
                set_affinity(aff)
                set_long_poll(poll)
                call = lambda: f(nd_x)  # noqa: E731
            call()
            pool_stats(True)
            for _ in range(calls):
                t0, c0 = time.perf_counter(), time.process_time()
                call()
                latency[k].append(time.perf_counter() - t0)
                cpu[k].append(time.process_time() - c0)
            pool[k] += np.array(list(pool_stats(True))[:4], dtype=float)
            if not profile or aff is None:
                continue
            for c in vm.profile("main", nd_x).calls:
                key = (c["Name"], str(c["Shapes"]))
                row = best.setdefault(key, [float("inf")] * len(settings(threads)))
                row[k] = min(row[k], c["Duration (us)"])
                count[key] = c["Count"]
    set_affinity(True)
    set_long_poll(True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    head = f"{'kernel':28s} {'calls':>5s} " + " ".join(f"{label:>22s}" for label, *_ in configs)
    print(head[:len(head) - (23 if ort else 0)] + "   speed-up (no aff / short / default)")
    rows = sorted(best.items(), key=lambda kv: -kv[1][0])
    for (name, shapes), us in rows[:top]:
        ups = " / ".join(f"{us[0] / u:.2f}" for u in us[1:])
        print(f"{name[:28]:28s} {count[(name, shapes)]:5d} " + " ".join(f"{u:22.1f}" for u in us) + f"   {ups}"
              + f"   {shapes[:60]}")
    sums = [sum(us[k] for us in best.values()) for k in range(len(settings(threads)))]
    print(f"{'sum of kernel minima (us)':34s} " + " ".join(f"{s:22.1f}" for s in sums))
    print(f"{'median latency (ms)':34s} " + " ".join(f"{np.median(lat) * 1e3:22.3f}" for lat in latency))
    for q in (25, 0):
        print(f"{f'{q}th percentile latency (ms)':34s} "
              + " ".join(f"{np.percentile(lat, q) * 1e3:22.3f}" for lat in latency))
    print(f"{'median process CPU time (ms)':34s} " + " ".join(f"{np.median(c) * 1e3:22.3f}" for c in cpu))
    per_call = rounds * calls
    for i, what in enumerate(("parallel loops", "worker sleeps", "caller sleeps", "preempted polls")):
        print(f"{what + ' per call':34s} " + " ".join(
            f"{p[i] / per_call:22.1f}" if aff is not None else f"{'':22s}" for p, (_, _, aff, _) in zip(pool, configs)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=MODELS, default="mobilenet_v2")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--calls", type=int, default=3, help="timed calls per setting and round")
    parser.add_argument("--no-profile", action="store_true", help="latency only")
    parser.add_argument("--features", default=None, help="A:B: only mobilenet_v2's features[A:B]")
    parser.add_argument("--ort", action="store_true", help="also time ONNX Runtime in the same rounds")
    a = parser.parse_args()
    main(a.model, a.batch, a.threads, a.rounds, a.top, a.calls, not a.no_profile, a.features, a.ort)
