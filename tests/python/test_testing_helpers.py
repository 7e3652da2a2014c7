"""tvm.testing (assert_allclose, parameter/parameters/fixture, requires_*
markers, enabled_targets, CompareBeforeAfter, main) and
tvm.tir.schedule.testing.verify_trace_roundtrip, checked against plain
pytest/NumPy expectations; a second pytest run checks what the helpers
generate (test ids, skips)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera as tvm
import tessera.testing
from tessera.script import tir as T
from tessera.tir.schedule.testing import verify_trace_roundtrip, assert_structural_equal_ignore_global_symbol


@T.prim_func
def scale(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_assert_allclose():
    tvm.testing.assert_allclose(np.ones(3), np.ones(3) + 1e-9)
    tvm.testing.assert_allclose(tvm.nd.array(np.ones(3, "float32")), np.ones(3))
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose(np.ones(3), np.ones(3) + 1e-3)
    with pytest.raises(AssertionError):  # shapes differ
        tvm.testing.assert_allclose(np.ones(3), np.ones(4))


def test_assert_prim_expr_equal():
    n = tvm.tir.Var("n", "int32")
    tvm.testing.assert_prim_expr_equal(n + n, n * 2)
    with pytest.raises(ValueError):
        tvm.testing.assert_prim_expr_equal(n + 1, n)


def test_markers_and_targets():
    has_llvm = tvm.get_global_func("target.build.llvm", allow_missing=True) is not None  # TESSERA_USE_LLVM
    assert tvm.testing.requires_llvm.available() == has_llvm
    assert tvm.testing.requires_gpu.available() == bool(tvm.cuda(0).exist)
    assert not tvm.testing.requires_rocm.available()
    targets = [t for t, _ in tvm.testing.enabled_targets()]
    host = tvm.target.default_host().kind.name  # "llvm", or "c" without LLVM
    assert host in targets and ("cuda" in targets) == bool(tvm.cuda(0).exist)
    assert tvm.testing.device_enabled("llvm") == has_llvm and tvm.testing.device_enabled("c")
    assert not tvm.testing.device_enabled("rocm")


def test_verify_trace_roundtrip():
    sch = tvm.tir.Schedule(scale)
    i, j = sch.get_loops("B")
    io, _ = sch.split(i, [None, 16])
    sch.parallel(io)
    sch.vectorize(j)
    new = verify_trace_roundtrip(sch, scale)
    tvm.ir.assert_structural_equal(new.mod, sch.mod)
    assert_structural_equal_ignore_global_symbol(new.mod["main"], sch.mod["main"].with_attr("global_symbol", "x"))
    with pytest.raises(ValueError, match="text_format"):
        verify_trace_roundtrip(sch, scale, text_format="yaml")


def test_verify_trace_roundtrip_detects_a_difference():
    sch = tvm.tir.Schedule(scale)
    sch.split(sch.get_loops("B")[0], [None, 16])
    other = tvm.tir.Schedule(scale)
    other.split(other.get_loops("B")[0], [None, 8])
    with pytest.raises(ValueError):  # replaying `other`'s trace does not give sch.mod
        tvm.ir.assert_structural_equal(verify_trace_roundtrip(other, scale).mod, sch.mod)


def test_without_attr():
    f = scale.with_attr("global_symbol", "g").with_attr("tir.noalias", True)
    g = f.without_attr("global_symbol")
    assert "global_symbol" not in g.attrs and g.attrs["tir.noalias"]
    assert "global_symbol" in f.attrs  # the original is unchanged
    tvm.ir.assert_structural_equal(g.without_attr("missing"), g)
    with pytest.raises(TypeError):
        f.without_attr(3)


_GENERATED = '''
import pytest
import tessera as tvm
import tessera.testing
from tessera.script import tir as T

x = tvm.testing.parameter(1, 2, 3)
a, b = tvm.testing.parameters((1, "one"), (2, "two"))
calls = []

@tvm.testing.fixture(cache_return_value=True)
def costly(x):
    calls.append(x)
    return [x * 10]

def test_param(x, costly):
    assert costly == [x * 10]
    costly.append(0)  # each test gets its own copy

def test_param_again(x, costly):
    assert costly == [x * 10]
    assert calls.count(x) == 1

def test_pairs(a, b):
    assert {1: "one", 2: "two"}[a] == b

@tvm.testing.requires_rocm
def test_skipped():
    raise AssertionError("must not run")

@tvm.testing.requires_llvm
def test_runs():
    pass

@tvm.tir.transform.prim_func_pass(opt_level=0)
def mark(func, mod, ctx):
    return func.with_attr("marked", 1)

class TestMark(tvm.testing.CompareBeforeAfter):
    transform = mark

    def before(A: T.Buffer(1, "int32")):
        A[0] = 42

    def expected(A: T.Buffer(1, "int32")):
        T.func_attr({"marked": 1})
        A[0] = 42

class TestMarkDecorated(tvm.testing.CompareBeforeAfter):
    # @T.prim_func methods, as TVM's own tests write them
    transform = mark

    @T.prim_func
    def before(A: T.Buffer(1, "int32")):
        A[0] = 42

    @T.prim_func
    def expected(A: T.Buffer(1, "int32")):
        T.func_attr({"marked": 1})
        A[0] = 42

class TestMarkWrong(tvm.testing.CompareBeforeAfter):
    transform = mark

    def before(A: T.Buffer(1, "int32")):
        A[0] = 42

    def expected(A: T.Buffer(1, "int32")):
        T.func_attr({"marked": 2})
        A[0] = 42

if __name__ == "__main__":
    tvm.testing.main()
'''


def test_generated_tests(tmp_path):
    path = tmp_path / "test_generated.py"
    path.write_text(textwrap.dedent(_GENERATED))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(tvm.__file__))))
    proc = subprocess.run([sys.executable, str(path), "-q", "-rs", "-p", "no:cacheprovider"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=env)
    out = proc.stdout + proc.stderr
    # 3 + 3 + 2 parametrized, test_runs, TestMark, TestMarkDecorated pass; TestMarkWrong fails;
    # test_skipped skips (and test_runs too in a build without LLVM).
    has_llvm = tvm.testing.requires_llvm.available()
    assert ("1 failed, 11 passed, 1 skipped" if has_llvm else "1 failed, 10 passed, 2 skipped") in out, out
    assert "ROCm" in out and "TestMarkWrong" in out, out
