"""relax.transform.StaticPlanBlockMemory: intermediates whose lifetimes do not
overlap share storage. Checked against hand-built expected modules, and on the
course's MLP against hand-computed planned vs naive byte counts."""
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.relax.analysis.memory_usage import memory_usage

ALLOC_TENSOR = "relax.builtin.alloc_tensor"
ALLOC_STORAGE = "relax.memory.alloc_storage"
MEM_ALLOC_TENSOR = "relax.memory.alloc_tensor"


def _prim(name, *shapes):
    """A PrimFunc taking float32 buffers of `shapes` (its body does not matter to planning)."""
    params, buffer_map = [], {}
    for i, shape in enumerate(shapes):
        handle = tir.Var(f"{name}_b{i}", "handle")
        params.append(handle)
        buffer_map[handle] = tir.decl_buffer(shape, "float32", f"b{i}")
    return tir.PrimFunc(params, tir.Evaluate(0), buffer_map=buffer_map)


def _t(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def _alloc(shape, dtype="float32"):
    return relax.op.builtin.alloc_tensor(relax.ShapeExpr(list(shape)), dtype, 0, "global")


def _storage(nbytes, dtype="float32"):
    return relax.op.memory.alloc_storage(relax.ShapeExpr([nbytes]), 0, "global", dtype)


def _view(storage, shape, dtype="float32"):
    return relax.op.memory.alloc_tensor(storage, 0, relax.ShapeExpr(list(shape)), dtype)


def _ops(func):
    out = []
    for block in func.body.blocks:
        for b in block.bindings:
            v = b.value
            if isinstance(v, relax.Call) and isinstance(v.op, tvm.ir.Op):
                out.append((v.op.name, v))
    return out


def _bytes(shape, dtype="float32"):
    n = {"float32": 4, "float16": 2, "int32": 4, "int64": 8}[dtype]
    for d in shape:
        n *= int(d)
    return n


def memory_report(func):
    """(bytes one call holds without planning, bytes with the plan): every
    builtin.alloc_tensor counts its own tensor; every alloc_storage its size."""
    naive = planned = 0
    for name, call in _ops(func):
        if name == ALLOC_TENSOR:
            size = _bytes(call.args[0].values, call.args[1].value)
            naive += size
            planned += size
        elif name == MEM_ALLOC_TENSOR:
            naive += _bytes(call.args[2].values, call.args[3].value)
        elif name == ALLOC_STORAGE:
            planned += int(call.args[0].values[0])
    return naive, planned


# ---------------------------------------------------------------------------
# exp -> relu -> add -> pad -> log, as in TVM's basic planning test
# ---------------------------------------------------------------------------
def _chain(planned):
    bb = relax.BlockBuilder()
    exp = bb.add_func(_prim("exp", (2, 4), (2, 4)), "exp")
    relu = bb.add_func(_prim("relu", (2, 4), (2, 4)), "relu")
    add = bb.add_func(_prim("add", (2, 4), (2, 4)), "add")
    pad = bb.add_func(_prim("pad", (2, 4), (10,)), "pad")
    log = bb.add_func(_prim("log", (10,), (10,)), "log")
    x = relax.Var("x", _t((2, 4)))
    with bb.function("main", [x]):
        if planned:
            s0 = bb.emit(_storage(32))
            a0 = bb.emit(_view(s0, (2, 4)))
        else:
            a0 = bb.emit(_alloc((2, 4)))
        bb.emit(relax.Call(exp, [x, a0]))
        lv0 = bb.emit(a0)
        if planned:
            s1 = bb.emit(_storage(40))  # grown from 32 to 40 bytes when pad's output reuses it
            a1 = bb.emit(_view(s1, (2, 4)))
        else:
            a1 = bb.emit(_alloc((2, 4)))
        bb.emit(relax.Call(relu, [lv0, a1]))
        lv1 = bb.emit(a1)
        a2 = bb.emit(_view(s0, (2, 4)) if planned else _alloc((2, 4)))
        bb.emit(relax.Call(add, [lv1, a2]))
        lv2 = bb.emit(a2)
        a3 = bb.emit(_view(s1, (10,)) if planned else _alloc((10,)))
        bb.emit(relax.Call(pad, [lv2, a3]))
        lv3 = bb.emit(a3)
        a4 = bb.emit(_alloc((10,)))  # the output is never planned
        bb.emit(relax.Call(log, [lv3, a4]))
        gv = bb.emit(a4)
        bb.emit_func_output(gv)
    return bb.get()


def test_chain_reuses_dead_storage():
    after = relax.transform.StaticPlanBlockMemory()(_chain(planned=False))
    tvm.ir.assert_structural_equal(after, _chain(planned=True))


def test_chain_report():
    naive, planned = memory_report(_chain(planned=False)["main"])
    after = relax.transform.StaticPlanBlockMemory()(_chain(planned=False))
    naive_after, planned_after = memory_report(after["main"])
    assert naive == naive_after == 32 * 3 + 40 * 2
    assert planned == naive
    assert planned_after == 32 + 40 + 40 < naive


# ---------------------------------------------------------------------------
# The course's MLP
# ---------------------------------------------------------------------------
def _mlp_ch3():
    """Chapter 3's MLP: linear0 -> relu0 -> linear1 with call_tir (bias inside linear)."""
    bb = relax.BlockBuilder()
    linear0 = bb.add_func(_prim("linear0", (1, 784), (128, 784), (128,), (1, 128)), "linear0")
    relu0 = bb.add_func(_prim("relu0", (1, 128), (1, 128)), "relu0")
    linear1 = bb.add_func(_prim("linear1", (1, 128), (10, 128), (10,), (1, 10)), "linear1")
    x = relax.Var("x", _t((1, 784)))
    w0, b0 = relax.Var("w0", _t((128, 784))), relax.Var("b0", _t((128,)))
    w1, b1 = relax.Var("w1", _t((10, 128))), relax.Var("b1", _t((10,)))
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.call_tir(linear0, (x, w0, b0), _t((1, 128))))
            lv1 = bb.emit(relax.op.call_tir(relu0, (lv0,), _t((1, 128))))
            out = bb.emit_output(relax.op.call_tir(linear1, (lv1, w1, b1), _t((1, 10))))
        bb.emit_func_output(out)
    return bb.get()


def _mlp_ch5():
    """The same MLP as chapter 5's from_fx translates nn.Linear: dense, then add of the bias."""
    bb = relax.BlockBuilder()
    dense0 = bb.add_func(_prim("dense0", (1, 784), (128, 784), (1, 128)), "dense0")
    add0 = bb.add_func(_prim("add0", (1, 128), (128,), (1, 128)), "add0")
    relu = bb.add_func(_prim("relu", (1, 128), (1, 128)), "relu")
    dense1 = bb.add_func(_prim("dense1", (1, 128), (10, 128), (1, 10)), "dense1")
    add1 = bb.add_func(_prim("add1", (1, 10), (10,), (1, 10)), "add1")
    x = relax.Var("x", _t((1, 784)))
    w0, b0 = relax.Var("w0", _t((128, 784))), relax.Var("b0", _t((128,)))
    w1, b1 = relax.Var("w1", _t((10, 128))), relax.Var("b1", _t((10,)))
    with bb.function("main", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            lv0 = bb.emit(relax.op.call_tir(dense0, (x, w0), _t((1, 128))))
            lv1 = bb.emit(relax.op.call_tir(add0, (lv0, b0), _t((1, 128))))
            lv2 = bb.emit(relax.op.call_tir(relu, (lv1,), _t((1, 128))))
            lv3 = bb.emit(relax.op.call_tir(dense1, (lv2, w1), _t((1, 10))))
            out = bb.emit_output(relax.op.call_tir(add1, (lv3, b1), _t((1, 10))))
        bb.emit_func_output(out)
    return bb.get()


def _lower_to_allocs(mod):
    seq = tvm.transform.Sequential([relax.transform.ToNonDataflow(), relax.transform.RemovePurityChecking(),
                                    relax.transform.CallTIRRewrite()])
    return seq(mod)


def test_mlp_planned_vs_naive_peak_bytes():
    """Reports planned vs naive bytes for the course's MLP in both of its forms."""
    results = {}
    for name, build in (("ch3 linear/relu/linear", _mlp_ch3), ("ch5 dense/add/relu/dense/add", _mlp_ch5)):
        before = _lower_to_allocs(build())
        after = relax.transform.StaticPlanBlockMemory()(before)
        naive, _ = memory_report(before["main"])
        naive_after, planned = memory_report(after["main"])
        assert naive == naive_after
        results[name] = (naive, planned)
        # relax.analysis's estimate agrees with this file's own count.
        assert memory_usage(after)["main"] == (naive, planned)
        print(f"MLP {name}: naive {naive} bytes, planned {planned} bytes")
        print(relax.analysis.estimate_memory_usage(after))
    # ch3: both intermediates are alive while relu0 writes its output, so
    # no reuse is possible: two storages (512 B each) plus the output (40 B).
    assert results["ch3 linear/relu/linear"] == (512 + 512 + 40, 512 + 512 + 40)
    # ch5: relu's output reuses dense0's storage, dense1's output add0's
    # storage (512 B >= 40 B): 2 storages instead of 4 intermediates.
    assert results["ch5 dense/add/relu/dense/add"] == (3 * 512 + 40 + 40, 2 * 512 + 40)


def test_mlp_ch5_plan_is_the_expected_module():
    after = relax.transform.StaticPlanBlockMemory()(_lower_to_allocs(_mlp_ch5()))
    ops = [(name, call) for name, call in _ops(after["main"])
           if name in (ALLOC_STORAGE, MEM_ALLOC_TENSOR, ALLOC_TENSOR)]
    kinds = [name for name, _ in ops]
    assert kinds == [ALLOC_STORAGE, MEM_ALLOC_TENSOR, ALLOC_STORAGE, MEM_ALLOC_TENSOR, MEM_ALLOC_TENSOR,
                     MEM_ALLOC_TENSOR, ALLOC_TENSOR]
    storage_vars = [b.var for block in after["main"].body.blocks for b in block.bindings
                    if isinstance(b.value, relax.Call) and b.value.op == tvm.ir.Op.get(ALLOC_STORAGE)]
    s0, s1 = storage_vars
    views = [call.args[0] for name, call in ops if name == MEM_ALLOC_TENSOR]
    assert [v.same_as(s0) for v in views] == [True, False, True, False]
    assert [v.same_as(s1) for v in views] == [False, True, False, True]


# ---------------------------------------------------------------------------
# What is not planned
# ---------------------------------------------------------------------------
def test_escaping_and_differently_typed_tensors_are_not_shared():
    bb = relax.BlockBuilder()
    f = bb.add_func(_prim("f", (4,), (4,)), "f")
    g = bb.add_func(_prim("g", (4,), (4,)), "g")
    x = relax.Var("x", _t((4,)))
    with bb.function("main", [x]):
        a0 = bb.emit(_alloc((4,)))
        bb.emit(relax.Call(f, [x, a0]))
        a1 = bb.emit(_alloc((4,), "int32"))  # a different dtype never shares a storage
        bb.emit(relax.Call(g, [a0, a1]))
        a2 = bb.emit(_alloc((4,)))
        bb.emit(relax.Call(f, [x, a2]))
        kept = bb.emit(relax.Tuple([a2, a1]))  # escapes through the returned tuple
        bb.emit_func_output(kept)
    mod = bb.get()
    after = relax.transform.StaticPlanBlockMemory()(mod)
    names = [name for name, _ in _ops(after["main"])
             if name in (ALLOC_STORAGE, MEM_ALLOC_TENSOR, ALLOC_TENSOR)]
    # a0 is planned (its own storage); a1 and a2 escape and keep their allocations.
    assert names == [ALLOC_STORAGE, MEM_ALLOC_TENSOR, ALLOC_TENSOR, ALLOC_TENSOR]


def test_tensor_used_by_another_function_is_not_planned():
    bb = relax.BlockBuilder()
    f = bb.add_func(_prim("f", (4,), (4,)), "f")
    y = relax.Var("y", _t((4,)))
    with bb.function("helper", [y]):
        bb.emit_func_output(y)
    helper = bb.get().get_global_var("helper")
    x = relax.Var("x", _t((4,)))
    with bb.function("main", [x]):
        a0 = bb.emit(_alloc((4,)))
        bb.emit(relax.Call(f, [x, a0]))
        r = bb.emit(relax.Call(helper, [a0]))  # may keep a reference: not planned
        bb.emit_func_output(r)
    mod = bb.get()
    after = relax.transform.StaticPlanBlockMemory()(mod)
    assert after["main"].same_as(mod["main"])


# ---------------------------------------------------------------------------
# Symbolic shapes
# ---------------------------------------------------------------------------
def _symbolic(attrs=None):
    n = tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    f = bb.add_func(_prim("f", (8,), (8,)), "f")
    x = relax.Var("x", _t((n,)))
    with bb.function("main", [x], attrs=attrs):
        a0 = bb.emit(_alloc((n,)))
        bb.emit(relax.Call(f, [x, a0]))
        a1 = bb.emit(_alloc((n,)))
        bb.emit(relax.Call(f, [a0, a1]))
        a2 = bb.emit(_alloc((n,)))
        bb.emit(relax.Call(f, [a1, a2]))
        a3 = bb.emit(_alloc((n,)))
        bb.emit(relax.Call(f, [a2, a3]))
        bb.emit_func_output(a3)
    return bb.get(), n


def _storages(func):
    return [call for name, call in _ops(func) if name == ALLOC_STORAGE]


def test_symbolic_sizes_reuse_provably_equal_storage():
    mod, n = _symbolic()
    after = relax.transform.StaticPlanBlockMemory()(mod)
    storages = _storages(after["main"])
    assert len(storages) == 2  # a2 reuses a0's storage; a3 is the output
    ana = tvm.arith.Analyzer()
    for s in storages:
        assert ana.can_prove_equal(s.args[0].values[0], n * 4)


def test_symbolic_sizes_use_upper_bounds():
    mod, _ = _symbolic({"tir_var_upper_bound": {"n": 32}})
    after = relax.transform.StaticPlanBlockMemory()(mod)
    storages = _storages(after["main"])
    assert [int(s.args[0].values[0]) for s in storages] == [128, 128]


def test_plan_dynamic_output_allocates_the_upper_bound():
    mod, _ = _symbolic({"tir_var_upper_bound": {"n": 32}, "relax.memory_plan_dynamic_func_output": True})
    after = relax.transform.StaticPlanBlockMemory()(mod)
    storages = _storages(after["main"])
    assert [int(s.args[0].values[0]) for s in storages] == [128, 128, 128]
    assert "relax.memory_plan_dynamic_func_output" not in after["main"].attrs


@pytest.mark.parametrize("bound", [-1, 0, "big"])
def test_bad_upper_bound_is_refused_naming_the_variable(bound):
    mod, _ = _symbolic({"tir_var_upper_bound": {"n": bound}})
    with pytest.raises((ValueError, TypeError), match="'n'"):
        relax.transform.StaticPlanBlockMemory()(mod)


def test_branches_are_planned_on_their_own():
    bb = relax.BlockBuilder()
    f = bb.add_func(_prim("f", (4,), (4,)), "f")
    x = relax.Var("x", _t((4,)))
    c = relax.Var("c", relax.TensorStructInfo((), "bool"))

    def branch():
        inner = relax.BlockBuilder()
        with inner.function("tmp", [x, c]):
            a0 = inner.emit(_alloc((4,)))
            inner.emit(relax.Call(f, [x, a0]))
            a1 = inner.emit(_alloc((4,)))
            inner.emit(relax.Call(f, [a0, a1]))
            a2 = inner.emit(_alloc((4,)))
            inner.emit(relax.Call(f, [a1, a2]))
            inner.emit_func_output(a2)
        return inner.get()["tmp"].body

    with bb.function("main", [x, c], attrs={"relax.force_pure": True}):
        r = bb.emit(relax.If(c, branch(), branch()))
        bb.emit_func_output(r)
    after = relax.transform.StaticPlanBlockMemory()(bb.get())
    if_node = [b.value for blk in after["main"].body.blocks for b in blk.bindings if isinstance(b.value, relax.If)][0]
    for seq in (if_node.true_branch, if_node.false_branch):
        names = [b.value.op.name for blk in seq.blocks for b in blk.bindings
                 if isinstance(b.value, relax.Call) and isinstance(b.value.op, tvm.ir.Op)]
        # a0 and a1 get one storage each (both alive in the second call); a2 is the branch's result.
        assert names == [ALLOC_STORAGE, MEM_ALLOC_TENSOR, ALLOC_STORAGE, MEM_ALLOC_TENSOR, ALLOC_TENSOR]


def test_estimate_memory_usage_report():
    after = relax.transform.StaticPlanBlockMemory()(_chain(planned=False))
    report = relax.analysis.estimate_memory_usage(after)
    assert report.splitlines()[:2] == ["Memory usage estimation:", "- Function main:"]
    assert "5 constant-size tensor(s), 176 bytes" in report
    assert "3 constant-size allocation(s), 112 bytes" in report
    assert "reduces constant memory size to 63.6%" in report
    # A function alone is reported as "main"; anything else is refused.
    assert relax.analysis.estimate_memory_usage(after["main"]) == report
    with pytest.raises(TypeError, match="IRModule or a relax.Function"):
        relax.analysis.estimate_memory_usage(3)
