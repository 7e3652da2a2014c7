"""Schedule utilities TVM's tests use: work_on / func_working_on with several
functions (none chosen until work_on, as TVM), get_sref (the statement a
handle stands for; IndexError for a handle of another schedule), and
IntImm compared with a constant folding to a bool as in TVM."""
import pytest

import tessera as tvm
from tessera.script import ir as I
from tessera.script import tir as T


@I.ir_module
class TwoFuncs:
    @T.prim_func
    def add(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("add"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1)

    @T.prim_func
    def mul(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("mul"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * T.float32(2)


def test_work_on_with_several_functions():
    sch = tvm.tir.Schedule(TwoFuncs)
    assert sch.func_working_on is None
    with pytest.raises(ValueError, match="does not know which function to be working on"):
        sch.get_block("mul")
    assert sch.get(sch.get_block("mul", func_name="mul")).name_hint == "mul"
    sch.work_on("add")
    assert sch.func_working_on.same_as(sch.mod.get_global_var("add"))
    assert sch.get(sch.get_block("add")).name_hint == "add"
    single = tvm.tir.Schedule(TwoFuncs["mul"])
    assert single.func_working_on.name_hint == "main"


def test_get_sref():
    sch = tvm.tir.Schedule(TwoFuncs["add"])
    (i,) = sch.get_loops("add")
    copy = sch.copy()
    assert sch.get_sref(i).stmt.same_as(copy.get_sref(i).stmt)
    assert not sch.get_sref(i).same_as(copy.get_sref(i))
    assert sch.get_sref(i).same_as(sch.get_sref(i))
    i0, _ = sch.split(i, [2, None])
    assert sch.get_sref(i0).stmt.extent == 2
    with pytest.raises(IndexError):
        copy.get_sref(i0)
    with pytest.raises(TypeError):
        sch.get_sref(3)


def test_intimm_compares_with_constants():
    x = tvm.tir.IntImm("int32", 2)
    assert x == 2 and not (x == 3) and x != 3 and x == tvm.tir.IntImm("int64", 2)
    assert {x: 1}[x] == 1
    n = tvm.tir.Var("n", "int32")
    assert not bool(x == n)  # against a variable: an expression, identity under bool()
