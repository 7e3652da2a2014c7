"""relax.transform.RemoveUnusedOutputs: private functions returning a tuple
return only the elements their callers read; callers' indices follow."""
import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R  # noqa: F401

from _relax_numeric import assert_same_numbers


def test_one_element_left_is_returned_itself():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Before
            args = cls.func(x)
            r = args[0]
            return r

        @R.function(private=True)
        def func(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            a = R.exp(x)
            b = R.log(x)
            return (a, b)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Expected
            args = cls.func(x)
            r = args
            return r

        @R.function(private=True)
        def func(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            a = R.exp(x)
            return a

    after = relax.transform.RemoveUnusedOutputs()(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_indices_follow_across_call_sites():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Before
            args = cls.func(x)
            r0 = args[0]
            r2 = args[2]
            return (r0, r2)

        @R.function
        def other(x: R.Tensor((4,), "float32")):
            cls = Before
            args = cls.func(x)
            r = args[2]
            return r

        @R.function(private=True)
        def func(x: R.Tensor((4,), "float32")) -> R.Tuple(
            R.Tensor((4,), "float32"), R.Tensor((4,), "float32"), R.Tensor((4,), "float32")
        ):
            a = R.exp(x)
            b = R.log(x)
            c = R.add(x, x)
            return (a, b, c)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Expected
            args = cls.func(x)
            r0 = args[0]
            r2 = args[1]
            return (r0, r2)

        @R.function
        def other(x: R.Tensor((4,), "float32")):
            cls = Expected
            args = cls.func(x)
            r = args[1]
            return r

        @R.function(private=True)
        def func(x: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
            a = R.exp(x)
            c = R.add(x, x)
            return (a, c)

    after = relax.transform.RemoveUnusedOutputs()(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_whole_tuple_used_keeps_everything():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            cls = Before
            t = cls.func(x)
            return t

        @R.function(private=True)
        def func(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            b = R.log(x)
            return (a, b)

    tvm.ir.assert_structural_equal(relax.transform.RemoveUnusedOutputs()(Before), Before)
