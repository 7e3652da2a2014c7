"""Code generation by backend: tvm.build dispatches on the target kind to the
global "target.build.<kind>" (a kind without one is refused naming it), and
TIR intrinsics reach each CPU backend (llvm, c) through each op's
"<kind>.FLowerIntrinsic" attribute (an op without one is refused naming op
and target). Every lowering rule is checked against NumPy, scalar and
vectorized, on both backends."""
import math

import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func

RNG = np.random.default_rng(3)


def _copy():
    A, B = buf("A", (8,)), buf("B", (8,))
    return func([A, B], loops([8], lambda i: tir.BufferStore(B, A[i] + 1.0, [i])), name="copy")


@pytest.mark.parametrize("kind", ["nvptx"])
def test_kinds_without_a_backend_are_refused_by_name(kind):
    with pytest.raises(NotImplementedError, match=f"no code generator for target kind '{kind}'.*backends: c, cuda(, llvm)?\\)"):
        tvm.build(_copy(), target=kind)


def test_backend_is_chosen_by_target_kind():
    host = tvm.target.default_host().kind.name  # llvm, or c in a build without LLVM
    seen = []

    def build_nvptx(mod, target):
        # A stand-in backend: records what it gets and compiles for the host.
        seen.append((sorted(gv.name_hint for gv in mod.get_global_vars()), target.kind.name))
        return tvm.get_global_func(f"target.build.{host}")(mod, tvm.target.Target(host))

    tvm.register_func("target.build.nvptx", build_nvptx)
    try:
        lib = tvm.build(_copy(), target="nvptx")
    finally:
        tvm._ffi.registry.remove_global_func("target.build.nvptx")
    assert seen == [(["copy"], "nvptx")]
    a = RNG.standard_normal(8).astype("float32")
    b = tvm.nd.empty((8,), "float32")
    lib["copy"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)
    with pytest.raises(NotImplementedError, match="'nvptx'"):
        tvm.build(_copy(), target="nvptx")


@pytest.mark.parametrize("kind", ["llvm", "c"])
def test_intrinsic_without_lowering_names_op_and_target(kind):
    A = buf("A", (4,))
    sync = tir.Evaluate(tir.call_intrin("int32", "tir.tvm_storage_sync", tir.StringImm("shared")))
    f = func([A], loops([4], lambda i: tir.SeqStmt([sync, tir.BufferStore(A, tir.const(1.0, "float32"), [i])])),
             name="syncs")
    with pytest.raises(NotImplementedError, match=rf"syncs.*tir\.tvm_storage_sync.*no lowering for target '{kind}'"):
        tvm.build(f, target=kind)
    assert tvm.ir.Op.get("tir.exp").get_attr(f"{kind}.FLowerIntrinsic") is not None


UNARY = [
    ("exp10", lambda x: 10.0 ** x), ("exp2", np.exp2), ("log2", np.log2), ("log10", np.log10),
    ("trunc", np.trunc), ("nearbyint", np.round), ("cos", np.cos), ("tan", np.tan), ("atan", np.arctan),
    ("sinh", np.sinh), ("cosh", np.cosh), ("asin", np.arcsin), ("acos", np.arccos),
]


@pytest.mark.parametrize("kind", ["llvm", "c"])
@pytest.mark.parametrize("vectorized", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,npf", UNARY)
def test_unary_lowering_rules_match_numpy(name, npf, dtype, vectorized, kind):
    A, B = buf("A", (16,), dtype), buf("B", (16,), dtype)
    kinds = [tir.ForKind.VECTORIZED if vectorized else tir.ForKind.SERIAL]
    f = func([A, B], loops([16], lambda i: tir.BufferStore(B, getattr(tir, name)(A[i]), [i]), kinds=kinds))
    a = RNG.uniform(-0.9, 0.9, 16).astype(dtype)
    if name.startswith("log"):
        a = np.abs(a) + np.asarray(0.05, dtype)
    b = tvm.nd.empty((16,), dtype)
    tvm.build(f, target=kind)["main"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), npf(a).astype(dtype), rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("kind", ["llvm", "c"])
@pytest.mark.parametrize("vectorized", [False, True])
def test_binary_and_predicate_lowering_rules(vectorized, kind):
    n = 16
    A, B = buf("A", (n,)), buf("B", (n,))
    C, D = buf("C", (n,)), buf("D", (n,))
    P = buf("P", (n,), "int32")
    kinds = [tir.ForKind.VECTORIZED if vectorized else tir.ForKind.SERIAL]

    def body(i):
        atan2 = tir.call_intrin("float32", "tir.atan2", A[i], B[i])
        fmod = tir.call_intrin("float32", "tir.fmod", A[i], B[i])
        flags = (tir.Cast("int32", tir.isnan(A[i])) + tir.Cast("int32", tir.isinf(A[i])) * 2
                 + tir.Cast("int32", tir.isfinite(A[i])) * 4)
        return tir.SeqStmt([tir.BufferStore(C, atan2, [i]), tir.BufferStore(D, fmod, [i]), tir.BufferStore(P, flags, [i])])

    f = func([A, B, C, D, P], loops([n], body, kinds=kinds))
    a = RNG.uniform(-5, 5, n).astype("float32")
    a[:3] = [np.nan, np.inf, -np.inf]
    b = RNG.uniform(0.5, 2, n).astype("float32") * np.where(RNG.random(n) < 0.5, -1, 1).astype("float32")
    c, d, p = tvm.nd.empty((n,), "float32"), tvm.nd.empty((n,), "float32"), tvm.nd.empty((n,), "int32")
    tvm.build(f, target=kind)["main"](tvm.nd.array(a), tvm.nd.array(b), c, d, p)
    np.testing.assert_allclose(c.numpy(), np.arctan2(a, b), rtol=1e-6)
    np.testing.assert_allclose(d.numpy(), np.fmod(a, b), rtol=1e-6)
    expected = np.isnan(a).astype("int32") + np.isinf(a).astype("int32") * 2 + np.isfinite(a).astype("int32") * 4
    np.testing.assert_array_equal(p.numpy(), expected)


@pytest.mark.parametrize("kind", ["llvm", "c"])
def test_popcount_and_half_precision_libm(kind):
    n = 8
    A, B = buf("A", (n,), "int32"), buf("B", (n,), "int32")
    f = func([A, B], loops([n], lambda i: tir.BufferStore(B, tir.call_intrin("int32", "tir.popcount", A[i]), [i])))
    a = RNG.integers(0, 1 << 30, n).astype("int32")
    b = tvm.nd.empty((n,), "int32")
    tvm.build(f, target=kind)["main"](tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), [bin(int(x)).count("1") for x in a])
    H, G = buf("H", (n,), "float16"), buf("G", (n,), "float16")
    g = func([H, G], loops([n], lambda i: tir.BufferStore(G, tir.tanh(H[i]) + tir.erf(H[i]), [i]),
                           kinds=[tir.ForKind.VECTORIZED]))
    h = RNG.uniform(-1, 1, n).astype("float16")
    out = tvm.nd.empty((n,), "float16")
    tvm.build(g, target=kind)["main"](tvm.nd.array(h), out)
    hf = h.astype("float64")
    np.testing.assert_allclose(out.numpy().astype("float64"), np.tanh(hf) + np.vectorize(math.erf)(hf), rtol=3e-3,
                               atol=2e-3)
