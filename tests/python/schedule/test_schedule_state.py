"""tvm.tir.ScheduleState: the sref tree (parents, seq_index, identity),
replace with copy-on-write (in place when the state alone holds the path,
copies when a function or statement is held elsewhere), sref reuse and
expiry, the sref-tree check of debug_mask, bad inputs; Node pickling."""
import copy
import gc
import pickle

import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T


def _two_stage():
    @T.prim_func
    def two_stage(A: T.Buffer((8, 4), "float32"), C: T.Buffer((8, 4), "float32")):
        B = T.alloc_buffer((8, 4))
        for i, j in T.grid(8, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for i in range(8):
            with T.block("C"):
                vi = T.axis.remap("S", [i])
                for j in range(4):
                    with T.block("D"):
                        vj = T.axis.remap("S", [j])
                        C[vi, vj] = B[vi, vj] * T.float32(2)

    return two_stage


def _state(**kwargs):
    return tir.ScheduleState(_two_stage(), debug_mask="all", **kwargs)


def test_sref_tree():
    s = _state()
    root = s.mod["main"].body.block
    loop_i = root.body[0]
    loop_j = loop_i.body
    block_b = loop_j.body.block
    r_root, r_i, r_j, r_b = (s.get_sref(x) for x in (root, loop_i, loop_j, block_b))
    assert r_root.parent is None and r_root.stmt.same_as(root)
    assert r_i.parent.same_as(r_root) and r_j.parent.same_as(r_i) and r_b.parent.same_as(r_j)
    assert (r_root.seq_index, r_i.seq_index, r_j.seq_index, r_b.seq_index) == (-1, 0, -1, -1)
    assert s.get_sref(root.body[1]).seq_index == 1
    # the same sref object each time
    assert s.get_sref(loop_i).__hash__() == r_i.__hash__()
    block_d = root.body[1].body.block.body.body.block
    assert s.get_sref(block_d).parent.stmt.same_as(root.body[1].body.block.body)
    other = _two_stage().body.block
    assert s.get_sref(other) is None


def test_replace_in_place_when_the_state_alone_holds_the_path():
    s = _state()
    func_addr = s.mod["main"].__hash__()
    seq_addr = s.mod["main"].body.block.body.__hash__()
    sref = s.get_sref(s.mod["main"].body.block.body[1])
    old_loop = s.mod["main"].body.block.body[1]
    new_loop = tir.For(old_loop.loop_var, 0, 8, tir.ForKind.SERIAL, tir.Evaluate(0))
    del old_loop
    gc.collect()
    s.replace(sref, new_loop)
    assert s.mod["main"].__hash__() == func_addr and s.mod["main"].body.block.body.__hash__() == seq_addr
    tvm.ir.assert_structural_equal(s.mod["main"].body.block.body[1], new_loop)
    assert sref.stmt.same_as(new_loop)  # same loop variable: the sref is kept
    assert s.get_sref(new_loop).same_as(sref)


def test_replace_copies_what_is_held_elsewhere():
    s = _state()
    held_func = s.mod["main"]
    before = held_func.script()
    held_loop = s.mod["main"].body.block.body[0]
    sref = s.get_sref(held_loop.body)  # loop j of block B
    block_b = held_loop.body.body.block
    fresh = copy.deepcopy(held_loop.body)  # new loop variables
    s.replace(sref, fresh)
    assert held_func.script() == before  # what others hold is unchanged
    assert not s.mod["main"].same_as(held_func)
    assert not s.mod["main"].body.block.body[0].same_as(held_loop)
    tvm.ir.assert_structural_equal(s.mod["main"].body.block.body[0].body, fresh)
    assert sref.stmt is None and sref.parent is None  # replaced away
    assert s.get_sref(block_b) is None
    new_block = s.mod["main"].body.block.body[0].body.body.block
    assert s.get_sref(new_block).parent.stmt.same_as(s.mod["main"].body.block.body[0].body)
    # the ancestor's sref follows its copy
    assert s.get_sref(s.mod["main"].body.block.body[0]).stmt.same_as(s.mod["main"].body.block.body[0])


def test_replace_module_held_elsewhere():
    s = tir.ScheduleState(tvm.IRModule({"main": _two_stage(), "other": _two_stage()}), debug_mask="all")
    held_mod = s.mod
    other = s.mod["other"]
    before = held_mod["main"].script()
    root = s.mod["main"].body.block
    new_root = tir.Block([], [], [], "new_root", tir.Evaluate(0))
    s.replace(s.get_sref(root), new_root)
    assert not s.mod.same_as(held_mod) and held_mod["main"].script() == before
    assert s.mod["main"].body.block.same_as(new_root)
    assert s.mod["other"].same_as(other)


def test_module_functions_hash_by_identity_and_are_read_only():
    s = _state()
    funcs = s.mod.functions
    old_hash = hash(funcs)
    assert hash(s.mod.functions) == old_hash  # the same entries: the same hash
    root = s.mod["main"].body.block
    s.replace(s.get_sref(root), tir.Block([], [], [], "new_root", tir.Evaluate(0)))
    assert hash(s.mod.functions) != old_hash  # a new "main" function object
    assert hash(funcs) == old_hash  # the snapshot keeps its entries and hash
    (gv, func), = funcs.items()
    assert gv.name_hint == "main" and func.body.block.name_hint == "root"
    with pytest.raises(TypeError, match="read-only"):
        funcs[gv] = func
    with pytest.raises(TypeError, match="read-only"):
        del funcs[gv]
    with pytest.raises(TypeError, match="read-only"):
        funcs.update({})
    assert len(s.mod.functions) == 1


def test_debug_mask_enum():
    mask = tir.schedule.state.ScheduleDebugMask
    assert (int(mask.VERIFY_SREF_TREE), int(mask.VERIFY_CACHED_FLAGS)) == (1, 2)
    s = tir.ScheduleState(_two_stage(), debug_mask=mask.VERIFY_SREF_TREE)
    s.replace(s.get_sref(s.mod["main"].body.block.body[0].body.body.block),
              copy.deepcopy(s.mod["main"].body.block.body[0].body.body.block))
    sch = tir.Schedule(_two_stage(), debug_mask=mask.VERIFY_SREF_TREE | mask.VERIFY_CACHED_FLAGS)
    sch.split(sch.get_loops(sch.get_block("B"))[0], [2, 4])
    assert len(sch.get_loops(sch.get_block("B"))) == 3
    assert tir.schedule.ScheduleDebugMask is mask


def test_block_sref_reuse():
    s = _state()
    block_b = s.mod["main"].body.block.body[0].body.body.block
    sref = s.get_sref(block_b)
    renamed = tir.Block(block_b.iter_vars, block_b.reads, block_b.writes, "B2", block_b.body)
    s.replace(sref, renamed, {block_b: renamed})
    assert sref.stmt.same_as(renamed) and s.get_sref(renamed).same_as(sref)
    assert sref.parent.stmt.same_as(s.mod["main"].body.block.body[0].body)


def test_replace_keeps_shared_subtrees_and_their_srefs():
    s = _state()
    loop_c = s.mod["main"].body.block.body[1]
    block_c = loop_c.body.block
    sref_c = s.get_sref(block_c)
    wrapper = tir.BlockRealize([], True, tir.Block([], [], [], "wrap", loop_c))
    sref = s.get_sref(loop_c)
    s.replace(sref, wrapper)
    assert sref.stmt.same_as(loop_c)  # the loop lives on inside the new block
    assert sref.parent.stmt.name_hint == "wrap"
    assert sref_c.stmt.same_as(block_c) and sref_c.parent.same_as(sref)


def test_srefs_expire_with_the_state():
    s = _state()
    sref = s.get_sref(s.mod["main"].body.block.body[0])
    del s
    gc.collect()
    assert sref.stmt is None


def test_bad_inputs():
    s = _state()
    root = s.mod["main"].body.block
    loop = root.body[0]
    block_b = loop.body.body.block
    with pytest.raises(TypeError, match="a block can only be replaced by a Block"):
        s.replace(s.get_sref(block_b), tir.Evaluate(0))
    with pytest.raises(TypeError, match="a loop can only be replaced by a For or a BlockRealize"):
        s.replace(s.get_sref(loop), block_b)
    other = _state()
    with pytest.raises(ValueError, match="does not belong to this state"):
        s.replace(other.get_sref(other.mod["main"].body.block.body[0]), loop)
    stranger = _two_stage().body.block.body[0].body.body.block
    with pytest.raises(ValueError, match="block_sref_reuse maps block B"):
        s.replace(s.get_sref(block_b), stranger, {stranger: block_b})
    with pytest.raises(TypeError, match="get_sref expects a Block or a For"):
        s.get_sref(tir.Evaluate(0))
    with pytest.raises(ValueError, match="debug_mask"):
        tir.ScheduleState(_two_stage(), debug_mask="some")
    with pytest.raises(TypeError, match="IRModule or a PrimFunc"):
        tir.ScheduleState(3)
    # nothing changed by the refused calls
    tvm.ir.assert_structural_equal(s.mod["main"], _two_stage())
    sref = s.get_sref(block_b)
    s.replace(sref, copy.deepcopy(block_b))
    with pytest.raises(ValueError, match="expired"):
        s.replace(sref, block_b)


def test_node_pickling_is_a_deep_copy():
    func = _two_stage()
    for clone in (pickle.loads(pickle.dumps(func)), copy.deepcopy(func)):
        tvm.ir.assert_structural_equal(clone, func)
        assert not clone.params[0].same_as(func.params[0])
    with pytest.raises(TypeError, match="__setstate__"):
        func.__setstate__({"handle": 3})
