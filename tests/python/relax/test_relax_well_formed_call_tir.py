"""Well-formedness checks TVM makes that Tessera now makes too
(src/relax/analysis/well_formed.cc): a call_tir's argument and output
tensors against its PrimFunc's buffers (count, ndim, dtype, constant dims,
dims an expression of symbolic dims bound by the inputs), a global_symbol
that differs from the function's name in the module, and relax.force_pure on
a function not marked pure. Correct modules stay well formed and run
(checked against NumPy)."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R, tir as T


@T.prim_func
def _flatten(a: T.handle, b: T.handle):
    M = T.int64()
    N = T.int64()
    A = T.match_buffer(a, [M, N], dtype="float32")
    B = T.match_buffer(b, [M * N], dtype="float32")
    for i in T.grid(M * N):
        with T.block("compute"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi // N, vi % N]


def _module(arg_shape, arg_dtype, out_shape, out_dtype):
    """main(A) = call_tir(flatten, A, out_sinfo), built without normalizing checks."""
    bb = relax.BlockBuilder()
    gv = bb.add_func(_flatten, "flatten")
    a = relax.Var("A", relax.TensorStructInfo(arg_shape, arg_dtype))
    with bb.function("main", [a]):
        bb.emit_func_output(bb.emit(relax.call_tir(gv, [a], relax.TensorStructInfo(out_shape, out_dtype))))
    return bb.get()


def _errors(mod):
    return relax.analysis.well_formed_errors(mod, check_struct_info=False)


def test_correct_call_tir_is_well_formed_and_runs():
    assert relax.analysis.well_formed(_module([8, 4], "float32", [32], "float32"))

    @I.ir_module
    class Static:  # pylint: disable=too-few-public-methods
        @R.function
        def main(A: R.Tensor([8, 4], "float32")):
            B = R.call_tir(Static.flatten, A, out_sinfo=R.Tensor([32], "float32"))
            return B

        @T.prim_func
        def flatten(A: T.Buffer((8, 4), "float32"), B: T.Buffer((32,), "float32")):
            for i in range(32):
                with T.block("compute"):
                    vi = T.axis.remap("S", [i])
                    B[vi] = A[vi // 4, vi % 4]

    assert relax.analysis.well_formed(Static)
    a = np.arange(32, dtype="float32").reshape(8, 4)
    vm = relax.VirtualMachine(relax.build(Static, target="llvm"), tvm.cpu())
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), a.reshape(-1))


@pytest.mark.parametrize("args,message", [
    (([8, 4], "float32", [64], "float32"), "output R.Tensor((64,), dtype=\"float32\") does not match buffer 'B': "
                                           "dimension 0 is 64, the buffer's 32"),
    (([8, 4, 1], "float32", [32], "float32"), "argument 0 R.Tensor((8, 4, 1), dtype=\"float32\") does not match "
                                              "buffer 'A' of 2 dimensions"),
    (([8, 4], "float16", [32], "float32"), "does not match buffer 'A' of dtype float32"),
    (([8, 4], "float32", [32], "int32"), "output R.Tensor((32,), dtype=\"int32\") does not match buffer 'B' of "
                                         "dtype float32"),
])
def test_call_tir_mismatch_is_reported(args, message):
    mod = _module(*args)
    assert not relax.analysis.well_formed(mod)
    errors = _errors(mod)
    assert len(errors) == 1 and "call_tir of PrimFunc 'flatten'" in errors[0] and message in errors[0], errors


def test_symbolic_arguments_are_not_reported():
    m, n = tvm.tir.Var("m", "int64"), tvm.tir.Var("n", "int64")
    assert _errors(_module([m, n], "float32", [m * n], "float32")) == []


def test_global_symbol_differing_from_the_name():
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    func = relax.Function([x], relax.SeqExpr([], x), relax.TensorStructInfo((2,), "float32"))
    mod = tvm.IRModule({relax.GlobalVar("main"): func.with_attr("global_symbol", "main1")})
    assert _errors(mod) == ["function 'main': its global_symbol 'main1' differs from its name in the module"]
    ok = tvm.IRModule({relax.GlobalVar("main"): func.with_attr("global_symbol", "main")})
    assert _errors(ok) == []


def test_force_pure_on_an_impure_function():
    x = relax.Var("x", relax.TensorStructInfo((), "int32"))
    func = relax.Function([x], relax.SeqExpr([], x), relax.TensorStructInfo((), "int32"), is_pure=False)
    bad = tvm.IRModule.from_expr(func.with_attrs({"global_symbol": "foo", "relax.force_pure": True}))
    assert any("relax.force_pure is set on a function not marked pure" in e for e in _errors(bad))
    pure = relax.Function([x], relax.SeqExpr([], x), relax.TensorStructInfo((), "int32"))
    assert _errors(tvm.IRModule.from_expr(pure.with_attrs({"global_symbol": "foo", "relax.force_pure": True}))) == []


def test_global_symbol_mismatch_still_builds():
    # relax.build exports by the module name, as before the well-formedness rule existed.
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("f", [x]):
        bb.emit_func_output(bb.emit(relax.op.add(x, x)))
    func = bb.get()["f"].with_attr("global_symbol", "other")
    mod = tvm.IRModule({relax.GlobalVar("main"): func})
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    a = np.array([1.0, 2.0], "float32")
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), a + a)
