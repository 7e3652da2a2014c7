"""Cost of Relax visitors and mutators written in Python (relax.PyExprVisitor /
PyExprMutator, src/relax/py_expr_functor.cc) over one function of N bindings
(a chain of adds, default N = 10,000), measured in the same run against two
peers: a C++ walk of the same function (relax.analysis.all_vars) and a
hand-written pure-Python walk of its bindings (what Tessera's analyses did
before). Cases:

  - no-op mutator: a PyExprMutator subclass overriding nothing (the walk and
    the rebuild stay in C++; no call crosses into Python);
  - counting visitor: a PyExprVisitor overriding visit_call_ (N calls into Python);
  - add->multiply mutator: a PyExprMutator overriding visit_call_, rewriting
    every add through visit_expr_post_order (N calls, N new bindings).

Prints the median wall and CPU time of --repeat runs per case and each case's
CPU-time ratio to the C++ walk. Runs alone: `python benchmarks/py_expr_mutator.py [--bindings N]`.
"""
import argparse
import statistics
import time

import tessera as tvm
from tessera import relax


def chain_function(n):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((4,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            v = x
            for _ in range(n):
                v = bb.emit(relax.op.add(v, x))
            out = bb.emit_output(v)
        bb.emit_func_output(out)
    return bb.get()["main"]


@relax.expr_functor.mutator
class NoOpMutator(relax.PyExprMutator):
    pass


@relax.expr_functor.visitor
class CallCounter(relax.PyExprVisitor):
    def __init__(self):
        self.calls = 0

    def visit_call_(self, call):
        self.calls += 1
        super().visit_call_(call)


@relax.expr_functor.mutator
class AddToMultiply(relax.PyExprMutator):
    def __init__(self):
        super().__init__()
        self.add = tvm.ir.Op.get("relax.add")

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if call.op == self.add:
            return relax.op.multiply(call.args[0], call.args[1])
        return call


def python_walk(func):
    """The pre-visitor style: a hand-written Python loop over blocks and bindings."""
    calls = 0
    for block in func.body.blocks:
        for binding in block.bindings:
            if isinstance(binding.value, relax.Call):
                calls += 1
    return calls


def timed(fn, repeat):
    """Median wall time and median CPU time of this process (the CPU time is the
    fairer figure on a shared machine: it leaves out time spent descheduled)."""
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bindings", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    func = chain_function(args.bindings)
    n = args.bindings

    # Check each case does what it says before timing it.
    assert NoOpMutator().visit_expr(func).same_as(func)
    counter = CallCounter()
    counter.visit_expr(func)
    assert counter.calls == n, counter.calls
    rewritten = AddToMultiply().visit_expr(func)
    ops = {b.value.op.name for blk in rewritten.body.blocks for b in blk.bindings if isinstance(b.value, relax.Call)}
    assert ops == {"relax.multiply"}, ops
    assert python_walk(func) == n

    cases = [
        ("C++ walk (relax.analysis.all_vars)", lambda: relax.analysis.all_vars(func)),
        ("pure-Python binding loop", lambda: python_walk(func)),
        ("no-op PyExprMutator", lambda: NoOpMutator().visit_expr(func)),
        ("PyExprVisitor counting visit_call_", lambda: CallCounter().visit_expr(func)),
        ("PyExprMutator add->multiply", lambda: AddToMultiply().visit_expr(func)),
    ]
    results = [(name, *timed(fn, args.repeat)) for name, fn in cases]
    base = results[0][2]
    print(f"{n} bindings, median of {args.repeat} runs: wall ms, CPU ms, CPU ratio to the C++ walk")
    for name, wall, cpu in results:
        print(f"  {name:40s} {wall * 1e3:9.2f} {cpu * 1e3:9.2f}  {cpu / base:6.1f}x  ({cpu / n * 1e6:6.2f} us/binding)")


if __name__ == "__main__":
    main()
