"""relax.PyExprVisitor / relax.PyExprMutator (python/tessera/relax/expr_functor.py,
src/relax/py_expr_functor.cc): Python hooks over the C++ traversal, checked
against hand-written expected modules and hand-counted visits."""
import pytest

import tessera as tvm
from tessera import relax
from tessera.script import ir as I, relax as R


def _main(mod_cls):
    return mod_cls["main"]


@I.ir_module
class AddChain:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            lv0 = R.add(x, y)
            lv1 = R.multiply(lv0, y)
            gv = R.add(lv1, x)
            R.output(gv)
        return gv


@relax.expr_functor.mutator
class AddToMultiply(relax.PyExprMutator):
    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if call.op == tvm.ir.Op.get("relax.add"):
            return relax.Call(tvm.ir.Op.get("relax.multiply"), call.args)
        return call


def test_mutator_rewrites_add_to_multiply():
    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                lv0 = R.multiply(x, y)
                lv1 = R.multiply(lv0, y)
                gv = R.multiply(lv1, x)
                R.output(gv)
            return gv

    before = _main(AddChain)
    after = AddToMultiply().visit_expr(before)
    tvm.ir.assert_structural_equal(after, Expected["main"])
    # The input is not modified, and the mutator's own hooks are the only ones called back.
    assert [b.value.op.name for b in before.body.blocks[0].bindings] == ["relax.add", "relax.multiply", "relax.add"]
    assert AddToMultiply._overridden_hooks() == ("visit_call_",)


def test_noop_mutator_returns_the_same_function():
    @relax.expr_functor.mutator
    class NoOp(relax.PyExprMutator):
        pass

    func = _main(AddChain)
    assert NoOp().visit_expr(func).same_as(func)
    assert NoOp._overridden_hooks() == ()


@I.ir_module
class ReluModule:
    @R.function
    def main(x: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            lv0 = R.add(x, b)
            lv1 = R.nn.relu(lv0)
            lv2 = R.nn.relu(x)
            gv = R.add(lv1, lv2)
            R.output(gv)
        return gv


@relax.expr_functor.mutator
class ReluOfAddToSilu(relax.PyExprMutator):
    """relu(add(a, b)) -> silu(add(a, b)); other relus stay."""

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if call.op != tvm.ir.Op.get("relax.nn.relu"):
            return call
        arg = self.lookup_binding(call.args[0])
        if isinstance(arg, relax.Call) and arg.op == tvm.ir.Op.get("relax.add"):
            return relax.op.nn.silu(call.args[0])
        return call


def test_mutator_rewrites_relu_of_add_only():
    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            with R.dataflow():
                lv0 = R.add(x, b)
                lv1 = R.nn.silu(lv0)
                lv2 = R.nn.relu(x)
                gv = R.add(lv1, lv2)
                R.output(gv)
            return gv

    tvm.ir.assert_structural_equal(ReluOfAddToSilu().visit_expr(_main(ReluModule)), Expected["main"])


def test_lookup_binding_sees_emitted_bindings_not_parameters():
    seen = {}

    @relax.expr_functor.mutator
    class Recorder(relax.PyExprMutator):
        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            for a in call.args:
                seen[a.name_hint] = self.lookup_binding(a)
            return call

    func = _main(AddChain)
    Recorder().visit_expr(func)
    bindings = func.body.blocks[0].bindings
    assert seen["x"] is None and seen["y"] is None  # parameters have no binding
    assert seen["lv0"].same_as(bindings[0].value)
    assert seen["lv1"].same_as(bindings[1].value)


@I.ir_module
class Everything:
    @R.function
    def main(x: R.Tensor((2,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((2,), "float32"):
        with R.dataflow():
            lv0 = R.add(x, R.const(1.0, "float32"))
            lv1 = (lv0, x)
            lv2 = lv1[0]
            gv = R.multiply(lv2, x)
            R.output(gv)
        s = R.shape([2])
        p = R.prim_value(3)
        t = R.str("hi")
        d = R.dtype("float32")
        y = R.match_cast(gv, R.Tensor((2,), "float32"))
        if c:
            r = R.add(y, x)
        else:
            r = y
        return r


def test_visitor_counts_every_hook():
    @relax.expr_functor.visitor
    class Counter(relax.PyExprVisitor):
        def __init__(self):
            self.counts = {}
            self.defs = []
            self.uses = []

        def bump(self, name):
            self.counts[name] = self.counts.get(name, 0) + 1

        def visit_constant_(self, op):
            self.bump("constant")

        def visit_tuple_(self, op):
            self.bump("tuple")
            super().visit_tuple_(op)

        def visit_var_(self, op):
            self.uses.append(op.name_hint)

        def visit_dataflow_var_(self, op):
            self.uses.append("df:" + op.name_hint)

        def visit_shape_expr_(self, op):
            self.bump("shape")

        def visit_function_(self, op):
            self.bump("function")
            super().visit_function_(op)

        def visit_call_(self, op):
            self.bump("call")
            super().visit_call_(op)

        def visit_seq_expr_(self, op):
            self.bump("seq")
            super().visit_seq_expr_(op)

        def visit_if_(self, op):
            self.bump("if")
            super().visit_if_(op)

        def visit_op_(self, op):
            self.bump(op.name)

        def visit_tuple_getitem_(self, op):
            self.bump("getitem")
            super().visit_tuple_getitem_(op)

        def visit_prim_value_(self, op):
            self.bump("prim")

        def visit_string_imm_(self, op):
            self.bump("str")

        def visit_data_type_imm_(self, op):
            self.bump("dtype")

        def visit_var_binding_(self, binding):
            self.bump("var_binding")
            super().visit_var_binding_(binding)

        def visit_match_cast_(self, binding):
            self.bump("match_cast")
            super().visit_match_cast_(binding)

        def visit_binding_block_(self, block):
            self.bump("block")
            super().visit_binding_block_(block)

        def visit_dataflow_block_(self, block):
            self.bump("dataflow_block")
            super().visit_dataflow_block_(block)

        def visit_var_def_(self, var):
            self.defs.append(var.name_hint)

        def visit_dataflow_var_def_(self, var):
            self.defs.append("df:" + var.name_hint)

    v = Counter()
    v.visit_expr(_main(Everything))
    # Counted by hand: 10 VarBindings (lv0 lv1 lv2 gv s p t d, the true branch's
    # add, the If) and 1 MatchCast; SeqExprs: the body and both branches (the
    # false one has no block); shapes: R.shape([2]) and the match_cast's (2,).
    assert v.counts == {
        "function": 1, "seq": 3, "dataflow_block": 1, "block": 2, "var_binding": 10, "match_cast": 1,
        "call": 3, "relax.add": 2, "relax.multiply": 1, "constant": 1, "tuple": 1, "getitem": 1, "shape": 2,
        "prim": 1, "str": 1, "dtype": 1, "if": 1,
    }
    # The true branch binds its add to a var of its own (gv) and yields it; the If binds `r`.
    assert v.defs == ["x", "c", "df:lv0", "df:lv1", "df:lv2", "gv", "s", "p", "t", "d", "y", "gv", "r"]
    assert v.uses == ["x", "df:lv0", "x", "df:lv1", "df:lv2", "x", "gv", "c", "y", "x", "gv", "y", "r"]


def test_visitor_generic_hooks_and_span():
    @relax.expr_functor.visitor
    class Generic(relax.PyExprVisitor):
        def __init__(self):
            self.kinds, self.bindings, self.blocks, self.var_defs, self.spans = [], 0, 0, 0, 0

        def visit_expr(self, expr):
            self.kinds.append(type(expr).__name__)
            super().visit_expr(expr)  # the default dispatch, not this hook again

        def visit_binding(self, binding):
            self.bindings += 1
            super().visit_binding(binding)

        def visit_binding_block(self, block):
            self.blocks += 1
            super().visit_binding_block(block)

        def visit_var_def(self, var):
            self.var_defs += 1
            super().visit_var_def(var)

        def visit_span(self, span):
            self.spans += 1

    v = Generic()
    v.visit_expr(_main(AddChain))
    # main; its body SeqExpr; 3 calls (each: op, two var args); the body var gv.
    assert v.kinds == ["Function", "SeqExpr", "Call", "Op", "Var", "Var", "Call", "Op", "DataflowVar", "Var",
                       "Call", "Op", "DataflowVar", "Var", "Var"]
    assert (v.bindings, v.blocks, v.var_defs) == (3, 1, 5)
    assert v.spans == len(v.kinds)  # one span visit per expression, as TVM


def test_mutator_var_remap_and_with_struct_info():
    x = relax.Var("x", relax.TensorStructInfo((2,), "float32"))
    z = relax.Var("z", relax.TensorStructInfo((2,), "float32"))

    @relax.expr_functor.mutator
    class RenameX(relax.PyExprMutator):
        def visit_function_(self, func):
            self.set_var_remap(func.params[0].vid, z)
            assert self.get_var_remap(func.params[0].vid).same_as(z)
            assert self.get_var_remap(func.params[1]) is None
            body = self.visit_expr(func.body)
            return relax.Function([z, func.params[1]], body, func.ret_struct_info)

    y = relax.Var("y", relax.TensorStructInfo((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        lv = bb.emit(relax.op.add(x, y))
        bb.emit_func_output(lv)
    after = RenameX().visit_expr(bb.get()["main"])
    call = after.body.blocks[0].bindings[0].value
    assert call.args[0].same_as(z) and call.args[1].same_as(after.params[1])

    m = RenameX()
    same = m.with_struct_info(x, relax.TensorStructInfo((2,), "float32"))
    assert same.same_as(x)
    other = m.with_struct_info(x, relax.TensorStructInfo((3,), "float32"))
    assert not other.same_as(x) and other.name_hint == "x"
    tvm.ir.assert_structural_equal(other.struct_info, relax.TensorStructInfo((3,), "float32"))


def test_mutator_default_var_binding_re_emits_and_remaps():
    """A call whose struct info changes gets a new var; later uses follow it."""

    @relax.expr_functor.mutator
    class SumToMean(relax.PyExprMutator):
        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op == tvm.ir.Op.get("relax.add"):
                return relax.op.sum(call.args[0], axis=[0])
            return call

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor(ndim=-1, dtype="float32"):
            with R.dataflow():
                lv0 = R.add(x, x)
                gv = R.exp(lv0)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor(ndim=-1, dtype="float32"):
            with R.dataflow():
                lv0 = R.sum(x, axis=[0])
                gv = R.exp(lv0)
                R.output(gv)
            return gv

    after = SumToMean().visit_expr(Before["main"])
    tvm.ir.assert_structural_equal(after, Expected["main"])
    assert after.body.blocks[0].bindings[0].var.struct_info.shape[0] == 3


def test_mutator_var_binding_hook_can_drop_and_emit():
    @relax.expr_functor.mutator
    class DropMultiply(relax.PyExprMutator):
        def visit_var_binding_(self, binding):
            if isinstance(binding.value, relax.Call) and binding.value.op == tvm.ir.Op.get("relax.multiply"):
                self.set_var_remap(binding.var.vid, binding.value.args[0])
                return
            super().visit_var_binding_(binding)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                lv0 = R.add(x, y)
                gv = R.add(lv0, x)
                R.output(gv)
            return gv

    tvm.ir.assert_structural_equal(DropMultiply().visit_expr(_main(AddChain)), Expected["main"])


def test_mutator_builder_adds_functions_and_visit_expr_override():
    """A mutator adding module functions through builder_, with a visit_expr
    override that calls the default (no infinite recursion)."""

    @relax.expr_functor.mutator
    class Outline(relax.PyExprMutator):
        def __init__(self, mod):
            super().__init__(mod)
            self.mod = mod
            self.visited = 0

        def visit_expr(self, expr):
            self.visited += 1
            return super().visit_expr(expr)

        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op != tvm.ir.Op.get("relax.multiply"):
                return call
            a = relax.Var("a", call.args[0].struct_info)
            b = relax.Var("b", call.args[1].struct_info)
            bb = relax.BlockBuilder()
            with bb.function("mul", [a, b]):
                out = bb.emit(relax.op.multiply(a, b))
                bb.emit_func_output(out)
            gv = self.builder_.add_func(bb.get()["mul"], "mul")
            return relax.Call(gv, call.args)

        def transform(self):
            for gv, func in self.mod.functions.items():
                if isinstance(func, relax.Function):
                    self.builder_.update_func(gv, self.visit_expr(func))
            return self.builder_.get()

    m = Outline(AddChain)
    out = m.transform()
    assert m.visited > 1
    assert sorted(gv.name_hint for gv in out.get_global_vars()) == ["main", "mul"]
    call = out["main"].body.blocks[0].bindings[1].value
    assert isinstance(call.op, tvm.ir.GlobalVar) and call.op.name_hint == "mul"


def test_mutator_binding_block_and_var_def_hooks():
    renamed = []

    @relax.expr_functor.mutator
    class Rename(relax.PyExprMutator):
        def visit_dataflow_var_def_(self, var):
            new = relax.DataflowVar("t_" + var.name_hint, var.struct_info)
            renamed.append(new.name_hint)
            self.set_var_remap(var.vid, new)
            return new

        def visit_dataflow_block_(self, block):
            return super().visit_dataflow_block_(block)

    after = Rename().visit_expr(_main(AddChain))
    names = [b.var.name_hint for b in after.body.blocks[0].bindings]
    assert names == ["t_lv0", "t_lv1", "gv"] and renamed == ["t_lv0", "t_lv1"]
    assert after.body.blocks[0].bindings[1].value.args[0].name_hint == "t_lv0"


def test_visit_with_new_scope_and_post_order_on_if():
    @relax.expr_functor.mutator
    class AddsInBranches(relax.PyExprMutator):
        def visit_if_(self, op):
            cond = self.visit_expr(op.cond)
            return relax.If(cond, self.visit_with_new_scope(op.true_branch), self.visit_with_new_scope(op.false_branch))

        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op == tvm.ir.Op.get("relax.add"):
                return relax.op.subtract(*call.args)
            return call

    after = AddsInBranches().visit_expr(_main(Everything))
    text = after.script()
    assert "R.subtract(y, x)" in text and "R.add(y, x)" not in text


def test_decorators_check_their_argument():
    with pytest.raises(TypeError, match="subclass of relax.PyExprMutator"):
        relax.expr_functor.mutator(int)
    with pytest.raises(TypeError, match="subclass of relax.PyExprVisitor"):
        relax.expr_functor.visitor(AddToMultiply)


def test_python_expr_functor_dispatch():
    class Names(relax.ExprFunctor):
        def visit_call_(self, op):
            return "call"

        def visit_var_(self, op):
            return "var"

        def visit_dataflow_var_(self, op):
            return "dfvar"

    f = _main(AddChain)
    b = f.body.blocks[0].bindings
    assert [Names().visit_expr(e) for e in (b[0].value, f.params[0], b[0].var)] == ["call", "var", "dfvar"]
    with pytest.raises(NotImplementedError, match="visit_seq_expr_"):
        Names().visit_expr(f.body)


def test_tuner_call_tir_collector_walks_branches():
    """meta_schedule.relax_integration.call_tir_callees (a PyExprVisitor): every
    call_tir site, If branches included, in order."""
    from tessera.meta_schedule.relax_integration import call_tir_callees
    from tessera.script import tir as TS

    @I.ir_module
    class Mod:
        @TS.prim_func
        def k1(a: TS.Buffer((2,), "float32"), b: TS.Buffer((2,), "float32")):
            for i in range(2):
                b[i] = a[i] + TS.float32(1)

        @TS.prim_func
        def k2(a: TS.Buffer((2,), "float32"), b: TS.Buffer((2,), "float32")):
            for i in range(2):
                b[i] = a[i] * TS.float32(2)

        @R.function
        def main(x: R.Tensor((2,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((2,), "float32"):
            cls = Mod
            lv = R.call_tir(cls.k1, (x,), out_sinfo=R.Tensor((2,), "float32"))
            if c:
                r = R.call_tir(cls.k2, (lv,), out_sinfo=R.Tensor((2,), "float32"))
            else:
                r = R.call_tir(cls.k1, (lv,), out_sinfo=R.Tensor((2,), "float32"))

            return r

    assert [gv.name_hint for gv in call_tir_callees(Mod)] == ["k1", "k2", "k1"]


def test_builder_update_func_adds_a_missing_function():
    """What a mutator's transform() does with a fresh builder_: update_func adds the
    function when its GlobalVar is not in the module (as TVM); another GlobalVar of
    a name already taken is refused."""
    bb = relax.BlockBuilder()
    gv = AddChain.get_global_var("main")
    bb.update_func(gv, AddChain["main"])
    assert bb.get()[gv].same_as(AddChain["main"])
    with pytest.raises(ValueError, match="already has another GlobalVar named 'main'"):
        bb.update_func(tvm.ir.GlobalVar("main"), AddChain["main"])
    assert bb.add_func(ReluModule["main"], "main").name_hint == "main1"


def test_mutator_result_with_nested_calls_is_normalized_into_new_bindings():
    """A hook may return a nested call: the mutator's normalizer binds the inner
    call to a new var emitted before the rewritten binding (A-normal form)."""

    @relax.expr_functor.mutator
    class AddToSubNeg(relax.PyExprMutator):
        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op == tvm.ir.Op.get("relax.add"):
                return relax.op.subtract(call.args[0], relax.op.negative(call.args[1]))
            return call

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            with R.dataflow():
                n0 = R.negative(y)
                lv0 = R.subtract(x, n0)
                lv1 = R.multiply(lv0, y)
                n1 = R.negative(x)
                gv = R.subtract(lv1, n1)
                R.output(gv)
            return gv

    after = AddToSubNeg().visit_expr(_main(AddChain))
    tvm.ir.assert_structural_equal(after, Expected["main"])
    assert relax.analysis.well_formed(after)


def test_builder_of_a_module_leaves_that_module_unchanged():
    """PyExprMutator(mod).builder_ adds and updates functions in a copy: the
    caller's module is not changed (copy-on-write, as TVM's BlockBuilder)."""
    before = [gv.name_hint for gv in AddChain.get_global_vars()]
    m = AddToMultiply(AddChain)
    gv = m.builder_.add_func(ReluModule["main"], "relu_main")
    m.builder_.update_func(AddChain.get_global_var("main"), m.visit_expr(AddChain["main"]))
    out = m.builder_.get()
    assert [g.name_hint for g in AddChain.get_global_vars()] == before == ["main"]
    assert [b.value.op.name for b in AddChain["main"].body.blocks[0].bindings][0] == "relax.add"
    assert sorted(g.name_hint for g in out.get_global_vars()) == ["main", "relu_main"] and out[gv] is not None
    assert out["main"].body.blocks[0].bindings[0].value.op.name == "relax.multiply"


def test_decorated_class_is_a_wrapper_with_cls():
    # As TVM: the decorator returns a wrapper; `Wrapper._cls` is the class as
    # written, the one further functors derive from.
    @relax.expr_functor.visitor
    class Counter(relax.PyExprVisitor):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def visit_call_(self, op):
            self.calls += 1
            super().visit_call_(op)

    @relax.expr_functor.visitor
    class Doubler(Counter._cls):
        def visit_call_(self, op):
            self.calls += 1
            super().visit_call_(op)

    call = _main(AddChain).body.blocks[0].bindings[0].value
    counter, doubler = Counter(), Doubler()
    counter.visit_expr(call)
    doubler.visit_expr(call)
    assert (counter.calls, doubler.calls) == (1, 2)
    with pytest.raises(TypeError, match="Inheritance from a decorated object `Leaf`.*`Counter` is decorated"):
        @relax.expr_functor.visitor
        class Leaf(Counter):
            pass


def test_dataflow_var_hook_of_a_mutator_does_not_recurse():
    lv = relax.DataflowVar("lv", relax.TensorStructInfo((2,), "float32"))
    seen = []

    @relax.expr_functor.mutator
    class Logger(relax.PyExprMutator):
        def visit_var_(self, op):
            seen.append("Var")
            return self.visit_expr_post_order(op)

        def visit_dataflow_var_(self, op):
            seen.append("DataflowVar")
            return self.visit_expr_post_order(op)

    assert Logger().visit_expr(lv).same_as(lv)
    assert seen == ["DataflowVar"]
