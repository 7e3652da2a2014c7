"""Structural equality and hashing from Python (tessera.ir.structural), and
block access region inference through its global functions.  Programs are
built with the tessera.tir classes; expected results are written by hand."""
import os
import subprocess
import sys

import pytest

import tessera as tvm
from tessera import tir
from tessera.ir.structural import (assert_structural_equal, get_first_structural_mismatch, structural_equal,
                                   structural_hash)


def _mm_relu(suffix="", k_extent=128, block_name="Y", dtype="float32"):
    """The course's mm_relu, every variable/buffer name suffixed with ``suffix``."""
    A = tir.decl_buffer((128, 128), dtype, "A" + suffix)
    B = tir.decl_buffer((128, 128), dtype, "B" + suffix)
    C = tir.decl_buffer((128, 128), dtype, "C" + suffix)
    Y = tir.decl_buffer((128, 128), dtype, "Y" + suffix)
    i, j, k = (tir.Var(n + suffix, "int32") for n in "ijk")
    vi, vj, vk = (tir.Var("v" + n + suffix, "int32") for n in "ijk")
    ivs = [tir.IterVar(tvm.ir.Range(0, 128), vi, tir.IterVar.DataPar),
           tir.IterVar(tvm.ir.Range(0, 128), vj, tir.IterVar.DataPar),
           tir.IterVar(tvm.ir.Range(0, 128), vk, tir.IterVar.CommReduce)]
    update = tir.BufferStore(Y, Y[vi, vj] + A[vi, vk] * B[vk, vj], [vi, vj])
    init = tir.BufferStore(Y, tir.const(0, dtype), [vi, vj])
    block_y = tir.Block(ivs, [], [], block_name, update, init=init)
    nest_y = tir.For(i, 0, 128, tir.ForKind.SERIAL,
                     tir.For(j, 0, 128, tir.ForKind.SERIAL,
                             tir.For(k, 0, k_extent, tir.ForKind.SERIAL, tir.BlockRealize([i, j, k], True, block_y))))
    i2, j2, vi2, vj2 = (tir.Var(n + suffix, "int32") for n in ("i", "j", "vi", "vj"))
    block_c = tir.Block([tir.IterVar(tvm.ir.Range(0, 128), vi2, tir.IterVar.DataPar),
                         tir.IterVar(tvm.ir.Range(0, 128), vj2, tir.IterVar.DataPar)], [], [], "C",
                        tir.BufferStore(C, tvm.tir.max(Y[vi2, vj2], tir.const(0, dtype)), [vi2, vj2]))
    nest_c = tir.For(i2, 0, 128, tir.ForKind.SERIAL,
                     tir.For(j2, 0, 128, tir.ForKind.SERIAL, tir.BlockRealize([i2, j2], True, block_c)))
    root = tir.Block([], [], [], "root", tir.SeqStmt([nest_y, nest_c]), alloc_buffers=[Y])
    func = tir.PrimFunc([A, B, C], tir.BlockRealize([], True, root))
    return func.with_attr({"global_symbol": "mm_relu", "tir.noalias": True})


def test_alpha_equivalent_functions_are_equal_and_hash_alike():
    f, g = _mm_relu(), _mm_relu(suffix="_x")
    assert structural_equal(f, g)
    assert structural_hash(f) == structural_hash(g)
    mod_f, mod_g = tvm.IRModule.from_expr(f), tvm.IRModule.from_expr(g)
    assert structural_equal(mod_f, mod_g)
    assert structural_hash(mod_f) == structural_hash(mod_g)
    assert_structural_equal(mod_f, mod_g)  # does not raise
    assert get_first_structural_mismatch(f, g) is None


@pytest.mark.parametrize("change, path_end", [
    (dict(k_extent=64), ".body.block.body.seq[0].body.body.extent"),
    (dict(dtype="float16"), ".buffer_map[A].dtype"),
])
def test_single_changes_are_unequal(change, path_end):
    f, g = _mm_relu(), _mm_relu(**change)
    assert not structural_equal(f, g)
    assert structural_hash(f) != structural_hash(g)
    path, _, _, _ = get_first_structural_mismatch(f, g)
    assert path.startswith("root.") and path.endswith(path_end), path


def test_block_names_are_not_compared():
    """As in TVM: block names are neither compared nor hashed."""
    f, g = _mm_relu(), _mm_relu(block_name="Z")
    assert structural_equal(f, g)
    assert structural_hash(f) == structural_hash(g)
    assert not structural_equal(f, _mm_relu(block_name="Z", k_extent=64))


def test_assert_structural_equal_names_the_path_and_both_sides():
    mod_f = tvm.IRModule.from_expr(_mm_relu())
    mod_g = tvm.IRModule.from_expr(_mm_relu(k_extent=64))
    with pytest.raises(ValueError) as excinfo:
        assert_structural_equal(mod_f, mod_g)
    assert isinstance(excinfo.value, tvm.error.TVMValueError)
    message = str(excinfo.value)
    assert 'root.functions["mm_relu"].body.block.body.seq[0].body.body.extent' in message, message
    assert "128" in message and "64" in message, message


def test_free_variables_and_map_free_vars():
    x, y = tir.Var("x", "int32"), tir.Var("x", "int32")
    assert structural_equal(x + 1, x + 1)
    assert not structural_equal(x + 1, y + 1)
    assert structural_equal(x + 1, y + 1, map_free_vars=True)
    assert structural_hash(x + 1, map_free_vars=True) == structural_hash(y + 1, map_free_vars=True)
    with pytest.raises(ValueError, match="free"):
        assert_structural_equal(x + 1, y + 1)
    assert_structural_equal(x + 1, y + 1, map_free_vars=True)
    assert not structural_equal(x, tir.Var("x", "int64"), map_free_vars=True)


def test_runtime_values():
    assert structural_equal([1, 2.5, "a"], [1, 2.5, "a"])
    assert not structural_equal([1, 2], [1, 2, 3])
    assert structural_equal({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert structural_hash({"a": 1, "b": 2}) == structural_hash({"b": 2, "a": 1})
    assert not structural_equal({"a": 1}, {"a": 2})
    assert structural_equal(tvm.tir.IntImm("int32", 3), tvm.tir.IntImm("int32", 3))
    assert not structural_equal(tvm.tir.IntImm("int32", 3), tvm.tir.IntImm("int64", 3))


_HASH_SCRIPT = """
import sys
sys.path.insert(0, {test_dir!r})
from test_structural_equal import _mm_relu
from tessera.ir.structural import structural_hash
junk = [_mm_relu(suffix=str(i)) for i in range({junk})]
print(structural_hash(_mm_relu()))
"""


def test_hash_is_the_same_in_every_run():
    """Hashes of IR without free variables do not depend on addresses: two
    fresh interpreters (allocating differently) agree with this one."""
    test_dir = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(test_dir, "..", "..", "..", "python"), env.get("PYTHONPATH", "")])
    results = []
    for junk in (0, 3):
        out = subprocess.run([sys.executable, "-c", _HASH_SCRIPT.format(test_dir=test_dir, junk=junk)],
                             capture_output=True, text=True, env=env, check=True)
        results.append(int(out.stdout.strip().splitlines()[-1]))
    assert results[0] == results[1] == structural_hash(_mm_relu())


def _regions(regions):
    """[(buffer name, [(min, extent), ...]), ...] with constants as ints and others as str."""
    def show(e):
        return int(e.value) if isinstance(e, tvm.tir.IntImm) else e
    return [(r.buffer.name, [(show(rg.min), show(rg.extent)) for rg in r.region]) for r in regions]


def test_infer_block_access_regions():
    infer = tvm.get_global_func("tir.analysis.InferBlockAccessRegions")
    A = tir.decl_buffer((512,), "float32", "A")
    B = tir.decl_buffer((128,), "float32", "B")
    vi, k = tir.Var("vi", "int32"), tir.Var("k", "int32")
    # for k in range(4): B[vi] = B[vi] + A[vi * 4 + k], with an init: a reduction
    body = tir.For(k, 0, 4, tir.ForKind.SERIAL, tir.BufferStore(B, B[vi] + A[vi * 4 + k], [vi]))
    init = tir.BufferStore(B, tir.const(0, "float32"), [vi])
    block = tir.Block([tir.IterVar(tvm.ir.Range(0, 128), vi, tir.IterVar.DataPar)], [], [], "b", body, init=init)
    reads, writes = infer(block)
    assert [r.buffer.name for r in reads] == ["A"]
    assert [w.buffer.name for w in writes] == ["B"]
    (rng,) = reads[0].region
    assert structural_equal(rng.min, vi * 4)
    assert int(rng.extent) == 4
    (wrng,) = writes[0].region
    assert wrng.min.same_as(vi) and int(wrng.extent) == 1


def test_complete_block_access_regions_fills_marked_blocks():
    complete = tvm.get_global_func("tir.analysis.CompleteBlockAccessRegions")
    A = tir.decl_buffer((16,), "float32", "A")
    C = tir.decl_buffer((16,), "float32", "C")
    i, vi = tir.Var("i", "int32"), tir.Var("vi", "int32")
    block = tir.Block([tir.IterVar(tvm.ir.Range(0, 16), vi, tir.IterVar.DataPar)], [], [], "C",
                      tir.BufferStore(C, A[vi] * 2.0, [vi]), annotations={"tir.script_infer_regions": 3})
    root = tir.Block([], [], [], "root", tir.For(i, 0, 16, tir.ForKind.SERIAL, tir.BlockRealize([i], True, block)))
    func = tir.PrimFunc([A, C], tir.BlockRealize([], True, root))
    done = complete(func)
    inner = done.body.block.body.body.block
    assert _regions(inner.reads) == [("A", [(vi, 1)])]
    assert _regions(inner.writes) == [("C", [(vi, 1)])]
    assert "tir.script_infer_regions" not in dict(inner.annotations)
