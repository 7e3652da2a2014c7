"""Survey of the tuner's search spaces on whole models (issue [G2]): for every task of a
model (extracted as benchmarks/tune_models.py extracts them: from_exported_program,
fuse_as_built, extract_tasks), draws --samples samples of the task's design space (what
the search strategies' fresh samples are) and one mutation of each by a mutator drawn
from the space's mutator_probs (what the evolutionary search's children are), replays
and postprocesses each, and counts the failures per task by their first line of text.
A sound space rejects none.

  python benchmarks/space_survey.py --models resnet50 --batch 1 --filter conv --samples 200
"""
import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def tasks_of(tvm, torch, ms, name, batch, target):
    """The tuning tasks of benchmarks/models.py's ``name`` at ``batch``, as tune_models has them."""
    from tessera.relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel
    from models import build_model, randomize_batchnorm  # pylint: disable=import-outside-toplevel
    torch.manual_seed(0)
    model, shape = build_model(torch, name, batch)
    randomize_batchnorm(torch, model)
    tx = torch.zeros(shape)
    raw = from_exported_program(torch.export.export(model, (tx,)), unwrap_unit_return_tuple=True)
    mod = ms.relax_integration.fuse_as_built(raw, target)
    return ms.relax_integration.extract_tasks(mod, target)


def _reason(text):
    line = str(text).strip().splitlines()[0] if str(text).strip() else "?"
    return re.sub(r"0x[0-9a-f]+", "0x?", line)[:160]


def survey_task(ms, tir, task, samples, seed=0, generations=4):
    """{"samples": n, "mutations": m, "failures": Counter(kind: reason -> count)}."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    from tessera.meta_schedule.search_strategy import MutatorSampler  # pylint: disable=import-outside-toplevel
    from tessera.meta_schedule.default_candidate import sampled_default_schedule  # pylint: disable=import-outside-toplevel
    mod = task.dispatched[0]
    ctx = ms.TuneContext(mod=mod, target=task.target, space_generator="post-order-apply", rand_state=seed)
    space = ctx.space_generator
    rng = np.random.default_rng(seed)
    mutators = MutatorSampler(ctx.mutator_probs, ctx, rng)
    fails = collections.Counter()
    good, n_mut = [], 0

    def postprocessed(sch, kind):
        if not space.apply_postprocs(sch):
            fails[f"{kind}: postprocessor {space.last_rejection}"] += 1
            return None
        return sch

    for _ in range(samples):
        s = int(rng.integers(1, 2**31 - 1))
        try:
            sch = space.sample(ctx.mod, s, ctx)
        except Exception as err:  # noqa: BLE001 -- counted
            fails[f"sample: {_reason(err)}"] += 1
            continue
        sch = postprocessed(sch, "sample")
        if sch is not None:
            good.append(sch)
    dflt = sampled_default_schedule(ctx.mod, ctx.target)
    if dflt is not None:
        good.append(dflt)  # a parent of the population like any measured record
    parents = good
    for _ in range(generations):
        children = []
        for sch in parents:
            m = mutators.sample()
            if m is None:
                break
            trace, _ = m.apply_with_state(sch.trace, int(rng.integers(1, 2**31 - 1)))
            if trace is None:
                continue
            n_mut += 1
            child = tir.Schedule(ctx.mod, seed=int(rng.integers(1, 2**31 - 1)))
            try:
                trace.apply_to_schedule(child, remove_postproc=True)
            except Exception as err:  # noqa: BLE001 -- counted
                fails[f"mutation ({type(m).__name__}): {_reason(err)}"] += 1
                continue
            child = postprocessed(child, f"mutation ({type(m).__name__})")
            if child is not None:
                children.append(child)
        parents = children + ([dflt] * 8 if dflt is not None else [])
    return {"samples": samples, "mutations": n_mut, "failures": fails}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="resnet50")
    ap.add_argument("--batch", default="1", help="comma-separated batch sizes")
    ap.add_argument("--filter", default="conv", help="substring of the task names surveyed ('' = every task)")
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel
    from tessera import meta_schedule as ms, tir  # pylint: disable=import-outside-toplevel
    target = tvm.target.Target(f"llvm --num-cores={args.threads}")
    total = 0
    for name in args.models.split(","):
        for batch in (int(b) for b in args.batch.split(",")):
            for task in tasks_of(tvm, torch, ms, name, batch, target):
                if args.filter and args.filter not in task.task_name:
                    continue
                got = survey_task(ms, tir, task, args.samples, args.seed)
                bad = sum(got["failures"].values())
                total += bad
                print(f"{name} b{batch} {task.task_name}: {got['samples']} samples, {got['mutations']} mutations, "
                      f"{bad} rejected", flush=True)
                for reason, n in got["failures"].most_common():
                    print(f"    {n:4d}  {reason}", flush=True)
    print(f"rejected in all: {total}")


if __name__ == "__main__":
    main()
