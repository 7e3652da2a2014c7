"""relax.transform.FuseOpsByPattern: structural before/after (private
{"Composite", "Primitive"} functions called from the original function),
pattern priority, groups whose intermediates escape, constants, checks, the
root-op index (counted match attempts) and NumPy checks of built modules."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax as rx
from tessera.relax.dpl import is_op, is_const, make_fused_bias_activation_pattern, wildcard
from tessera.relax.dpl import _ffi as dpl_ffi
from tessera.relax.transform import FuseOpsByPattern, FusionPattern
from tessera.script import ir as I, relax as R

DENSE_BIAS_RELU = make_fused_bias_activation_pattern("relax.matmul", with_bias=True, activation="relax.nn.relu")
DENSE_BIAS = make_fused_bias_activation_pattern("relax.matmul", with_bias=True)


@I.ir_module
class MatmulAddRelu:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 16), "float32"), b: R.Tensor((16,), "float32")):
        with R.dataflow():
            lv0 = R.matmul(x, w)
            lv1 = R.add(lv0, b)
            lv2 = R.nn.relu(lv1)
            R.output(lv2)
        return lv2


def run(mod, *arrays):
    vm = rx.VirtualMachine(rx.build(mod, "llvm"), tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in arrays]).numpy()


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype("float32") for s in ((4, 8), (8, 16), (16,))]


def test_matmul_add_relu_fused_into_composite():
    @I.ir_module
    class Expected:
        @R.function(private=True)
        def fused_relax_matmul_relax_add_relax_nn_relu(x: R.Tensor((4, 8), "float32"),
                                                       w: R.Tensor((8, 16), "float32"),
                                                       b: R.Tensor((16,), "float32")) -> R.Tensor((4, 16), "float32"):
            R.func_attr({"Composite": "dense_bias_relu", "Primitive": 1})
            with R.dataflow():
                lv0 = R.matmul(x, w)
                lv1 = R.add(lv0, b)
                gv = R.nn.relu(lv1)
                R.output(gv)
            return gv

        @R.function
        def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 16), "float32"),
                 b: R.Tensor((16,), "float32")) -> R.Tensor((4, 16), "float32"):
            cls = Expected
            with R.dataflow():
                lv2 = cls.fused_relax_matmul_relax_add_relax_nn_relu(x, w, b)
                R.output(lv2)
            return lv2

    after = FuseOpsByPattern([("dense_bias_relu", DENSE_BIAS_RELU)])(MatmulAddRelu)
    tvm.ir.assert_structural_equal(after, Expected)
    x, w, b = inputs()
    np.testing.assert_allclose(run(after, x, w, b), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)
    assert "fused_relax_matmul_relax_add_relax_nn_relu" not in [gv.name_hint for gv in MatmulAddRelu.get_global_vars()]


def test_pattern_priority_and_fusion_pattern_objects():
    after = FuseOpsByPattern([FusionPattern("dense_bias", DENSE_BIAS), ("dense_bias_relu", DENSE_BIAS_RELU)])(
        MatmulAddRelu)
    fused = after["fused_relax_matmul_relax_add"]
    assert fused.attrs["Composite"] == "dense_bias"
    # The relu stays in main, applied to the composite's result.
    main_ops = [b.value.op for b in after["main"].body.blocks[0].bindings]
    assert main_ops[1].name == "relax.nn.relu"
    x, w, b = inputs()
    np.testing.assert_allclose(run(after, x, w, b), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)


def test_two_groups_get_unique_names():
    @I.ir_module
    class Twice:
        @R.function
        def main(x: R.Tensor((4, 4), "float32"), w1: R.Tensor((4, 4), "float32"), w2: R.Tensor((4, 4), "float32")):
            with R.dataflow():
                a = R.nn.relu(R.matmul(x, w1))
                b = R.nn.relu(R.matmul(a, w2))
                R.output(b)
            return b

    pattern = is_op("relax.nn.relu")(is_op("relax.matmul")(wildcard(), wildcard()))
    after = FuseOpsByPattern([("mm_relu", pattern)])(Twice)
    names = sorted(gv.name_hint for gv in after.get_global_vars())
    assert names == ["fused_relax_matmul_relax_nn_relu", "fused_relax_matmul_relax_nn_relu1", "main"]
    rng = np.random.default_rng(1)
    x, w1, w2 = (rng.standard_normal((4, 4)).astype("float32") for _ in range(3))
    want = np.maximum(np.maximum(x @ w1, 0) @ w2, 0)
    np.testing.assert_allclose(run(after, x, w1, w2), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run(Twice, x, w1, w2), want, rtol=1e-5, atol=1e-5)


def test_intermediate_used_outside_becomes_a_tuple_output():
    @I.ir_module
    class Escapes:
        @R.function
        def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 16), "float32"), b: R.Tensor((16,), "float32")):
            with R.dataflow():
                lv0 = R.matmul(x, w)
                e = R.exp(lv0)  # uses lv0 before the root: moves after the fused call
                lv1 = R.add(lv0, b)
                lv2 = R.nn.relu(lv1)
                lv3 = R.add(lv2, e)
                R.output(lv3)
            return lv3

    @I.ir_module
    class Expected:
        @R.function(private=True)
        def fused_relax_matmul_relax_add_relax_nn_relu(
                x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 16), "float32"), b: R.Tensor((16,), "float32")
        ) -> R.Tuple(R.Tensor((4, 16), "float32"), R.Tensor((4, 16), "float32")):
            R.func_attr({"Composite": "dense_bias_relu", "Primitive": 1})
            with R.dataflow():
                gv = R.matmul(x, w)
                lv1 = R.add(gv, b)
                gv1 = R.nn.relu(lv1)
                R.output(gv, gv1)
            return (gv1, gv)

        @R.function
        def main(x: R.Tensor((4, 8), "float32"), w: R.Tensor((8, 16), "float32"),
                 b: R.Tensor((16,), "float32")) -> R.Tensor((4, 16), "float32"):
            cls = Expected
            with R.dataflow():
                lv = cls.fused_relax_matmul_relax_add_relax_nn_relu(x, w, b)
                lv0 = lv[1]
                lv2 = lv[0]
                e = R.exp(lv0)
                lv3 = R.add(lv2, e)
                R.output(lv3)
            return lv3

    after = FuseOpsByPattern([("dense_bias_relu", DENSE_BIAS_RELU)])(Escapes)
    tvm.ir.assert_structural_equal(after, Expected)
    x, w, b = inputs()
    np.testing.assert_allclose(run(after, x, w, b), np.maximum(x @ w + b, 0) + np.exp(x @ w), rtol=1e-5)


def test_cyclic_dependency_is_refused_naming_the_pattern():
    @I.ir_module
    class Branch:
        @R.function
        def main(x: R.Tensor((4, 4), "float32"), w: R.Tensor((4, 4), "float32")):
            with R.dataflow():
                mm = R.matmul(x, w)
                r = R.nn.relu(mm)
                g = R.exp(mm)
                out = R.add(r, g)  # the group {mm, r, out} would need g, computed from mm
                R.output(out)
            return out

    pattern = is_op("relax.add")(is_op("relax.nn.relu")(is_op("relax.matmul")(wildcard(), wildcard())), wildcard())
    with pytest.raises(tvm.error.TVMError, match="cyclic dependency.*'mm_relu_add'.*'out'") as info:
        FuseOpsByPattern([("mm_relu_add", pattern)])(Branch)
    assert isinstance(info.value, ValueError)


def test_constants_bound_or_passed():
    bb = rx.BlockBuilder()
    x_var = rx.Var("x", rx.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x_var]):
        with bb.dataflow():
            a = bb.emit(rx.op.add(x_var, rx.const(np.arange(4, dtype="float32"))))
            b = bb.emit_output(rx.op.nn.relu(a))
        bb.emit_func_output(b)
    WithConst = bb.get()  # pylint: disable=invalid-name

    pattern = is_op("relax.nn.relu")(is_op("relax.add")(wildcard(), is_const()))
    bound = FuseOpsByPattern([("add_relu", pattern)])(WithConst)
    passed = FuseOpsByPattern([("add_relu", pattern)], bind_constants=False)(WithConst)
    assert len(bound["fused_relax_add_relax_nn_relu"].params) == 1
    assert len(passed["fused_relax_add_relax_nn_relu"].params) == 2
    inner_add = passed["fused_relax_add_relax_nn_relu"].body.blocks[0].bindings[0].value
    assert inner_add.args[1].same_as(passed["fused_relax_add_relax_nn_relu"].params[1])
    assert isinstance(passed["main"].body.blocks[0].bindings[0].value.args[1], rx.Constant)
    x = np.array([-5, -1, 0.5, 1], "float32")
    for mod in (bound, passed):
        np.testing.assert_allclose(run(mod, x), np.maximum(x + np.arange(4), 0))


def test_check_can_reject_a_match():
    seen = []

    def check(ctx):
        seen.append((ctx.matched_expr.op.name, sorted(ctx.annotated_expr)))
        return False

    bias = wildcard()
    pattern = is_op("relax.add")(is_op("relax.matmul")(wildcard(), wildcard()), bias)
    after = FuseOpsByPattern([FusionPattern("dense_bias", pattern, {"bias": bias}, check)])(MatmulAddRelu)
    tvm.ir.assert_structural_equal(after, MatmulAddRelu)
    assert seen == [("relax.add", ["bias"])]


def test_already_composite_functions_are_left_alone():
    once = FuseOpsByPattern([("dense_bias_relu", DENSE_BIAS_RELU)])(MatmulAddRelu)
    twice = FuseOpsByPattern([("dense_bias_relu", DENSE_BIAS_RELU)])(once)
    tvm.ir.assert_structural_equal(once, twice)


def test_many_patterns_are_tried_only_on_calls_of_their_root_op():
    @I.ir_module
    class Chain:
        @R.function
        def main(x: R.Tensor((4, 4), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.nn.relu(a)
                c = R.exp(b)
                d = R.sigmoid(c)
                e = R.tanh(d)
                R.output(e)
            return e

    ops = ["relax.add", "relax.multiply", "relax.subtract", "relax.matmul", "relax.divide", "relax.maximum",
           "relax.minimum", "relax.power", "relax.tanh", "relax.sqrt"]
    patterns = [(f"p{i}", is_op(op)(is_op("relax.exp")(wildcard()))) for i, op in enumerate(ops)]
    start = dpl_ffi.match_attempts()
    after = FuseOpsByPattern(patterns)(Chain)
    # Only the tanh binding has a candidate (one pattern rooted at relax.tanh), and its input is no exp.
    assert dpl_ffi.match_attempts() - start == 1
    tvm.ir.assert_structural_equal(after, Chain)


@pytest.mark.parametrize("patterns, error, match", [
    ([("p", 3)], TypeError, "pattern must be a DFPattern, got int"),
    ([(3, wildcard())], TypeError, "name must be a str"),
    ([("p", wildcard(), {"a": 1})], TypeError, "annotation_patterns must map str -> DFPattern"),
    ([("p", wildcard(), None, 5)], TypeError, "check must be callable"),
    ([object()], TypeError, "patterns\\[0\\]"),
    (("p", wildcard()), TypeError, "patterns must be a list"),
])
def test_bad_patterns_name_the_culprit(patterns, error, match):
    with pytest.raises(error, match=match) as info:
        FuseOpsByPattern(patterns)
    assert isinstance(info.value, tvm.error.TVMError)


def test_check_returning_non_bool_names_pattern():
    pattern = FusionPattern("dense_bias_relu", DENSE_BIAS_RELU, check=lambda ctx: None)
    # bool(None) is False: a falsy check rejects; a check raising propagates with its message.
    tvm.ir.assert_structural_equal(FuseOpsByPattern([pattern])(MatmulAddRelu), MatmulAddRelu)

    def boom(ctx):
        raise ValueError("check failed on purpose")

    with pytest.raises(ValueError, match="on purpose"):
        FuseOpsByPattern([FusionPattern("dense_bias_relu", DENSE_BIAS_RELU, check=boom)])(MatmulAddRelu)
