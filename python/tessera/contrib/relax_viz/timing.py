"""Kernel times for relax_viz: total microseconds per kernel name from a
``vm.profile`` report (tvm.runtime.profiling.Report), and the colour of a
time on a white-yellow-red scale relative to the slowest kernel."""
from ...error import TVMTypeError

# ColorBrewer's YlOrRd, light to dark.
_SCALE = ["#ffffcc", "#ffeda0", "#fed976", "#feb24c", "#fd8d3c", "#fc4e2a", "#e31a1c", "#bd0026"]


def kernel_times(report):
    """{kernel name: (total us, calls)} summed over the report's rows (None -> {})."""
    if report is None:
        return {}
    calls = getattr(report, "calls", None)
    if calls is None:
        raise TVMTypeError(f"profile must be a vm.profile report (tvm.runtime.profiling.Report), got "
                           f"{type(report).__name__}")
    times = {}
    for row in calls:
        total, count = times.get(row["Name"], (0.0, 0))
        times[row["Name"]] = (total + float(row["Duration (us)"]), count + int(row["Count"]))
    return times


def per_call(times, kernel):
    """The mean time of one call of ``kernel``."""
    total, count = times[kernel]
    return total / max(1, count)


def slowest_in(graph, times):
    """The longest time of one call among the kernels drawn in ``graph`` (the
    top of the colour scale; VM builtins in the report do not count)."""
    kernels = {n.kernel for n in graph.nodes if n.kernel} | set(graph.cluster_kernel.values())
    return max((per_call(times, k) for k in kernels if k in times), default=0.0)


def total_of(times):
    return sum(total for total, _ in times.values())


def colour(us, slowest_us):
    """The scale's colour for ``us`` out of ``slowest_us``."""
    if slowest_us <= 0:
        return _SCALE[0]
    return _SCALE[min(len(_SCALE) - 1, int(us / slowest_us * (len(_SCALE) - 1) + 0.5))]


def font_colour(fill):
    """White on the two darkest colours of the scale, black elsewhere."""
    return "white" if fill in _SCALE[-2:] else "black"


def time_text(times, kernel, total_us):
    """"31.9 us x 3 (12%)": one call's time, the number of calls when more than
    one, and the share of all calls in the profiled run."""
    all_us, count = times[kernel]
    us = all_us / max(1, count)
    text = f"{us / 1e3:.2f} ms" if us >= 1000 else f"{us:.1f} us"
    if count > 1:
        text += f" x {count}"
    return text + (f" ({100.0 * all_us / total_us:.0f}%)" if total_us > 0 else "")


__all__ = ["kernel_times", "per_call", "slowest_in", "total_of", "colour", "font_colour", "time_text"]
