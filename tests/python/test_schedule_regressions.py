"""Regression tests for schedule primitive bugs found by the random schedule
test (test_schedule_random.py), each checked against NumPy or an error text."""
import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func, block


def row_sum(n=8, m=12):
    A, S = buf("A", (n, m)), buf("S", (n,))
    body = loops([n, m], lambda i, k: block(
        "S", [("vi", n, "S"), ("vk", m, "R")], [i, k],
        lambda vi, vk: tir.BufferStore(S, S[vi] + A[vi, vk], [vi]),
        init=lambda vi, vk: tir.BufferStore(S, tir.const(0.0, "float32"), [vi])))
    return func([A, S], body)


def test_rfactor_twice_refuses_a_second_block_of_the_same_name():
    # rfactor names its block "<block>_rf"; factoring the write-back block again
    # used to add a second "S_rf", after which every primitive naming either
    # block failed with "several blocks are named S_rf".
    sch = tvm.tir.Schedule(row_sum())
    _, k = sch.get_loops("S")
    rf = sch.rfactor(k, 0)
    _, vk = sch.get_loops("S")  # the write-back block's reduction over the rf axis
    before = sch.mod
    with pytest.raises(tvm.tir.ScheduleError, match='a block named "S_rf" already exists'):
        sch.rfactor(vk, 0)
    assert sch.mod.same_as(before)
    sch.parallel(sch.get_loops(rf)[0])  # the first rf block is still reachable
    a = np.random.default_rng(3).standard_normal((8, 12)).astype("float32")
    lib = tvm.build(sch.mod)
    out = tvm.nd.empty((8,), "float32")
    lib["main"](tvm.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), a.sum(axis=1), rtol=1e-5, atol=1e-5)
