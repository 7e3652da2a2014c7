"""Whole models tuned by meta_schedule (issue [G2]) vs their untuned build, ONNX Runtime
and PyTorch eager, measured in the same run after tuning (interleaved rounds, median).
The model (benchmarks/models.py: resnet18, resnet50, mobilenet_v2, bert_layer; random
weights, BatchNorm statistics randomized) is imported with from_exported_program and fused
exactly as relax.build fuses it (relax_integration.fuse_as_built: FoldBatchnormToConv2d, then
the "zero" pipeline in relax.build's scope, so its layout choices such as packed matmul
weights are the default's); the untuned engine is relax.build of the imported model; tune_relax tunes the fused PrimFuncs with a trial budget (--trials)
and/or a wall-clock budget (--time, seconds), each per model (one number for every model,
or name=value pairs: --time resnet18=300,resnet50=900); compile_relax builds the model
with the database's best schedules (each task's untuned default schedule is one of its
candidates, so the tuned build is never slower per task). Every engine's output is
checked against PyTorch first. One thread by default (--threads): target "llvm
--num-cores=N", ONNX Runtime intra-op threads, torch threads. Prints per model the budget
and what was used (trials measured, tuning wall time, cost-model fit time), how the
trials were spread over the tasks against each task's share of the model's weighted
latency (--spread rows), per engine the latency on three clocks (process CPU time, the
one the ratios and the summary use: on this shared machine wall time includes the time
other processes held the core; wall; calling-thread CPU, equal to process CPU when an
engine runs no helper threads) and the ratios ONNX Runtime / Tessera
tuned and PyTorch / Tessera tuned, and the load average.

  python benchmarks/tune_models.py --models resnet18,resnet50,bert_layer --trials 32 --time 240

A rerun with the same --work-dir (one subdirectory per model) resumes tuning from its
database. --refit every-round gives TVM's cost-model refit after each round (to measure
the amortised refit against it); --warmup-trials full gives every task a whole first round
(TVM's warm-up) instead of one trial."""
import argparse
import os
import sys
import tempfile
import time


def per_model(text, cast, what):
    """{model or None: value} from "300" (every model) or "resnet18=300,resnet50=900"."""
    if text is None:
        return {None: None}
    out = {}
    for part in str(text).split(","):
        name, _, value = part.rpartition("=")
        try:
            out[name or None] = cast(value)
        except ValueError:
            raise SystemExit(f"--{what}: {part!r} is not a number or name=number") from None
    return out


def budget_of(table, name):
    return table.get(name, table.get(None))


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="resnet18", help="comma-separated names of benchmarks/models.py")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--trials", default="64", help="max_trials_global per model (N or name=N,...)")
    ap.add_argument("--time", default=None, help="max_time_s per model, wall-clock tuning budget (S or name=S,...)")
    ap.add_argument("--per-iter", type=int, default=16, help="num_trials_per_iter")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--build-workers", type=int, default=1, help="num_tuning_cores (parallel builds)")
    ap.add_argument("--work-dir", default=None, help="tuning database directory (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=7, help="interleaved timing rounds")
    ap.add_argument("--spread", type=int, default=8, help="rows of the trials-per-task table (heaviest tasks)")
    ap.add_argument("--refit", choices=("amortised", "every-round"), default="amortised",
                    help="cost-model refit: Tessera's amortised one or TVM's after every round")
    ap.add_argument("--warmup-trials", default="1",
                    help="GradientBased's warm-up round per task: N trials, or 'full' (TVM: a whole round)")
    args = ap.parse_args()
    args.trials = per_model(args.trials, int, "trials")
    args.time = per_model(args.time, float, "time")
    return args


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


def trial_spread(ms, db, mod, target, rows):
    """Lines: per task (heaviest first) its share of the model's weighted latency (weight x
    best latency of the database) and the trials it received; the rest summed."""
    tasks = ms.relax_integration.extract_tasks(mod, target)
    entries = []
    for task in tasks:
        recs = db.records_of(task.mod)
        valid = [r.mean_run_sec for r in recs if r.is_valid]
        entries.append((task.weight * min(valid) if valid else None, len(recs), task.task_name, task.weight))
    total = sum(e[0] for e in entries if e[0] is not None) or 1.0
    trials = sum(e[1] for e in entries) or 1
    entries.sort(key=lambda e: -1.0 if e[0] is None else -e[0])

    def share(lat):
        return f"{100 * lat / total:12.1f}%" if lat is not None else f"{'no valid':>13s}"
    out = [f"    {'task':44s} weight  latency share  trials share"]
    for lat, n, task_name, weight in entries[:rows]:
        out.append(f"    {task_name[:44]:44s} {weight:6.0f}  {share(lat)}  {n:6d} {100 * n / trials:5.1f}%")
    rest = entries[rows:]
    if rest:
        lat = sum(e[0] for e in rest if e[0] is not None)
        out.append(f"    {'(' + str(len(rest)) + ' lighter tasks)':44s} {'':6s}  {share(lat)}  "
                   f"{sum(e[1] for e in rest):6d} {100 * sum(e[1] for e in rest) / trials:5.1f}%")
    return out


def bench(tvm, torch, name, args, log):
    from tessera import meta_schedule as ms, relax  # pylint: disable=import-outside-toplevel
    from tessera.relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel
    from frontend_models import onnx_session, timed_clocks  # pylint: disable=import-outside-toplevel
    from models import build_model, check, randomize_batchnorm  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel

    torch.manual_seed(0)
    model, shape = build_model(torch, name, args.batch)
    randomize_batchnorm(torch, model)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    tx = torch.from_numpy(x)
    with torch.no_grad():
        expected = model(tx).numpy()
    raw = from_exported_program(torch.export.export(model, (tx,)), unwrap_unit_return_tuple=True)
    target = tvm.target.Target(f"llvm --num-cores={args.threads}")
    mod = ms.relax_integration.fuse_as_built(raw, target)
    n_tasks = len(ms.relax_integration.extract_tasks(mod, target))

    work_dir = os.path.join(args.work_dir, name) if args.work_dir else tempfile.mkdtemp(prefix=f"tune_{name}_")
    max_trials, max_time = budget_of(args.trials, name), budget_of(args.time, name)
    if max_trials is None:
        raise SystemExit(f"--trials gives no budget for {name}")
    before = len(ms.database.JSONDatabase(work_dir=work_dir).get_all_tuning_records()) \
        if os.path.isdir(work_dir) else 0
    cost_model = (ms.cost_model.XGBModel(seed=args.seed) if args.refit == "amortised" else
                  ms.cost_model.XGBModel(seed=args.seed, refit_growth=0, max_train_samples=None))
    t0 = time.time()
    scheduler = ms.task_scheduler.GradientBased(
        seed=args.seed, warmup_trials=None if args.warmup_trials == "full" else int(args.warmup_trials))
    db = ms.relax_integration.tune_relax(mod, None, target, work_dir, max_trials, num_trials_per_iter=args.per_iter,
                                         max_time_s=max_time, seed=args.seed, cost_model=cost_model,
                                         task_scheduler=scheduler, num_tuning_cores=args.build_workers)
    tune_s = time.time() - t0
    trials = len(db.get_all_tuning_records())
    beat, total, saved = default_vs_tuned(tvm, ms, db, mod, target)
    tuned = relax.VirtualMachine(ms.relax_integration.compile_relax(db, mod, target), tvm.cpu())["main"]
    untuned = relax.VirtualMachine(relax.build(raw, target=target), tvm.cpu())["main"]
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
    clocks = timed_clocks(engines, repeat=args.repeat)
    lat = {n: t["cpu"] for n, t in clocks.items()}
    log(f"  {name} batch {args.batch}, {args.threads} thread(s): {n_tasks} tasks; budget {max_trials} trials"
        + (f", {max_time:.0f} s" if max_time else "") + f"; used {trials - before} trials "
        f"({trials} in the database) in {tune_s:.0f} s wall time (cost-model fits {cost_model.fit_secs:.1f} s, "
        f"{cost_model.num_fits} fits, refit {args.refit}); max error vs PyTorch {err:.1e}")
    for line in trial_spread(ms, db, mod, target, args.spread):
        log(line)
    for label, t in clocks.items():
        log(f"    {label:16s} {t['cpu'] * 1e3:9.2f} ms CPU {t['wall'] * 1e3:9.2f} ms wall {t['thread'] * 1e3:9.2f} ms thread")
    for c in ("cpu", "wall"):
        ck = {n: t[c] for n, t in clocks.items()}
        log(f"    {c:4s} ORT/Tessera tuned {ck['ONNX Runtime'] / ck['Tessera tuned']:.2f}   "
            f"PyTorch/Tessera tuned {ck['PyTorch eager'] / ck['Tessera tuned']:.2f}   "
            f"untuned/tuned {ck['Tessera untuned'] / ck['Tessera tuned']:.2f}   "
            f"ORT/Tessera untuned {ck['ONNX Runtime'] / ck['Tessera untuned']:.2f}")
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
