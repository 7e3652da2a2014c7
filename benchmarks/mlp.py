"""MLP batch-1 end-to-end latency from Python: the course's Fashion-MNIST MLP
(784 -> 128 -> 10, ReLU) compiled by Tessera (relax.build + VirtualMachine,
vm["main"] called from Python) vs NumPy, PyTorch and ONNX Runtime, measured
in the same run (interleaved, median of rounds); prints peer/Tessera ratios
(> 1: Tessera is faster). Also the C++ figure: the executable exported with
export_library and called from C++ with the runtime library only
(benchmarks/cpp/mlp_latency.cc). Part of `make bench`; runs alone with
`python benchmarks/mlp.py`.
"""
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "apps"))
from fashion_mlp import peers, timing, train  # noqa: E402


def random_params(seed=0):
    """nn.Linear-like uniform weights: latency does not depend on the values."""
    rng = np.random.default_rng(seed)

    def uniform(shape, fan_in):
        bound = 1.0 / np.sqrt(fan_in)
        return rng.uniform(-bound, bound, size=shape).astype("float32")

    return {"w0": uniform((128, 784), 784), "b0": uniform((128,), 784),
            "w1": uniform((10, 128), 128), "b1": uniform((10,), 128)}


def tessera_engines(tvm, params, nd_x):
    """({label: zero-argument callable}, {label: Executable}) for the Tessera builds, and
    {label: reason} for those that cannot be built here (never a made-up number)."""
    from fashion_mlp import modules

    engines, executables, missing = {}, {}, {}
    # relax.build schedules unscheduled PrimFuncs by default (DefaultCPUSchedule);
    # "as written" leaves that pass out.
    builds = {
        "Tessera call_tir (scheduled, bound params)":
            (lambda: modules.bind_params(modules.with_scheduled_linears(modules.call_tir_module()), params), []),
        "Tessera call_tir (default schedules, bound params)":
            (lambda: modules.bind_params(modules.call_tir_module(), params), []),
        "Tessera call_tir (as written, bound params)":
            (lambda: modules.bind_params(modules.call_tir_module(), params), ["DefaultCPUSchedule"]),
    }
    expected = peers.numpy_mlp(nd_x.numpy(), params)
    for label, (make, disabled) in builds.items():
        try:
            with tvm.transform.PassContext(disabled_pass=disabled):
                ex = modules.compile_executable(make())
            f = tvm.relax.VirtualMachine(ex, tvm.cpu())["main"]
            np.testing.assert_allclose(f(nd_x).numpy(), expected, rtol=1e-4, atol=1e-5)
        except Exception as err:  # noqa: BLE001 - report, do not guess
            text = str(err).strip()
            missing[label] = f"{type(err).__name__}: {text.splitlines()[0] if text else ''}"
            continue
        engines[label] = lambda f=f: f(nd_x)
        executables[label] = ex
    return engines, executables, missing


def cpp_latency(ex, x, expected, calls=20000):
    """Exports `ex`, runs build/mlp_latency_bench on it (runtime library only) and checks its
    output against `expected`. Returns the program's timing line, or why there is none."""
    exe = os.path.join(ROOT, "build", "mlp_latency_bench")
    if not os.path.exists(exe):
        return "not available: build/mlp_latency_bench is not built (make build)"
    with tempfile.TemporaryDirectory() as tmp:
        lib, inp, outp = (os.path.join(tmp, n) for n in ("mlp.so", "x.f32", "y.f32"))
        try:
            ex.export_library(lib)
        except Exception as err:  # noqa: BLE001
            return f"not available: export_library failed: {type(err).__name__}: {err}"
        x.astype(np.float32).tofile(inp)
        proc = subprocess.run([exe, lib, inp, outp, str(calls)], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            return f"FAILED ({proc.returncode}): {(proc.stderr or proc.stdout).strip()}"
        np.testing.assert_allclose(np.fromfile(outp, dtype=np.float32).reshape(expected.shape), expected,
                                   rtol=1e-4, atol=1e-5)
        return proc.stdout.strip() + " (output checked against NumPy)"


def run(number=400, repeat=21, log=print):
    import torch
    import tessera as tvm

    torch.set_num_threads(train.CONFIG["threads"])
    torch.set_grad_enabled(False)
    params = random_params()
    x = np.random.default_rng(1).random((1, 784), dtype=np.float32)
    nd_x = tvm.nd.array(x)

    engines, executables, missing = tessera_engines(tvm, params, nd_x)
    model = train.torch_model_from_params(torch, params)
    tx = torch.from_numpy(x)
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sess = peers.onnxruntime_session(peers.export_onnx(torch, model, os.path.join(tmp, "mlp.onnx")))
    expected = peers.numpy_mlp(x, params)
    np.testing.assert_allclose(model(tx).numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(sess.run(None, {"x": x})[0], expected, rtol=1e-4, atol=1e-5)
    engines["NumPy"] = lambda: peers.numpy_mlp(x, params)
    engines["PyTorch"] = lambda: model(tx)
    engines["ONNX Runtime"] = lambda: sess.run(None, {"x": x})

    lat = timing.interleaved_latency(engines, number=number, repeat=repeat)
    tessera = {k: v for k, v in lat.items() if k.startswith("Tessera")}
    best_label = min(tessera, key=tessera.get) if tessera else None
    log(f"(e) MLP 784-128-10 batch 1, end to end from Python, one thread per engine; "
        f"xN = peer time / {best_label or 'Tessera'} time")
    for label, t in lat.items():
        ratio = ""
        if best_label and not label.startswith("Tessera"):
            ratio = f"   x{t / tessera[best_label]:5.2f}"
        log(f"    {label:50s} {t * 1e6:8.2f} us{ratio}")
    for label, reason in missing.items():
        log(f"    {label:50s} not available in this build: {reason}")
    if best_label:
        log(f"    C++ (libtessera_runtime only), {best_label[len('Tessera '):]}: "
            + cpp_latency(executables[best_label], x, expected) + " (a separate run, after the above)")
    else:
        log("    C++ (libtessera_runtime only): not measured, no Tessera build available")
    return lat, missing


if __name__ == "__main__":
    run()
