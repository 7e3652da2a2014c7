"""relax.transform.ToNonDataflow: dataflow blocks become binding blocks and
DataflowVars become Vars; checked against hand-built expected modules."""
import pytest

import tessera as tvm
from tessera import relax


def _t(shape=(2, 3)):
    return relax.TensorStructInfo(shape, "float32")


def _identity(arg):
    return relax.op.call_dps_packed("test.op.identity", (arg,), _t())


def _module(dataflow):
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t())
    with bb.function("main", [x]):
        if dataflow:
            with bb.dataflow():
                lv0 = bb.emit(_identity(x))
                lv1 = bb.emit(_identity(lv0))
                gv = bb.emit_output(lv1)
        else:
            lv0 = bb.emit(_identity(x))
            lv1 = bb.emit(_identity(lv0))
            gv = bb.emit(lv1)
        bb.emit_func_output(gv)
    return bb.get()


def test_dataflow_block_becomes_binding_block():
    before = _module(dataflow=True)
    after = relax.transform.ToNonDataflow()(before)
    tvm.ir.assert_structural_equal(after, _module(dataflow=False))
    block = after["main"].body.blocks[0]
    assert not isinstance(block, relax.DataflowBlock)
    for binding in block.bindings:
        assert not isinstance(binding.var, relax.DataflowVar)
    # The input module is left alone.
    assert isinstance(before["main"].body.blocks[0], relax.DataflowBlock)


def test_non_dataflow_vars_keep_their_identity():
    before = _module(dataflow=True)
    after = relax.transform.ToNonDataflow()(before)
    old, new = before["main"], after["main"]
    assert old.params[0].same_as(new.params[0])
    # The output var of the block was already a Var: it is kept as is.
    assert old.body.blocks[0].bindings[-1].var.same_as(new.body.blocks[0].bindings[-1].var)
    assert old.body.body.same_as(new.body.body)
    # DataflowVars are replaced by Vars of the same name and struct info.
    old_lv, new_lv = old.body.blocks[0].bindings[0].var, new.body.blocks[0].bindings[0].var
    assert isinstance(old_lv, relax.DataflowVar) and not isinstance(new_lv, relax.DataflowVar)
    assert old_lv.name_hint == new_lv.name_hint
    tvm.ir.assert_structural_equal(old_lv.struct_info, new_lv.struct_info)


def test_module_without_dataflow_is_unchanged():
    mod = _module(dataflow=False)
    after = relax.transform.ToNonDataflow()(mod)
    assert after["main"].same_as(mod["main"])


def test_expected_module_differs_from_dataflow_module():
    # The oracle can fail: a dataflow module is not equal to its lowered form.
    with pytest.raises(ValueError):
        tvm.ir.assert_structural_equal(_module(dataflow=True), _module(dataflow=False))


def test_is_a_registered_pass():
    p = relax.transform.ToNonDataflow()
    assert isinstance(p, tvm.transform.Pass)
    assert p.info.name == "ToNonDataflow"


def test_branches_and_local_functions_are_lowered_too():
    def branch(x, dataflow):
        lv = (relax.DataflowVar if dataflow else relax.Var)("lv", _t())
        block = (relax.DataflowBlock if dataflow else relax.BindingBlock)([relax.VarBinding(lv, _identity(x))])
        out = relax.Var("out", _t())
        return relax.SeqExpr([block, relax.BindingBlock([relax.VarBinding(out, lv)])], out)

    def build(dataflow):
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t())
        c = relax.Var("c", relax.TensorStructInfo((), "bool"))
        y = relax.Var("y", _t())
        with bb.function("main", [x, c]):
            r = bb.emit(relax.If(c, branch(x, dataflow), branch(x, dataflow)))
            f = bb.emit(relax.Function([y], branch(y, dataflow), _t()), "local")
            s = bb.emit(relax.Call(f, [r]))
            bb.emit_func_output(s)
        return bb.get()

    tvm.ir.assert_structural_equal(relax.transform.ToNonDataflow()(build(True)), build(False))
