"""relax.get_pipeline("default_build"): the named Sequential relax.build runs,
and the whole lowering of the course's MLP through it."""
import pytest

import tessera as tvm
from tessera import relax

EXPECTED = ["FoldBatchnormToConv2d", "LegalizeOps", "AnnotateTIROpPattern", "FoldConstant", "FuseOps", "FuseTIR", "DefaultCPUSchedule", "Normalize", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
            "LowerAllocTensor", "VMBuiltinLower", "VMShapeLower", "AttachGlobalSymbol"]


def test_default_pipeline_is_the_named_sequential():
    for seq in (relax.get_pipeline(), relax.get_pipeline("default_build")):
        assert isinstance(seq, tvm.transform.Sequential)
        assert seq.info.name == "relax.build_pipeline"
        assert [p.info.name for p in seq.passes] == EXPECTED


def test_unknown_and_missing_pipelines():
    with pytest.raises(ValueError, match="nonesuch"):
        relax.get_pipeline("nonesuch")
    with pytest.raises(NotImplementedError, match="LegalizeOps"):
        relax.get_pipeline("zero")
    with pytest.raises(TypeError):
        relax.get_pipeline(3)


def test_pipeline_lowers_call_tir_module_to_vm_builtins():
    from .test_relax_transform_static_plan_block_memory import _mlp_ch5  # pylint: disable=import-outside-toplevel

    with tvm.transform.PassContext(disabled_pass=["FuseOps"]):  # the five kernels unfused: four intermediates
        lowered = relax.get_pipeline()(_mlp_ch5())
    main = lowered["main"]
    ops = set()
    for block in main.body.blocks:
        assert not isinstance(block, relax.DataflowBlock)
        for b in block.bindings:
            v = b.value
            if isinstance(v, relax.Call):
                ops.add(v.op.name if isinstance(v.op, tvm.ir.Op) else getattr(v.op, "global_symbol", None))
    assert "relax.call_tir" not in ops and "relax.builtin.alloc_tensor" not in ops
    assert "relax.memory.alloc_storage" not in ops and "relax.memory.alloc_tensor" not in ops
    assert {"relax.vm.alloc_storage", "relax.vm.alloc_tensor", "vm.builtin.check_tensor_info",
            "vm.builtin.match_shape"} <= ops
    assert main.attrs["global_symbol"] == "main" and main.attrs["relax.force_pure"]
    # Two planned storages plus the output's own storage.
    assert sum(1 for b in main.body.blocks[0].bindings
               if isinstance(b.value, relax.Call) and b.value.op == tvm.ir.Op.get("relax.vm.alloc_storage")) == 3


def test_printed_pipeline_lists_its_passes_in_order():
    text = str(relax.get_pipeline())
    names = ["Normalize", "ToNonDataflow", "RemovePurityChecking", "CallTIRRewrite", "StaticPlanBlockMemory",
             "LowerAllocTensor", "VMBuiltinLower", "VMShapeLower", "AttachGlobalSymbol"]
    lines = text.splitlines()
    assert lines[0].startswith("transform.Sequential(relax.build_pipeline"), text
    found = [n for line in lines[1:] for n in names if f"({n}," in line]
    assert found == [n for n in names if n in found] and set(found) >= set(names[1:]), text


def _linear_relu_module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 8), "float32"))
    w = relax.Var("w", relax.TensorStructInfo((8, 4), "float32"))
    b = relax.Var("b", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            gv = bb.emit_output(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, w), b)))
        bb.emit_func_output(gv)
    return bb.get()


def _prim_names(mod):
    return sorted(gv.name_hint for gv, f in mod.functions.items() if isinstance(f, tvm.tir.PrimFunc))


def test_pipeline_fuses_and_each_fusion_pass_can_be_left_out():
    import numpy as np  # pylint: disable=import-outside-toplevel

    assert _prim_names(relax.get_pipeline()(_linear_relu_module())) == ["fused_matmul_add_relu"]
    for skipped in ("AnnotateTIROpPattern", "FuseOps"):
        with tvm.transform.PassContext(disabled_pass=[skipped]):
            assert _prim_names(relax.get_pipeline()(_linear_relu_module())) == ["add", "matmul", "relu"]
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in [(2, 8), (8, 4), (4,)])
    for disabled in ([], ["FuseOps"]):
        with tvm.transform.PassContext(disabled_pass=disabled):
            ex = relax.build(_linear_relu_module(), target="llvm")
        out = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(b))
        np.testing.assert_allclose(out.numpy(), np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-5)
