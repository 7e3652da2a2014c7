"""Where a model's parallel loops can lose at T threads, without timing them in
parallel (so it holds on a busy machine): builds one model of
benchmarks/models.py for "llvm -num-cores=T", and lists per kernel (by its
one-thread vm.profile time, minimum of 5) its parallel loops as extent x
launches per call, the share of its stores outside any parallel loop, and the
speed-up bound at T threads from the loops' extents alone: a loop of n
iterations runs at best ceil(n / T) of them on its busiest thread; lost_us is
the one-thread time times (1 / bound - 1 / T).
`python benchmarks/parallel_loops.py --model resnet18 --batch 1 --threads 2`.
"""
import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import MODELS, build_model  # noqa: E402


def parallel_loops(func):
    """([(extent, launches per call, stores inside)], stores outside parallel loops, all stores)
    of ``func``'s outermost parallel loops; stores counted as loop-nest iterations."""
    from tessera import tir  # pylint: disable=import-outside-toplevel

    loops, counts = [], {"serial": 0, "all": 0}

    def visit(stmt, mult, in_par):
        if isinstance(stmt, tir.For):
            ext = int(stmt.extent) if isinstance(stmt.extent, tir.IntImm) else 1
            if stmt.kind == tir.ForKind.PARALLEL and not in_par:
                before = counts["all"]
                visit(stmt.body, mult * ext, True)
                loops.append((ext, mult, counts["all"] - before))
            else:
                visit(stmt.body, mult * ext, in_par)
        elif isinstance(stmt, tir.BufferStore):
            counts["all"] += mult
            counts["serial"] += 0 if in_par else mult
        elif isinstance(stmt, tir.BlockRealize):
            visit(stmt.block.body, mult, in_par)
        elif isinstance(stmt, tir.SeqStmt):
            for s in stmt.seq:
                visit(s, mult, in_par)
        elif isinstance(stmt, tir.IfThenElse):
            visit(stmt.then_case, mult, in_par)
            if stmt.else_case is not None:
                visit(stmt.else_case, mult, in_par)
        elif hasattr(stmt, "body"):
            visit(stmt.body, mult, in_par)

    visit(func.body, 1, False)
    return loops, counts["serial"], counts["all"]


def bound(loops, serial, total, threads):
    """Speed-up bound at ``threads`` from the loops' extents (stores as the work)."""
    if total == 0:
        return 1.0
    t = serial / total + sum(w / total * math.ceil(n / threads) / n for n, _, w in loops)
    return 1.0 / t


def main(model_name, batch, threads, top):
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel
    from tessera import relax, tir  # pylint: disable=import-outside-toplevel
    from tessera.relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel

    torch.set_grad_enabled(False)
    model, shape = build_model(torch, model_name, batch)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    mod = from_exported_program(torch.export.export(model, (torch.from_numpy(x),)), unwrap_unit_return_tuple=True)
    target = f"llvm -num-cores={threads}"
    lowered = relax.get_pipeline(target=target)(mod)
    vm = relax.VirtualMachine(relax.build(mod, target=target), tvm.cpu(), profile=True)
    tvm.get_global_func("runtime.SetNumThreads")(1)
    nd_x = tvm.nd.array(x)
    vm["main"](nd_x)
    us = {}
    for _ in range(5):
        for c in vm.profile("main", nd_x).calls:
            us[c["Name"]] = min(us.get(c["Name"], float("inf")), c["Duration (us)"])
    rows = []
    for gv, f in lowered.functions.items():
        if isinstance(f, tir.PrimFunc) and "tir.is_host_func" not in (f.attrs or {}):
            loops, serial, total = parallel_loops(f)
            t = us.get(gv.name_hint, 0.0)
            b = bound(loops, serial, total, threads)
            rows.append((t, gv.name_hint, loops, serial / max(total, 1), b, t * (1 / b - 1 / threads)))
    rows.sort(key=lambda r: -r[0])
    one = sum(r[0] for r in rows)
    ideal = sum(r[0] / r[4] for r in rows)
    print(f"{model_name} batch {batch}, {threads} threads: kernels {one:.0f} us on one thread, bound {one / ideal:.2f}x; "
          f"{sum(n for r in rows for _, n, _ in r[2])} parallel loops per call")
    print(f"{'kernel':40s} {'1thr us':>8s} {'serial%':>7s} {'bound':>5s} {'lost_us':>7s}  parallel loops (extent x launches)")
    for t, name, loops, sfrac, b, lost in rows[:top]:
        desc = " ".join(f"{n}x{m}" for n, m, _ in loops)
        print(f"{name[:40]:40s} {t:8.0f} {100 * sfrac:7.1f} {b:5.2f} {lost:7.0f}  {desc[:70]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=MODELS, default="resnet18")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--top", type=int, default=30)
    a = parser.parse_args()
    main(a.model, a.batch, a.threads, a.top)
