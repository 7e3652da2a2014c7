"""tir.transform.MakePackedAPI: the last pass of tir.default_pipeline checks
each PrimFunc's signature against the packed calling convention and records
it ("calling_conv" = 1, "tessera.packed_args": parameters then symbolic shape
variables); code generation reads the slots from there. Oracles: hand-written
TVMScript modules, NumPy."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import ir as I
from tessera.script import tir as T


@I.ir_module
class Before:
    @T.prim_func
    def scale(a: T.handle, s: T.float32, b: T.handle):
        m = T.int32()
        n = T.int32()
        A = T.match_buffer(a, (m, n), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i, j in T.grid(m, n):
            with T.block("t"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vj, vi] = A[vi, vj] * s


@I.ir_module
class After:
    @T.prim_func
    def scale(a: T.handle, s: T.float32, b: T.handle):
        m = T.int32()
        n = T.int32()
        A = T.match_buffer(a, (m, n), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        T.func_attr({"calling_conv": 1, "global_symbol": "scale", "tessera.packed_args": [a, s, b, m, n]})
        for i, j in T.grid(m, n):
            with T.block("t"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vj, vi] = A[vi, vj] * s


def test_records_calling_convention_and_slots():
    after = tir.transform.MakePackedAPI()(Before)
    tvm.ir.assert_structural_equal(after, After)
    f = after["scale"]
    assert int(f.attrs["calling_conv"]) == 1
    assert [v.name_hint for v in f.attrs["tessera.packed_args"]] == ["a", "s", "b", "m", "n"]
    assert "calling_conv" not in Before["scale"].attrs  # the input module is untouched


def test_last_pass_of_default_pipeline_and_round_trip():
    pipeline = tir.get_default_tir_pipeline()
    assert pipeline.passes[-1].info.name == "MakePackedAPI"
    lowered = tvm.lower(Before)
    assert [v.name_hint for v in lowered["scale"].attrs["tessera.packed_args"]] == ["a", "s", "b", "m", "n"]
    tvm.ir.assert_structural_equal(tvm.script.from_source(lowered.script()), lowered)


def test_inexpressible_signature_names_the_parameter():
    m = tir.Var("m", "int32")
    C = tir.decl_buffer((m * 2,), "float32", "C")
    c = tir.Var("c", "handle")
    f = tir.PrimFunc([c], tir.Evaluate(0), buffer_map={c: C}).with_attr("global_symbol", "bad")
    mod = tvm.IRModule({"bad": f})
    # m only appears inside the expression: no argument gives its value, so C's extent cannot be checked
    with pytest.raises(NotImplementedError, match="bad: dimension 0 of parameter C is an expression .*variable m"):
        tir.transform.MakePackedAPI()(mod)
    with pytest.raises(NotImplementedError, match="bad.*parameter C"):
        tvm.lower(mod)


@tvm.testing.requires_llvm  # calls target.build.llvm directly
def test_codegen_needs_the_pass():
    without = tvm.transform.Sequential(list(tir.get_default_tir_pipeline().passes)[:-1])(Before)
    with pytest.raises(ValueError, match="scale.*tessera.packed_args.*MakePackedAPI"):
        tvm.get_global_func("target.build.llvm")(without, tvm.target.Target("llvm"))
    with tvm.transform.PassContext(disabled_pass=["MakePackedAPI"]):
        with pytest.raises(ValueError, match="MakePackedAPI"):
            tvm.build(Before, target="llvm")


def test_build_and_run_symbolic_shapes():
    lib = tvm.build(Before, target="llvm")
    a = np.random.rand(3, 5).astype("float32")
    b = tvm.nd.array(np.zeros((5, 3), "float32"))
    lib["scale"](tvm.nd.array(a), 2.5, b)
    np.testing.assert_allclose(b.numpy(), (a * 2.5).T, rtol=1e-6)
    with pytest.raises(ValueError):
        lib["scale"](tvm.nd.array(a), 2.5, tvm.nd.array(np.zeros((3, 5), "float32")))
