"""BlockBuilder.call_te's argument forms of TVM: tensors inside lists and
dicts (keyword arguments too), a literal shape (ShapeExpr) and a literal
scalar (PrimValue) entering the TE function as PrimExprs; results against
NumPy through relax.build."""
import numpy as np
import pytest
import tessera as tvm
from tessera import relax, te, topi


def _run(build_body, *arrays):
    params = [relax.Var(f"x{i}", relax.TensorStructInfo(a.shape, str(a.dtype))) for i, a in enumerate(arrays)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        bb.emit_func_output(build_body(bb, *params))
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    return vm["main"](*[tvm.nd.array(a) for a in arrays]).numpy()


def test_tensors_in_lists_and_dicts():
    def te_func(args, args_dict, msg):
        assert msg == "hello"
        a, b = args
        c = args_dict["C"]
        return te.compute(a.shape, lambda i, j: a[i, j] + b[i, j] - c[i, j], name="T_abc")

    x, y, z = (np.random.default_rng(k).standard_normal((3, 4)).astype("float32") for k in range(3))
    out = _run(lambda bb, p, q, r: bb.emit(bb.call_te(te_func, [p, q], {"C": r}, msg="hello")), x, y, z)
    np.testing.assert_allclose(out, x + y - z, rtol=1e-6)


def test_shape_expr_and_prim_value_arguments():
    x = np.arange(12, dtype="float32")
    out = _run(lambda bb, p: bb.emit(bb.call_te(topi.reshape, p, relax.ShapeExpr([3, 4]))), x)
    np.testing.assert_array_equal(out, x.reshape(3, 4))
    out = _run(lambda bb, p: bb.emit(bb.call_te(topi.clip, p, relax.PrimValue(2.0), relax.PrimValue(7.0))), x)
    np.testing.assert_array_equal(out, np.clip(x, 2, 7))


def test_shape_var_argument_is_refused():
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    s = relax.Var("s", relax.ShapeStructInfo((4,)))
    bb = relax.BlockBuilder()
    with pytest.raises(TypeError, match="must be a tensor of known shape"):
        with bb.function("main", [x, s]):
            bb.emit_func_output(bb.emit(bb.call_te(topi.reshape, x, s)))
