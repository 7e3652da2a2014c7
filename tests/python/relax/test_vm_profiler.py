"""VirtualMachine(profile=True).profile: one row per callee (TIR kernel, VM
builtin) and argument shapes, with counts, times, shares and GFLOP/s; the
report as a table, CSV and JSON; tir.analysis.estimate_tir_flops, its FLOP
source. Oracles: the module's own structure (which kernels it calls, how
often, with which shapes, written out by hand), NumPy for the outputs, and
2*M*N*K for a matmul's FLOPs."""
import csv
import io
import json

import numpy as np
import pytest

import tessera as tvm
from tessera import relax, te


def _build_unfused(mod):
    """relax.build without operator fusion, so each op is its own kernel."""
    with tvm.transform.PassContext(disabled_pass=["FuseOps"]):
        return relax.build(mod, "llvm")


def _mlp(m=8, k=16, n=32):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([m, k], "float32"))
    w = relax.const(np.random.default_rng(0).standard_normal((k, n)).astype("float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.matmul(x, w))
            z = bb.emit(relax.op.nn.relu(y))
            o = bb.emit_output(relax.op.add(z, z))
        bb.emit_func_output(o)
    return bb.get(), w.data.numpy()


def test_profile_rows_name_every_kernel_with_counts_shapes_and_flops():
    mod, w = _mlp()
    ex = _build_unfused(mod)
    vm = relax.VirtualMachine(ex, tvm.cpu(), profile=True)
    x = np.random.default_rng(1).standard_normal((8, 16)).astype("float32")
    report = vm.profile("main", tvm.nd.array(x))
    rows = {r["Name"]: r for r in report.calls}
    assert {"matmul", "relu", "add"} <= set(rows)
    # The constant weight arrives packed in column panels (topi.matmul_packed): (N/32, K, 32).
    assert rows["matmul"]["Shapes"] == "float32[8, 16], float32[1, 16, 32], float32[8, 32]"
    assert rows["add"]["Shapes"] == "float32[8, 32], float32[8, 32], float32[8, 32]"
    assert all(rows[k]["Count"] == 1 for k in ("matmul", "relu", "add"))
    assert rows["matmul"]["FLOP"] == 2 * 8 * 16 * 32
    assert rows["matmul"]["GFLOPS"] > 0
    assert any(name.startswith("vm.builtin.") for name in rows)  # builtins are profiled too
    assert 0 < sum(r["Duration (us)"] for r in report.calls) <= report.total_us
    assert abs(sum(r["Percent"] for r in report.calls) + report.overhead_percent() - 100) < 1e-6
    # The VM still computes the right answer after profiling, and profiling is off again.
    out = vm["main"](tvm.nd.array(x)).numpy()
    np.testing.assert_allclose(out, 2 * np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)


def test_profile_counts_repeated_calls_of_one_kernel_per_shape():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([4, 4], "float32"))
    y = relax.Var("y", relax.TensorStructInfo([2, 4], "float32"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            a = bb.emit(relax.op.exp(x))
            b = bb.emit(relax.op.exp(a))
            c = bb.emit(relax.op.exp(y))
            o = bb.emit_output(relax.Tuple([b, c]))
        bb.emit_func_output(o)
    ex = _build_unfused(bb.get())
    vm = relax.VirtualMachine(ex, tvm.cpu(), profile=True)
    xs = [tvm.nd.array(np.ones((4, 4), "float32")), tvm.nd.array(np.ones((2, 4), "float32"))]
    report = vm.profile("main", *xs)
    exp_rows = [r for r in report.calls if r["Name"].startswith("exp")]
    by_shape = {r["Shapes"]: r["Count"] for r in exp_rows}
    assert by_shape == {"float32[4, 4], float32[4, 4]": 2, "float32[2, 4], float32[2, 4]": 1}, by_shape


def test_profile_of_a_fused_model_names_the_fused_kernel():
    mod, w = _mlp()
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu(), profile=True)
    report = vm.profile("main", tvm.nd.array(np.ones((8, 16), "float32")))
    kernels = [r for r in report.calls if not r["Name"].startswith("vm.builtin.")]
    assert len(kernels) == 1 and kernels[0]["Name"].startswith("fused_matmul"), [r["Name"] for r in kernels]
    assert kernels[0]["FLOP"] >= 2 * 8 * 16 * 32


def test_report_table_csv_and_json_agree():
    mod, _ = _mlp()
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu(), profile=True)
    report = vm.profile("main", tvm.nd.array(np.zeros((8, 16), "float32")))
    table = str(report)
    assert table.splitlines()[0].split()[0] == "Name" and "VM overhead" in table.splitlines()[-1]
    assert len(report.table(top=2).splitlines()) == 1 + 2 + 1
    parsed = list(csv.DictReader(io.StringIO(report.csv())))
    assert [r["Name"] for r in parsed] == [c["Name"] for c in report.calls]
    assert [int(r["Count"]) for r in parsed] == [c["Count"] for c in report.calls]
    js = json.loads(report.json())
    assert [c["Name"] for c in js["calls"]] == [c["Name"] for c in report.calls]
    assert js["total_us"] == pytest.approx(report.total_us)


def test_profile_needs_profile_true_and_a_known_function():
    mod, _ = _mlp()
    ex = relax.build(mod, "llvm")
    x = tvm.nd.array(np.zeros((8, 16), "float32"))
    with pytest.raises(tvm.error.TVMError, match="profile=True"):
        relax.VirtualMachine(ex, tvm.cpu()).profile("main", x)
    vm = relax.VirtualMachine(ex, tvm.cpu(), profile=True)
    with pytest.raises(ValueError, match="nonesuch"):
        vm.profile("nonesuch", x)
    with pytest.raises(TypeError):
        vm.profile("main")  # wrong argument count: the VM's own error
    # A failed profile leaves the VM usable and able to profile again.
    assert vm.profile("main", x).calls


def test_profile_of_loaded_executable_has_no_flops(tmp_path):
    mod, _ = _mlp()
    path = str(tmp_path / "mlp.so")
    _build_unfused(mod).export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu(), profile=True)
    report = vm.profile("main", tvm.nd.array(np.zeros((8, 16), "float32")))
    row = next(r for r in report.calls if r["Name"] == "matmul")
    assert row["FLOP"] is None and row["GFLOPS"] is None and row["Count"] == 1


def test_estimate_tir_flops_matmul_and_symbolic_extents():
    m, n, k = 7, 5, 3
    A = te.placeholder((m, k), "float32", name="A")
    B = te.placeholder((k, n), "float32", name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    f = te.create_prim_func([A, B, C])
    assert tvm.tir.analysis.estimate_tir_flops(f) == 2 * m * n * k
    assert tvm.tir.analysis.estimate_tir_flops(tvm.IRModule({"main": f})) == 2 * m * n * k
    nv = tvm.tir.Var("n", "int64")
    X = te.placeholder((nv,), "float32", name="X")
    g = te.create_prim_func([X, te.compute((nv,), lambda i: X[i] * 2.0 + 1.0, name="Y")])
    with pytest.raises(ValueError, match="non-constant extent"):
        tvm.tir.analysis.estimate_tir_flops(g)
    assert tvm.tir.analysis.estimate_tir_flops(g, symbolic_extent=10) == 20
    with pytest.raises(tvm.error.TVMValueError, match="expects a PrimFunc"):
        tvm.tir.analysis.estimate_tir_flops(3)
