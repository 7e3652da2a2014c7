"""The C source backend (target "c") beyond the shared CPU tests of
test_codegen_llvm.py / test_codegen_backend.py (which run every kernel with
both backends): the generated C is readable and self-contained, exported
libraries load back, the kind's attributes make it a CPU kind like llvm, and
the host target follows the build (llvm with LLVM, else c)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import te, tir
from tir_build_helpers import buf, loops, func

RNG = np.random.default_rng(11)


def test_source_is_c_with_the_packed_entry_and_runs():
    A, B = buf("A", (37,)), buf("B", (37,))
    f = func([A, B], loops([37], lambda i: tir.BufferStore(B, tir.exp(A[i]) + 1.0, [i]),
                           kinds=[tir.ForKind.PARALLEL]), name="exp_plus_one")
    lib = tvm.build(f, target="c")
    src = lib.get_source()
    assert lib.type_key == "c"
    assert "int32_t tessera_kernel_exp_plus_one(void** args)" in src
    assert "TesseraParallelFor(" in src and "expf(" in src
    a = RNG.standard_normal(37).astype("float32")
    b = tvm.nd.empty((37,), "float32")
    lib["exp_plus_one"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), np.exp(a) + 1, rtol=1e-6)


def test_symbolic_shapes_one_build_two_sizes():
    n = tir.Var("n", "int32")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] * 2.5, name="B")
    lib = tvm.build(te.create_prim_func([A, B]).with_attr("global_symbol", "scale"), target="c")
    for size in (5, 64):
        a = RNG.standard_normal(size).astype("float32")
        b = tvm.nd.empty((size,), "float32")
        lib["scale"](tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), a * 2.5, rtol=1e-6)


def test_export_library_and_load_module(tmp_path):
    A, B = buf("A", (16, 16)), buf("B", (16,))
    k = tir.Var("k", "int32")
    row = lambda i: tir.stmt_seq(  # noqa: E731
        tir.BufferStore(B, tir.const(0.0, "float32"), [i]),
        tir.For(k, 0, 16, tir.ForKind.SERIAL, tir.BufferStore(B, B[i] + A[i, k], [i])))
    lib = tvm.build(func([A, B], loops([16], row, kinds=[tir.ForKind.PARALLEL]), name="row_sum"), target="c")
    path = tmp_path / "rows.so"
    lib.export_library(str(path))
    loaded = tvm.runtime.load_module(str(path))
    a = RNG.standard_normal((16, 16)).astype("float32")
    b = tvm.nd.empty((16,), "float32")
    loaded["row_sum"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="shape"):
        loaded["row_sum"](tvm.nd.array(a[:4]), b)


def test_c_is_a_cpu_kind_read_through_its_attributes():
    c, llvm = tvm.target.Target("c"), tvm.target.Target("llvm")
    assert c.kind.device_type == llvm.kind.device_type == tvm.cpu().device_type
    assert tvm.device("c") == tvm.cpu()
    for attr in ("tir.default_schedule", "meta_schedule.default_rules", "meta_schedule.default_postprocs"):
        assert c.kind.get_attr(attr) == llvm.kind.get_attr(attr) is not None
    # cuda has its own (GPU) family of tuner defaults, not the CPU one.
    assert tvm.target.Target("cuda").kind.get_attr("meta_schedule.default_rules") == "gpu" != c.kind.get_attr(
        "meta_schedule.default_rules")
    assert len(tvm.meta_schedule.schedule_rule.ScheduleRule.create("c")) == len(
        tvm.meta_schedule.schedule_rule.ScheduleRule.create("llvm"))
    has_llvm = tvm.get_global_func("target.build.llvm", allow_missing=True) is not None
    assert tvm.target.default_host().kind.name == ("llvm" if has_llvm else "c")


def test_default_cpu_schedule_for_c_matches_llvm():
    A = te.placeholder((64, 64), "float32", name="A")
    Bm = te.placeholder((64, 64), "float32", name="B")
    k = te.reduce_axis((0, 64), name="k")
    C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * Bm[k, j], axis=k), name="C")
    f = te.create_prim_func([A, Bm, C]).with_attr("global_symbol", "mm")
    mod = tvm.IRModule({"mm": f})
    scheduled = tvm.tir.transform.DefaultCPUSchedule("c")(mod)
    assert scheduled["mm"].attrs["tir.is_scheduled"]
    lib = tvm.build(scheduled, target="c")
    a, b = RNG.standard_normal((64, 64)).astype("float32"), RNG.standard_normal((64, 64)).astype("float32")
    c = tvm.nd.empty((64, 64), "float32")
    lib["mm"](tvm.nd.array(a), tvm.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_relax_build_runs_the_vm_with_c_kernels_and_exports(tmp_path):
    from tessera import relax
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4, 8], "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(relax.op.nn.relu(relax.op.add(x, x))))
        bb.emit_func_output(out)
    ex = relax.build(bb.get(), target="c")
    a = RNG.standard_normal((4, 8)).astype("float32")
    np.testing.assert_allclose(relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(a)).numpy(),
                               np.maximum(2 * a, 0))
    path = str(tmp_path / "vm_c.so")
    ex.export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    np.testing.assert_allclose(vm["main"](tvm.nd.array(a)).numpy(), np.maximum(2 * a, 0))
