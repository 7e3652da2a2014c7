"""Reductions over an empty axis (issue K2 item 2). The init of a reduction
block used to run only at the first reduction iteration, so a zero-extent
reduction left the output uninitialised. Now sum/prod over an empty axis give
NumPy's identities 0 / 1 (static and symbolic extents, scheduled or not), and
max/min/argmax/argmin over an axis of static extent 0 are errors naming the op
and axis, as in NumPy. Outputs are pre-filled with garbage so a skipped init
is seen."""
import pytest

from .test_codegen_reliability import expect_error, run_ok


@pytest.mark.parametrize("name,identity", [("sum", 0), ("prod", 1)])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("symbolic", [False, True])
def test_topi_sum_prod_over_empty_axis_give_identity(name, identity, dtype, symbolic):
    run_ok(f"""
from tessera import te, topi
n = te.var("n") if {symbolic} else 0
A = te.placeholder((3, n, 4), "{dtype}", name="A")
for axis, keepdims in [(1, False), ((1, 2), True), (None, False)]:
    B = topi.{name}(A, axis=axis, keepdims=keepdims)
    m = tvm.build(te.create_prim_func([A, B]), target="llvm")
    a = np.zeros((3, 0, 4), "{dtype}")
    want = np.{name}(a, axis=axis, keepdims=keepdims, dtype="{dtype}")
    b = tvm.nd.array(np.full(want.shape, 77, "{dtype}"))
    m(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), want)
    assert (want == {identity}).all()
    if {symbolic}:  # the same kernel on a non-empty axis still reduces
        a = np.arange(3 * 2 * 4).reshape(3, 2, 4).astype("{dtype}") % 5 + 1
        want = np.{name}(a, axis=axis, keepdims=keepdims, dtype="{dtype}")
        b = tvm.nd.array(np.full(want.shape, 77, "{dtype}"))
        m(tvm.nd.array(a), b)
        np.testing.assert_allclose(b.numpy(), want, rtol=1e-6)
""")


@pytest.mark.parametrize("schedule", ["none", "split", "split_reorder", "parallel"])
def test_scheduled_symbolic_sum_over_empty_axis(schedule):
    run_ok(f"""
from tessera import te, topi
n = te.var("n")
A = te.placeholder((6, n), "float32", name="A")
B = topi.sum(A, axis=1)
sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
blk = sch.get_block("T_sum")
i, k = sch.get_loops(blk)
if "{schedule}" == "split":
    sch.split(k, factors=[None, 4])
elif "{schedule}" == "split_reorder":
    io, ii = sch.split(i, factors=[None, 4])
    ko, ki = sch.split(k, factors=[None, 3])
    sch.reorder(io, ko, ii, ki)
elif "{schedule}" == "parallel":
    sch.parallel(i)
m = tvm.build(sch.mod, target="llvm")
for cols in [0, 1, 5, 9]:
    a = np.random.default_rng(cols).standard_normal((6, cols)).astype("float32")
    b = tvm.nd.array(np.full(6, 77, "float32"))
    m(tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-6)
""")


@pytest.mark.parametrize("name,identity", [("sum", 0), ("prod", 1)])
def test_relax_sum_prod_over_empty_axis(name, identity):
    run_ok(f"""
from tessera import relax
for shape in [(3, 0), (3, tvm.tir.Var("n", "int64"))]:
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.{name}(x, axis=[1]))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(relax.transform.LegalizeOps()(bb.get()), "llvm"), tvm.cpu())
    res = vm["main"](tvm.nd.array(np.zeros((3, 0), "float32"))).numpy()
    np.testing.assert_array_equal(res, np.full(3, {identity}, "float32"))
""")


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_relax_extremum_over_static_empty_axis_is_an_error(name):
    expect_error(f"""
from tessera import relax
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo((3, 0), "float32"))
with bb.function("main", [x]):
    bb.emit_func_output(bb.emit(relax.op.{name}(x, axis=1)))
""", "ValueError", f"relax.{name}: cannot reduce over axis 1")


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("axis", [0, None])
def test_topi_extremum_over_static_empty_axis_is_an_error(name, axis):
    expect_error(f"""
from tessera import te, topi
A = te.placeholder((0, 3), "float32", name="A")
topi.{name}(A, axis={axis})
""", "ValueError", f"topi.{name}: cannot reduce over axis 0")


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
@pytest.mark.parametrize("schedule", ["none", "split", "parallel"])
def test_topi_extremum_over_symbolic_axis_empty_at_run_time_raises(name, dtype, schedule):
    # The kernel checks the symbolic extent (in the reduction's init): ValueError naming
    # the op, never the identity or garbage; the same kernel on a non-empty axis still
    # matches NumPy.
    run_ok(f"""
from tessera import te, topi
n = te.var("n")
A = te.placeholder((6, n), "{dtype}", name="A")
B = topi.{name}(A, axis=1)
sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
blk = sch.get_block(B.op.name)
i, k = sch.get_loops(blk)
if "{schedule}" == "split":
    sch.split(k, factors=[None, 4])
elif "{schedule}" == "parallel":
    sch.parallel(i)
m = tvm.build(sch.mod, target="llvm")
for cols in [1, 5, 9]:
    a = (np.random.default_rng(cols).integers(-50, 50, (6, cols))).astype("{dtype}")
    b = tvm.nd.array(np.full(6, 77, B.dtype))
    m(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), np.{name}(a, axis=1))
b = tvm.nd.array(np.full(6, 77, B.dtype))
try:
    m(tvm.nd.array(np.zeros((6, 0), "{dtype}")), b)
except ValueError as err:
    assert isinstance(err, tvm.error.TVMError), type(err)
    assert "{name}: cannot reduce over axis 1 of A, which is empty at run time" in str(err), str(err)
else:
    raise AssertionError("no ValueError; got " + repr(b.numpy()))
try:
    getattr(np, "{name}")(np.zeros((6, 0)), axis=1)
except ValueError:
    pass
else:
    raise AssertionError("NumPy accepts it")
""")


_SYMBOLIC_RELAX = """
from tessera import relax
def build_over_symbolic_axis(make):
    # main(x: (3, n)) = make(x) over axis 1, built for llvm and run on the VM
    n = tvm.tir.Var("n", "int64")
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((3, n), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(make(x))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(relax.build(bb.get(), "llvm"), tvm.cpu())
    return lambda a: vm["main"](tvm.nd.array(a)).numpy()
"""


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_relax_extremum_over_symbolic_axis_empty_at_run_time_raises(name):
    axis = "1" if name.startswith("arg") else "[1]"
    run_ok(_SYMBOLIC_RELAX + f"""
run = build_over_symbolic_axis(lambda x: relax.op.{name}(x, axis={axis}))
a = np.random.default_rng(0).standard_normal((3, 7)).astype("float32")
np.testing.assert_array_equal(run(a), np.{name}(a, axis=1))
try:
    run(np.zeros((3, 0), "float32"))
except ValueError as err:
    assert "{name}: cannot reduce over axis 1" in str(err) and "empty at run time" in str(err), str(err)
else:
    raise AssertionError("no ValueError")
""")


@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
def test_relax_sum_mean_prod_over_symbolic_empty_axis_keep_their_results(name):
    run_ok(_SYMBOLIC_RELAX + f"""
import warnings
run = build_over_symbolic_axis(lambda x: relax.op.{name}(x, axis=[1]))
for cols in (0, 4):
    a = np.random.default_rng(cols).standard_normal((3, cols)).astype("float32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns for the mean of an empty slice (nan)
        want = np.{name}(a, axis=1)
    np.testing.assert_allclose(run(a), want, rtol=1e-5)
""")
