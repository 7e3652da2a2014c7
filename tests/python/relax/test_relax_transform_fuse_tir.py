"""relax.transform.FuseTIR: each called {"Primitive": 1} function of call_tir
bindings becomes one PrimFunc (the callees inlined in order, intermediates
allocated inside) called by one call_tir. Expected modules come from TE
(bb.call_te of the composed computation) or TVMScript and are compared with
tvm.ir.assert_structural_equal; fused modules are run against the unfused
ones. C++: src/relax/transform/fuse_tir.cc."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, topi, tir
from tessera.script import relax as R, tir as T, ir as I


def _t(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)


def _check(before, expected):
    tvm.ir.assert_structural_equal(relax.transform.FuseTIR()(before), expected)


def _run(mod, *arrays):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    out = vm["main"](*[tvm.nd.array(a) for a in arrays])
    return [o.numpy() for o in out] if isinstance(out, (list, tuple)) else out.numpy()


def _primitive(bb, name, params, body, private=True):
    with bb.function(name, params, attrs={"Primitive": 1}, private=private):
        with bb.dataflow():
            gv = body(*params)
        bb.emit_func_output(gv)
    return bb.get().get_global_var(name)


def _main_calling(bb, fused, sinfos, args=None):
    """Adds main(params) calling `fused` once on `args(*params)` (default: the params)."""
    params = [relax.Var(f"x{i}", s) for i, s in enumerate(sinfos)]
    with bb.function("main", params):
        with bb.dataflow():
            gv = bb.emit_output(relax.Call(fused, args(*params) if args else params))
        bb.emit_func_output(gv)
    return bb.get()


def _te_main(fn, sinfos, args=None):
    """main(params) calling the composed TE function `fn` (what FuseTIR should make) on `args(*params)`."""
    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", s) for i, s in enumerate(sinfos)]
    with bb.function("main", params):
        with bb.dataflow():
            gv = bb.emit_output(bb.call_te(fn, *(args(*params) if args else params)))
        bb.emit_func_output(gv)
    return bb.get()


def test_chain_becomes_one_prim_func():
    with_const = lambda x: [x, relax.const(1, "float32")]  # noqa: E731

    def before():
        bb = relax.BlockBuilder()
        x, p0 = relax.Var("x", _t((10, 20))), relax.Var("p0", _t(()))

        def body(x, p0):
            lv0 = bb.emit_te(topi.add, x, p0)
            lv1 = bb.emit_te(topi.exp, lv0)
            return bb.emit_output(bb.call_te(topi.squeeze, lv1))

        return _main_calling(bb, _primitive(bb, "fused_add_exp_squeeze", [x, p0], body), [_t((10, 20))], with_const)

    def expected():
        def fused_add_exp_squeeze(x, p0):
            return topi.squeeze(topi.exp(topi.add(x, p0)))

        return _te_main(fused_add_exp_squeeze, [_t((10, 20))], with_const)

    _check(before(), expected())
    a = np.random.default_rng(0).random((10, 20), dtype=np.float32)
    np.testing.assert_allclose(_run(relax.transform.FuseTIR()(before()), a), np.exp(a + 1), rtol=1e-5, atol=1e-5)


def test_same_prim_func_twice_and_two_calls():
    """One callee inlined twice gets fresh loop/block variables; the fused function serves both calls."""

    def before():
        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((10, 20)))

        def body(x):
            lv1 = bb.emit_te(topi.exp, x)
            lv2 = bb.emit_te(topi.exp, lv1)
            return bb.emit_output(bb.call_te(topi.squeeze, lv2))

        fused = _primitive(bb, "fused_exp_exp_squeeze", [x], body)
        x = relax.Var("x", _t((10, 20)))
        with bb.function("main", [x]):
            with bb.dataflow():
                lv = bb.emit(relax.Call(fused, [x]))
                gv = bb.emit_output(relax.Call(fused, [lv]))
            bb.emit_func_output(gv)
        return bb.get()

    def expected():
        def fused_exp_exp_squeeze(x):
            return topi.squeeze(topi.exp(topi.exp(x)))

        bb = relax.BlockBuilder()
        x = relax.Var("x", _t((10, 20)))
        with bb.function("main", [x]):
            with bb.dataflow():
                lv = bb.emit_te(fused_exp_exp_squeeze, x)
                gv = bb.emit_output(bb.call_te(fused_exp_exp_squeeze, lv))
            bb.emit_func_output(gv)
        return bb.get()

    after = relax.transform.FuseTIR()(before())
    tvm.ir.assert_structural_equal(after, expected())
    names = [b.name_hint for b in _blocks(after["fused_exp_exp_squeeze"])]
    assert len(names) == len(set(names)) == 3
    a = np.random.default_rng(1).random((10, 20), dtype=np.float32) - 4  # exp four times stays finite
    np.testing.assert_allclose(_run(after, a), np.exp(np.exp(np.exp(np.exp(a)))), rtol=1e-5)


def _blocks(prim):
    found = []
    tir.stmt_functor.post_order_visit(prim.body, lambda n: found.append(n) if isinstance(n, tir.Block) else None)
    return [b for b in found if b.name_hint != "root"]


def test_tuple_parameter_and_tuple_result():
    def before():
        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TupleStructInfo([_t((10,)), _t((10,))]))

        def body(x):
            lv0 = bb.emit(relax.TupleGetItem(x, 0))
            lv1 = bb.emit(relax.TupleGetItem(x, 1))
            gv0 = bb.emit_output(bb.call_te(topi.exp, lv0))
            gv1 = bb.emit_output(bb.call_te(topi.add, gv0, lv1))
            return relax.Tuple([gv0, gv1])

        fused = _primitive(bb, "fused_exp_add", [x], body)
        x = relax.Var("x", relax.TupleStructInfo([_t((10,)), _t((10,))]))
        with bb.function("main", [x]):
            with bb.dataflow():
                gv = bb.emit_output(relax.Call(fused, [x]))
            bb.emit_func_output(gv)
        return bb.get()

    def expected():
        def fused_exp_add(a, b):
            e = topi.exp(a)
            return e, topi.add(e, b)

        bb = relax.BlockBuilder()
        x = relax.Var("x", relax.TupleStructInfo([_t((10,)), _t((10,))]))
        with bb.function("main", [x]):
            with bb.dataflow():
                lv0 = bb.emit(relax.TupleGetItem(x, 0))
                lv1 = bb.emit(relax.TupleGetItem(x, 1))
                gv = bb.emit_output(bb.call_te(fused_exp_add, lv0, lv1))
            bb.emit_func_output(gv)
        return bb.get()

    _check(before(), expected())


def test_symbolic_batch_matches_unfused_module():
    @I.ir_module
    class MLP:
        @R.function
        def main(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 8), "float32"), b: R.Tensor((8,), "float32")):
            with R.dataflow():
                gv = R.nn.relu(R.add(R.matmul(x, w), b))
                R.output(gv)
            return gv

    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(MLP))
    fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(mod))
    assert sorted(gv.name_hint for gv in fused.get_global_vars()) == ["fused_matmul_add_relu", "main"]
    prim = fused["fused_matmul_add_relu"]
    assert len(prim.params) == 4  # x, w, b, the result: n comes from x's shape
    rng = np.random.default_rng(2)
    for n in (1, 7):
        arrays = [rng.standard_normal(s).astype("float32") for s in [(n, 16), (16, 8), (8,)]]
        np.testing.assert_allclose(_run(fused, *arrays), _run(MLP, *arrays), rtol=1e-5, atol=1e-5)


def test_dynamic_kernel_specialized_by_static_arguments():
    @I.ir_module
    class Before:
        @T.prim_func(private=True)
        def kernel(a: T.handle, b: T.handle, c: T.handle):
            m, n = T.int64(), T.int64()
            A = T.match_buffer(a, (m * n,), "float32")
            B = T.match_buffer(b, (m,), "float32")
            C = T.match_buffer(c, (m * n,), "float32")
            for i, j in T.grid(m, n):
                with T.block("compute"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi * n + vj] = A[vi * n + vj] * B[vi]

        @R.function(private=True)
        def fused_kernel(x: R.Tensor((12,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((12,), "float32"):
            R.func_attr({"Primitive": 1})
            cls = Before
            with R.dataflow():
                lv = R.call_tir(cls.kernel, (x, y), out_sinfo=R.Tensor((12,), "float32"))
                gv = R.call_tir(cls.kernel, (lv, y), out_sinfo=R.Tensor((12,), "float32"))
                R.output(gv)
            return gv

        @R.function
        def main(x: R.Tensor((12,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((12,), "float32"):
            cls = Before
            with R.dataflow():
                gv = cls.fused_kernel(x, y)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @T.prim_func(private=True)
        def fused_kernel(x: T.Buffer((T.int64(12),), "float32"), y: T.Buffer((T.int64(3),), "float32"),
                         gv: T.Buffer((T.int64(12),), "float32")):
            T.func_attr({"tir.noalias": True})
            lv = T.alloc_buffer((T.int64(12),))
            for i, j in T.grid(T.int64(3), T.int64(4)):
                with T.block("compute"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    lv[vi * T.int64(4) + vj] = x[vi * T.int64(4) + vj] * y[vi]
            for i, j in T.grid(T.int64(3), T.int64(4)):
                with T.block("compute_1"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    gv[vi * T.int64(4) + vj] = lv[vi * T.int64(4) + vj] * y[vi]

        @R.function
        def main(x: R.Tensor((12,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((12,), "float32"):
            cls = Expected
            with R.dataflow():
                gv = R.call_tir(cls.fused_kernel, (x, y), out_sinfo=R.Tensor((12,), "float32"))
                R.output(gv)
            return gv

    # m = 3 from y's shape, then n = 12 / m from m * n.
    _check(Before, Expected)
    x = np.arange(12, dtype="float32")
    y = np.array([1, 2, 3], dtype="float32")
    np.testing.assert_allclose(_run(relax.transform.FuseTIR()(Before), x, y), x * np.repeat(y, 4) ** 2)


def test_unused_prim_funcs_removed_shared_ones_kept_and_duplicates_shared():
    bb = relax.BlockBuilder()

    def body(x):
        lv = bb.emit_te(topi.exp, x)
        return bb.emit_output(bb.call_te(topi.nn.relu, lv))

    f1 = _primitive(bb, "fused_a", [relax.Var("x", _t((4,)))], body)
    f2 = _primitive(bb, "fused_b", [relax.Var("x", _t((4,)))], body)
    x = relax.Var("x", _t((4,)))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv0 = bb.emit(relax.Call(f1, [x]))
            lv1 = bb.emit(relax.Call(f2, [lv0]))
            gv = bb.emit_output(bb.call_te(topi.exp, lv1))  # exp is still called directly
        bb.emit_func_output(gv)
    after = relax.transform.FuseTIR()(bb.get())
    assert sorted(gv.name_hint for gv in after.get_global_vars()) == ["exp", "fused_a", "main"]
    call_tir = tvm.ir.Op.get("relax.call_tir")
    callees = [b.value.args[0].name_hint for b in after["main"].body.blocks[0].bindings if b.value.op == call_tir]
    assert callees == ["fused_a", "fused_a", "exp"]
    a = -np.random.default_rng(3).random(4).astype("float32")
    r = np.exp(np.maximum(np.exp(np.maximum(np.exp(a), 0)), 0))
    np.testing.assert_allclose(_run(after, a), r, rtol=1e-5)


def test_packed_call_in_primitive_function_is_refused():
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t((4,)))
    with bb.function("fused_bad", [x], attrs={"Primitive": 1}, private=True):
        with bb.dataflow():
            lv = bb.emit_te(topi.exp, x)
            gv = bb.emit_output(relax.op.call_dps_packed("ext_fn", [lv], _t((4,))))
        bb.emit_func_output(gv)
    f = bb.get().get_global_var("fused_bad")
    y = relax.Var("y", _t((4,)))
    with bb.function("main", [y]):
        with bb.dataflow():
            gv = bb.emit_output(relax.Call(f, [y]))
        bb.emit_func_output(gv)
    with pytest.raises(ValueError, match=r"fused_bad.*'gv'.*call_tir"):
        relax.transform.FuseTIR()(bb.get())


def test_no_primitive_functions_no_change():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                y = R.call_dps_packed("func_packed_dps", (x,), out_sinfo=R.Tensor((2, 3), "float32"))
                R.output(y)
            return y

    tvm.ir.assert_structural_equal(relax.transform.FuseTIR()(Module), Module)


def test_tuple_result_of_a_multi_output_call_tir():
    def before():
        bb = relax.BlockBuilder()

        def body(x):
            lv = bb.emit_te(topi.exp, x)
            return bb.emit_output(bb.call_te(topi.split, lv, 2, axis=1))

        fused = _primitive(bb, "fused_exp_split", [relax.Var("x", _t((4, 6)))], body)
        return _main_calling(bb, fused, [_t((4, 6))])

    def expected():
        def fused_exp_split(x):
            return topi.split(topi.exp(x), 2, axis=1)

        return _te_main(fused_exp_split, [_t((4, 6))])

    _check(before(), expected())
    a = np.random.default_rng(4).random((4, 6), dtype=np.float32)
    lo, hi = _run(relax.transform.FuseTIR()(before()), a)
    np.testing.assert_allclose(lo, np.exp(a[:, :3]), rtol=1e-5)
    np.testing.assert_allclose(hi, np.exp(a[:, 3:]), rtol=1e-5)


def test_symbolic_dim_passed_as_tir_vars():
    """A dim only a shape argument defines reaches the fused PrimFunc as a trailing scalar (tir_vars)."""

    @I.ir_module
    class Mod:
        @T.prim_func(private=True)
        def fill(out: T.handle, n: T.int64, k: T.int64):
            O = T.match_buffer(out, (n, n), "float32")
            for i, j in T.grid(n, n):
                with T.block("fill"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    O[vi, vj] = T.Cast("float32", vi * n + vj + k)

        @T.prim_func(private=True)
        def add_one(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n, n), "float32")
            B = T.match_buffer(b, (n, n), "float32")
            for i, j in T.grid(n, n):
                with T.block("add"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] + T.float32(1)

        @R.function
        def main(s: R.Shape(["n", "k"])) -> R.Tensor(("n", "n"), "float32"):
            n, k = T.int64(), T.int64()
            cls = Mod
            with R.dataflow():
                lv = R.call_tir(cls.fill, (), out_sinfo=R.Tensor((n, n), "float32"), tir_vars=R.shape([n, k]))
                gv = R.call_tir(cls.add_one, (lv,), out_sinfo=R.Tensor((n, n), "float32"))
                R.output(gv)
            return gv

    mod = relax.transform.AnnotateTIROpPattern()(Mod)
    fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(mod))
    assert _prim_names(fused) == ["fused_fill_add_one"]
    prim = fused["fused_fill_add_one"]
    # n comes with the output buffer's shape, k (in no shape) as a trailing scalar.
    assert len(prim.params) == 2 and prim.params[1].dtype == "int64"
    vm = relax.VirtualMachine(relax.build(fused, target="llvm"), tvm.cpu())
    out = vm["main"](tvm.runtime.ShapeTuple([3, 10])).numpy()
    np.testing.assert_allclose(out, np.arange(9, dtype="float32").reshape(3, 3) + 11)


def _prim_names(mod):
    return sorted(gv.name_hint for gv, f in mod.functions.items() if isinstance(f, tir.PrimFunc))


def test_course_mlp_with_hand_made_primitive_functions():
    """The MLC course's §7.3 flow: fused_matmul_add0/1 written by hand (call_te inside, "Primitive": 1),
    FuseTIR turns them into PrimFuncs of the same names and drops the kernels nothing calls any more."""
    rng = np.random.default_rng(5)
    w0, b0 = rng.standard_normal((16, 32)).astype("float32"), rng.standard_normal(16).astype("float32")
    w1, b1 = rng.standard_normal((4, 16)).astype("float32"), rng.standard_normal(4).astype("float32")
    bb = relax.BlockBuilder()

    def matmul_add(x, w, b):
        return bb.emit_output(bb.call_te(topi.add, bb.emit_te(topi.nn.matmul, x, w), b))

    fused = [_primitive(bb, f"fused_matmul_add{i}", [relax.Var("x", _t((1, k))), relax.Var("w", _t((k, n))),
                                                      relax.Var("b", _t((n,)))], matmul_add, private=False)
             for i, (k, n) in enumerate([(32, 16), (16, 4)])]
    x = relax.Var("x", _t((1, 32)))
    with bb.function("main", [x]):
        with bb.dataflow():
            t0 = bb.emit_te(topi.transpose, relax.const(w0))
            lv0 = bb.emit(relax.Call(fused[0], [x, t0, relax.const(b0)]))
            lv1 = bb.emit_te(topi.nn.relu, lv0)
            t1 = bb.emit_te(topi.transpose, relax.const(w1))
            gv = bb.emit_output(relax.Call(fused[1], [lv1, t1, relax.const(b1)]))
        bb.emit_func_output(gv)
    final = relax.transform.FuseTIR()(bb.get())
    assert sorted(gv.name_hint for gv, f in final.functions.items() if isinstance(f, relax.Function)) == ["main"]
    call_tir = tvm.ir.Op.get("relax.call_tir")
    callees = [b.value.args[0].name_hint for b in final["main"].body.blocks[0].bindings if b.value.op == call_tir]
    assert callees == ["transpose", "fused_matmul_add0", "relu", "transpose1", "fused_matmul_add1"]
    assert _prim_names(final) == sorted(callees)
    a = rng.standard_normal((1, 32)).astype("float32")
    expected = np.maximum(a @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(_run(final, a), expected, rtol=1e-4, atol=1e-4)


def test_call_bound_to_an_intermediate_then_output_becomes_one_binding():
    # main: `lv = fused(x); gv = lv` -> `gv = call_tir(fused, (x,))` (as TVM, whose
    # FuseTIR ends with dead-code elimination).
    bb = relax.BlockBuilder()
    fused = _primitive(bb, "fused_exp_exp", [relax.Var("a", _t((4, 5)))],
                       lambda a: bb.emit_output(bb.call_te(topi.exp, bb.emit_te(topi.exp, a))))
    x = relax.Var("x", _t((4, 5)))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.Call(fused, [x]))
            gv = bb.emit_output(lv)
        bb.emit_func_output(gv)
    def fused_exp_exp(a):
        return topi.exp(topi.exp(a))

    _check(bb.get(), _te_main(fused_exp_exp, [_t((4, 5))]))


def test_nested_tuple_parameter_is_expanded_and_fused():
    # A nested tuple parameter: expanded (ExpandTupleArguments) before fusion;
    # the tuple literals the fused body then rebuilds are read field by field.
    sinfo = relax.TupleStructInfo([_t((6,)), relax.TupleStructInfo([_t((6,)), _t((6,))])])
    bb = relax.BlockBuilder()

    def body(t):
        a = bb.emit(relax.TupleGetItem(t, 0))
        inner = bb.emit(relax.TupleGetItem(t, 1))
        b = bb.emit(relax.TupleGetItem(inner, 0))
        c = bb.emit(relax.TupleGetItem(inner, 1))
        return bb.emit_output(bb.call_te(topi.add, bb.emit_te(topi.multiply, a, b), c))

    fused = _primitive(bb, "fused_multiply_add", [relax.Var("t", sinfo)], body)
    params = [relax.Var(f"p{i}", _t((6,))) for i in range(3)]
    with bb.function("main", params):
        with bb.dataflow():
            arg = relax.Tuple([params[0], relax.Tuple([params[1], params[2]])])
            gv = bb.emit_output(relax.Call(fused, [arg]))
        bb.emit_func_output(gv)
    after = relax.transform.FuseTIR()(bb.get())
    assert [gv.name_hint for gv in after.functions if isinstance(after[gv], tir.PrimFunc)] == ["fused_multiply_add"]
    data = [np.random.rand(6).astype("float32") for _ in range(3)]
    np.testing.assert_allclose(_run(after, *data), data[0] * data[1] + data[2], rtol=1e-6)
