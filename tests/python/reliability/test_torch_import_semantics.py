"""PyTorch semantics the importers (relax.frontend.torch.from_fx / from_exported_program)
must keep, checked against PyTorch itself: integer and bool dtypes (sum accumulates in
int64, bool add/mul are or/and, bool sub and neg raise, true division of integers gives
float32, half-precision sums accumulate in float32), in-place writes through views and
aliases read after a write, and negative tensor indices. Each compiled model runs on the
Relax VM in a subprocess (harness.run_case), since a wrong gather could read any memory."""
import pytest

from . import harness

torch = pytest.importorskip("torch")

_PRELUDE = """
import json
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
import tessera as tvm
from tessera import relax
from tessera.relax.frontend.torch import from_fx, from_exported_program

def run(mod, *args):
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    out = vm["main"](*[tvm.nd.array(a) for a in args])
    if isinstance(out, tvm.nd.NDArray):
        out = [out]
    return [o.numpy() for o in out]

def expected(model, *args):
    with torch.no_grad():
        out = model(*[torch.from_numpy(a.copy()) for a in args])
    if isinstance(out, torch.Tensor):
        out = [out]
    return [o.numpy() for o in out]

def compare(tag, got, want):
    assert len(got) == len(want), (tag, len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, f"{tag} output {i}: dtype {g.dtype}, torch {w.dtype}"
        assert g.shape == w.shape, f"{tag} output {i}: shape {g.shape}, torch {w.shape}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g.astype("float64"), w.astype("float64"), rtol=1e-3, atol=1e-3,
                                       err_msg=f"{tag} output {i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{tag} output {i}")

def refused(convert, error, *fragments):
    # convert() raises error (a builtin class): a TVMError whose message holds every fragment
    try:
        convert()
    except error as err:
        assert isinstance(err, tvm.error.TVMError), (type(err), err)
        assert all(f in str(err) for f in fragments), (fragments, str(err))
    else:
        raise AssertionError(f"no {error.__name__} (expected one naming {fragments})")

def check_both(model, *args, exports=True):
    # the model imported by from_fx and (exports) from torch.export's program and its
    # run_decompositions(), each run on the VM and compared with torch eager
    model = model.eval()
    want = expected(model, *args)
    gm = torch.fx.symbolic_trace(model)
    compare("from_fx", run(from_fx(gm, [(list(a.shape), str(a.dtype)) for a in args]), *args), want)
    if not exports:
        return
    tensors = tuple(torch.from_numpy(a.copy()) for a in args)
    for tag, program in (("export", torch.export.export(model, tensors)),
                         ("export+decompose", torch.export.export(model, tensors).run_decompositions())):
        compare(tag, run(from_exported_program(program), *args), want)
"""


def _run(body, timeout=120):
    res = harness.run_case(_PRELUDE + body + "\nprint('CASE-OK')\n", timeout=timeout)
    assert not res.crashed and res.returncode == 0 and "CASE-OK" in res.stdout, res.describe()
    return res


# --------------------------------------------------------------------------------------
# integer and bool dtypes
# --------------------------------------------------------------------------------------
def test_arithmetic_and_sum_follow_torch_dtypes():
    _run("""
class M(nn.Module):
    def forward(self, x, y):
        return (x.sum(), x.sum(1), torch.sum(x, 0, keepdim=True), x + y, x * y, x - y, x + 3, 2 * x,
                x - 1, x / y, x + 2.5, y * 0.5, torch.add(x, y, alpha=2))

rng = np.random.default_rng(0)
for dtype in ("int8", "int32", "int64", "float16", "float32"):
    x = rng.integers(-100, 100, size=(6, 40)).astype(dtype)
    y = rng.integers(1, 5, size=(6, 40)).astype(dtype)
    check_both(M(), x, y, exports=dtype in ("int8", "float16"))
""")


def test_bool_arithmetic_is_logical():
    _run("""
class M(nn.Module):
    def forward(self, a, b):
        return (a + b, a * b, a.sum(), a.sum(0), a + 1, a * 2.5, a + True, torch.mul(a, b), a / b.float().add(1))

rng = np.random.default_rng(1)
a = rng.integers(0, 2, size=(5, 7)).astype(bool)
b = rng.integers(0, 2, size=(5, 7)).astype(bool)
a[0, 0] = b[0, 0] = True  # True + True is True (or), never False (xor)
check_both(M(), a, b)
""")


@pytest.mark.parametrize("expr, match", [("a - b", "subtract of bool"), ("-a", "negation of a bool")])
def test_bool_sub_and_neg_raise_like_torch(expr, match):
    a = torch.ones(3, dtype=torch.bool)
    with pytest.raises(RuntimeError):  # torch refuses them too
        eval(expr, {"a": a, "b": a})  # pylint: disable=eval-used
    _run(f"""
class M(nn.Module):
    def forward(self, a, b):
        return {expr}
refused(lambda: from_fx(torch.fx.symbolic_trace(M()), [([3], "bool"), ([3], "bool")]), TypeError, {match!r},
        "fx node")
""")


def test_mean_of_integers_raises_like_torch():
    with pytest.raises(RuntimeError):
        torch.ones(3, dtype=torch.int32).mean()
    _run("""
class M(nn.Module):
    def forward(self, x):
        return x.mean(), x.mean(dtype=torch.float32)
refused(lambda: from_fx(torch.fx.symbolic_trace(M()), [([3], "int32")]), TypeError, "mean of a int32")
class N(nn.Module):
    def forward(self, x):
        return x.mean(dtype=torch.float32), x.sum(dtype=torch.float32)
check_both(N(), np.arange(12, dtype="int32").reshape(3, 4))
""")


def test_half_sums_accumulate_in_float32():
    """relax.op.sum / mean of float16 (the op itself, not only the importer): 4,096 ones
    sum to 4,096 (float16 accumulation stops at 2,048)."""
    _run("""
from tessera.relax import op as rop
for n in (4096, 10000):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo([n], "float16"))
    with bb.function("main", [x]):
        with bb.dataflow():
            s = bb.emit(rop.sum(x))
            m = bb.emit(rop.mean(x, axis=[0], keepdims=True))
            out = bb.emit_output(relax.Tuple([s, m]))
        bb.emit_func_output(out)
    data = np.ones(n, dtype="float16")
    data[::3] = 0.5
    got_sum, got_mean = run(bb.get(), data)
    want = torch.from_numpy(data).sum()
    assert got_sum.dtype == np.float16 and got_sum == want.numpy(), (n, got_sum, want)
    assert got_mean.dtype == np.float16 and abs(float(got_mean[0]) - float(data.astype('float64').mean())) < 1e-3
class M(nn.Module):
    def forward(self, x):
        return x.sum(), x.mean(0)
check_both(M(), np.ones((4096, 2), dtype="float16"))
""")


# --------------------------------------------------------------------------------------
# in-place writes through views
# --------------------------------------------------------------------------------------
_INPLACE_MODELS = """
class WriteThroughView(nn.Module):
    def forward(self, x):
        y = x * 1
        y.view(-1).add_(1)
        return y

class ReluUnderscore(nn.Module):
    def forward(self, x):
        y = x - 0.5
        torch.relu_(y)
        return y

class AliasReadAfterWrite(nn.Module):
    def forward(self, x):
        y = x * 2
        v = y[:, 1:]
        w = y.t()
        y.mul_(3)
        return v + 0, w * 1, y

class StridedWrite(nn.Module):
    def forward(self, x):
        y = x + 0
        y.t()[1].add_(10)
        y[:, ::2].mul_(-1)
        y[0].sub_(y[1])
        return y

class InplaceModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        y = x - 0.5
        z = y.view(3, 4)
        self.act(z[1:])
        return y, z

class ViewOfViewWrite(nn.Module):
    def forward(self, x):
        y = x.clone()
        a = y.view(2, 6)
        b = a[:, 2:5].unsqueeze(0)
        b.add_(100)
        return a + 0, y, b.squeeze(0)

class InputWrite(nn.Module):
    def forward(self, x):
        x.view(-1)[2:5].mul_(0)
        return x + 1
"""


def test_inplace_writes_through_views_match_torch():
    _run(_INPLACE_MODELS + """
x = np.random.default_rng(2).standard_normal((3, 4)).astype("float32")
failures = []
for model in (WriteThroughView, ReluUnderscore, AliasReadAfterWrite, StridedWrite, InplaceModule, ViewOfViewWrite,
              InputWrite):
    try:
        check_both(model(), x)
    except AssertionError as err:
        failures.append(f"{model.__name__}: {err}")
assert not failures, "\\n".join(failures)
""")


def test_inplace_write_to_model_state_is_refused():
    _run("""
class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        self.count.add_(x.sum())  # traced (an operand is the input): a graph node writes the buffer
        return x + self.count

for tag, convert in (("fx", lambda m: from_fx(torch.fx.symbolic_trace(m), [([3], "float32")])),
                     ("export", lambda m: from_exported_program(torch.export.export(m, (torch.ones(3),)))),
                     ("export+decompose", lambda m: from_exported_program(
                         torch.export.export(m, (torch.ones(3),)).run_decompositions()))):
    refused(lambda: convert(Counter().eval()), NotImplementedError, "count", "state")
""")


def test_inplace_write_through_expanded_view_is_refused():
    _run("""
class M(nn.Module):
    def forward(self, x):
        y = x * 1
        y.expand(3, 4).add_(1)
        return y
refused(lambda: from_fx(torch.fx.symbolic_trace(M()), [([1, 4], "float32")]), ValueError, "overlap", "add_")
""")


# --------------------------------------------------------------------------------------
# tensor indices
# --------------------------------------------------------------------------------------
def test_negative_tensor_indices_wrap_once():
    _run("""
class M(nn.Module):
    def forward(self, x, idx):
        return x[idx], x[:, idx]

x = np.arange(20, dtype="float32").reshape(4, 5) * 1.5
for dtype in ("int64", "int32"):
    idx = np.array([-1, 0, -4, 3, -2, 1], dtype=dtype)[:4]
    model = M().eval()
    want = expected(model, x, idx.astype("int64"))
    mod = from_fx(torch.fx.symbolic_trace(model), [([4, 5], "float32"), ([4], dtype)])
    compare("from_fx " + dtype, run(mod, x, idx), want)
""")


def test_constant_index_out_of_range_is_refused_at_import():
    _run("""
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([0, 7, -1]))

    def forward(self, x):
        return x[self.idx]
refused(lambda: from_fx(torch.fx.symbolic_trace(M()), [([4, 5], "float32")]), IndexError, "index 7", "size 4")
""")


def test_run_time_index_out_of_range_raises():
    _run("""
class M(nn.Module):
    def forward(self, x, idx):
        return x[idx]

x = np.arange(20, dtype="float32").reshape(4, 5)
mod = from_fx(torch.fx.symbolic_trace(M()), [([4, 5], "float32"), ([2], "int64")])
for bad in ([0, 4], [-5, 1], [2**40, 0]):
    with_torch = None
    try:
        M()(torch.from_numpy(x), torch.tensor(bad))
    except IndexError as err:
        with_torch = err
    assert with_torch is not None, bad
    shown = [v for v in bad if not -4 <= v < 4][0]
    refused(lambda: run(mod, x, np.array(bad, dtype="int64")), IndexError, f"index {shown} is out of bounds for size 4")
""")
