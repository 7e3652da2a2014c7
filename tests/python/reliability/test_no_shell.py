"""No path a user passes ever reaches a shell (K2 security item).

export_library of a kernel library and of a Relax executable once ran the
system linker through popen with the path inside single quotes, so a file
name such as ``lib';touch X;'.so`` ran ``touch X``. The linker is now started
with an argument vector (runtime/process.cc). Each case runs in a subprocess;
the oracle is the file system: the injected command's marker file must not
exist, the library must be written under exactly the name given and load back
and compute the right numbers (NumPy)."""
import os

import pytest

from .harness import run_case

# Names that a shell would interpret in several ways: quote breaking, command
# substitution, backticks, globbing, a leading dash (an option to the linker).
HOSTILE_NAMES = [
    "lib';touch {marker};'.so",
    'lib";touch {marker};".so',
    "lib$(touch {marker}).so",
    "lib`touch {marker}`.so",
    "lib with spaces & {{touch,{marker}}}.so",
    "-Wl,--version-{marker}.so",
]


def _kernel_case(directory, name, kind="llvm"):
    return f"""
import os, numpy as np
import tessera as tvm
from tessera import te

A = te.placeholder((8,), "float32", name="A")
B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
add_one = te.create_prim_func([A, B]).with_attr("global_symbol", "add_one")

os.chdir({directory!r})
name = {name!r}
tvm.build(add_one, target={kind!r}).export_library(name)
assert os.path.isfile(os.path.join({directory!r}, name)), sorted(os.listdir("."))
m = tvm.runtime.load_module(os.path.join({directory!r}, name))
a = np.arange(8, dtype="float32"); b = tvm.nd.empty((8,), "float32")
m["add_one"](tvm.nd.array(a), b)
np.testing.assert_allclose(b.numpy(), a + 1)
print("OK")
"""


@pytest.mark.parametrize("kind", ["llvm", "c"])  # the system linker / the system C compiler
@pytest.mark.parametrize("template", HOSTILE_NAMES)
def test_kernel_export_library_runs_no_shell(tmp_path, template, kind):
    marker = tmp_path / "INJECTED"
    name = template.format(marker=marker.name)
    res = run_case(_kernel_case(str(tmp_path), name, kind), timeout=120)
    assert not marker.exists(), "a shell ran part of the file name"
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
    assert not any(p.name.endswith(".tessera.o") for p in tmp_path.iterdir()), "object file left behind"


def test_relax_executable_export_library_runs_no_shell(tmp_path):
    marker = tmp_path / "INJECTED"
    name = f"vm';touch {marker.name};'.so"
    code = f"""
import os, numpy as np
import tessera as tvm
from tessera import relax
bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorStructInfo([4], "float32"))
with bb.function("main", [x]):
    bb.emit_func_output(bb.emit(relax.op.add(x, x)))
ex = relax.build(bb.get(), target="llvm")
os.chdir({str(tmp_path)!r})
path = os.path.join({str(tmp_path)!r}, {name!r})
ex.export_library(path)
vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
x = np.arange(4, dtype="float32")
np.testing.assert_allclose(vm["main"](tvm.nd.array(x)).numpy(), 2 * x)
print("OK")
"""
    res = run_case(code, timeout=120)
    assert not marker.exists(), "a shell ran part of the file name"
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


def test_linker_failure_names_the_library(tmp_path):
    """A linker that cannot run is a clear RuntimeError naming the program, not
    a shell's "command not found" or a crash."""
    code = f"""
import tessera as tvm
from tessera import te

A = te.placeholder((2,), "float32", name="A")
f = te.create_prim_func([A, te.compute((2,), lambda i: A[i] * 2.0, name="B")])
try:
    tvm.build(f, target="llvm").export_library({str(tmp_path / "f.so")!r})
except RuntimeError as e:
    assert "no-such-linker-xyz" in str(e), e
    print("RAISED")
"""
    res = run_case(code, timeout=120, env={"CXX": "no-such-linker-xyz"})
    assert res.returncode == 0 and "RAISED" in res.stdout, res.describe()


def test_no_process_is_started_through_a_shell():
    """Static check over the sources: popen/system and Python's shell=True /
    os.system / os.popen appear nowhere in the project's code."""
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    offenders = []
    for top in ("src", "bindings", "python", "apps", "benchmarks"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".cc", ".h", ".py")):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                for needle in ("popen(", "system(", "shell=True", "os.system", "os.popen", "execl(", "execlp("):
                    if needle in text:
                        offenders.append(f"{os.path.relpath(path, root)}: {needle}")
    assert not offenders, offenders
