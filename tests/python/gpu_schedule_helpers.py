"""Shared checks of the GPU default-schedule tests (tests/python/tir/
test_default_schedule_gpu.py, tests/python/relax/test_cuda_relax_build.py):
where the thread-bound loops are, and a module made serial so that the CPU
can run a GPU schedule (each block and thread in turn) against an oracle."""
import re

import tessera as tvm


def serial(mod):
    """`mod` with every thread-bound loop made serial, so that the CPU runs it."""
    src = re.sub(r'T\.thread_binding\(([^()]*(?:\([^()]*\))?[^()]*?), thread="[^"]*"\)', r"T.serial(\1)", mod.script())
    return tvm.script.from_source(src)


def thread_tags(mod):
    tags = []
    tvm.tir.post_order_visit(mod["main"].body, lambda n: tags.append(n.thread_binding.thread_tag)
                             if isinstance(n, tvm.tir.For) and n.kind == tvm.tir.ForKind.THREAD_BINDING else None)
    return tags


def blocks_all_bound(mod):
    """Every block (but the root) has a thread-bound loop above it."""
    unbound = []

    def visit(stmt, bound):
        if isinstance(stmt, tvm.tir.For):
            visit(stmt.body, bound or stmt.kind == tvm.tir.ForKind.THREAD_BINDING)
        elif isinstance(stmt, tvm.tir.SeqStmt):
            for s in stmt.seq:
                visit(s, bound)
        elif isinstance(stmt, tvm.tir.BlockRealize):
            if stmt.block.name_hint != "root" and not bound:
                unbound.append(stmt.block.name_hint)
            visit(stmt.block.body, bound)
        elif isinstance(stmt, (tvm.tir.IfThenElse,)):
            visit(stmt.then_case, bound)

    visit(mod["main"].body, False)
    return unbound
