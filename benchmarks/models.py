"""Whole models compiled by Tessera without tuning (relax.build(mod, "llvm"),
imported with relax.frontend.torch.from_exported_program) vs ONNX Runtime and
PyTorch eager, in the same run, interleaved, the same thread count (default 2):
ResNet-18, ResNet-50, MobileNetV2 (224x224) and a BERT-base encoder layer
(d 768, 12 heads, ff 3072, seq 128), written here in PyTorch with random weights
(fixed seed; BatchNorm statistics randomized). Every engine's output is checked
against PyTorch first (1e-4 relative to the output's largest magnitude). Prints
per model and batch: latency, ORT/Tessera (>= 0.8 is the target of issue 25),
build time, resident memory each engine added, and the top kernels of
vm.profile. `python benchmarks/models.py --quick` runs ResNet-18 batch 1 only;
--models/--batch pick rows; every engine is timed on three clocks (wall, process CPU,
calling-thread CPU: timed_clocks); --cpu-time makes CPU time the main column; --config
KEY=false adds a second Tessera build with that PassContext option; --unfused adds Tessera without operator fusion
(disabled_pass FuseOps) as an engine and both engines' kernel launches.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frontend_models import kernel_launches, onnx_session, randomize_batchnorm, tessera_engine, timed_clocks  # noqa: E402

MODELS = ("resnet18", "resnet50", "mobilenet_v2", "bert_layer")


# ---- the models (PyTorch) ----------------------------------------------------------

def build_model(torch, name, batch):
    """(model in eval mode, input shape)."""
    nn = torch.nn

    def conv_bn(cin, cout, k, stride=1, groups=1):
        return [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]

    class Basic(nn.Module):
        expansion = 1

        def __init__(self, cin, c, stride):
            super().__init__()
            self.body = nn.Sequential(*conv_bn(cin, c, 3, stride), nn.ReLU(), *conv_bn(c, c, 3))
            self.down = nn.Sequential(*conv_bn(cin, c, 1, stride)) if stride != 1 or cin != c else None

        def forward(self, x):
            return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, cin, c, stride):
            super().__init__()
            self.body = nn.Sequential(*conv_bn(cin, c, 1), nn.ReLU(), *conv_bn(c, c, 3, stride), nn.ReLU(),
                                      *conv_bn(c, 4 * c, 1))
            self.down = nn.Sequential(*conv_bn(cin, 4 * c, 1, stride)) if stride != 1 or cin != 4 * c else None

        def forward(self, x):
            return torch.relu(self.body(x) + (x if self.down is None else self.down(x)))

    class ResNet(nn.Module):
        def __init__(self, block, layers, classes=1000):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            blocks, cin = [], 64
            for i, n in enumerate(layers):
                c = 64 << i
                for j in range(n):
                    blocks.append(block(cin, c, 2 if (i > 0 and j == 0) else 1))
                    cin = c * block.expansion
            self.blocks = nn.Sequential(*blocks)
            self.fc = nn.Linear(cin, classes)

        def forward(self, x):
            x = self.blocks(self.stem(x))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hidden = cin * expand
            layers = [*conv_bn(cin, hidden, 1), nn.ReLU6()] if expand != 1 else []
            layers += [*conv_bn(hidden, hidden, 3, stride, groups=hidden), nn.ReLU6(), *conv_bn(hidden, cout, 1)]
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            return x + self.body(x) if self.residual else self.body(x)

    class MobileNetV2(nn.Module):
        def __init__(self, classes=1000):
            super().__init__()
            layers, cin = [*conv_bn(3, 32, 3, 2), nn.ReLU6()], 32
            for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                               (6, 160, 3, 2), (6, 320, 1, 1)):
                for i in range(n):
                    layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                    cin = c
            layers += [*conv_bn(cin, 1280, 1), nn.ReLU6()]
            self.features = nn.Sequential(*layers)
            self.fc = nn.Linear(1280, classes)

        def forward(self, x):
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))

    class BertLayer(nn.Module):
        """Post-norm BERT encoder layer; q, k, v as three Linears (no .chunk/.split)."""

        def __init__(self, d=768, heads=12, ff=3072):
            super().__init__()
            self.h, self.d = heads, d
            self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)

        def forward(self, x):
            b, s, d = x.shape
            heads = lambda t: t.reshape(b, s, self.h, d // self.h).permute(0, 2, 1, 3)  # noqa: E731
            q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
            att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (d // self.h) ** -0.5, dim=-1)
            ctx = torch.matmul(att, v).permute(0, 2, 1, 3).reshape(b, s, d)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.fc2(nn.functional.gelu(self.fc1(x))))

    torch.manual_seed(0)
    if name == "resnet18":
        model, shape = ResNet(Basic, (2, 2, 2, 2)), (batch, 3, 224, 224)
    elif name == "resnet50":
        model, shape = ResNet(Bottleneck, (3, 4, 6, 3)), (batch, 3, 224, 224)
    elif name == "mobilenet_v2":
        model, shape = MobileNetV2(), (batch, 3, 224, 224)
    elif name == "bert_layer":
        model, shape = BertLayer(), (batch, 128, 768)
    else:
        raise ValueError(f"unknown model {name!r}; known: {MODELS}")
    randomize_batchnorm(torch, model)
    return model.eval(), shape


# ---- measurement ---------------------------------------------------------------------

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def check(name, got, expected, rtol=1e-4):
    err = float(np.abs(got - expected).max()) / max(float(np.abs(expected).max()), 1e-30)
    if not err <= rtol:
        raise AssertionError(f"{name}: largest error {err:.2e} of the output's largest magnitude (> {rtol})")
    return err


def bench_model(tvm, torch, name, batch, threads, repeat, top, log, clock=time.perf_counter, unfused=False,
                config=()):
    from tessera.relax.frontend.torch import from_exported_program  # pylint: disable=import-outside-toplevel

    model, shape = build_model(torch, name, batch)
    x = np.random.default_rng(1).standard_normal(shape).astype("float32")
    tx = torch.from_numpy(x)
    expected = model(tx).numpy()
    mem = {}

    m0 = rss_mb()
    t0 = time.perf_counter()
    mod = from_exported_program(torch.export.export(model, (tx,)), unwrap_unit_return_tuple=True)
    import_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ex = tvm.relax.build(mod, target="llvm")
    build_s = time.perf_counter() - t0
    vm = tvm.relax.VirtualMachine(ex, tvm.cpu(), profile=True)
    f, nd_x = vm["main"], tvm.nd.array(x)
    err = check("Tessera", f(nd_x).numpy(), expected)
    mem["Tessera"] = rss_mb() - m0

    m0 = rss_mb()
    with tempfile.TemporaryDirectory() as tmp:
        sess = onnx_session(torch, model, x, os.path.join(tmp, "m.onnx"), threads)
    check("ONNX Runtime", sess.run(None, {"x": x})[0], expected)
    mem["ONNX Runtime"] = rss_mb() - m0
    mem["PyTorch eager"] = 0.0

    engines = {"Tessera": lambda: f(nd_x), "ONNX Runtime": lambda: sess.run(None, {"x": x}),
               "PyTorch eager": lambda: model(tx)}
    if unfused:
        engines["Tessera no fusion"], _, unfused_profile = tessera_engine(tvm, mod, nd_x, ["FuseOps"])
        check("Tessera no fusion", engines["Tessera no fusion"]().numpy(), expected)
        mem["Tessera no fusion"] = 0.0
    for key, value in config:   # a second Tessera build beside, with one PassContext option changed
        label = f"Tessera {key.split('.')[-1]}={value}"
        engines[label], _, _ = tessera_engine(tvm, mod, nd_x, [], {key: value})
        check(label, engines[label]().numpy(), expected)
        mem[label] = 0.0
    clocks = timed_clocks(engines, repeat=repeat)
    lat = {n: t["cpu" if clock is time.process_time else "wall"] for n, t in clocks.items()}
    log(f"  {name} batch {batch}: import {import_s:.1f} s, Tessera build {build_s:.1f} s, "
        f"max error vs PyTorch {err:.1e}")
    log(f"    {'':16s} {'ms':>9s}   {'wall ms':>8s} {'cpu ms':>8s} {'thread ms':>9s}")
    for label, t in lat.items():
        c = clocks[label]
        log(f"    {label:16s} {t * 1e3:9.2f}   {c['wall'] * 1e3:8.2f} {c['cpu'] * 1e3:8.2f} {c['thread'] * 1e3:9.2f}"
            f"   resident +{mem[label]:7.1f} MB")
    for c in ("wall", "cpu"):
        log(f"    {c:4s} ORT/Tessera {clocks['ONNX Runtime'][c] / clocks['Tessera'][c]:.2f}   "
            f"PyTorch/Tessera {clocks['PyTorch eager'][c] / clocks['Tessera'][c]:.2f}" +
            "".join(f"   ORT/{label} {clocks['ONNX Runtime'][c] / clocks[label][c]:.2f}"
                    for label in clocks if label.startswith("Tessera ") and "=" in label))
    if unfused:
        log(f"    fused/unfused latency {lat['Tessera'] / lat['Tessera no fusion']:.2f}; kernel launches per "
            f"inference: fused {kernel_launches(vm.profile('main', nd_x))}, "
            f"unfused {kernel_launches(unfused_profile())}")
    if top:
        report = vm.profile("main", nd_x)
        log(f"    top {top} kernels (vm.profile, one call):")
        log("\n".join("      " + line for line in report.table(top=top).splitlines()))
    return {"latency": lat, "build_s": build_s, "memory_mb": mem}


def run(models=MODELS, batches=(1, 8), threads=2, repeat=5, top=8, log=print, cpu_time=False, unfused=False,
        config=()):
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    os.environ.setdefault("TVM_NUM_THREADS", str(threads))
    import torch  # pylint: disable=import-outside-toplevel
    import tessera as tvm  # pylint: disable=import-outside-toplevel

    torch.set_num_threads(threads)
    torch.set_grad_enabled(False)
    log(f"Untuned Tessera vs ONNX Runtime vs PyTorch eager, {threads} thread(s) each, interleaved medians of "
        f"{'CPU' if cpu_time else 'wall'} time; load average {os.getloadavg()[0]:.1f} at the start")
    results = {}
    for name in models:
        for batch in batches:
            results[(name, batch)] = bench_model(tvm, torch, name, batch, threads, repeat, top, log,
                                                 time.process_time if cpu_time else time.perf_counter, unfused, config)
    log("\n| model | batch | Tessera ms | ORT ms | PyTorch ms | ORT/Tessera | build s |")
    log("| --- | --- | --- | --- | --- | --- | --- |")
    for (name, batch), r in results.items():
        lat = r["latency"]
        log(f"| {name} | {batch} | {lat['Tessera'] * 1e3:.2f} | {lat['ONNX Runtime'] * 1e3:.2f} | "
            f"{lat['PyTorch eager'] * 1e3:.2f} | {lat['ONNX Runtime'] / lat['Tessera']:.2f} | {r['build_s']:.1f} |")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=None)
    parser.add_argument("--batch", type=int, nargs="+", default=None)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--top", type=int, default=8, help="kernels of vm.profile to print; 0: none")
    parser.add_argument("--quick", action="store_true", help="ResNet-18 at batch 1 only")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the process's CPU time (with --threads 1: latency on a busy machine)")
    parser.add_argument("--unfused", action="store_true",
                        help="also time Tessera without operator fusion and count kernel launches")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=true|false",
                        help="also time a Tessera build with this PassContext option (repeatable)")
    args = parser.parse_args()
    config = [(kv.split("=", 1)[0], kv.split("=", 1)[1].lower() in ("1", "true", "yes")) for kv in args.config]
    run(models=tuple(args.models or (("resnet18",) if args.quick else MODELS)),
        batches=tuple(args.batch or ((1,) if args.quick else (1, 8))), threads=args.threads,
        repeat=args.repeat, top=args.top, cpu_time=args.cpu_time, unfused=args.unfused,
        config=config)
