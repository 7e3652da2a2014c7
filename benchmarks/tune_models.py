"""Whole models tuned by meta_schedule (issue [G2]) vs their untuned build, ONNX Runtime
and PyTorch eager, measured in the same run after tuning (interleaved rounds, median).
The model (benchmarks/models.py, random weights, BatchNorm statistics randomized) is
imported with from_exported_program and fused as relax.build does (FoldBatchnormToConv2d,
then the "zero" pipeline: LegalizeOps ... FuseOps, FuseTIR); tune_relax tunes the fused
PrimFuncs with a trial budget (--trials) and/or a wall-clock budget (--time, seconds);
compile_relax builds the model with the database's best schedules (each task's untuned
default schedule is one of its candidates, so the tuned build is never slower per task).
Every engine's output is checked against PyTorch first. One thread by default
(--threads): target "llvm --num-cores=N", ONNX Runtime intra-op threads, torch threads.
Prints the budget used (trials, wall time), per engine the latency and the ratios
ONNX Runtime / Tessera tuned and PyTorch / Tessera tuned, and the load average.

  python benchmarks/tune_models.py --models resnet18 --trials 64 --time 300 [--work-dir DIR]

A rerun with the same --work-dir resumes tuning from its database."""
import argparse
import os
import sys
import tempfile
import time


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="resnet18", help="comma-separated names of benchmarks/models.py")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--trials", type=int, default=64, help="max_trials_global")
    ap.add_argument("--time", type=float, default=None, help="max_time_s (wall-clock tuning budget)")
    ap.add_argument("--per-iter", type=int, default=16, help="num_trials_per_iter")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--build-workers", type=int, default=1, help="num_tuning_cores (parallel builds)")
    ap.add_argument("--work-dir", default=None, help="tuning database directory (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=7, help="interleaved timing rounds")
    return ap.parse_args()


def fused_module(tvm, mod):
    """The model as relax.build fuses it, before the default schedules."""
    from tessera import relax  # pylint: disable=import-outside-toplevel
    mod = relax.transform.FoldBatchnormToConv2d()(mod)
    return relax.get_pipeline("zero")(mod)


def default_vs_tuned(tvm, ms, db, mod, target):
    """(tasks whose best record is faster than their default schedule's record, tasks,
    sum over those of weight x time saved in seconds)."""
    from tessera.meta_schedule.default_candidate import default_schedule, is_default_trace
    beat, saved, tasks = 0, 0.0, ms.relax_integration.extract_tasks(mod, target)
    for task in tasks:
        valid = [r for r in db.records_of(task.mod) if r.is_valid]
        dflt = default_schedule(task.mod, target)
        base = [r.mean_run_sec for r in valid if is_default_trace(r.trace, dflt)]
        if base and valid and min(r.mean_run_sec for r in valid) < base[0]:
            beat += 1
            saved += task.weight * (base[0] - min(r.mean_run_sec for r in valid))
    return beat, len(tasks), saved


def bench(tvm, torch, name, args, log):
    from tessera import meta_schedule as ms, relax  # pylint: disable=import-outside-toplevel
    from tessera.relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel
    from frontend_models import onnx_session, timed  # pylint: disable=import-outside-toplevel
    from models import build_model, check, randomize_batchnorm  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel

    torch.manual_seed(0)
    model, shape = build_model(torch, name, args.batch)
    randomize_batchnorm(torch, model)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    tx = torch.from_numpy(x)
    with torch.no_grad():
        expected = model(tx).numpy()
    mod = fused_module(tvm, from_exported_program(torch.export.export(model, (tx,)), unwrap_unit_return_tuple=True))
    target = tvm.target.Target(f"llvm --num-cores={args.threads}")
    n_tasks = len(ms.relax_integration.extract_tasks(mod, target))

    work_dir = args.work_dir or tempfile.mkdtemp(prefix=f"tune_{name}_")
    t0 = time.time()
    db = ms.relax_integration.tune_relax(mod, None, target, work_dir, args.trials, num_trials_per_iter=args.per_iter,
                                         max_time_s=args.time, seed=args.seed,
                                         num_tuning_cores=args.build_workers)
    tune_s = time.time() - t0
    trials = len(db.get_all_tuning_records())
    beat, total, saved = default_vs_tuned(tvm, ms, db, mod, target)
    tuned = relax.VirtualMachine(ms.relax_integration.compile_relax(db, mod, target), tvm.cpu())["main"]
    untuned = relax.VirtualMachine(relax.build(mod, target=target), tvm.cpu())["main"]
    nd_x = tvm.nd.array(x)
    err = check("Tessera tuned", tuned(nd_x).numpy(), expected)
    check("Tessera untuned", untuned(nd_x).numpy(), expected)
    with tempfile.TemporaryDirectory() as tmp:
        sess = onnx_session(torch, model, x, os.path.join(tmp, "m.onnx"), args.threads)
    check("ONNX Runtime", sess.run(None, {"x": x})[0], expected)

    def torch_run():
        with torch.no_grad():
            return model(tx)

    engines = {"Tessera tuned": lambda: tuned(nd_x), "Tessera untuned": lambda: untuned(nd_x),
               "ONNX Runtime": lambda: sess.run(None, {"x": x}), "PyTorch eager": torch_run}
    load_before = os.getloadavg()
    lat = timed(engines, repeat=args.repeat)
    log(f"  {name} batch {args.batch}, {args.threads} thread(s): {n_tasks} tasks, {trials} trials in the database "
        f"(budget {args.trials} trials" + (f", {args.time:.0f} s" if args.time else "") +
        f"), tuning wall time {tune_s:.0f} s, max error vs PyTorch {err:.1e}")
    for label, t in lat.items():
        log(f"    {label:16s} {t * 1e3:9.2f} ms")
    log(f"    ORT/Tessera tuned {lat['ONNX Runtime'] / lat['Tessera tuned']:.2f}   "
        f"PyTorch/Tessera tuned {lat['PyTorch eager'] / lat['Tessera tuned']:.2f}   "
        f"untuned/tuned {lat['Tessera untuned'] / lat['Tessera tuned']:.2f}")
    log(f"    tasks whose best record beats their untuned default: {beat} of {total} "
        f"(estimated saving {saved * 1e3:.2f} ms per inference, weights included)")
    log(f"    load average during timing: {load_before[0]:.1f} -> {os.getloadavg()[0]:.1f} "
        f"(this machine: {os.cpu_count()} CPUs)")
    return lat


def main():
    args = parse_args()
    os.environ["TESSERA_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    sys.path.insert(0, os.path.join(here, "..", "python"))
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel
    torch.set_num_threads(args.threads)
    print(f"tune_models: load average {os.getloadavg()[0]:.1f} at start")
    for name in args.models.split(","):
        bench(tvm, torch, name, args, print)


if __name__ == "__main__":
    main()
