"""Target strings are checked against their kind's registered options
(src/target/target_kind.cc) and, for llvm, against LLVM's CPUs and features;
every option accepted is honoured (opt-level and fast-math change the IR,
-mcpu for the host builds and runs). Bad inputs run in a subprocess, since a
failure here used to abort inside LLVM."""
import json
import subprocess
import sys

import numpy as np
import pytest

import tessera as tvm
from tessera import tir
from tir_build_helpers import buf, loops, func

RNG = np.random.default_rng(7)
# Checked against LLVM's CPUs, features and triples: only in a build with LLVM.
requires_llvm = tvm.testing.requires_llvm

_PROBE = """
import json, sys
import tessera as tvm
try:
    t = tvm.target.Target(sys.argv[1])
    print(json.dumps({"ok": True, "kind": t.kind.name}))
except Exception as e:  # the class and text are what the test checks
    print(json.dumps({"ok": False, "types": [c.__name__ for c in type(e).__mro__], "msg": str(e)}))
"""


def probe(spec):
    out = subprocess.run([sys.executable, "-c", _PROBE, spec], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"target {spec!r} crashed the process:\n{out.stderr[-2000:]}"
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("spec,culprit", [
    pytest.param("llvm -mcpu=notacpu", "notacpu", marks=requires_llvm.marks()),
    pytest.param("llvm -mattr=+notafeature", "notafeature", marks=requires_llvm.marks()),
    pytest.param("llvm -mattr=avx2", "+name or -name", marks=requires_llvm.marks()),
    ("llvm -bound-chek", "-bound-chek"),
    ("llvm -num-cores=abc", "abc"),
    ("llvm -num-cores=0", "num-cores"),
    pytest.param("llvm -opt-level=7", "opt-level", marks=requires_llvm.marks()),
    ("llvm -opt-level", "opt-level"),
    ("llvm -fast-math=maybe", "maybe"),
    ("llvm -mcpu", "-mcpu"),
    pytest.param("llvm -mtriple=nonsense-triple-xyz", "nonsense-triple-xyz", marks=requires_llvm.marks()),
    ("llvm -mcpu=native -mcpu=skylake", "twice"),
    ("cuda -mcpu=sm_80", "-mcpu"),
    ("tpu", "tpu"),
])
def test_bad_target_strings_raise_value_error_naming_the_culprit(spec, culprit):
    res = probe(spec)
    assert not res["ok"], f"{spec!r} was accepted"
    assert "ValueError" in res["types"] and "TVMError" in res["types"], res
    assert culprit in res["msg"], res["msg"]


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(ValueError) as info:
        tvm.target.Target("llvm -bound-chek")
    msg = str(info.value)
    for valid in ("-bound-check", "-mcpu", "-mattr", "-mtriple", "-opt-level", "-num-cores", "-fast-math"):
        assert valid in msg, msg
    assert "'llvm'" in msg


@requires_llvm
def test_options_are_typed_and_listed():
    host = tvm.target.codegen.llvm_get_system_cpu()
    t = tvm.target.Target(f"llvm -mcpu={host} -opt-level=2 --num-cores=3 -fast-math -bound-check=false")
    assert t.kind.name == "llvm" and list(t.keys) == ["cpu"]
    assert t.attrs["mcpu"] == host
    assert t.attrs["opt-level"] == 2 and t.attrs["num-cores"] == 3
    assert t.attrs["fast-math"] is True and t.attrs["bound-check"] is False
    assert tvm.target.Target("cuda -arch=sm_80 -max_num_threads=1024").attrs["max_num_threads"] == 1024
    assert tvm.target.Target({"kind": "llvm", "fast-math": True, "opt-level": 1}).attrs["opt-level"] == 1
    assert {"llvm", "cuda", "c"} <= set(tvm.target.Target.list_kinds())
    opts = tvm.target.Target("llvm").kind.options
    assert opts["mcpu"] == "str" and opts["opt-level"] == "int" and opts["fast-math"] == "bool"
    # Valid CPUs and features of the triple pass.
    tvm.target.Target("llvm -mcpu=skylake -mattr=+avx2,-fma")
    triple = tvm.target.codegen.llvm_get_system_triple()
    assert tvm.target.Target(f"llvm -mtriple={triple}").attrs["mtriple"] == triple


def _add_one(n=1024):
    A, B = buf("A", (n,)), buf("B", (n,))
    return func([A, B], loops([n], lambda i: tir.BufferStore(B, A[i] * 2.0 + 1.0, [i])), name="add_one")


def _run(lib, n=1024):
    a = RNG.standard_normal(n).astype("float32")
    b = tvm.nd.empty((n,), "float32")
    lib["add_one"](tvm.nd.array(a), b)
    np.testing.assert_allclose(b.numpy(), a * 2 + 1, rtol=1e-6)


@requires_llvm
def test_host_mcpu_builds_and_runs():
    host = tvm.target.codegen.llvm_get_system_cpu()
    lib = tvm.build(_add_one(), target=f"llvm -mcpu={host}")
    _run(lib)
    assert "tessera_kernel_add_one" in lib.get_source("asm")


@requires_llvm
def test_opt_level_changes_codegen():
    o3 = tvm.build(_add_one(), target="llvm")
    o0 = tvm.build(_add_one(), target="llvm -opt-level=0")
    _run(o3)
    _run(o0)
    # O3 vectorizes the loop; O0 leaves it a scalar loop.
    assert " x float>" in o3.get_source("ll") and "phi i32" not in o3.get_source("ll")
    assert " x float>" not in o0.get_source("ll") and "phi i32" in o0.get_source("ll")


@requires_llvm
def test_fast_math_flags_reach_the_ir():
    plain = tvm.build(_add_one(), target="llvm -opt-level=0").get_source("ll")
    fast = tvm.build(_add_one(), target="llvm -opt-level=0 -fast-math")
    nnan = tvm.build(_add_one(), target="llvm -opt-level=0 -fast-math-nnan").get_source("ll")
    nocontract = tvm.build(_add_one(), target="llvm -opt-level=0 -fast-math-contract=false").get_source("ll")
    _run(fast)
    assert "fmul contract float" in plain and "fmul fast float" not in plain
    assert "fmul fast float" in fast.get_source("ll")
    assert "fmul nnan contract float" in nnan
    assert "fmul float" in nocontract and "contract" not in nocontract


@requires_llvm
def test_target_host_and_build_arguments():
    assert tvm.target.Target("cuda", host="llvm").host.kind.name == "llvm"
    assert tvm.target.Target("llvm", host="llvm").host.str == "llvm"
    assert tvm.target.Target("llvm").host is None
    with pytest.raises(ValueError, match="host 'llvm -opt-level=1' differs"):
        tvm.target.Target("llvm", host="llvm -opt-level=1")
    with pytest.raises(ValueError, match="notacpu"):
        tvm.target.Target("cuda", host="llvm -mcpu=notacpu")
    _run(tvm.build(_add_one(), target="llvm", target_host="llvm"))
    with pytest.raises(ValueError, match="differs"):
        tvm.build(_add_one(), target="llvm", target_host="llvm -opt-level=0")
    with pytest.raises(NotImplementedError, match="binds"):
        tvm.build(_add_one(), target="llvm", binds={})


@pytest.mark.parametrize("spec,attrs,canonical", [
    ("llvm -num-cores 2", {"num-cores": 2}, "llvm -num-cores=2"),
    ("llvm -num-cores=2", {"num-cores": 2}, "llvm -num-cores=2"),
    ("llvm -mcpu x86-64 -num-cores 4", {"mcpu": "x86-64", "num-cores": 4}, "llvm -mcpu=x86-64 -num-cores=4"),
    ("llvm  -opt-level 2   -mcpu=x86-64", {"opt-level": 2, "mcpu": "x86-64"}, "llvm -opt-level=2 -mcpu=x86-64"),
])
def test_options_take_key_space_value_as_tvm_does(spec, attrs, canonical):
    """TVM accepts `-key value` as well as `-key=value`; both give the same
    target (and the same string, which tuning records are keyed by)."""
    t = tvm.target.Target(spec)
    for key, value in attrs.items():
        assert t.attrs[key] == value
    assert str(t) == canonical
    assert str(tvm.target.Target(canonical)) == canonical


@pytest.mark.parametrize("spec,match", [("llvm -num-cores", "no value"), ("llvm -num-cores -mcpu=x86-64", "no value"),
                                        ("llvm -num-cores x", "'x'"), ("llvm -num-cores 2 3", "must start with '-'")])
def test_space_separated_values_are_checked(spec, match):
    with pytest.raises(ValueError, match=match):
        tvm.target.Target(spec)
