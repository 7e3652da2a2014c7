"""Run-time checks emitted by VMShapeLower, through relax.build and the VM:
a wrong shape, dtype or ndim, or two inputs disagreeing on a shared symbolic
dim, raise ValueError/TypeError naming the parameter; derived dims computed by
the generated shape_func reach the result."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax, tir


def _vm(mod):
    try:
        build, vm_cls = relax.build, relax.VirtualMachine
    except (AttributeError, NotImplementedError):
        pytest.skip("relax.build / relax.VirtualMachine are not in this build")
    return vm_cls(build(mod, target="llvm"), tvm.cpu())


def _shared_n_module():
    n = tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((n, 2), "float32"))
    y = relax.Var("y", relax.TensorStructInfo((n,), "float32"))
    with bb.function("main", [x, y]):
        s = bb.emit(relax.ShapeExpr([n + 1, n * 2]))
        bb.emit_func_output(relax.Tuple([y, s]))
    return bb.get()


def _nd(shape, dtype="float32"):
    return tvm.nd.array(np.zeros(shape, dtype=dtype))


def test_consistent_inputs_run_and_derived_dims_are_computed():
    vm = _vm(_shared_n_module())
    y, s = vm["main"](_nd((3, 2)), _nd((3,)))
    assert tuple(int(d) for d in y.shape) == (3,)
    assert [int(d) for d in s] == [4, 6]
    y, s = vm["main"](_nd((5, 2)), _nd((5,)))
    assert [int(d) for d in s] == [6, 10]


def test_inconsistent_symbolic_dim_names_the_parameter():
    vm = _vm(_shared_n_module())
    with pytest.raises(ValueError, match=r"param=y|'y'|\by\b"):
        vm["main"](_nd((3, 2)), _nd((4,)))


def test_wrong_static_dim_names_the_parameter():
    vm = _vm(_shared_n_module())
    with pytest.raises(ValueError, match=r"param=x|'x'|\bx\b"):
        vm["main"](_nd((3, 5)), _nd((3,)))


def test_wrong_dtype_and_ndim_name_the_parameter():
    vm = _vm(_shared_n_module())
    with pytest.raises(TypeError, match=r"param=y|'y'|\by\b"):
        vm["main"](_nd((3, 2)), _nd((3,), "int32"))
    with pytest.raises(ValueError, match=r"param=y|'y'|\by\b"):
        vm["main"](_nd((3, 2)), _nd((3, 1)))
