"""relax.transform.FoldConstant on kernels that cannot be evaluated at
compile time: the error is a TVMError naming the PrimFunc and the binding,
never a crash (each case in a subprocess, harness.py)."""
from .harness import expect_error

SOURCE = '''
@I.ir_module
class Failing:
    @T.prim_func
    def ext(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = T.call_extern("float32", "tessera_test_no_such_symbol", A[vi])

    @R.function
    def main(c0: R.Tensor((4,), "float32")):
        cls = Failing
        lv_ext = R.call_tir(cls.ext, (c0,), out_sinfo=R.Tensor((4,), "float32"))
        return lv_ext
'''


def test_kernel_that_cannot_be_linked_names_function_and_binding():
    code = f"""
import numpy as np
from tessera import relax
mod = tvm.script.from_source({SOURCE!r})
mod = relax.transform.BindParams("main", {{"c0": np.ones(4, "float32")}})(mod)
relax.transform.FoldConstant()(mod)
"""
    expect_error(code, "tvm.error.TVMError", "PrimFunc 'ext' (call_tir bound to 'lv_ext')")


def test_same_kernel_on_a_non_constant_input_is_left_alone():
    code = f"""
from tessera import relax
mod = tvm.script.from_source({SOURCE!r})
after = relax.transform.FoldConstant()(mod)
tvm.ir.assert_structural_equal(after, mod)
raise ValueError("unchanged")
"""
    expect_error(code, "ValueError", "unchanged")


DIV_SOURCE = '''
@I.ir_module
class Div:
    @T.prim_func
    def div(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32"), C: T.Buffer((4,), "int32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                C[vi] = T.floordiv(A[vi], B[vi])

    @R.function
    def main(a: R.Tensor((4,), "int32"), b: R.Tensor((4,), "int32")):
        cls = Div
        lv_div = R.call_tir(cls.div, (a, b), out_sinfo=R.Tensor((4,), "int32"))
        return lv_div
'''


def test_division_by_zero_in_a_folded_kernel_raises_instead_of_sigfpe():
    # Before folding ran kernels with -bound-check, this killed the compiling process (SIGFPE).
    code = f"""
import numpy as np
from tessera import relax
mod = tvm.script.from_source({DIV_SOURCE!r})
mod = relax.transform.BindParams("main", {{"a": np.ones(4, "int32"), "b": np.zeros(4, "int32")}})(mod)
relax.transform.FoldConstant()(mod)
"""
    expect_error(code, "tvm.error.TVMError", "PrimFunc 'div' (call_tir bound to 'lv_div') failed while evaluated")


def test_same_kernel_on_valid_constants_is_folded():
    code = f"""
import numpy as np
from tessera import relax
mod = tvm.script.from_source({DIV_SOURCE!r})
a, b = np.array([7, -7, 9, 4], "int32"), np.array([2, 2, -4, 5], "int32")
mod = relax.transform.BindParams("main", {{"a": a, "b": b}})(mod)
out = relax.transform.FoldConstant()(mod)["main"].body.body
np.testing.assert_array_equal(out.data.numpy(), np.floor_divide(a, b))
raise ValueError("folded")
"""
    expect_error(code, "ValueError", "folded")


MISMATCH_SOURCE = '''
@I.ir_module
class M:
    @T.prim_func
    def addone(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(c0: R.Tensor((4,), "float32"), c1: R.Tensor((8,), "float32")):
        cls = M
        lv_args = R.call_tir(cls.addone, ARGS, out_sinfo=R.Tensor((4,), "float32"))
        return lv_args
'''


def test_call_tir_whose_arguments_do_not_fit_the_primfunc_raises():
    for args, message in [("(c0, c1)", "expects 2 arguments"), ("(c1,)", "A.shape[0] is 8 but expected 4")]:
        code = f"""
import numpy as np
from tessera import relax
mod = tvm.script.from_source({MISMATCH_SOURCE.replace("ARGS", args)!r})
mod = relax.transform.BindParams("main", {{"c0": np.ones(4, "float32"), "c1": np.ones(8, "float32")}})(mod)
relax.transform.FoldConstant()(mod)
"""
        expect_error(code, "tvm.error.TVMError", message)
        expect_error(code, "tvm.error.TVMError", "PrimFunc 'addone' (call_tir bound to 'lv_args')")
