"""A hand-scheduled sgemm (C = A @ B, 1024^3 float32) written directly as
TIR loops: B is packed into 16-wide column panels, each core takes row
blocks, and a 6x16 register tile accumulates over k with a vectorized,
unrolled micro-kernel. The tuner (a later issue) is to find such schedules
by itself."""
from tessera import tir
from tir_build_helpers import buf, func

MR, NR = 6, 16  # register tile: 6 rows x 16 columns (12 AVX2 accumulators)


def sgemm_func(n=1024):
    A, B, C = buf("A", (n, n)), buf("B", (n, n)), buf("C", (n, n))
    BP = buf("BP", (n // NR, n, NR))  # packed B panels
    acc = tir.decl_buffer((MR, NR), "float32", "acc")
    f32 = "float32"

    # Pack B: BP[jo, k, ji] = B[k, jo*NR + ji]
    jo, k, ji = tir.Var("jo", "int32"), tir.Var("k", "int32"), tir.Var("ji", "int32")
    pack = tir.For(jo, 0, n // NR, tir.ForKind.PARALLEL,
                   tir.For(k, 0, n, tir.ForKind.SERIAL,
                           tir.For(ji, 0, NR, tir.ForKind.VECTORIZED,
                                   tir.BufferStore(BP, B[k, jo * NR + ji], [jo, k, ji]))))

    KC = 256  # k block: a 6 x KC slice of A and a KC x 16 slice of a panel stay in L1
    io, kb, jo2 = tir.Var("io", "int32"), tir.Var("kb", "int32"), tir.Var("jo", "int32")

    def rows(fn):
        ii, jj = tir.Var("ii", "int32"), tir.Var("jj", "int32")
        return tir.For(ii, 0, MR, tir.ForKind.UNROLLED,
                       tir.For(jj, 0, NR, tir.ForKind.VECTORIZED, fn(io * MR + ii, ii, jj)))

    clamp = lambda r: tir.min(r, n - 1)  # noqa: E731  (the last tile has 4 real rows)
    load = rows(lambda r, ii, jj: tir.BufferStore(
        acc, tir.if_then_else(kb == 0, tir.const(0.0, f32), C[clamp(r), jo2 * NR + jj]), [ii, jj]))
    kk = tir.Var("k", "int32")
    update = tir.For(kk, 0, KC, tir.ForKind.SERIAL, rows(lambda r, ii, jj: tir.BufferStore(
        acc, acc[ii, jj] + A[clamp(r), kb * KC + kk] * BP[jo2, kb * KC + kk, jj], [ii, jj])))
    ii3, jj3 = tir.Var("ii", "int32"), tir.Var("jj", "int32")
    row3 = io * MR + ii3
    store = tir.For(ii3, 0, MR, tir.ForKind.UNROLLED,
                    tir.IfThenElse(row3 < n,
                                   tir.For(jj3, 0, NR, tir.ForKind.VECTORIZED,
                                           tir.BufferStore(C, acc[ii3, jj3], [row3, jo2 * NR + jj3])), None))
    tile = tir.Allocate(acc.data, f32, [MR, NR], True, tir.DeclBuffer(acc, tir.stmt_seq(load, update, store)))
    compute = tir.For(io, 0, (n + MR - 1) // MR, tir.ForKind.PARALLEL,
                      tir.For(kb, 0, n // KC, tir.ForKind.SERIAL, tir.For(jo2, 0, n // NR, tir.ForKind.SERIAL, tile)))
    return func([A, B, C], tir.stmt_seq(pack, compute), name="sgemm", allocs=[BP])
