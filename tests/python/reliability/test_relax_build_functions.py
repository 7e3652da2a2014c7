"""What relax.build makes of a module's functions (issue K2, items 5-7):
names are kept exactly (``f.x`` and ``f_x`` are two functions), a returned
constant is a fresh array per call (writing into it changes no later call),
and an ill-formed function (a parameter listed twice) is refused before
building, naming the function and the problem."""
from .harness import expect_error, run_case

PRELUDE = """
import numpy as np
import tessera as tvm
from tessera import relax

def t(*shape):
    return relax.TensorStructInfo(shape, "float32")
"""


def run(code, timeout=120):
    res = run_case(PRELUDE + code, timeout=timeout)
    assert not res.crashed and res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_function_names_are_kept_exactly():
    run("""
bb = relax.BlockBuilder()
names = ["f.x", "f_x", "f-x", "main"]
for k, name in enumerate(names):
    x = relax.Var("x", t(3))
    with bb.function(name, [x]):
        y = bb.emit(relax.op.add(x, relax.const(np.full(3, k, "float32"))))
        bb.emit_func_output(y)
vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
a = np.arange(3, dtype="float32")
for k, name in enumerate(names):
    np.testing.assert_array_equal(vm[name](tvm.nd.array(a)).numpy(), a + k, err_msg=name)
print("OK")
""")


def test_returned_constant_is_a_fresh_array_per_call():
    run("""
c = np.arange(6, dtype="float32").reshape(2, 3)
bb = relax.BlockBuilder()
x = relax.Var("x", t(2, 3))
with bb.function("main", [x]):
    bb.emit_func_output(relax.Tuple([relax.const(c), relax.const(c[0])]))
x = relax.Var("x", t(2, 3))
with bb.function("single", [x]):
    bb.emit_func_output(relax.const(c))
vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
arg = tvm.nd.array(np.zeros((2, 3), "float32"))
for name in ("main", "single"):
    first = vm[name](arg)
    arrays = list(first) if name == "main" else [first]
    for r in arrays:
        r.copyfrom(np.full(r.shape, -7, "float32"))
    again = vm[name](arg)
    again = list(again) if name == "main" else [again]
    np.testing.assert_array_equal(again[0].numpy(), c, err_msg=name)
    if name == "main":
        np.testing.assert_array_equal(again[1].numpy(), c[0])
print("OK")
""")


def test_parameter_listed_twice_is_refused():
    expect_error(PRELUDE + """
x = relax.Var("x", t(3))
f = relax.Function([x, x], relax.SeqExpr([], x), t(3))
mod = tvm.IRModule({"dup": f.with_attr("global_symbol", "dup")})
assert not relax.analysis.well_formed(mod)
relax.build(mod, target="llvm")
""", "ValueError", "relax.build: the module is not well formed: function 'dup', parameter 'x': var 'x' is defined "
                   "more than once")


def test_functions_are_exported_under_their_global_var_names():
    """As TVM's AttachGlobalSymbol: a function's old "global_symbol" is replaced by
    its GlobalVar's name, so two functions given the same symbol cannot clash and
    IRModule({"main": f}) runs as "main" whatever f's symbol said."""
    run("""
bb = relax.BlockBuilder()
for k, name in enumerate(("a", "b")):
    x = relax.Var("x", t(3))
    with bb.function(name, [x], attrs={"global_symbol": "same"}, private=True):
        bb.emit_func_output(bb.emit(relax.op.add(x, relax.const(np.full(3, k, "float32")))))
vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
a = np.arange(3, dtype="float32")
np.testing.assert_array_equal(vm["a"](tvm.nd.array(a)).numpy(), a)
np.testing.assert_array_equal(vm["b"](tvm.nd.array(a)).numpy(), a + 1)
try:
    vm["same"]
    raise SystemExit("an old symbol is still exported")
except AttributeError:
    pass
f = bb.get()["a"]
vm = relax.VirtualMachine(relax.build(tvm.IRModule({"main": f}), target="llvm"), tvm.cpu())
np.testing.assert_array_equal(vm["main"](tvm.nd.array(a)).numpy(), a)
print("OK")
""")
