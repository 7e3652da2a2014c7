"""A Tessera built without LLVM (CMake TESSERA_USE_LLVM=OFF, e.g. on a GPU machine):
target "llvm" is refused with a message naming the build option and target "c";
everything that defaults to the host (tvm.build, relax.build, tvm.compile,
relay.build, tvm.testing's targets) uses "c" and matches NumPy. In a build with
LLVM each case first removes the "target.build.llvm" backend in its subprocess,
which is what such a build lacks."""
import pytest

from .harness import expect_error, run_case

WITHOUT_LLVM = """
import numpy as np
import tessera as tvm
from tessera import relax, te
tvm._ffi.registry.remove_global_func("target.build.llvm")  # as in a TESSERA_USE_LLVM=OFF build
A = te.placeholder((6,), "float32", name="A")
prim = te.create_prim_func([A, te.compute((6,), lambda i: A[i] * 3.0 + 1.0, name="B")])
a = np.arange(6, dtype="float32")
"""


def _ok(code):
    res = run_case(WITHOUT_LLVM + code + "\nprint('CASE-OK')\n", timeout=120)
    assert not res.crashed and res.returncode == 0 and "CASE-OK" in res.stdout, res.describe()


@pytest.mark.parametrize("call", ["tvm.build(prim, target='llvm')", "tvm.build(prim, target='llvm -num-cores=2')",
                                  "relax.build(tvm.IRModule({'main': prim}), target='llvm')"])
def test_target_llvm_is_refused_naming_the_option_and_c(call):
    expect_error(WITHOUT_LLVM + call, "NotImplementedError",
                 "target kind 'llvm' is not built into this Tessera: it was built without LLVM (CMake option "
                 "-DTESSERA_USE_LLVM=OFF); use target \"c\"")


def test_host_defaults_are_c_and_match_numpy():
    _ok("""
assert tvm.target.default_host().kind.name == "c"
lib = tvm.build(prim)
assert lib.type_key == "c"
b = tvm.nd.empty((6,), "float32")
lib(tvm.nd.array(a), b)
np.testing.assert_allclose(b.numpy(), a * 3 + 1)
lib = tvm.compile(prim)
lib(tvm.nd.array(a), b)
np.testing.assert_allclose(b.numpy(), a * 3 + 1)
x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    bb.emit_func_output(bb.emit(relax.op.add(relax.op.exp(x), x)))
vm = relax.VirtualMachine(relax.build(bb.get()), tvm.cpu())
xs = a.reshape(2, 3)
np.testing.assert_allclose(vm["main"](tvm.nd.array(xs)).numpy(), np.exp(xs) + xs, rtol=1e-5)
assert [t for t, _ in tvm.testing.enabled_targets()] == ["c"]
assert not tvm.testing.requires_llvm.available() and not tvm.testing.device_enabled("llvm")
""")


def test_relay_build_defaults_to_c():
    _ok("""
from tessera import relay
from tessera.contrib import graph_executor
x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    bb.emit_func_output(bb.emit(relax.op.nn.relu(x)))
lib = relay.build(bb.get())
m = graph_executor.GraphModule(lib["default"](tvm.cpu()))
xs = a.reshape(2, 3) - 2.5
m.set_input("x", xs)
m.run()
np.testing.assert_allclose(m.get_output(0).numpy(), np.maximum(xs, 0))
""")
