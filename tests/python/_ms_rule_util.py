"""Helpers shared by the meta-schedule rule and postproc tests."""
import tessera as tvm


class TargetContext:
    """A stand-in TuneContext: rules read only ``target``."""

    def __init__(self, target="llvm --num-cores=4"):
        self.target = tvm.target.Target(target)


def apply_rule(rule, func, block, seed=0, target="llvm --num-cores=4"):
    rule._initialize_with_tune_context(TargetContext(target))
    sch = tvm.tir.Schedule(func, seed=seed)
    return rule.apply(sch, sch.get_block(block))


def assert_func_equal(actual, expected):
    """Structural equality of two PrimFuncs, ignoring their global_symbol."""
    tvm.ir.assert_structural_equal(actual.with_attr("global_symbol", "f"), expected.with_attr("global_symbol", "f"))
