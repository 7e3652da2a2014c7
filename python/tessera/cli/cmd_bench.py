"""``tessera bench model.so [--onnx model.onnx]``: the latency of a compiled
model (the VM's time_evaluator), and with the .onnx beside it, of ONNX
Runtime on the same inputs, their ratio and the largest difference of the
outputs. Inputs come from --input files, or are random."""
import time

import numpy as np

from .common import CLIError, check_file
from ..contrib.graph_executor import flatten_outputs
from .library import Library

HELP = "time a compiled model, against ONNX Runtime when given the .onnx"


def add_arguments(parser):
    parser.add_argument("library", help="a library written by tessera compile")
    parser.add_argument("--onnx", metavar="MODEL.onnx", help="also time this model with ONNX Runtime")
    parser.add_argument("--input", action="append", metavar="NAME=FILE.npy", help="an input (default: random)")
    parser.add_argument("--number", type=int, default=10, help="runs per measurement (default 10)")
    parser.add_argument("--repeat", type=int, default=5, help="measurements (default 5)")


def _onnxruntime(path, names, arrays, number, repeat):
    try:
        import onnxruntime  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise CLIError("--onnx needs the 'onnxruntime' Python package (pip install onnxruntime)") from err
    try:
        sess = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    except Exception as err:  # pylint: disable=broad-except  # ORT raises its own exception types
        raise CLIError(f"ONNX Runtime cannot load {path}: {err}") from err
    ort_names = [i.name for i in sess.get_inputs()]
    if sorted(ort_names) == sorted(names):
        feed = dict(zip(names, arrays))
    elif len(ort_names) == len(names):  # e.g. a .pt2's argument names beside the .onnx export's
        print(f"note: input names differ; matched by position: "
              f"{', '.join(f'{a} -> {b}' for a, b in zip(names, ort_names))}")
        feed = dict(zip(ort_names, arrays))
    else:
        raise CLIError(f"{path} has inputs {', '.join(ort_names)}, the library {', '.join(names)}")
    try:
        outputs = sess.run(None, feed)
    except Exception as err:  # pylint: disable=broad-except  # ORT raises its own exception types
        raise CLIError(f"ONNX Runtime cannot run {path} on these inputs: {err}") from err
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            sess.run(None, feed)
        times.append((time.perf_counter() - start) / number)
    return np.array(times), outputs


def run(args):
    from ..runtime.device import cpu  # pylint: disable=import-outside-toplevel

    if args.number < 1 or args.repeat < 1:
        raise CLIError("--number and --repeat must be at least 1")
    if args.onnx is not None:
        check_file(args.onnx, "ONNX model")
    lib = Library(args.library)
    inputs = lib.inputs(args.input, onnx_path=args.onnx, random=True)
    vm = lib.vm()
    outputs = [o.numpy() for o in flatten_outputs(vm["main"](*inputs))]
    vm.set_input("main", *inputs)
    result = vm.time_evaluator("main", cpu(), number=args.number, repeat=args.repeat)()
    tess = np.array(result.results)
    rows = [("tessera", tess)]
    diff = None
    if args.onnx is not None:
        ort, ort_outputs = _onnxruntime(args.onnx, lib.names, [i.numpy() for i in inputs], args.number,
                                        args.repeat)
        rows.append(("onnxruntime", ort))
        if len(ort_outputs) == len(outputs):
            diff = max(float(np.max(np.abs(a.astype("float64") - np.asarray(b, "float64")))) if a.size else 0.0
                       for a, b in zip(outputs, ort_outputs))
    print(f"{'engine':<12} {'median (ms)':>12} {'mean (ms)':>10} {'std (ms)':>9}")
    for name, t in rows:
        print(f"{name:<12} {np.median(t) * 1e3:>12.4f} {t.mean() * 1e3:>10.4f} {t.std() * 1e3:>9.4f}")
    if len(rows) == 2:
        print(f"tessera / onnxruntime (median): {np.median(tess) / np.median(rows[1][1]):.2f}x")
    if diff is not None:
        print(f"largest difference of the outputs: {diff:.3g}")
    return 0
