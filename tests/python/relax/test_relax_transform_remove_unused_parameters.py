"""relax.transform.RemoveUnusedParameters: private functions called only
directly lose the parameters they never read; call sites follow."""
import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R, tir as T  # noqa: F401

from _relax_numeric import assert_same_numbers


def test_unused_parameter_of_private_function_is_removed():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            cls = Before
            r = cls.func(a, b)
            return r

        @R.function(private=True)
        def func(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            c = R.exp(a)
            return c

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            cls = Expected
            r = cls.func(a)
            return r

        @R.function(private=True)
        def func(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            c = R.exp(a)
            return c

    after = relax.transform.RemoveUnusedParameters()(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_exposed_functions_keep_their_signature():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            return a

    tvm.ir.assert_structural_equal(relax.transform.RemoveUnusedParameters()(Before), Before)


def test_parameter_defining_a_needed_dim_stays_unless_defined_elsewhere():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor(("m",), "float32"), s: R.Shape(["m"])):
            cls = Before
            r = cls.func(a, s)
            return r

        @R.function(private=True)
        def func(a: R.Tensor(("m",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m",), "float32"):
            m = T.int64()
            c = R.exp(a)
            return c

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor(("m",), "float32"), s: R.Shape(["m"])):
            cls = Expected
            r = cls.func(a)
            return r

        @R.function(private=True)
        def func(a: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            m = T.int64()
            c = R.exp(a)
            return c

    tvm.ir.assert_structural_equal(relax.transform.RemoveUnusedParameters()(Before), Expected)



def test_shape_parameter_defining_a_dim_only_used_in_expressions_stays():
    """n appears in x only inside n * 2, which does not define it: the unread shape
    parameter giving n stays (FuseOps passes such shapes; FuseTIR reads n from it)."""
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor(("m",), "float32")):
            m = T.int64()
            cls = Before
            b = R.call_tir(cls.double, (a,), out_sinfo=R.Tensor((m * 2,), "float32"))
            r = cls.func(b, R.shape([m]))
            return r

        @R.function(private=True)
        def func(x: R.Tensor(("n * 2",), "float32"), s: R.Shape(["n"])) -> R.Tensor(("n * 2",), "float32"):
            n = T.int64()
            y = R.exp(x)
            return y

        @T.prim_func(private=True)
        def double(a: T.handle, b: T.handle):
            m = T.int64()
            A = T.match_buffer(a, (m,), "float32")
            B = T.match_buffer(b, (m * 2,), "float32")
            for i in range(m * 2):
                with T.block("B"):
                    vi = T.axis.spatial(m * 2, i)
                    B[vi] = A[vi // 2]

    after = relax.transform.RemoveUnusedParameters()(Before)
    assert len(after["func"].params) == 2
