"""Per-call latency of several engines measured in the same run: the engines
take turns (interleaved, the order rotating each round) and each reports the
median over rounds of its mean time per call, so that machine noise hits all
of them alike.
"""
import time

import numpy as np


def interleaved_latency(engines, number=200, repeat=15, warmup=50, progress=None):
    """engines: {name: zero-argument callable}. Returns {name: seconds per call (median of repeats)}."""
    for fn in engines.values():
        for _ in range(warmup):
            fn()
    names = list(engines)
    samples = {name: [] for name in names}
    for r in range(repeat):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            fn = engines[name]
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - t0) / number)
        if progress is not None:
            progress(r + 1, repeat)
    return {name: float(np.median(samples[name])) for name in names}
