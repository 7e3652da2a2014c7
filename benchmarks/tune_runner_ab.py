"""A/B of the tuner's measurement settings (issue [G2] item 3): each operator of
tune_ops.py tuned with tune_tir under the same wall budget (max_time_s) with each runner
setting, for several seeds, the settings' runs interleaved (seed by seed); then every
run's best record built and timed in one interleaved session (--clock cpu), and per
setting the median over seeds of the tuned latency and of the trials reached.

  python benchmarks/tune_runner_ab.py [--ops conv3x3_64,softmax] [--time 60] [--seeds 3]

Settings: "once" (LocalRunner(): number=3, repeat=1, min_repeat_ms=20: one measurement of
at least 20 ms, the mean per call), "min3" (repeat=3, min_repeat_ms=7, the minimum of the
three: about the same time per candidate) and "min3x20" (repeat=3, min_repeat_ms=20, the
minimum: three times the time per candidate)."""
import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


def make_runner(ms, setting):
    if setting == "once":
        return ms.runner.LocalRunner()

    class MinRunner(ms.runner.LocalRunner):
        """The minimum over the repeats as the candidate's one latency."""

        def run(self, runner_inputs):
            out = super().run(runner_inputs)
            for r in out:
                if r.error_msg is None and r.run_secs:
                    r.run_secs = [min(r.run_secs)]
            return out
    return MinRunner(repeat=3, min_repeat_ms=7 if setting == "min3" else 20)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", default="conv3x3_64,softmax")
    ap.add_argument("--settings", default="once,min3,min3x20")
    ap.add_argument("--time", type=float, default=60.0, help="max_time_s of each tuning run")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--work-dir", default=None)
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import numpy as np
    import tessera as tvm
    from tessera import meta_schedule as ms, relax
    from tessera.meta_schedule.tune_context import normalize_mod
    from frontend_models import timed
    import tune_ops

    work = args.work_dir or tempfile.mkdtemp(prefix="tune_ab_")
    settings = args.settings.split(",")
    for name in args.ops.split(","):
        mod = normalize_mod(tune_ops.task_of(tvm, ms, relax, name))
        built, trials = {}, {s: [] for s in settings}
        for seed in range(args.seeds):
            for k, setting in enumerate(settings[seed % len(settings):] + settings[:seed % len(settings)]):
                runner = make_runner(ms, setting)
                try:
                    db = ms.tune_tir(mod, tune_ops.TARGET, os.path.join(work, f"{name}_{setting}_{seed}"), 100000,
                                     num_trials_per_iter=16, seed=seed, num_tuning_cores=1, runner=runner,
                                     max_time_s=args.time)
                finally:
                    runner.close()
                trials[setting].append(len({r.trace_key for r in db.records_of(mod)}))
                lib = tvm.build(ms.tir_integration.compile_tir(db, mod, tune_ops.TARGET).mod, target=tune_ops.TARGET)
                built[(setting, seed)] = lib["main"]
        rng = np.random.default_rng(1)
        f = mod["main"]
        shapes = [[int(s) for s in f.buffer_map[p].shape] for p in f.params]
        arrays = {key: [tvm.nd.array(rng.standard_normal(s).astype("float32")) for s in shapes] for key in built}
        res = timed({key: (lambda fn=fn, a=arrays[key]: fn(*a)) for key, fn in built.items()}, repeat=7,
                    clock=time.process_time)
        for setting in settings:
            lat = [res[(setting, seed)] * 1e3 for seed in range(args.seeds)]
            print(f"{name} {setting}: tuned median {statistics.median(lat):.4f} ms (seeds: "
                  + ", ".join(f"{v:.4f}" for v in lat) + f"), trials median {statistics.median(trials[setting])}",
                  flush=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
