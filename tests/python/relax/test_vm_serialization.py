"""Saving, loading and exporting VM executables: round trips preserve
results; truncated or corrupted files raise ValueError (checked in a
subprocess, so a crash would fail the test rather than the run)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tessera as tvm
from tessera import relax
from tessera.relax.vm_build import load_executable
from tessera.script import tir as T


@T.prim_func
def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.float32(1)


def _program():
    """main(x) = test.vm.mul(x + w, x) with a tensor constant w, plus strings/shapes/dtypes in the pool."""
    w = tvm.nd.array(np.array([1.0, 2.0, 3.0, 4.0], "float64"))
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=1, param_names=["x"]):
        ib.emit_call("vm.builtin.check_tensor_info", args=[ib.r(0), ib.imm(1), tvm.DataType("float64"),
                                                          ib.convert_constant("ErrorContext(param=x)")])
        ib.emit_call("vm.builtin.match_shape", args=[ib.r(0), ib.void_arg(), ib.imm(1), ib.imm(1), ib.imm(4),
                                                    ib.convert_constant("ErrorContext(param=x)")])
        ib.emit_call("test.vm.add", args=[ib.r(0), w], dst=ib.r(1))
        ib.emit_call("test.vm.mul", args=[ib.r(1), ib.r(0)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    return ib.get(), w.numpy()


def _expected(x, w):
    return (x + w) * x


def test_save_load_round_trip(tmp_path):
    ex, w = _program()
    path = str(tmp_path / "prog.vmexec")
    ex.save_to_file(path)
    loaded = load_executable(path)
    assert loaded.as_text() == ex.as_text()
    assert loaded.stats() == ex.stats()
    x = np.array([0.5, 1.5, 2.5, 3.5])
    out = relax.VirtualMachine(loaded, tvm.cpu())["main"](tvm.nd.array(x))
    np.testing.assert_allclose(out.numpy(), _expected(x, w))
    with pytest.raises(ValueError, match=r"param=x.*expected 4 but got 3"):
        relax.VirtualMachine(loaded, tvm.cpu())["main"](tvm.nd.array(np.zeros(3)))


_CORRUPT_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {python!r})
    import tessera as tvm
    from tessera.relax.vm_build import load_executable
    src = open({path!r}, "rb").read()
    cases = [src[:n] for n in range(0, len(src), 7)]
    for i in range(8, len(src), max(1, len(src) // 60)):
        for flip in (0x01, 0x80, 0xFF):
            b = bytearray(src)
            b[i] ^= flip
            cases.append(bytes(b))
    cases.append(src + b"x")
    ok = 0
    for n, data in enumerate(cases):
        with open({path!r} + ".bad", "wb") as f:
            f.write(data)
        try:
            load_executable({path!r} + ".bad")
        except ValueError as e:
            assert isinstance(e, tvm.error.TVMError), repr(e)
            ok += 1
        else:
            raise SystemExit("case %d of %d loaded without an error" % (n, len(cases)))
    print("rejected", ok)
""")


def test_truncated_or_corrupted_executable_raises(tmp_path):
    ex, _ = _program()
    path = str(tmp_path / "prog.vmexec")
    ex.save_to_file(path)
    python_dir = os.path.join(os.path.dirname(tvm.__file__), "..")
    script = _CORRUPT_SCRIPT.format(python=os.path.abspath(python_dir), path=path)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert int(proc.stdout.split()[-1]) > 100


def test_foreign_file_is_refused(tmp_path):
    path = tmp_path / "not_an_exec"
    path.write_bytes(b"hello world, this is not a VM executable at all")
    with pytest.raises(ValueError, match=r"bad magic number"):
        load_executable(str(path))
    with pytest.raises(ValueError, match=r"cannot open"):
        load_executable(str(tmp_path / "missing"))


def _tir_program():
    lib = tvm.build(add_one, target="llvm")
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=1, param_names=["x"]):
        ib.emit_call("vm.builtin.alloc_storage", args=[ib.vm_state(), (16,), ib.convert_constant(0),
                                                       tvm.DataType("uint8"), ib.convert_constant("global")],
                     dst=ib.r(1))
        ib.emit_call("vm.builtin.alloc_tensor", args=[ib.r(1), ib.imm(0), (4,), tvm.DataType("float32")], dst=ib.r(2))
        ib.emit_call("add_one", args=[ib.r(0), ib.r(2)])
        ib.emit_ret(ib.r(2))
    ex = ib.get()
    return relax.Executable(tvm.get_global_func("relax.ExecutableLinkLibrary")(ex.mod, lib))


def test_tir_function_resolved_from_linked_library():
    ex = _tir_program()
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.arange(4, dtype="float32")
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(x)).numpy(), x + 1)
    # argument errors of the kernel are named
    with pytest.raises(ValueError, match=r"add_one"):
        vm["main"](tvm.nd.array(np.zeros(5, "float32")))


def test_export_library_and_load_module(tmp_path):
    ex = _tir_program()
    path = str(tmp_path / "model.so")
    ex.export_library(path)
    loaded = tvm.runtime.load_module(path)
    assert loaded.type_key == "relax.Executable"
    vm = relax.VirtualMachine(loaded, tvm.cpu())
    x = np.arange(4, dtype="float32") * 3
    np.testing.assert_array_equal(vm["main"](tvm.nd.array(x)).numpy(), x + 1)
    assert relax.Executable(loaded).as_text() == ex.as_text()


def test_export_library_without_tir_functions(tmp_path):
    ex, w = _program()
    path = str(tmp_path / "packed_only.so")
    ex.export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    x = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), _expected(x, w))


def test_corrupted_exported_library_raises(tmp_path):
    ex = _tir_program()
    path = str(tmp_path / "model.so")
    ex.export_library(path)
    data = open(path, "rb").read()
    blob = data.find(b"TSRVMEX1")
    assert blob > 0
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.abspath(os.path.join(os.path.dirname(tvm.__file__), '..'))!r})
        import tessera as tvm
        data = open({path!r}, "rb").read()
        for i, cut in enumerate([bytes(data[:len(data) // 2]),
                                 data[:{blob} + 40] + bytes([data[{blob} + 40] ^ 0xFF]) + data[{blob} + 41:]]):
            p = {path!r} + ".bad%d.so" % i
            open(p, "wb").write(cut)
            try:
                tvm.runtime.load_module(p)
            except ValueError as e:
                print("rejected:", " ".join(str(e).split()))
            else:
                raise SystemExit("loaded a corrupted library")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("rejected") == 2
    assert "checksum" in proc.stdout
