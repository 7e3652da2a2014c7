"""relax.transform.CanonicalizeBindings: bindings that only rename a value
disappear and their uses read the value's var; checked against hand-written
expected modules and by running both modules."""
import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R, tir as T  # noqa: F401

from _relax_numeric import assert_same_numbers


def _canon(mod):
    return relax.transform.CanonicalizeBindings()(mod)


def test_chain_of_copies():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            y = x
            z = y
            q = z
            return q

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x

    tvm.ir.assert_structural_equal(_canon(Before), Expected)


def test_copies_used_by_ops():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            w = y
            q = x
            z = R.add(w, q)
            o = R.multiply(q, z)
            return o

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            z = R.add(y, x)
            o = R.multiply(x, z)
            return o

    after = _canon(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_output_takes_over_dataflow_binding():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                lv0 = R.exp(x)
                lv1 = lv0
                lv2 = R.add(lv0, lv1)
                gv = lv2
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                lv0 = R.exp(x)
                gv = R.add(lv0, lv0)
                R.output(gv)
            return gv

    after = _canon(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_output_copy_of_parameter_empties_the_block():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = x
                z = y
                R.output(z)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            return x

    tvm.ir.assert_structural_equal(_canon(Before), Expected)


def test_trivial_match_cast_is_removed():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("m", "n"), "float32")):
            m = T.int64()
            n = T.int64()
            y = x
            z = R.match_cast(x, R.Tensor((m, n), "float32"))
            w = z
            q = R.add(w, y)
            o = R.add(q, w)
            return o

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor(("m", "n"), "float32")):
            q = R.add(x, x)
            o = R.add(q, x)
            return o

    tvm.ir.assert_structural_equal(_canon(Before), Expected)


def test_match_cast_that_defines_dims_is_kept():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")):
            y = x
            o = T.int64()
            p = T.int64()
            z = R.match_cast(y, R.Tensor((o, p), "float32"))
            w = z
            q = R.add(w, y)
            return q

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")):
            o = T.int64()
            p = T.int64()
            z = R.match_cast(x, R.Tensor((o, p), "float32"))
            q = R.add(z, x)
            return q

    tvm.ir.assert_structural_equal(_canon(Before), Expected)


def test_tuple_item_of_tuple_literal():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            t = (x, y)
            a = t[0]
            b = t[1]
            z = R.add(a, b)
            return (t, z)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            t = (x, y)
            z = R.add(x, y)
            return (t, z)

    tvm.ir.assert_structural_equal(_canon(Before), Expected)


def test_copy_inside_branch():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32"), cond: R.Tensor((), "bool")):
            if cond:
                a = R.exp(x)
                r = a
            else:
                r = x
            return r

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), cond: R.Tensor((), "bool")):
            if cond:
                r = R.exp(x)
            else:
                r = x
            return r

    after = _canon(Before)
    tvm.ir.assert_structural_equal(after, Expected)


def test_after_cse_the_copies_disappear():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                lv0 = R.log(x)
                lv1 = R.log(x)
                gv = R.add(lv0, lv1)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                lv0 = R.log(x)
                gv = R.add(lv0, lv0)
                R.output(gv)
            return gv

    after = _canon(relax.transform.EliminateCommonSubexpr()(Before))
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_nothing_to_do_keeps_the_module_functions():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            return a

    after = _canon(Before)
    assert after["main"].same_as(Before["main"])


def test_output_nothing_reads_after_the_block_becomes_dataflow_var():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = R.exp(x)
                z = R.add(y, x)
                R.output(y, z)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                y = R.exp(x)
                z = R.add(y, x)
                R.output(z)
            return z

    after = _canon(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert isinstance(after["main"].body.blocks[0].bindings[0].var, relax.DataflowVar)
    assert_same_numbers(Before, after)


def test_return_struct_info_follows_a_more_precise_body():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor(("n", 4), "float32"), b: R.Tensor((6, 4), "float32")):
            with R.dataflow():
                c = b
                d: R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor((6, 4), "float32")) = (a, c)
                e = d
                R.output(e)
            return e

    after = _canon(Before)
    n = after["main"].params[0].struct_info.shape[0]
    tvm.ir.assert_structural_equal(
        after["main"].ret_struct_info,
        relax.TupleStructInfo([relax.TensorStructInfo((n, 4), "float32"), relax.TensorStructInfo((6, 4), "float32")]))


def test_tuple_rebuilt_from_all_its_fields_is_the_tuple():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "float32"))):
            with R.dataflow():
                a = t[0]
                b = t[1]
                out = (a, b)
                R.output(out)
            return out

    @I.ir_module
    class Expected:
        @R.function
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "float32"))):
            with R.dataflow():
                a = t[0]
                b = t[1]
                R.output()
            return t

    tvm.ir.assert_structural_equal(_canon(Before), Expected)


def test_tuple_of_some_fields_or_out_of_order_stays():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Tensor((2,), "float32"), R.Tensor((2,), "float32"))):
            with R.dataflow():
                a = t[0]
                b = t[1]
                part = (a, b)
                swapped = (b, a, t[2])
                out = (part, swapped)
                R.output(out)
            return out

    after = _canon(Before)
    bindings = after["main"].body.blocks[0].bindings
    names = [b.var.name_hint for b in bindings]
    assert {"part", "swapped", "out"} <= set(names)
    assert after["main"].body.body.same_as(bindings[-1].var)


def test_uses_of_a_var_bound_to_a_constant_read_the_constant():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((2,), "int64")):
            tup = (R.const(0, "int64"), R.const(1, "int64"))
            x = tup[0]
            c = R.const([3, 4], "int64")
            z = R.add(x, c)
            w = R.add(z, a)
            return w

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((2,), "int64")):
            tup = (R.const(0, "int64"), R.const(1, "int64"))
            x = tup[0]
            c = R.const([3, 4], "int64")
            z = R.add(R.const(0, "int64"), R.const([3, 4], "int64"))
            w = R.add(z, a)
            return w

    tvm.ir.assert_structural_equal(_canon(Before), Expected)
    assert_same_numbers(Before, _canon(Before))


def test_output_bound_to_a_constant_stays_an_output_and_the_return_reads_the_constant():
    @I.ir_module
    class Before:
        @R.function
        def main() -> R.Tensor((), "int32"):
            with R.dataflow():
                n = R.const(1, "int32")
                R.output(n)
            return n

    @I.ir_module
    class Expected:
        @R.function
        def main() -> R.Tensor((), "int32"):
            with R.dataflow():
                n = R.const(1, "int32")
                R.output(n)
            return R.const(1, "int32")

    tvm.ir.assert_structural_equal(_canon(Before), Expected)


def test_a_copy_of_a_constant_var_takes_its_binding_and_keeps_its_uses():
    @I.ir_module
    class Before:
        @R.function
        def main() -> R.Tensor((), "int32"):
            with R.dataflow():
                y = R.const(1, "int32")
                n = y
                R.output(n)
            return n

    @I.ir_module
    class Expected:
        @R.function
        def main() -> R.Tensor((), "int32"):
            with R.dataflow():
                n = R.const(1, "int32")
                R.output(n)
            return n

    tvm.ir.assert_structural_equal(_canon(Before), Expected)
