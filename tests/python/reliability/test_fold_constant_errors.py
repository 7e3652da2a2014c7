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
