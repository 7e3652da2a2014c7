"""The pieces of `make demo` / benchmarks/mlp.py (apps/fashion_mlp) that do not
need Relax: the IDX reader, the weight-cache key, the hand schedule of the
course's linear layers (checked against NumPy), the interleaved timer and the
PNG grid. The Relax paths themselves are covered by the conformance chapter 3.
"""
import gzip
import os
import struct
import sys

import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "apps"))
from fashion_mlp import data, peers, timing, train  # noqa: E402


def _write_idx(path, magic, payload, dims=()):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">II", magic, len(payload)))
        if dims:
            f.write(struct.pack(">II", *dims))
        f.write(np.asarray(payload, dtype=np.uint8).tobytes())


def test_idx_reader_scales_images_and_keeps_labels(tmp_path, monkeypatch):
    images = np.arange(3 * 28 * 28, dtype=np.int64).reshape(3, 28, 28) % 256
    _write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", 2051, images, dims=(28, 28))
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", 2049, [7, 0, 9])
    monkeypatch.setenv("FASHION_MNIST_DIR", str(tmp_path))
    x, y = data.load("test")
    assert x.shape == (3, 784) and x.dtype == np.float32
    np.testing.assert_array_equal(x, images.reshape(3, 784).astype(np.float32) / 255)
    assert y.tolist() == [7, 0, 9]


def test_idx_reader_refuses_a_wrong_magic_and_a_short_file(tmp_path):
    bad = tmp_path / "bad.gz"
    _write_idx(bad, 2049, [1, 2, 3])
    with pytest.raises(ValueError, match="magic 2049, expected 2051"):
        data._read_idx(str(bad), 2051)
    short = tmp_path / "short.gz"
    with gzip.open(short, "wb") as f:
        f.write(struct.pack(">IIII", 2051, 2, 28, 28) + bytes(100))
    with pytest.raises(ValueError, match="100 bytes of data, expected 1568"):
        data._read_idx(str(short), 2051)


def test_weight_cache_key_follows_the_training_config(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE", str(tmp_path))
    base = train.cache_path()
    assert base.startswith(str(tmp_path)) and base == train.cache_path(dict(train.CONFIG))
    assert train.cache_path(dict(train.CONFIG, epochs=train.CONFIG["epochs"] + 1)) != base


def test_cached_weights_are_loaded_without_training(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE", str(tmp_path))
    rng = np.random.default_rng(0)
    params = {"w0": rng.random((128, 784), dtype=np.float32), "b0": rng.random(128, dtype=np.float32),
              "w1": rng.random((10, 128), dtype=np.float32), "b1": rng.random(10, dtype=np.float32)}
    np.savez(train.cache_path(), **params)
    monkeypatch.setattr(train, "_train", lambda *a: pytest.fail("trained although cached"))
    loaded = train.trained_params(log=lambda m: None)
    for k, v in params.items():
        np.testing.assert_array_equal(loaded[k], v)


@T.prim_func
def _linear0(X: T.Buffer((1, 784), "float32"), W: T.Buffer((128, 784), "float32"),
             B: T.Buffer((128,), "float32"), Z: T.Buffer((1, 128), "float32")):
    T.func_attr({"global_symbol": "linear0", "tir.noalias": True})
    Y = T.alloc_buffer((1, 128), "float32")
    for i, j, k in T.grid(1, 128, 784):
        with T.block("Y"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                Y[vi, vj] = T.float32(0)
            Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
    for i, j in T.grid(1, 128):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] + B[vj]


def test_scheduled_linear0_matches_numpy_and_keeps_its_symbol():
    from fashion_mlp import modules

    scheduled = modules.schedule_linear(_linear0)
    assert not tvm.ir.structural_equal(scheduled, _linear0)
    assert scheduled.attrs["global_symbol"] == "linear0"
    text = scheduled.script()
    assert "T.vectorized(16)" in text and 'T.block("Y_rf_update")' in text
    rng = np.random.default_rng(0)
    x, w, b = (rng.random((1, 784), dtype=np.float32), rng.random((128, 784), dtype=np.float32),
               rng.random(128, dtype=np.float32))
    z = tvm.nd.empty((1, 128), "float32")
    tvm.build(scheduled, target="llvm")["linear0"](tvm.nd.array(x), tvm.nd.array(w), tvm.nd.array(b), z)
    np.testing.assert_allclose(z.numpy(), x @ w.T + b, rtol=1e-5, atol=1e-4)


def test_schedule_linear_refuses_a_lane_count_that_does_not_divide_k():
    from fashion_mlp import modules

    with pytest.raises(tvm.tir.ScheduleError):
        modules.schedule_linear(_linear0, lanes=15)


def test_numpy_reference_is_the_course_mlp():
    rng = np.random.default_rng(0)
    p = {"w0": rng.random((128, 784)), "b0": rng.random(128), "w1": rng.random((10, 128)), "b1": rng.random(10)}
    x = rng.random((2, 784))
    hidden = np.array([[max(0.0, float(x[n] @ p["w0"][j] + p["b0"][j])) for j in range(128)] for n in range(2)])
    np.testing.assert_allclose(peers.numpy_mlp(x, p), hidden @ p["w1"].T + p["b1"])


def test_interleaved_latency_ranks_engines_by_their_cost():
    import time

    def spin(seconds):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    lat = timing.interleaved_latency({"fast": lambda: None, "slow": lambda: spin(200e-6)},
                                     number=5, repeat=5, warmup=1)
    assert set(lat) == {"fast", "slow"}
    assert lat["slow"] >= 200e-6 > lat["fast"]


def test_prediction_grid_is_a_png_of_the_expected_size(tmp_path):
    from PIL import Image
    from fashion_mlp import picture

    images = np.random.default_rng(0).random((10, 784)).astype(np.float32)
    path = picture.save_prediction_grid(str(tmp_path / "grid.png"), images, np.arange(10) % 10,
                                        np.zeros(10, dtype=int), data.CLASS_NAMES, cols=4, title="t")
    with Image.open(path) as im:
        assert im.format == "PNG"
        assert im.size[0] > 4 * 28 * 3 and im.size[1] > 3 * 28 * 3


def _random_params(rng):
    return {"w0": (rng.standard_normal((128, 784)) * 0.05).astype("float32"),
            "b0": (rng.standard_normal(128) * 0.05).astype("float32"),
            "w1": (rng.standard_normal((10, 128)) * 0.1).astype("float32"),
            "b1": (rng.standard_normal(10) * 0.1).astype("float32")}


def test_every_demo_build_of_the_mlp_matches_numpy():
    """The four Tessera builds of `make demo` (call_tir, call_dps_packed with PyTorch,
    the mixture with bound params, scheduled linears with bound params) give NumPy's logits."""
    torch = pytest.importorskip("torch")
    from fashion_mlp import modules

    modules.register_torch_env_functions(torch)
    rng = np.random.default_rng(3)
    params = _random_params(rng)
    x = rng.random((1, 784), dtype=np.float32)
    expected = peers.numpy_mlp(x, params)
    nd = [tvm.nd.array(params[k]) for k in modules.PARAM_NAMES]
    for make in (modules.call_tir_module, modules.extern_module):
        out = modules.build(make())["main"](tvm.nd.array(x), *nd)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
    for mod in (modules.mixture_module(), modules.with_scheduled_linears(modules.call_tir_module())):
        bound = modules.bind_params(mod, params)
        assert [p.name_hint for p in bound["main"].params] == ["x"]
        out = modules.build(bound)["main"](tvm.nd.array(x))
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)


def test_scheduled_module_swaps_in_both_linears_and_keeps_relu():
    from fashion_mlp import modules

    plain = modules.call_tir_module()
    scheduled = modules.with_scheduled_linears(modules.call_tir_module())
    for name in ("linear0", "linear1"):
        assert not tvm.ir.structural_equal(scheduled[name], plain[name])
        assert 'T.block("Y_rf_update")' in scheduled[name].script()
    tvm.ir.assert_structural_equal(scheduled["relu0"], plain["relu0"])
