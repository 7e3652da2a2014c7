"""Small builders for TIR test programs (loop nests, blocks, functions), so
codegen tests can state programs compactly without TVMScript."""
import tessera as tvm
from tessera import tir


def buf(name, shape, dtype="float32"):
    return tir.decl_buffer(tuple(shape), dtype, name)


def loops(extents, body_fn, kinds=None, names="ijklmn"):
    """Nested loops over ``extents``; ``body_fn(*vars)`` returns the innermost Stmt."""
    vs = [tir.Var(names[d], "int32") for d in range(len(extents))]
    stmt = body_fn(*vs)
    kinds = kinds or [tir.ForKind.SERIAL] * len(extents)
    for v, e, k in reversed(list(zip(vs, extents, kinds))):
        stmt = tir.For(v, 0, e, k, stmt)
    return stmt


def func(params, body, name="main", allocs=()):
    """A PrimFunc over buffer/var params whose body is wrapped in a root block."""
    root = tir.Block([], [], [], "root", body, alloc_buffers=list(allocs))
    f = tir.PrimFunc(list(params), tir.BlockRealize([], True, root))
    return f.with_attr({"global_symbol": name, "tir.noalias": True})


def build(f, target="llvm"):
    return tvm.build(f, target=target)


def block(name, iters, values, body, init=None, predicate=True):
    """A BlockRealize of a block with iter vars ``iters`` = [(name, extent, 'S'|'R')] bound to ``values``."""
    ivs, vvars = [], []
    for (vname, extent, kind) in iters:
        v = tir.Var(vname, "int32")
        vvars.append(v)
        ivs.append(tir.IterVar(tvm.ir.Range(0, extent), v, tir.IterVar.DataPar if kind == "S" else tir.IterVar.CommReduce))
    b = tir.Block(ivs, [], [], name, body(*vvars), init=init(*vvars) if init else None)
    infer = tvm.get_global_func("tir.analysis.InferBlockAccessRegions", allow_missing=True)
    if infer is not None:  # fill T.reads / T.writes as the TVMScript parser does
        reads, writes = infer(b)
        b = tir.Block(ivs, reads, writes, name, b.body, init=b.init)
    return tir.BlockRealize(list(values), predicate, b)
