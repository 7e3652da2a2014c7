"""Shared checks of the GPU default-schedule tests (tests/python/tir/
test_default_schedule_gpu.py, tests/python/relax/test_cuda_relax_build.py):
where the thread-bound loops are, and a module made serial so that the CPU
can run a GPU schedule (each block and thread in turn) against an oracle."""
import re

import tessera as tvm


def serial(mod):
    """`mod` with every thread-bound loop made serial, so that the CPU runs it."""
    src, out, key = mod.script(), [], "T.thread_binding("
    pos = 0
    while (start := src.find(key, pos)) >= 0:
        depth, end = 1, start + len(key)
        while depth:  # the matching parenthesis (extents may nest them)
            depth += {"(": 1, ")": -1}.get(src[end], 0)
            end += 1
        args = re.sub(r',\s*thread="[^"]*"\s*\)$', ")", src[start + len(key) - 1:end])
        out += [src[pos:start], "T.serial", args]
        pos = end
    return tvm.script.from_source("".join(out) + src[pos:])


def cuda_source(ex):
    """The CUDA C of a relax Executable or runtime module (its imported "cuda" module)."""
    def find(mod):
        if mod.type_key == "cuda":
            return mod
        for sub in mod.imported_modules:
            found = find(sub)
            if found is not None:
                return found
        return None

    cuda = find(getattr(ex, "mod", ex))
    assert cuda is not None, "the executable imports no CUDA module"
    return cuda.get_source()


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


def topi_cases():
    """(id, PrimFunc, input arrays + zeroed output, expected output) for one
    kernel of each shape the GPU default schedule has a rule for."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    from tessera import te, topi  # pylint: disable=import-outside-toplevel

    rng = np.random.default_rng(0)

    def rand(*shape):
        return rng.uniform(-1, 1, size=shape).astype("float32")

    def zeros(*shape):
        return np.zeros(shape, "float32")

    cases = []
    a, b = rand(64, 100), rand(64, 100)
    A, B = te.placeholder((64, 100), name="A"), te.placeholder((64, 100), name="B")
    cases.append(("elementwise", te.create_prim_func([A, B, topi.exp(topi.add(A, B))]), [a, b, zeros(64, 100)],
                  np.exp(a + b)))
    s = rand(300, 37)
    S = te.placeholder((300, 37), name="S")
    e = np.exp(s - s.max(1, keepdims=True))
    cases.append(("softmax_300_rows", te.create_prim_func([S, topi.nn.softmax(S)]), [s, zeros(300, 37)],
                  e / e.sum(1, keepdims=True)))
    g, be = rand(100), rand(100)
    G, Be = te.placeholder((100,), name="G"), te.placeholder((100,), name="Be")
    ln = topi.nn.layer_norm(A, G, Be, axis=[1], epsilon=1e-5)
    cases.append(("layer_norm", te.create_prim_func([A, G, Be, ln]), [a, g, be, zeros(64, 100)],
                  (a - a.mean(1, keepdims=True)) / np.sqrt(a.var(1, keepdims=True) + 1e-5) * g + be))
    cases.append(("row_sum", te.create_prim_func([A, topi.sum(A, axis=1)]), [a, zeros(64)], a.sum(1)))
    cases.append(("full_sum", te.create_prim_func([A, topi.sum(A)]), [a, zeros()], a.sum()))
    x, w = rand(128, 64), rand(64, 128)
    X, W = te.placeholder((128, 64), name="X"), te.placeholder((64, 128), name="W")
    cases.append(("matmul", te.create_prim_func([X, W, topi.matmul(X, W)]), [x, w, zeros(128, 128)], x @ w))
    wt = rand(128, 64)
    Wt = te.placeholder((128, 64), name="Wt")
    cases.append(("dense_relu", te.create_prim_func([X, Wt, topi.nn.relu(topi.nn.dense(X, Wt))]),
                  [x, wt, zeros(128, 128)], np.maximum(x @ wt.T, 0)))
    p, q = rand(3, 64, 32), rand(3, 64, 32)
    P, Q = te.placeholder((3, 64, 32), name="P"), te.placeholder((3, 64, 32), name="Q")
    cases.append(("batch_matmul", te.create_prim_func([P, Q, topi.nn.batch_matmul(P, Q)]), [p, q, zeros(3, 64, 64)],
                  p @ q.transpose(0, 2, 1)))
    return cases
