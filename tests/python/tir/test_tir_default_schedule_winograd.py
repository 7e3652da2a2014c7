"""DefaultCPUSchedule's Winograd rule (src/tir/transform/default_schedule_winograd.cc)
on the kernel of topi.nn.conv2d_nchw_winograd as relax.build fuses it: the
transform stages stay separate (not inlined into the GEMM), each has a parallel
outer loop and a vectorized inner one, the batched GEMM takes the matmul rule's
register tile, and the final NCHW write is the fused epilogue's block itself (the
output stage inlined into it, m x m tiles unrolled)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir

from .test_tir_default_schedule_conv import _loops, _scheduled_conv

ON = {"relax.conv2d_winograd": True}


def _weight(c, k):
    return np.random.default_rng(0).standard_normal((k, c, 3, 3)).astype("float32")


def _module(x_shape, k, residual):
    w = _weight(x_shape[1], k)
    b = np.ones((1, k, 1, 1), "float32")
    out_shape = (x_shape[0], k) + tuple(x_shape[2:])
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(x_shape, "float32"))
    params = [x] + ([relax.Var("r", relax.TensorStructInfo(out_shape, "float32"))] if residual else [])
    with bb.function("main", params):
        with bb.dataflow():
            y = bb.emit(relax.op.add(relax.op.nn.conv2d(x, relax.const(w), padding=1), relax.const(b)))
            if residual:
                y = bb.emit(relax.op.add(y, params[1]))
            out = bb.emit_output(relax.op.nn.relu(y))
        bb.emit_func_output(out)
    return bb.get()


def _blocks(func):
    found = []
    tir.stmt_functor.post_order_visit(func.body, lambda n: found.append(n) if isinstance(n, tir.Block) else None)
    return found


def _loops_of(func, block_name):
    """The loops around the block named ``block_name`` (outermost first)."""
    out = []

    def visit(stmt, around):
        if isinstance(stmt, tir.For):
            visit(stmt.body, around + [stmt])
        elif isinstance(stmt, tir.BlockRealize):
            if stmt.block.name_hint == block_name:
                out.extend(around)
            visit(stmt.block.body, around)
        elif isinstance(stmt, tir.SeqStmt):
            for s in stmt.seq:
                visit(s, around)
        elif hasattr(stmt, "body"):
            visit(stmt.body, around)
    visit(func.body, [])
    return out


@pytest.mark.parametrize("residual", [False, True])
def test_stage_structure(residual):
    func = _scheduled_conv(_module((1, 64, 32, 32), 64, residual), ON)  # enough work for parallel loops
    names = [b.name_hint for b in _blocks(func)]
    for stage in ("winograd_data_pad", "winograd_data_pack_rows", "winograd_data_pack", "winograd_inverse"):
        assert stage in names, names  # kept apart, not inlined into the GEMM
    assert "winograd_bgemm_update" in names  # the matmul rule's decomposed reduction
    # The output stage is inlined into the epilogue: one block writes the result, reading the inverse.
    assert "winograd_output" not in names
    final = [b for b in _blocks(func) if any(r.buffer.name.startswith("winograd_inverse") for r in b.reads)
             and not b.name_hint.startswith("winograd_")]
    assert len(final) == 1 and final[0].writes[0].buffer.same_as(func.buffer_map[func.params[-1]])
    loops = _loops_of(func, final[0].name_hint)
    kinds = [(l.kind, int(l.extent)) for l in loops]
    assert kinds[0][0] == tir.ForKind.PARALLEL
    assert kinds[-3:] == [(tir.ForKind.UNROLLED, 4), (tir.ForKind.UNROLLED, 4), (tir.ForKind.VECTORIZED, 32)], kinds
    pack = [(l.kind, int(l.extent)) for l in _loops_of(func, "winograd_data_pack")]
    assert pack[0][0] == tir.ForKind.PARALLEL and pack[-1] == (tir.ForKind.VECTORIZED, 16), pack
    for stage in ("winograd_data_pad", "winograd_data_pack_rows", "winograd_inverse"):
        kinds = [l.kind for l in _loops_of(func, stage)]
        assert kinds[0] == tir.ForKind.PARALLEL and kinds[-1] == tir.ForKind.VECTORIZED, (stage, kinds)
    gemm = [(l.kind, int(l.extent)) for l in _loops_of(func, "winograd_bgemm_update")]
    assert gemm[0][0] == tir.ForKind.PARALLEL and gemm[-1] == (tir.ForKind.VECTORIZED, 32), gemm


def test_runs_and_matches_numpy_after_the_rule():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((1, 64, 16, 16)).astype("float32")
    r = np.random.default_rng(3).standard_normal((1, 64, 16, 16)).astype("float32")
    mod = _module(x.shape, 64, True)
    w = _weight(64, 64)
    with tvm.transform.PassContext(config=ON):
        ex = relax.build(mod, target="llvm -num-cores=4")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](tvm.nd.array(x), tvm.nd.array(r)).numpy()
    expected = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1) + 1
                          + torch.from_numpy(r)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
