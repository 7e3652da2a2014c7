"""tvm.ir.Op.reset_attr: removes an operator attribute so that it can be registered anew at any
level (TVM's Op.reset_attr); a value of a higher level otherwise wins over a later lower one."""
import tessera as tvm


def test_reset_attr_removes_the_value_and_allows_a_lower_level():
    op = tvm.ir.Op.get("relax.nn.relu")
    key = "TestResetAttrProbe"
    tvm.ir.register_op_attr("relax.nn.relu", key, "high", level=20)
    tvm.ir.register_op_attr("relax.nn.relu", key, "low", level=10)
    assert op.get_attr(key) == "high"  # the higher level stays
    op.reset_attr(key)
    assert op.get_attr(key) is None
    tvm.ir.register_op_attr("relax.nn.relu", key, "low", level=10)
    assert op.get_attr(key) == "low"
    op.reset_attr(key)


def test_reset_legalization_is_used_by_legalize_ops():
    from tessera import relax
    from tessera.relax.transform.legalize_ops.common import register_legalize

    op = tvm.ir.Op.get("relax.nn.relu")
    saved = op.get_attr("FLegalize")
    calls = []

    def custom(bb, call):
        calls.append(call)
        return saved(bb, call)

    try:
        op.reset_attr("FLegalize")
        register_legalize("relax.nn.relu", custom)
        relax.transform.LegalizeOps()(_relu_module())
        assert len(calls) == 1
    finally:
        op.reset_attr("FLegalize")
        register_legalize("relax.nn.relu", saved)
    relax.transform.LegalizeOps()(_relu_module())
    assert len(calls) == 1  # the restored legalization is used again


def _relu_module():
    from tessera import relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x]):
        gv = bb.emit(relax.op.nn.relu(x))
        bb.emit_func_output(gv)
    return bb.get()
