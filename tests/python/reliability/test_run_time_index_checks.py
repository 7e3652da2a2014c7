"""Indices known only at run time are checked by the kernel (issue K2): relax.take's
modes "raise" (NumPy's take(mode="raise"): a negative index counts from the end once)
and "raise_nonnegative" (torch.index_select's rule) make the kernel raise IndexError
naming the op, the index and the axis size (tir.checked_index, reported through the
kernel error path); the PyTorch importer maps x[idx], index_select, embedding and
gather to them, so a bad index raises as in torch instead of reading a clamped row.
Values are compared with NumPy and PyTorch; each case runs in a subprocess. Every case
of take runs on each CPU backend built (llvm, c: the C generator's checked_index)."""
import pytest

import tessera as tvm

from .harness import expect_error, run_case

# The CPU kinds this build has a backend for; TARGET in each case is the running one.
CPU_TARGETS = [k for k in ("llvm", "c") if tvm.get_global_func(f"target.build.{k}", allow_missing=True)]
_KIND = [CPU_TARGETS[0]]


@pytest.fixture(params=CPU_TARGETS)
def cpu_kind(request):
    """Runs the test once per CPU backend (the PyTorch cases, about the importer, run on the first only)."""
    _KIND[0] = request.param
    yield request.param
    _KIND[0] = CPU_TARGETS[0]


def _with_target(code):
    return f"TARGET = {_KIND[0]!r}\n" + code


def _expect_error(code, error, match):
    return expect_error(_with_target(code), error, match)

PRELUDE = """
import numpy as np
import tessera as tvm
from tessera import relax, tir

def build_take(shape, ishape, axis=0, mode="raise", idtype="int64"):
    x = relax.Var("x", relax.TensorStructInfo(shape, "float32"))
    i = relax.Var("i", relax.TensorStructInfo(ishape, idtype))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, i]):
        y = bb.emit(relax.op.take(x, i, axis, mode=mode))
        bb.emit_func_output(y)
    vm = relax.VirtualMachine(relax.build(bb.get(), target=TARGET), tvm.cpu())
    return lambda a, idx: vm["main"](tvm.nd.array(a), tvm.nd.array(np.asarray(idx, idtype))).numpy()
"""


def _ok(code):
    res = run_case(_with_target(code) + "\nprint('CASE-OK')\n", timeout=120)
    assert not res.crashed and res.returncode == 0 and "CASE-OK" in res.stdout, res.describe()


def test_raise_mode_matches_numpy_in_range(cpu_kind):
    _ok(PRELUDE + """
a = np.arange(15, dtype="float32").reshape(5, 3)
for idtype in ("int64", "int32"):
    take = build_take((5, 3), (2, 3), axis=0, idtype=idtype)
    idx = np.array([[4, 0, -1], [-5, 2, 3]])
    np.testing.assert_array_equal(take(a, idx), np.take(a, idx, axis=0, mode="raise"))
take = build_take((5, 3), (4,), axis=1)
np.testing.assert_array_equal(take(a, [2, -3, 0, -1]), np.take(a, [2, -3, 0, -1], axis=1, mode="raise"))
take = build_take((5, 3), (3,), axis=1, mode="raise_nonnegative")
np.testing.assert_array_equal(take(a, [2, 0, 1]), np.take(a, [2, 0, 1], axis=1))
""")


@pytest.mark.parametrize("index", [5, -6, 2**40, -(2**62), 2**63 - 1])
def test_raise_mode_out_of_range_raises_index_error(index, cpu_kind):
    _expect_error(PRELUDE + f"""
take = build_take((5, 3), (3,), axis=0)
try:
    np.take(np.zeros((5, 3)), [{index}], axis=0, mode="raise")
    raise SystemExit("NumPy accepted the index")
except IndexError:
    pass
take(np.zeros((5, 3), "float32"), [0, {index}, 1])
""", "IndexError", f"take along axis 0: index {index} is out of bounds for size 5")


def test_raise_nonnegative_refuses_negative_indices(cpu_kind):
    _expect_error(PRELUDE + """
take = build_take((5, 3), (2,), axis=1, mode="raise_nonnegative")
take(np.zeros((5, 3), "float32"), [0, -1])
""", "IndexError", "take along axis 1: index -1 is out of bounds for size 3")


def test_raise_mode_symbolic_extent_and_empty_axis(cpu_kind):
    _ok(PRELUDE + """
n = tir.Var("n", "int64")
take = build_take((n, 2), (3,), axis=0)
a = np.arange(8, dtype="float32").reshape(4, 2)
np.testing.assert_array_equal(take(a, [3, -4, 1]), np.take(a, [3, -4, 1], axis=0, mode="raise"))
for rows, idx, shown in ((4, [0, 4, 1], "index 4 is out of bounds for size 4"),
                         (0, [0, 0, 0], "index 0 is out of bounds for size 0")):
    try:
        take(np.zeros((rows, 2), "float32"), idx)
    except IndexError as err:
        assert isinstance(err, tvm.error.TVMError) and shown in str(err), str(err)
    else:
        raise AssertionError(f"no IndexError for {idx} on {rows} rows")
""")


def test_raise_mode_constant_indices_checked_at_build(cpu_kind):
    _expect_error(PRELUDE + """
x = relax.Var("x", relax.TensorStructInfo((5, 3), "float32"))
bb = relax.BlockBuilder()
with bb.function("main", [x]):
    bb.emit_func_output(bb.emit(relax.op.take(x, relax.const(np.array([-5, 5]), "int64"), 0, mode="raise")))
relax.build(bb.get(), target=TARGET)
""", "IndexError", "relax.take: index 5 is out of bounds for axis 0 of extent 5")


def test_topi_take_checks_wide_indices_before_narrowing(cpu_kind):
    # A TE tensor's int32 extent must not narrow an int64 index (2**32 would read row 0).
    _expect_error(PRELUDE + """
from tessera import te, topi
a = te.placeholder((5, 3), name="a")
i = te.placeholder((2,), "int64", name="i")
f = tvm.build(te.create_prim_func([a, i, topi.take(a, i, axis=0, mode="raise")]), target=TARGET)
out = tvm.nd.empty((2, 3), "float32")
f(tvm.nd.array(np.ones((5, 3), "float32")), tvm.nd.array(np.array([-5, 4], "int64")), out)
assert (out.numpy() == 1).all()
f(tvm.nd.array(np.ones((5, 3), "float32")), tvm.nd.array(np.array([0, 2**32], "int64")), out)
""", "IndexError", "index 4294967296 is out of bounds for size 5")


def test_raise_mode_uint64_index_past_int64_is_out_of_range(cpu_kind):
    # 2**64 - 1 must not turn into -1 (the last row) on its way to int64.
    _expect_error(PRELUDE + """
take = build_take((5, 3), (2,), axis=0, idtype="uint64")
np.testing.assert_array_equal(take(np.eye(5, 3, dtype="float32"), [4, 0]), np.eye(5, 3)[[4, 0]])
take(np.zeros((5, 3), "float32"), [0, 2**64 - 1])
""", "IndexError", "index 9223372036854775807 is out of bounds for size 5")


def test_unknown_mode_is_refused_naming_the_choices(cpu_kind):
    _expect_error(PRELUDE + """
build_take((5, 3), (2,), mode="nan")
""", "ValueError", "'raise_nonnegative'")


TORCH_PRELUDE = """
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
import tessera as tvm
from tessera import relax
from tessera.relax.frontend.torch import from_fx, from_exported_program

def compiled(mod):
    vm = relax.VirtualMachine(relax.build(mod, target=TARGET), tvm.cpu())
    def run(*args):
        out = vm["main"](*[tvm.nd.array(a) for a in args])
        return (out if isinstance(out, tvm.nd.NDArray) else out[0]).numpy()
    return run

def importers(model, args):
    model = model.eval()
    yield "from_fx", compiled(from_fx(torch.fx.symbolic_trace(model),
                                      [(list(a.shape), str(a.dtype)) for a in args]))
    program = torch.export.export(model, tuple(torch.from_numpy(a) for a in args))
    yield "export", compiled(from_exported_program(program))

def check(model, good, bads):
    x = np.arange(20, dtype="float32").reshape(4, 5)
    for tag, run in importers(model, [x, np.asarray(good, "int64")]):
        for idx in [good] + bads:
            idx = np.asarray(idx, "int64")
            try:
                want = model(torch.from_numpy(x), torch.from_numpy(idx)).numpy()
            except (IndexError, RuntimeError) as err:
                want = err
            try:
                got = run(x, idx)
            except IndexError as err:
                assert isinstance(want, Exception), (tag, idx, "torch accepted it", str(err))
                assert isinstance(err, tvm.error.TVMError), (tag, type(err))
                bad = [int(v) for v in idx.reshape(-1) if not (-4 if NEGATIVE else 0) <= v < 4][0]
                assert f"index {bad} is out of bounds for size 4" in str(err), (tag, str(err))
                continue
            assert not isinstance(want, Exception), (tag, idx, "no error; torch raised", want)
            np.testing.assert_array_equal(got, want, err_msg=f"{tag} {idx}")
"""

@pytest.mark.parametrize("case", ["getitem", "index_select", "embedding_module", "embedding_function", "gather"])
def test_torch_indexing_ops_raise_like_torch(case):
    pytest.importorskip("torch")
    body = {
        "getitem": ("lambda x, i: x[i]", True, "[3, -4, 0]", "[[0, 4, 1], [-5, 0, 0], [2**40, 0, 0]]"),
        "index_select": ("lambda x, i: torch.index_select(x, 0, i)", False, "[3, 0, 1]",
                         "[[0, 4, 1], [-1, 0, 0], [2**40, 0, 0]]"),
        "embedding_function": ("lambda x, i: F.embedding(i, x)", False, "[3, 0, 1]",
                               "[[0, 4, 1], [-1, 0, 0]]"),
        "gather": ("lambda x, i: torch.gather(x, 0, i.reshape(3, 1).expand(3, 5))", False, "[3, 0, 1]",
                   "[[0, 4, 1], [-1, 0, 0]]"),
    }
    if case == "embedding_module":
        _ok(TORCH_PRELUDE + """
NEGATIVE = False
emb = nn.Embedding(4, 5)
table = emb.weight.detach().numpy()
for tag, run in importers(emb, [np.array([3, 0, 1])]):
    np.testing.assert_array_equal(run(np.array([3, 0, 1])), table[[3, 0, 1]])
    for bad in ([0, 4, 1], [-1, 0, 0]):
        try:
            run(np.array(bad))
        except IndexError as err:
            assert f"index {[v for v in bad if not 0 <= v < 4][0]} is out of bounds for size 4" in str(err), str(err)
        else:
            raise AssertionError(f"{tag}: no IndexError for {bad}")
""")
        return
    fn, negative, good, bads = body[case]
    _ok(TORCH_PRELUDE + f"""
NEGATIVE = {negative}
class M(nn.Module):
    def forward(self, x, i):
        return ({fn})(x, i)
check(M(), {good}, {bads})
""")
