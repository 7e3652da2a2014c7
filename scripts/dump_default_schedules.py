"""Prints the TIR (script()) that the default schedules (DefaultCPUSchedule, DefaultGPUSchedule)
make of a fixed set of workloads: relax modules through relax's pipeline up to the schedule pass,
TE functions through the pass alone. Run it before and after a refactoring of the rules and diff
the two outputs: a behaviour-preserving change leaves them identical.
Usage: PYTHONPATH=python python scripts/dump_default_schedules.py > out.txt"""
import sys

import numpy as np

import tessera as tvm
from tessera import relax, te, tir, topi

CPU_TARGETS = ["llvm -num-cores=4", "llvm -num-cores=4 -mcpu=skylake-avx512", "llvm -num-cores=1"]
GPU_TARGET = "cuda"


def _conv_module(x_shape, k, kernel, stride=1, padding=1, groups=1, residual=False):
    c = x_shape[1]
    w = np.random.default_rng(0).standard_normal((k, c // groups, kernel, kernel)).astype("float32")
    b = np.ones((1, k, 1, 1), "float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.conv2d(x, relax.const(w), strides=stride, padding=padding, groups=groups))
            y = bb.emit(relax.op.add(y, relax.const(b)))
            if residual:
                y = bb.emit(relax.op.add(y, x))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def _unary_module(shape, build):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(build(x))
        bb.emit_func_output(out)
    return bb.get()


def _dense_module(m, k, n):
    w = np.random.default_rng(1).standard_normal((n, k)).astype("float32")
    b = np.ones((n,), "float32")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((m, k), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.linear(x, relax.const(w), relax.const(b)))
            out = bb.emit_output(relax.op.nn.gelu(y))
        bb.emit_func_output(out)
    return bb.get()


def _matmul_module(a_shape, b_shape, const_b):
    bb = relax.BlockBuilder()
    a = relax.Var("a", relax.TensorStructInfo(a_shape, "float32"))
    params = [a]
    if const_b:
        bw = relax.const(np.random.default_rng(2).standard_normal(b_shape).astype("float32"))
    else:
        bw = relax.Var("b", relax.TensorStructInfo(b_shape, "float32"))
        params.append(bw)
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(relax.op.matmul(a, bw))
        bb.emit_func_output(out)
    return bb.get()


def relax_workloads():
    pool = lambda x: relax.op.nn.max_pool2d(x, pool_size=3, strides=2, padding=1)
    avg = lambda x: relax.op.nn.avg_pool2d(x, pool_size=2, strides=2)
    return {
        "matmul_const_b": (_matmul_module((128, 256), (256, 192), True), {}),
        "matmul_batched": (_matmul_module((4, 64, 96), (4, 96, 80), False), {}),
        "matmul_odd_m": (_matmul_module((33, 128), (128, 64), True), {}),
        "dense_bias_gelu": (_dense_module(64, 256, 128), {}),
        "conv3x3_packed": (_conv_module((1, 32, 28, 28), 64, 3), {"relax.conv2d_winograd": False}),
        "conv3x3_packed_residual": (_conv_module((2, 32, 14, 14), 32, 3, residual=True),
                                    {"relax.conv2d_winograd": False}),
        "conv3x3_strided": (_conv_module((1, 32, 56, 56), 64, 3, stride=2), {"relax.conv2d_winograd": False}),
        "conv1x1": (_conv_module((1, 64, 28, 28), 128, 1, padding=0), {}),
        "conv1x1_residual": (_conv_module((1, 64, 14, 14), 64, 1, padding=0, residual=True), {}),
        "conv_depthwise": (_conv_module((1, 32, 56, 56), 32, 3, groups=32), {}),
        "conv_depthwise_strided": (_conv_module((1, 96, 112, 112), 96, 3, stride=2, groups=96), {}),
        "conv_unpacked": (_conv_module((1, 16, 20, 20), 32, 3), {"relax.conv2d_packed": False}),
        "winograd": (_conv_module((1, 64, 32, 32), 64, 3), {"relax.conv2d_winograd": True}),
        "winograd_residual": (_conv_module((1, 64, 16, 16), 64, 3, residual=True), {"relax.conv2d_winograd": True}),
        "max_pool": (_unary_module((1, 32, 56, 56), pool), {}),
        "avg_pool": (_unary_module((1, 32, 56, 56), avg), {}),
        "softmax": (_unary_module((64, 1000), lambda x: relax.op.nn.softmax(x, axis=-1)), {}),
        "layer_norm": (_unary_module((128, 768), lambda x: relax.op.nn.layer_norm(
            x, relax.const(np.ones(768, "float32")), relax.const(np.zeros(768, "float32")), axes=[-1])), {}),
        "row_sum": (_unary_module((256, 512), lambda x: relax.op.sum(x, axis=[-1])), {}),
        "elementwise": (_unary_module((64, 1030), lambda x: relax.op.nn.relu(relax.op.negative(x))), {}),
    }


def te_workloads():
    out = {}
    A = te.placeholder((64, 1030), name="A")
    out["te_elementwise"] = te.create_prim_func([A, topi.nn.relu(topi.negative(A))])
    A = te.placeholder((128, 256), name="A")
    B = te.placeholder((256, 64), name="B")
    out["te_matmul"] = te.create_prim_func([A, B, topi.matmul(A, B)])
    W = te.placeholder((64, 256), name="W")
    out["te_dense"] = te.create_prim_func([A, W, topi.nn.dense(A, W)])
    X = te.placeholder((1, 16, 32, 32), name="X")
    K = te.placeholder((32, 16, 3, 3), name="K")
    out["te_conv_nchw"] = te.create_prim_func([X, K, topi.nn.conv2d_nchw(X, K, 1, 1, 1)])
    out["te_pad"] = te.create_prim_func([X, topi.nn.pad(X, (0, 0, 1, 2), (0, 0, 1, 2))])
    out["te_pool"] = te.create_prim_func([X, topi.nn.pool2d(X, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max")])
    R = te.placeholder((32, 500), name="R")
    out["te_softmax"] = te.create_prim_func([R, topi.nn.softmax(R)])
    out["te_row_sum"] = te.create_prim_func([R, topi.sum(R, axis=1)])
    S = te.placeholder((31, 47), name="S")
    out["te_sum_odd"] = te.create_prim_func([S, topi.sum(S, axis=0)])
    return out


def _scheduled(mod, target, config, pass_name):
    passes = list(relax.get_pipeline(target=tvm.target.Target(target)).passes)
    upto = [p.info.name for p in passes].index(pass_name) + 1
    with tvm.transform.PassContext(config=config):
        return tvm.transform.Sequential(passes[:upto])(mod)


def _fused(mod, target, config):
    return _scheduled(mod, target, config, "FuseTIR")


def _dump_sampled(title, mod):
    """The sampled form's trace (every primitive applied, in order) and function, per PrimFunc."""
    sampled_of = tvm.get_global_func("tir.DefaultCPUScheduleSampledOf")
    target = title.split(" / ")[0].removeprefix("sampled ")
    for gv in sorted(mod.functions, key=lambda g: g.name_hint):
        if isinstance(mod[gv], tir.PrimFunc):
            sch = sampled_of(mod[gv], tvm.target.Target(target))
            print(f"==== {title} :: {gv.name_hint}")
            print(str(sch.trace))
            print(sch.mod.script())


def _dump(title, mod):
    for gv in sorted(mod.functions, key=lambda g: g.name_hint):
        if isinstance(mod[gv], tir.PrimFunc):
            print(f"==== {title} :: {gv.name_hint}")
            print(mod[gv].script())


def _guarded(title, make, dump=None):
    """Dumps what ``make()`` returns (``dump(title, result)``, default: every PrimFunc's script)."""
    try:
        (dump or _dump)(title, make())
    except Exception as e:  # noqa: BLE001 - recorded in the dump: a change of the error is a change too
        print(f"==== {title} :: ERROR {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")


def main():
    relax_mods = relax_workloads()
    for target in CPU_TARGETS:
        for name, (mod, config) in relax_mods.items():
            _guarded(f"{target} / {name}", lambda: _scheduled(mod, target, config, "DefaultCPUSchedule"))
        for name, func in te_workloads().items():
            _guarded(f"{target} / {name}",
                     lambda: tir.transform.DefaultCPUSchedule(target)(tvm.IRModule({"main": func})))
    for name, func in te_workloads().items():
        _guarded(f"{GPU_TARGET} / {name}",
                 lambda: tir.transform.DefaultGPUSchedule(tvm.target.Target(GPU_TARGET))(tvm.IRModule({"main": func})))
    sampled_target = CPU_TARGETS[0]
    for name, (mod, config) in relax_mods.items():
        _guarded(f"sampled {sampled_target} / {name}", lambda: _fused(mod, sampled_target, config), _dump_sampled)
    for name, func in te_workloads().items():
        _guarded(f"sampled {sampled_target} / {name}", lambda: tvm.IRModule({"main": func}), _dump_sampled)
    for name, (mod, config) in relax_mods.items():  # the pipeline's schedule pass dispatches on the target kind
        _guarded(f"{GPU_TARGET} / {name}", lambda: _scheduled(mod, GPU_TARGET, config, "DefaultCPUSchedule"))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
