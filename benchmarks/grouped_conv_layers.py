"""Per-layer timing of grouped (not depthwise) conv2d + bias + ReLU: Tessera's
packed kernel per group (the default; PassContext config
"relax.conv2d_grouped_packed" True) vs its generic kernel (False) vs PyTorch,
interleaved in the same run (frontend_models.timed), one thread, CPU time of this
process, weights constant (as in an imported model).

    python benchmarks/grouped_conv_layers.py [--batch 1] [--layers c,k,hw,groups,kernel,stride;...]"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TVM_NUM_THREADS", "1")
from frontend_models import timed  # noqa: E402
from winograd_layers import _build  # noqa: E402  (relax.build under a config, main's function)

# (channels in, out, height = width, groups, kernel, stride): the three shapes of
# issue 26's measurement, then ResNeXt-50 32x4d's grouped 3x3 layers.
LAYERS = [(128, 128, 56, 32, 3, 1), (256, 256, 28, 32, 3, 1), (64, 64, 56, 2, 3, 1),
          (512, 512, 14, 32, 3, 1), (1024, 1024, 7, 32, 3, 1)]


def _module(relax, x_shape, w, b, groups, stride):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), strides=stride, padding=w.shape[-1] // 2,
                                           groups=groups))
            y = bb.emit(relax.op.add(y, relax.const(b.reshape(1, -1, 1, 1))))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def main():
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, nargs="*", default=[1])
    parser.add_argument("--layers", type=str, default=None, help="c,k,hw,groups,kernel,stride;... instead")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    layers = LAYERS if not args.layers else [tuple(int(v) for v in s.split(",")) for s in args.layers.split(";")]
    print("grouped conv + bias + ReLU, 1 thread, CPU-time medians (GFLOP/s of 2*N*K*(C/groups)*kh*kw*OH*OW)")
    for n in args.batch:
        for c, k, hw, groups, ks, stride in layers:
            rng = np.random.default_rng(0)
            x = rng.standard_normal((n, c, hw, hw)).astype("float32")
            w = (rng.standard_normal((k, c // groups, ks, ks)) / np.sqrt(ks * ks * c // groups)).astype("float32")
            b = rng.standard_normal(k).astype("float32")
            mod = _module(tvm.relax, x.shape, w, b, groups, stride)
            nd_x, tx = tvm.nd.array(x), torch.from_numpy(x)
            tw, tb = torch.from_numpy(w), torch.from_numpy(b)
            engines = {"packed": (lambda f=_build(tvm, mod, {"relax.conv2d_grouped_packed": True}): f(nd_x)),
                       "generic": (lambda f=_build(tvm, mod, {"relax.conv2d_grouped_packed": False}): f(nd_x)),
                       "pytorch": lambda: torch.relu(torch.nn.functional.conv2d(
                           tx, tw, tb, stride=stride, padding=ks // 2, groups=groups))}
            ref = engines["pytorch"]().numpy()
            err = float(np.abs(engines["packed"]().numpy() - ref).max() / np.abs(ref).max())
            lat = timed(engines, repeat=args.repeat, clock=time.process_time)
            oh = (hw + 2 * (ks // 2) - ks) // stride + 1
            flop = 2.0 * n * k * (c // groups) * ks * ks * oh * oh
            print(f"N={n} {c}->{k} g{groups} k{ks} s{stride} @{hw}: " + "  ".join(
                f"{e} {t * 1e3:7.3f} ms ({flop / t / 1e9:5.1f})" for e, t in lat.items()) +
                f"  pytorch/packed {lat['pytorch'] / lat['packed']:.2f}"
                f"  pytorch/generic {lat['pytorch'] / lat['generic']:.2f}  err {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
