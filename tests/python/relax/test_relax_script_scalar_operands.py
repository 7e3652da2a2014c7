"""TVMScript calls with a plain number where the op takes a scalar operand (R.clip's
bounds, R.tril/R.triu's k, R.arange's bounds: a PrimValue, int64 or float64, as the
Python constructors make it, never a constant tensor) and a single int where the op
takes a list of axes (R.expand_dims / R.squeeze axis=1 is axis=[1]): the parsed call
equals the one relax.op builds, as in TVM."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import relax as R


def _single_call(build, x_shape=(3, 4)):
    """The function main(x) = build(x), made with the BlockBuilder."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    with bb.function("main", [x]):
        out = bb.emit(build(x))
        bb.emit_func_output(out)
    return bb.get()["main"]


def test_clip_number_bounds_are_prim_values():
    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        lv = R.clip(x, 0.1, 0.5)
        return lv

    tvm.ir.assert_structural_equal(main, _single_call(lambda x: relax.op.clip(x, 0.1, 0.5)))

    @R.function
    def ints(x: R.Tensor((3, 4), "float32")):
        lv = R.clip(x, 0, 6)
        return lv

    tvm.ir.assert_structural_equal(ints, _single_call(lambda x: relax.op.clip(x, 0, 6)).with_attr(
        "global_symbol", "ints"))


def test_trilu_k_and_arange_bounds():
    @R.function
    def main(x: R.Tensor((3, 4), "float32")):
        lv = R.tril(x, 1)
        lv1 = R.triu(lv, -1)
        return lv1

    tvm.ir.assert_structural_equal(main, _single_call(lambda x: relax.op.triu(relax.op.tril(x, 1), -1)))

    @R.function
    def rng(x: R.Tensor((3, 4), "float32")):
        lv = R.arange(0, 20, 1, dtype="int32")
        return lv

    expected = _single_call(lambda x: relax.op.arange(0, 20, 1, dtype="int32")).with_attr("global_symbol", "rng")
    tvm.ir.assert_structural_equal(rng, expected)
    assert rng.body.blocks[0].bindings[0].value.args[0].value.dtype == "int64"


@pytest.mark.parametrize("op", ["expand_dims", "squeeze"])
def test_single_axis_is_a_list(op):
    @R.function
    def expand(x: R.Tensor((3, 1), "float32")):
        lv = R.expand_dims(x, axis=1)
        return lv

    @R.function
    def squeeze(x: R.Tensor((3, 1), "float32")):
        lv = R.squeeze(x, axis=1)
        return lv

    parsed = {"expand_dims": expand, "squeeze": squeeze}[op]
    expected = _single_call(lambda x: getattr(relax.op, op)(x, [1]), (3, 1)).with_attr("global_symbol", parsed.attrs[
        "global_symbol"])
    tvm.ir.assert_structural_equal(parsed, expected)


def test_tensor_operand_still_refused_for_a_scalar_slot():
    with pytest.raises(tvm.error.ParseError, match="min"):
        @R.function
        def main(x: R.Tensor((3, 4), "float32"), lo: R.Tensor((), "float32")):
            lv = R.clip(x, lo, 0.5)
            return lv
