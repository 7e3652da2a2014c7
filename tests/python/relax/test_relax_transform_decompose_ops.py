"""relax.transform.DecomposeOpsForInference: batch_norm becomes its inference
arithmetic (no batch_norm call left), the result matches NumPy, other functions are
left alone with func_name."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax


def _module(axis=1, shape=(2, 3, 4, 5)):
    bb = relax.BlockBuilder()
    c = shape[axis]
    for name in ("main", "other"):
        x = relax.Var("x", relax.TensorStructInfo(list(shape), "float32"))
        params = [relax.Var(n, relax.TensorStructInfo([c], "float32")) for n in ("g", "b", "m", "v")]
        with bb.function(name, [x] + params):
            with bb.dataflow():
                out = bb.emit(relax.op.nn.batch_norm(x, *params, axis=axis, epsilon=1e-3))
                gv = bb.emit_output(bb.emit(relax.TupleGetItem(out, 0)))
            bb.emit_func_output(gv)
    return bb.get()


def _count(func, name):
    return func.script().count(name)


@pytest.mark.parametrize("axis,shape", [(1, (2, 3, 4, 5)), (3, (2, 3, 4, 5)), (1, (4, 6))])
def test_batch_norm_decomposed_matches_numpy(axis, shape):
    mod = relax.transform.DecomposeOpsForInference()(_module(axis, shape))
    assert _count(mod["main"], "R.nn.batch_norm") == 0 and _count(mod["other"], "R.nn.batch_norm") == 0
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype("float32")
    c = shape[axis]
    g, b, m = (rng.standard_normal(c).astype("float32") for _ in range(3))
    v = rng.uniform(0.5, 1.5, c).astype("float32")
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    got = vm["main"](*[tvm.nd.array(a) for a in (x, g, b, m, v)]).numpy()
    bshape = [1] * len(shape)
    bshape[axis] = c
    expected = (x - m.reshape(bshape)) / np.sqrt(v.reshape(bshape) + 1e-3) * g.reshape(bshape) + b.reshape(bshape)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_func_name_limits_the_rewrite():
    mod = relax.transform.DecomposeOpsForInference("other")(_module())
    assert _count(mod["main"], "R.nn.batch_norm") == 1 and _count(mod["other"], "R.nn.batch_norm") == 0
    with pytest.raises(TypeError):
        relax.transform.DecomposeOpsForInference(3)
