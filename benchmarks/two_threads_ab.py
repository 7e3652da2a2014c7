"""Two-thread changes of issue 26 on and off, in one process, interleaved: per
model of benchmarks/models.py, Tessera untuned with the defaults ("new") and
with tir.default_schedule.parallel_chunks off and the pool's long polls off
("old", the schedules and pool of integ-base), each at 1 and N threads, and
ONNX Runtime at 1 and N threads; prints per setting the median wall time and
process CPU time over the rounds, the speed-up N/1, the load average, and the
pool's worker sleeps per call.
`python benchmarks/two_threads_ab.py --models resnet18 bert_layer --rounds 7`.
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


def run_model(tvm, torch, name, batch, threads, rounds, calls):
    from tessera.relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel

    model, shape = build_model(torch, name, batch)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    mod = from_exported_program(torch.export.export(model, (torch.from_numpy(x),)), unwrap_unit_return_tuple=True)
    expected = model(torch.from_numpy(x)).numpy()
    nd_x = tvm.nd.array(x)
    fns = {}
    for label, cfg in (("new", {}), ("old", {"tir.default_schedule.parallel_chunks": False})):
        with tvm.transform.PassContext(config=cfg):
            ex = tvm.relax.build(mod, target="llvm")
        f = tvm.relax.VirtualMachine(ex, tvm.cpu())["main"]
        got = f(nd_x).numpy()
        assert np.abs(got - expected).max() <= 1e-4 * np.abs(expected).max(), label
        fns[label] = f
    sessions = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (1, threads):
            sessions[n] = onnx_session(torch, model, x, os.path.join(tmp, f"m{n}.onnx"), n)
    set_threads = tvm.get_global_func("runtime.SetNumThreads")
    set_long_poll = tvm.get_global_func("runtime.SetParallelLongPoll")
    pool_stats = tvm.get_global_func("runtime.ParallelPoolStats")
    configs = [(f"{e} {n}t", e, n) for n in (1, threads) for e in ("old", "new", "ort")]
    wall = {c[0]: [] for c in configs}
    cpu = {c[0]: [] for c in configs}
    sleeps = {c[0]: 0 for c in configs}
    load0 = os.getloadavg()[0]
    for _ in range(rounds):
        for label, engine, n in configs:
            if engine == "ort":
                call = lambda s=sessions[n]: s.run(None, {"x": x})  # noqa: E731
            else:
                set_threads(n)
                set_long_poll(engine == "new")
                call = lambda f=fns[engine]: f(nd_x)  # noqa: E731
            call()
            pool_stats(True)
            for _ in range(calls):
                t0, c0 = time.perf_counter(), time.process_time()
                call()
                wall[label].append(time.perf_counter() - t0)
                cpu[label].append(time.process_time() - c0)
            sleeps[label] += pool_stats(True)[1]
    set_long_poll(True)
    print(f"{name} batch {batch}: {rounds} rounds x {calls} calls; load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    med = {k: np.median(v) * 1e3 for k, v in wall.items()}
    for label, engine, n in configs:
        extra = f"  worker sleeps/call {sleeps[label] / (rounds * calls):5.1f}" if engine != "ort" and n > 1 else ""
        print(f"  {label:10s} wall {med[label]:9.2f} ms  25th pct {np.percentile(wall[label], 25) * 1e3:9.2f}"
              f"  CPU {np.median(cpu[label]) * 1e3:9.2f} ms{extra}")
    for engine in ("old", "new", "ort"):
        print(f"  {engine}: {threads}-thread speed-up {med[f'{engine} 1t'] / med[f'{engine} {threads}t']:.2f}")
    for n in (1, threads):
        print(f"  ORT/Tessera at {n} thread(s): old {med[f'ort {n}t'] / med[f'old {n}t']:.2f}, "
              f"new {med[f'ort {n}t'] / med[f'new {n}t']:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=["resnet18", "resnet50", "bert_layer"])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=3)
    a = parser.parse_args()
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    torch.set_grad_enabled(False)
    torch.set_num_threads(1)
    for name in a.models:
        run_model(tvm, torch, name, a.batch, a.threads, a.rounds, a.calls)


if __name__ == "__main__":
    main()
