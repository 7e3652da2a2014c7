"""Operator fusion (AnnotateTIROpPattern, FuseOps, FuseTIR) on bad or large
input: a primitive function FuseTIR cannot turn into a PrimFunc raises a
ValueError naming the function and the binding; long dataflow blocks fuse
without deep recursion; impure/packed calls are never fused. Each case runs
in a subprocess (harness.py); numbers are checked against NumPy."""
import pytest

from .harness import expect_error, run_case

PRELUDE = """
import numpy as np
import tessera as tvm
from tessera import relax, topi
from tessera.script import relax as R, tir as T, ir as I

def t(shape, dtype="float32"):
    return relax.TensorStructInfo(shape, dtype)

def primitive_module(body, param_sinfo):
    bb = relax.BlockBuilder()
    x = relax.Var("x", param_sinfo)
    with bb.function("fused_f", [x], attrs={"Primitive": 1}, private=True):
        with bb.dataflow():
            gv = bb.emit_output(body(bb, x))
        bb.emit_func_output(gv)
    f = bb.get().get_global_var("fused_f")
    y = relax.Var("y", param_sinfo)
    with bb.function("main", [y]):
        with bb.dataflow():
            gv = bb.emit_output(relax.Call(f, [y]))
        bb.emit_func_output(gv)
    return bb.get()
"""


def _from_source(src):
    """Code defining ``Mod`` from TVMScript text (a subprocess has no source file to read)."""
    return f"\nMod = tvm.script.from_source({src!r})\n"


@pytest.mark.parametrize("body,param,match", [
    # a tensor of unknown shape cannot be a buffer
    ("lambda bb, x: bb.call_te(topi.exp, bb.emit(relax.op.call_pure_packed('f', x, sinfo_args=t((4,)))))",
     "t((4,))", "binding 'lv' is relax.Call (not call_tir)"),
    ("lambda bb, x: relax.op.call_dps_packed('ext', [x], t((4,)))", "t((4,))", "binding 'gv' is relax.Call"),
    ("lambda bb, x: relax.op.call_tir(bb.add_func(tvm.te.create_prim_func([a := tvm.te.placeholder((4,)), "
     "topi.exp(a)]), 'exp'), [x], t((4,)))", "relax.TensorStructInfo(ndim=1, dtype='float32')",
     "parameter 'x' is R.Tensor"),
    ("lambda bb, x: x", "t((4,))", "result 'gv' is a parameter"),
])
def test_fuse_tir_refuses_unfusable_primitive_functions(body, param, match):
    expect_error(PRELUDE + f"""
mod = primitive_module({body}, {param})
relax.transform.FuseTIR()(mod)
""", "ValueError", match)


# A primitive function calling one hand-written PrimFunc `kernel` on x: R.Tensor((4,)).
_ONE_KERNEL = """
@I.ir_module
class Mod:
    @T.prim_func(private=True)
    def kernel(KERNEL_PARAMS):
        for i in range(4):
            with T.block("c"):
                vi = T.axis.spatial(4, i)
                KERNEL_BODY

    @R.function(private=True)
    def fused_f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            gv = R.call_tir(Mod.kernel, (x,), out_sinfo=R.Tensor((4,), "float32"))
            R.output(gv)
        return gv

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            gv = Mod.fused_f(x)
            R.output(gv)
        return gv
"""


@pytest.mark.parametrize("params,body,match", [
    ('a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32"), c: T.Buffer((4,), "float32")',
     "c[vi] = a[vi] + b[vi]", "fused function 'fused_f', binding 'gv' (call_tir of 'kernel'): the PrimFunc has 3 "
     "parameters"),
    ('a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")', "b[vi] = a[vi]",
     "buffer a has dim 0 = 8 but the value passed has 4"),
])
def test_fuse_tir_checks_the_callee_signature(params, body, match):
    src = _ONE_KERNEL.replace("KERNEL_PARAMS", params).replace("KERNEL_BODY", body)
    expect_error(PRELUDE + _from_source(src) + "\nrelax.transform.FuseTIR()(Mod)\n", "ValueError", match)


def test_long_elementwise_chain_fuses_and_runs():
    res = run_case(PRELUDE + """
bb = relax.BlockBuilder()
x = relax.Var("x", t((8,)))
with bb.function("main", [x]):
    with bb.dataflow():
        v = x
        for i in range(400):
            v = bb.emit_te(topi.add, v, relax.const(0.5, "float32"))
        gv = bb.emit_output(v)
    bb.emit_func_output(gv)
mod = relax.transform.AnnotateTIROpPattern()(bb.get())
fused = relax.transform.FuseTIR()(relax.transform.FuseOps()(mod))
prims = [gv for gv, f in fused.functions.items() if isinstance(f, tvm.tir.PrimFunc)]
assert len(prims) == 2, prims  # groups hold at most 256 ops
vm = relax.VirtualMachine(relax.build(fused, target="llvm"), tvm.cpu())
a = np.arange(8, dtype="float32")
np.testing.assert_allclose(vm["main"](tvm.nd.array(a)).numpy(), a + 200.0)
print("OK")
""", timeout=120)
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_impure_block_and_packed_calls_stay_unfused():
    res = run_case(PRELUDE + _from_source("""
@I.ir_module
class Mod:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")):
        a = R.exp(x)
        R.print(a, format="{}")
        b = R.exp(a)
        with R.dataflow():
            c = R.exp(b)
            d = R.call_dps_packed("ext", (c,), out_sinfo=R.Tensor((4,), "float32"))
            e = R.exp(d)
            R.output(e)
        return e
""") + """
mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Mod))
fused = relax.transform.FuseOps()(mod)
tvm.ir.assert_structural_equal(fused, mod)
print("OK")
""")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
