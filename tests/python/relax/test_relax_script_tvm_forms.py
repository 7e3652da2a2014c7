"""TVMScript forms of TVM v0.18's Relax tests that the parser
(src/script/parser/relax) accepts: nested `@R.function` definitions (local
functions and closures), `relax.call_tir(...)` beside `R.call_tir(...)`,
`R.TupleGetItem`, Python tuples as tuple annotations, `if` on a symbolic
condition, and TVM's rule for the annotated return (kept, or refined by a
more precise body). Each is checked against a module built by hand."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir
from tessera.script import ir as I, relax as R, tir as T


def _f32(*shape):
    return relax.TensorStructInfo(shape, "float32")


def test_nested_function_is_a_local_binding():
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        @R.function
        def inner(a: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            s: R.Tensor((2, 3), "float32") = R.add(a, a)
            return s

        gv: R.Tensor((2, 3), "float32") = inner(x)
        return gv

    a = relax.Var("a", _f32(2, 3))
    s = relax.Var("s", _f32(2, 3))
    inner = relax.Function([a], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(s, relax.op.add(a, a))])], s),
                           _f32(2, 3))
    x = relax.Var("x", _f32(2, 3))
    f = relax.Var("inner", inner.struct_info)
    gv = relax.Var("gv", _f32(2, 3))
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(f, inner), relax.VarBinding(gv, relax.Call(f, [x]))])],
                         gv)
    expected = relax.Function([x], body, _f32(2, 3)).with_attr("global_symbol", "main")
    tvm.ir.assert_structural_equal(main, expected)
    # The local function has no global symbol of its own.
    assert main.body.blocks[0].bindings[0].value.attrs.get("global_symbol") is None


def test_nested_function_shares_the_outer_symbolic_variables():
    @R.function
    def main(x: R.Tensor(("n",), "float32")):
        n = T.int64()

        @R.function
        def inner(y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            return y

        out = inner(x)
        return out

    inner = main.body.blocks[0].bindings[0].value
    assert inner.params[0].struct_info.shape[0].same_as(main.params[0].struct_info.shape[0])


def test_nested_closure_lifts_and_runs():
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        @R.function
        def inner(y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            z = R.add(x, y)
            return z

        out = inner(x)
        return out

    inner = main.body.blocks[0].bindings[0].value
    assert relax.analysis.free_vars(inner)[0].same_as(main.params[0])  # x is captured
    lifted = relax.transform.LambdaLift()(tvm.IRModule({"main": main}))
    assert len(lifted.functions) == 2
    ex = relax.build(lifted, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    data = np.arange(4, dtype="float32")
    np.testing.assert_allclose(vm["main"](tvm.nd.array(data)).numpy(), data + data)


def test_nested_definition_must_be_a_relax_function():
    with pytest.raises(tvm.error.ParseError, match="must be an @R.function, not @T.prim_func"):
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            @T.prim_func
            def inner():
                T.evaluate(0)

            return x


_ADDONE = """
@I.ir_module
class Module:
    @T.prim_func
    def addone(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("b"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = Module
        y = {ns}.call_tir(cls.addone, (x,), R.Tensor((4,), dtype="float32"))
        return y
"""


def test_relax_call_tir_is_r_call_tir():
    with_relax = tvm.script.from_source(_ADDONE.format(ns="relax"), {"relax": relax})
    with_r = tvm.script.from_source(_ADDONE.format(ns="R"))
    tvm.ir.assert_structural_equal(with_relax, with_r)
    assert with_r["main"].body.blocks[0].bindings[0].value.op.name == "relax.call_tir"


def test_tuple_get_item_and_python_tuple_annotation():
    @R.function
    def main(t: (R.Tensor((2,), "float32"), R.Tensor((3,), "float32"))) -> R.Tensor((3,), "float32"):
        b = R.TupleGetItem(t, 1)
        return b

    t = relax.Var("t", relax.TupleStructInfo([_f32(2), _f32(3)]))
    b = relax.Var("b", _f32(3))
    expected = relax.Function([t], relax.SeqExpr([relax.BindingBlock([relax.VarBinding(b, relax.TupleGetItem(t, 1))])],
                                                 b), _f32(3)).with_attr("global_symbol", "main")
    tvm.ir.assert_structural_equal(main, expected)
    with pytest.raises(tvm.error.ParseError, match="index 5 out of range"):
        @R.function
        def bad(t: (R.Tensor((2,), "float32"),)):
            b = R.TupleGetItem(t, 5)
            return b


def test_if_on_a_symbolic_condition():
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        if n == 4:
            y = R.add(x, x)
        else:
            y = x
        return y

    cond = main.body.blocks[0].bindings[0].value.cond
    assert isinstance(cond, relax.PrimValue)
    tvm.ir.assert_structural_equal(cond.value, main.params[0].struct_info.shape[0] == 4)
    with pytest.raises(tvm.error.ParseError, match="must be a boolean, got a PrimExpr of type int64"):
        @R.function
        def bad(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            if n + 1:
                y = x
            else:
                y = x
            return y


def test_annotated_return_kept_as_tvm_does():
    # TVM keeps an annotated return that does not fit the body (its tests
    # write `-> R.Tuple` over a tuple of tensors), and refines one the body
    # makes more precise.
    @R.function
    def loose(x: R.Tensor((2,), "float32")) -> R.Tuple:
        return (x, x)

    tvm.ir.assert_structural_equal(loose.ret_struct_info, relax.TupleStructInfo([]))

    @R.function
    def refined(x: R.Tensor((2,), "float32")) -> R.Tensor(ndim=1):
        return x

    tvm.ir.assert_structural_equal(refined.ret_struct_info, _f32(2))


def test_if_branches_are_seq_exprs():
    c = relax.Var("c", relax.TensorStructInfo((), "bool"))
    x = relax.Var("x", _f32(2))
    node = relax.If(c, x, x)
    assert isinstance(node.true_branch, relax.SeqExpr) and node.true_branch.body.same_as(x)
    assert isinstance(node.false_branch, relax.SeqExpr) and node.false_branch.body.same_as(x)
    seq = relax.SeqExpr([], x)
    assert relax.If(c, seq, x).true_branch.same_as(seq)


def test_tuple_get_item_tuple_value():
    t = relax.Tuple([relax.Var("a", _f32(2))])
    assert relax.TupleGetItem(t, 0).tuple_value.same_as(t)


def test_tuple_annotation_takes_a_list():
    @R.function
    def main(t: R.Tuple([R.Tensor((2,), "float32"), R.Tensor((3,), "float32")])):
        return t

    tvm.ir.assert_structural_equal(main.params[0].struct_info, relax.TupleStructInfo([_f32(2), _f32(3)]))


def test_dataflow_block_inside_a_branch():
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        if c:
            with R.dataflow():
                w = R.add(x, x)
                R.output(w)
            q = w
        else:
            q = x
        return q

    then = main.body.blocks[0].bindings[0].value.true_branch
    assert isinstance(then.blocks[0], relax.DataflowBlock)
    tvm.ir.assert_structural_equal(then.blocks[0].bindings[0].value, relax.op.add(main.params[1], main.params[1]))


def test_output_of_a_nested_function_in_a_dataflow_block():
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        with R.dataflow():
            @R.function
            def inner(a: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
                return a

            R.output(inner)
        y = inner(x)
        return y

    binding = main.body.blocks[0].bindings[0]
    assert isinstance(binding.value, relax.Function)
    assert not isinstance(binding.var, relax.DataflowVar)  # R.output made it visible after the block


def test_zero_argument_call_of_the_module_by_its_class_name():
    # `y = Module.f()` at the top of a body looks like a `n = T.int64()`
    # declaration; the class name is only bound once the functions are built.
    @I.ir_module
    class Module:
        @R.function(private=True)
        def f() -> R.Tensor((), "int32"):
            return R.const(1, "int32")

        @R.function
        def main() -> R.Tensor((), "int32"):
            y = Module.f()
            return y

    call = Module["main"].body.blocks[0].bindings[0].value
    assert call.op.same_as(Module.get_global_var("f")) and len(call.args) == 0
