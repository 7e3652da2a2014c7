"""Bad input to the one constructor of operator attributes (relax.op.MakeAttrs),
to calls whose attributes are missing or ill-typed, to relax.get_pipeline and
to LegalizeOps(customize_legalize_map): each is a TVMError twin naming the op,
attribute or option, never a crash (each case in a subprocess, harness.py);
the defaults the signature supplies give NumPy's numbers."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax

from .harness import expect_error

PRELUDE = """
from tessera import relax
x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
mk = tvm.get_global_func("relax.op.MakeAttrs")
bb = relax.BlockBuilder()
"""

CASES = [
    ('mk("relax.nonesuch", {})', "ValueError", "relax.nonesuch"),
    ('mk("relax.nn.dropout", [1])', "TypeError", "relax.op.MakeAttrs"),
    ('mk("relax.nn.dropout", {"p": 0.1})', "TypeError", "relax.nn.dropout has no attribute 'p'"),
    ('mk("relax.nn.layer_norm", {})', "ValueError", "relax.nn.layer_norm needs its attribute 'axes'"),
    ('relax.op.nn.dropout(x, rate="high")', "TypeError", "rate"),
    ('bb.normalize(relax.Call(tvm.ir.Op.get("relax.nn.dropout"), [x], {"rate": "high"}))', "TypeError",
     "relax.nn.dropout: attribute 'rate' must be a float"),
    ('bb.normalize(relax.Call(tvm.ir.Op.get("relax.nn.batch_norm"), [x] * 5, {}))', "ValueError",
     "relax.nn.batch_norm: attribute 'axis' is required"),
    ('relax.get_pipeline(target="nvptx")', "ValueError", "neither a CPU target nor a device target"),
    ('relax.get_pipeline("default_build", opt=1)', "TypeError", "target"),
    ('relax.get_pipeline("nonesuch")', "ValueError", "nonesuch"),
    ('relax.transform.LegalizeOps({"relax.nonesuch": print})', "ValueError", "relax.nonesuch"),
    ('relax.transform.LegalizeOps({"relax.add": 1})', "TypeError", "relax.add"),
]


@pytest.mark.parametrize("code, error, match", CASES, ids=[c[0][:40] for c in CASES])
def test_bad_attributes_and_options_raise_naming_the_culprit(code, error, match):
    expect_error(PRELUDE + code, error, match)


def test_customized_legalization_returning_a_non_expression_names_the_op():
    expect_error(PRELUDE + """
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    gv = bb.emit(relax.op.add(x, x))
    bb.emit_func_output(gv)
relax.transform.LegalizeOps({"relax.add": lambda b, call: 3})(bb.get())
""", "TypeError", "relax.add")


def test_signature_defaults_give_numpy_numbers():
    """softmax (axis=-1), layer_norm (epsilon=1e-5) and dropout (rate=0.5,
    identity at inference) built with only the defaults match NumPy."""
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    g = relax.Var("g", relax.TensorStructInfo((3,), "float32"))
    with bb.function("main", [x, g]):
        with bb.dataflow():
            s = bb.emit(relax.op.nn.softmax(x))
            n = bb.emit(relax.op.nn.layer_norm(s, g, g, axes=[1]))
            d = bb.emit(relax.op.nn.dropout(n))
            out = bb.emit_output(relax.TupleGetItem(d, 0))
        bb.emit_func_output(out)
    rng = np.random.default_rng(0)
    xv, gv = rng.standard_normal((2, 3)).astype("float32"), rng.standard_normal(3).astype("float32")
    vm = relax.VirtualMachine(relax.build(bb.get(), target="llvm"), tvm.cpu())
    got = vm["main"](tvm.nd.array(xv), tvm.nd.array(gv)).numpy()
    e = np.exp(xv - xv.max(axis=1, keepdims=True))
    sm = e / e.sum(axis=1, keepdims=True)
    ln = (sm - sm.mean(axis=1, keepdims=True)) / np.sqrt(sm.var(axis=1, keepdims=True) + 1e-5) * gv + gv
    np.testing.assert_allclose(got, ln, rtol=1e-4, atol=1e-4)
