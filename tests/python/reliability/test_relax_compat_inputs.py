"""Bad inputs around the TVM-compatibility additions of branch xr, each in a
subprocess (harness): operands on different virtual devices, a vdevice of
the wrong kind, nll_loss with a bad reduction or weights, concat(axis=None)
of a 2-D tensor, and relax.build of a call_tir whose tensors do not match its
PrimFunc's buffers (refused at build time by the well-formedness check,
naming the PrimFunc and the buffer; before, the kernel's argument check
refused it only when main was called)."""
from .harness import expect_error, run_case

_PRELUDE = """
from tessera import relax
from tessera.ir import VDevice
def t(shape, dtype="float32", vdev=None, name="x"):
    return relax.Var(name, relax.TensorStructInfo(shape, dtype, vdev))
"""


def test_operands_on_different_vdevices():
    expect_error(_PRELUDE + """
relax.BlockBuilder().normalize(relax.op.add(t((2, 3), vdev=VDevice("llvm")), t((2, 3), vdev=VDevice("cuda"), name="y")))
""", "TypeError", "operator 'relax.add': its tensor arguments are on different virtual devices")


def test_vdevice_of_the_wrong_kind():
    expect_error(_PRELUDE + "t((2, 3), vdev=42)", "TypeError", "vdevice must be a tvm.ir.VDevice or None")


def test_nll_loss_bad_inputs():
    expect_error(_PRELUDE + "relax.op.nn.nll_loss(t((3, 5)), t((3,), 'int64', name='y'), reduction='avg')",
                 "ValueError", 'reduction must be "mean", "sum" or "none"')
    expect_error(_PRELUDE + """
relax.BlockBuilder().normalize(relax.op.nn.nll_loss(t((3, 5)), t((3,), "int64", name="y"), t((), name="w")))
""", "ValueError", "operand 'weights' must be 1-D")


def test_concat_axis_none_of_2d():
    expect_error(_PRELUDE + "relax.BlockBuilder().normalize(relax.op.concat([t((3,)), t((2, 2), name='y')], axis=None))",
                 "ValueError", "with axis None every tensor must be 1-D")


_MISMATCHED = """
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module(check_well_formed=False)
class Module:
    @R.function
    def main(A: R.Tensor([4, 4], "float32")):
        B = R.call_tir(Module.add_one, A, out_sinfo=R.Tensor([64], "float32"))
        return B

    @T.prim_func
    def add_one(A: T.Buffer(16, "float32"), B: T.Buffer(64, "float32")):
        for i in range(64):
            with T.block("compute"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1.0)
"""


def test_build_of_mismatched_call_tir_is_refused():
    res = run_case(f"""
import numpy as np
import tessera as tvm
from tessera import relax
mod = tvm.script.from_source({_MISMATCHED!r})
try:
    ex = relax.build(mod, target="llvm")
except ValueError as err:
    assert "call_tir of PrimFunc 'add_one'" in str(err) and "buffer 'A' of 1 dimensions" in str(err), err
    print("REFUSED")
else:
    vm = relax.VirtualMachine(ex, tvm.cpu())
    out = vm["main"](tvm.nd.array(np.zeros((4, 4), "float32")))
    print("BUILT AND RAN", out.shape)
""")
    assert not res.crashed and res.returncode == 0 and "REFUSED" in res.stdout, res.describe()


def test_struct_info_constructors_refuse_ambiguous_forms():
    # As TVM: a shape and an ndim together (even agreeing) are refused; fields must be a list.
    expect_error("from tessera import relax\nrelax.TensorStructInfo([1, 2], ndim=2)", "ValueError",
                 "give shape or ndim, not both")
    expect_error("from tessera import relax\nrelax.ShapeStructInfo([1, 2], ndim=2)", "ValueError",
                 "give values or ndim, not both")
    expect_error("from tessera import relax\nrelax.TupleStructInfo(1)", "TypeError", "fields must be a list")
    res = run_case("from tessera import relax\nassert relax.FuncStructInfo([], relax.ObjectStructInfo()).derive_func "
                   "is None\nprint('OK')")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
