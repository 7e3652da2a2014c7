"""relax.transform.ConvertToDataflow: runs of pure bindings become dataflow
blocks (or join adjacent ones); impure calls and `if` end a run; checked
against hand-written expected modules and by running both modules."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R  # noqa: F401

from _relax_numeric import assert_same_numbers


def _convert(mod, min_size=2):
    return relax.transform.ConvertToDataflow(min_size)(mod)


def test_run_of_pure_bindings_becomes_dataflow():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            z = R.add(x, y)
            w = R.multiply(z, y)
            v = R.add(w, x)
            return v

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            with R.dataflow():
                z = R.add(x, y)
                w = R.multiply(z, y)
                v = R.add(w, x)
                R.output(v)
            return v

    after = _convert(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_impure_call_splits_runs_and_outputs_are_vars_used_later():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            b = R.add(a, x)
            c = R.call_packed("test.impure", b, sinfo_args=R.Tensor((4,), "float32"))
            d = R.multiply(c, a)
            e = R.add(d, d)
            return e

    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.add(a, x)
                R.output(a, b)
            c = R.call_packed("test.impure", b, sinfo_args=R.Tensor((4,), "float32"))
            with R.dataflow():
                d = R.multiply(c, a)
                e = R.add(d, d)
                R.output(e)
            return e

    tvm.ir.assert_structural_equal(_convert(Before), Expected)


def test_short_run_is_left_unless_next_to_a_dataflow_block():
    @I.ir_module
    class Short:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            return a

    tvm.ir.assert_structural_equal(_convert(Short), Short)

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.add(a, x)
                R.output(b)
            c = R.multiply(b, b)
            return c

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.add(a, x)
                c = R.multiply(b, b)
                R.output(c)
            return c

    after = _convert(Before)
    tvm.ir.assert_structural_equal(after, Expected)
    assert_same_numbers(Before, after)


def test_min_size():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32")):
            a = R.exp(x)
            b = R.add(a, x)
            return b

    tvm.ir.assert_structural_equal(_convert(Before, min_size=3), Before)
    with pytest.raises(ValueError, match="min_size"):
        relax.transform.ConvertToDataflow(0)
    with pytest.raises(TypeError, match="min_size"):
        relax.transform.ConvertToDataflow("2")


def test_branches_are_converted_inside_and_if_ends_a_run():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4,), "float32"), cond: R.Tensor((), "bool")):
            a = R.exp(x)
            b = R.add(a, x)
            if cond:
                c = R.multiply(b, b)
                d = R.add(c, a)
                r = d
            else:
                r = b
            return r

    # (TVMScript cannot write a dataflow block inside an `if`: checked on the IR.)
    after = _convert(Before)["main"].body
    first, rest = after.blocks[0], after.blocks[1]
    assert isinstance(first, relax.DataflowBlock)
    assert [b.var.name_hint for b in first.bindings] == ["a", "b"]
    assert not any(isinstance(b.var, relax.DataflowVar) for b in first.bindings)  # both used later
    assert not isinstance(rest, relax.DataflowBlock)
    branch = rest.bindings[0].value.true_branch
    assert isinstance(branch.blocks[0], relax.DataflowBlock)
    c, d = branch.blocks[0].bindings
    assert isinstance(c.var, relax.DataflowVar) and not isinstance(d.var, relax.DataflowVar)
    assert relax.analysis.well_formed(_convert(Before))
