"""Per-layer timing of the ResNet 3x3 stride-1 convolutions (with bias and ReLU, as
fused in the models): Tessera's Winograd kernel (PassContext config
"relax.conv2d_winograd" True) vs its packed direct kernel (False) vs PyTorch,
interleaved in the same run (frontend_models.timed), one thread, CPU time of this
process. With --stages, the Winograd kernel's stages are timed one by one (each
prefix of the stage chain built alone under DefaultCPUSchedule; a stage's time is
the difference of consecutive prefixes).

    python benchmarks/winograd_layers.py [--batch 1 8] [--stages]"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TVM_NUM_THREADS", "1")
from frontend_models import timed  # noqa: E402

# (channels in, channels out, height = width): ResNet-18/34's and ResNet-50's bottleneck 3x3 layers.
LAYERS = [(64, 64, 56), (128, 128, 28), (256, 256, 14), (512, 512, 7)]


def _module(relax, x_shape, w, b):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), padding=1))
            y = bb.emit(relax.op.add(y, relax.const(b.reshape(1, -1, 1, 1))))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def _build(tvm, mod, config):
    with tvm.transform.PassContext(config=config):
        ex = tvm.relax.build(mod, target="llvm")
    vm = tvm.relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"]


def stage_times(tvm, x_shape, w, m, clock):
    """Per-stage seconds of the Winograd kernel (differences of prefix builds)."""
    from tessera import te, tir, topi  # pylint: disable=import-outside-toplevel
    u = topi.nn.conv2d_winograd_weight_transform(w, m)
    bt, at = topi.nn.winograd_transform_constants(m)
    X, U = te.placeholder(x_shape, name="X"), te.placeholder(u.shape, name="U")
    B, A = te.placeholder(bt.shape, name="Bt"), te.placeholder(at.shape, name="At")
    out = topi.nn.conv2d_nchw_winograd(X, U, B, A, 1)
    chain, t = [], out
    while t.op.name.startswith("winograd_"):
        chain.append(t)
        t = next(i for i in t.op.input_tensors if i.op.name.startswith("winograd_") or i.op.name == "X")
    chain.reverse()
    dev = tvm.cpu()
    inputs = [tvm.nd.array(a, dev) for a in (np.random.rand(*x_shape).astype("float32"), u, bt, at)]
    engines = {}
    for stage in chain:
        f = te.create_prim_func([X, U, B, A, stage]).with_attr("global_symbol", "main")
        mod = tir.transform.DefaultCPUSchedule(tvm.target.Target("llvm"))(tvm.IRModule({"main": f}))
        lib = tvm.build(mod, target="llvm")
        o = tvm.nd.empty([int(d) for d in stage.shape], "float32", dev)
        engines[stage.op.name] = (lambda lib=lib, o=o: lib(*inputs, o))
    lat = timed(engines, repeat=5, clock=clock)
    prev, out_t = 0.0, {}
    for name, sec in lat.items():
        out_t[name], prev = sec - prev, sec
    return out_t


def main():
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, nargs="*", default=[1, 8])
    parser.add_argument("--stages", action="store_true")
    parser.add_argument("--layers", type=str, default=None, help="c,k,hw;c,k,hw;... instead of the ResNet list")
    args = parser.parse_args()
    torch.set_num_threads(1)
    layers = LAYERS if not args.layers else [tuple(int(v) for v in s.split(",")) for s in args.layers.split(";")]
    clock = time.process_time
    print("3x3 conv + bias + ReLU, 1 thread, CPU-time medians; GFLOP/s of the direct conv's 2*N*K*C*9*HW")
    for n in args.batch:
        for c, k, hw in layers:
            rng = np.random.default_rng(0)
            x = rng.standard_normal((n, c, hw, hw)).astype("float32")
            w = (rng.standard_normal((k, c, 3, 3)) / np.sqrt(9 * c)).astype("float32")
            b = rng.standard_normal(k).astype("float32")
            mod = _module(tvm.relax, x.shape, w, b)
            nd_x, tx = tvm.nd.array(x), torch.from_numpy(x)
            tw, tb = torch.from_numpy(w), torch.from_numpy(b)
            engines = {"winograd": (lambda f=_build(tvm, mod, {"relax.conv2d_winograd": True}): f(nd_x)),
                       "packed": (lambda f=_build(tvm, mod, {"relax.conv2d_winograd": False}): f(nd_x)),
                       "pytorch": lambda: torch.relu(torch.nn.functional.conv2d(tx, tw, tb, padding=1))}
            ref = engines["pytorch"]().numpy()
            err = float(np.abs(engines["winograd"]().numpy() - ref).max() / np.abs(ref).max())
            lat = timed(engines, repeat=5, clock=clock)
            flop = 2.0 * n * k * c * 9 * hw * hw
            print(f"N={n} {c}->{k} @{hw}x{hw}: " + "  ".join(
                f"{e} {t * 1e3:7.3f} ms ({flop / t / 1e9:5.1f})" for e, t in lat.items()) +
                f"  packed/winograd {lat['packed'] / lat['winograd']:.2f}  err {err:.1e}", flush=True)
            if args.stages:
                m = 2 if hw < 8 else 4
                st = stage_times(tvm, x.shape, w, m, clock)
                print("    stages: " + "  ".join(f"{s[len('winograd_'):]} {t * 1e3:.3f}" for s, t in st.items()))


if __name__ == "__main__":
    main()
