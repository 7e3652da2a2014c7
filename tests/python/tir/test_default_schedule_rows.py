"""DefaultCPUSchedule's row-kernel rule (tir/transform/default_schedule_rows.cc): softmax,
log_softmax, layer_norm and a row reduction with its consumer become one parallel row
loop holding every stage, each vectorized (rfactor for reductions along the row), and
compute what NumPy/PyTorch compute over several shapes (odd row lengths, symbolic rows);
PassContext config tir.default_schedule.row_kernels=False keeps one nest per stage."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, te, tir, topi

from .test_default_schedule_matmul import _rand, _run

TARGET = "llvm -mcpu=skylake-avx512 -num-cores=4"
ROWS = "tir.default_schedule.row_kernels"


def _schedule(func, enabled=True):
    with tvm.transform.PassContext(config={ROWS: enabled}):
        return tir.transform.DefaultCPUSchedule(TARGET)(tvm.IRModule({"main": func}))["main"]


def _top_loops(func):
    """The outermost loops of the function (the nests at the root)."""
    loops, nested = [], []
    tir.stmt_functor.post_order_visit(func.body, lambda n: loops.append(n) if isinstance(n, tir.For) else None)
    for loop in loops:
        tir.stmt_functor.post_order_visit(loop.body, lambda n: nested.append(n) if isinstance(n, tir.For) else None)
    return [l for l in loops if not any(l.same_as(n) for n in nested)]


def _softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layer_norm(a, g, b, eps=1e-5):
    mean = a.mean(axis=-1, keepdims=True)
    var = ((a - mean) ** 2).mean(axis=-1, keepdims=True)
    return (a - mean) / np.sqrt(var + eps) * g + b


@pytest.mark.parametrize("shape", [(4, 128, 128), (3, 100), (2, 5, 48), (64, 1024)])
def test_softmax_and_log_softmax(shape):
    A = te.placeholder(shape, name="A")
    a = _rand(shape) * 16
    for op, ref in ((topi.nn.softmax, _softmax(a)), (topi.nn.log_softmax, np.log(_softmax(a)))):
        sched = _schedule(te.create_prim_func([A, op(A)]))
        np.testing.assert_allclose(_run(sched, [a], shape), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("rows,d", [(128, 768), (7, 96), (33, 50)])
def test_layer_norm(rows, d):
    X, G, Bt = te.placeholder((rows, d), name="X"), te.placeholder((d,), name="G"), te.placeholder((d,), name="Bt")
    x, g, b = _rand((rows, d)) * 4, _rand((d,), 1), _rand((d,), 2)
    sched = _schedule(te.create_prim_func([X, G, Bt, topi.nn.layer_norm(X, G, Bt, axis=[-1])]))
    np.testing.assert_allclose(_run(sched, [x, g, b], (rows, d)), _layer_norm(x, g, b), rtol=1e-4, atol=1e-4)


@tvm.testing.requires_llvm  # the vector width of an -mcpu is LLVM's
def test_row_kernel_structure():
    """One parallel row loop at the root holding every stage; the row reductions are
    rfactored into vectorized partial results; the exp and normalize stages vectorized."""
    A = te.placeholder((4, 128, 128), name="A")
    sched = _schedule(te.create_prim_func([A, topi.nn.softmax(A)]))
    roots = _top_loops(sched)
    assert len(roots) == 1 and roots[0].kind == tir.ForKind.PARALLEL, sched.script()
    script = sched.script()
    for block in ("T_softmax_maxelem_rf_update", "T_softmax_expsum_rf_update", "T_softmax_exp", "T_softmax_norm"):
        assert f'T.block("{block}")' in script
    vec = []
    tir.stmt_functor.post_order_visit(
        sched.body, lambda n: vec.append(int(n.extent)) if isinstance(n, tir.For) and n.kind == tir.ForKind.VECTORIZED else None)
    assert vec.count(16) >= 6, script  # two rf inits, two rf updates, exp, normalize
    # Lowered, the row intermediates are per-thread buffers inside the parallel loop.
    lowered = tvm.lower(tvm.IRModule({"main": sched}))["main"].script()
    assert lowered.index("T.allocate") > lowered.index("T.parallel")


def test_opt_out_keeps_one_nest_per_stage():
    A = te.placeholder((4, 128, 128), name="A")
    sched = _schedule(te.create_prim_func([A, topi.nn.softmax(A)]), enabled=False)
    assert len(_top_loops(sched)) == 4


def test_matmul_epilogue_is_not_a_row_kernel():
    """A matmul and its bias: the matmul's output is a full tile, not a row reduction."""
    A, B, C = te.placeholder((64, 32), name="A"), te.placeholder((32, 64), name="B"), te.placeholder((64,), name="C")
    sched = _schedule(te.create_prim_func([A, B, C, topi.add(topi.nn.matmul(A, B), C)]))
    assert "B_global" in sched.script()


def test_relax_softmax_layer_norm_symbolic_rows_vs_torch():
    torch = pytest.importorskip("torch")
    n = tvm.tir.Var("n", "int64")
    x = relax.Var("x", relax.TensorStructInfo((n, 64), "float32"))
    g, b = _rand((64,), 1), _rand((64,), 2)
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.layer_norm(x, relax.const(g), relax.const(b), axes=[-1]))
            out = bb.emit_output(bb.emit(relax.op.nn.softmax(h, axis=-1)))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    for rows in (1, 37, 600):
        xs = _rand((rows, 64), rows) * 8
        t = torch.nn.functional.layer_norm(torch.from_numpy(xs), (64,), torch.from_numpy(g), torch.from_numpy(b))
        ref = torch.softmax(t, dim=-1).numpy()
        np.testing.assert_allclose(vm["main"](tvm.nd.array(xs)).numpy(), ref, rtol=1e-4, atol=1e-6)
