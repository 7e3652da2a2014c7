"""relax.transform.ExpandTupleArguments: tuple parameters of private
functions become one parameter per element; call sites pass the elements."""
import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R  # noqa: F401

from _relax_numeric import assert_same_numbers


def test_tuple_literal_argument_is_passed_as_elements():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            cls = Before
            t = (a, b)
            r = cls.func(t)
            return r

        @R.function(private=True)
        def func(args: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))) -> R.Tensor((4,), "float32"):
            x = args[0]
            y = args[1]
            z = R.subtract(x, y)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
            cls = Expected
            t = (a, b)
            r = cls.func(a, b)
            return r

        @R.function(private=True)
        def func(args_0: R.Tensor((4,), "float32"), args_1: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            args = (args_0, args_1)
            x = args[0]
            y = args[1]
            z = R.subtract(x, y)
            return z

    after = relax.transform.ExpandTupleArguments()(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_tuple_variable_argument_is_indexed():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))):
            cls = Before
            r = cls.func(t)
            return r

        @R.function(private=True)
        def func(args: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))) -> R.Tensor((4,), "float32"):
            x = args[1]
            return x

    @I.ir_module
    class Expected:
        @R.function
        def main(t: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))):
            cls = Expected
            t0 = t[0]
            t1 = t[1]
            r = cls.func(t0, t1)
            return r

        @R.function(private=True)
        def func(args_0: R.Tensor((4,), "float32"), args_1: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            args = (args_0, args_1)
            x = args[1]
            return x

    after = relax.transform.ExpandTupleArguments()(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    # With CanonicalizeBindings and DeadCodeElimination the rebuilt tuple goes.
    clean = tvm.ir.transform.Sequential([relax.transform.CanonicalizeBindings(),
                                         relax.transform.DeadCodeElimination()])(after)
    assert len(clean["func"].body.blocks) == 0


def test_exposed_function_is_left():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))):
            x = t[0]
            return x

    tvm.ir.assert_structural_equal(relax.transform.ExpandTupleArguments()(Before), Before)


def test_nested_tuple_is_flattened():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32"), c: R.Tensor((4,), "float32")):
            cls = Before
            inner = (b, c)
            t = (a, inner)
            r = cls.func(t)
            return r

        @R.function(private=True)
        def func(args: R.Tuple(R.Tensor((4,), "float32"),
                               R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")))) -> R.Tensor((4,), "float32"):
            x = args[0]
            pair = args[1]
            y = pair[1]
            z = R.subtract(x, y)
            return z

    after = relax.transform.ExpandTupleArguments()(Before)
    assert len(after["func"].params) == 3
    call = after["main"].body.blocks[0].bindings[-1].value
    assert [a.name_hint for a in call.args] == ["a", "b", "c"]
    assert_same_numbers(Before, after)
