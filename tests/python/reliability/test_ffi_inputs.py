"""Values a careless caller passes through the FFI (issue 9, items 2 and 8):
None where an object or handle is expected, self-referential and absurdly
deep containers, and type objects. Each must raise TypeError/ValueError
naming the culprit, never crash; a schedule is left unchanged."""
import pytest

from .harness import run_case, expect_error
from .programs import MATMUL

# Schedule calls with "{N}" marking where None goes; b = block "C", l0..l2 = its loops.
SCHEDULE_CALLS = [
    "sch.get({N})", "sch.get_loops({N})", "sch.get_child_blocks({N})", "sch.get_producers({N})",
    "sch.get_consumers({N})", "sch.split({N}, [8, None])", "sch.fuse({N})", "sch.fuse(l0, {N})",
    "sch.fuse([l0, {N}])", "sch.reorder({N}, l0)", "sch.reorder(l1, {N})", "sch.parallel({N})",
    "sch.vectorize({N})", "sch.unroll({N})", "sch.bind({N}, 'threadIdx.x')", "sch.compute_at({N}, l1)",
    "sch.compute_at(b, {N})", "sch.reverse_compute_at({N}, l1)", "sch.cache_read({N}, 0, 'global')",
    "sch.cache_write({N}, 0, 'global')", "sch.compute_inline({N})", "sch.reverse_compute_inline({N})",
    "sch.annotate({N}, 'k', 1)", "sch.unannotate({N}, 'k')", "sch.sample_perfect_tile({N}, 2)",
    "sch.decompose_reduction({N}, l0)", "sch.decompose_reduction(b, {N})", "sch.rfactor({N}, 0)",
    "sch.blockize({N})", "sch.transform_layout({N}, ('write', 0), lambda i, j: (j, i))",
    "sch.transform_layout(b, ('write', 0), {N})", "sch.add_unit_loop({N})",
    "sch.sample_compute_location({N})", "sch.storage_align({N}, 0, 0, 8, 1)",
]


def test_none_for_a_handle_is_a_type_error_naming_the_parameter_and_changes_nothing():
    res = run_case(MATMUL + """
import tessera as tvm
failures = []
for call in CALLS:
    sch = tvm.tir.Schedule(matmul)
    b = sch.get_block("C")
    l0, l1, l2 = sch.get_loops(b)
    before = sch.mod
    try:
        eval(call.format(N="None"))
        failures.append((call, "no error"))
    except TypeError as e:
        if not isinstance(e, tvm.error.TVMError) or "None" not in str(e):
            failures.append((call, type(e).__name__, str(e)))
    except Exception as e:  # pylint: disable=broad-except
        failures.append((call, type(e).__name__, str(e)))
    tvm.ir.assert_structural_equal(sch.mod, before)
print("FAILURES", failures)
assert not failures, failures
""".replace("CALLS", repr(SCHEDULE_CALLS)), timeout=120)
    assert res.returncode == 0, res.describe()


def test_schedule_get_none_names_the_parameter():
    expect_error(MATMUL + """
sch = tvm.tir.Schedule(matmul)
sch.get(None)
""", "TypeError", "parameter 'rv'")


def test_every_registered_function_survives_none_arguments():
    """Calls every global function of the core with 0..4 None arguments: each
    call returns or raises an ordinary exception; none crashes."""
    res = run_case("""
import tessera as tvm
names = [n for n in tvm._ffi.registry.list_global_func_names()
         if not n.startswith(("testing.", "runtime.Exit", "runtime.Abort"))]
assert len(names) > 100, len(names)
for name in names:
    f = tvm.get_global_func(name)
    for k in range(5):
        try:
            f(*([None] * k))
        except Exception:  # pylint: disable=broad-except
            pass
print("CALLED", len(names))
""", timeout=300)
    assert not res.crashed and res.returncode == 0, res.describe()
    assert "CALLED" in res.stdout


@pytest.mark.parametrize("shape", ["l", "[0, l]", "[[1, [2, l]]]", "(1, l)", "{'k': l}", "[{'k': [l]}]"])
@pytest.mark.parametrize("kind", ["list", "dict"])
def test_self_referential_containers_are_refused(shape, kind):
    make = "l = [1, 2]; l.append(l)" if kind == "list" else "l = {'a': 1}; l['self'] = l"
    expect_error(f"""
{make}
tvm.get_global_func("testing.echo")({shape})
""", "ValueError", "self-referential")


@pytest.mark.parametrize("depth", [1001, 5000, 200000])
def test_deeply_nested_lists_convert_or_are_refused_clearly(depth):
    # Bounded by the stack guard, not a fixed count: a deep list converts
    # (on the large-stack retry) or raises TVMRecursionError; never a crash.
    res = run_case(f"""
import sys
import tessera as tvm
sys.setrecursionlimit(10 ** 6)
x = [7]
for _ in range({depth}):
    x = [x]
try:
    y = tvm.get_global_func("testing.echo")(x)
except tvm.error.TVMRecursionError as e:
    assert "nesting too deep" in str(e), str(e)
    print("REFUSED")
else:
    for _ in range({depth}):
        y = y[0]
    assert int(y[0]) == 7
    print("OK")
""", timeout=120)
    assert res.returncode == 0 and ("OK" in res.stdout or "REFUSED" in res.stdout), res.describe()
    if depth <= 5000:
        assert "OK" in res.stdout, res.describe()


def test_nesting_within_the_limit_converts():
    res = run_case("""
import tessera as tvm
x = [7]
for _ in range(900):
    x = [x]
y = tvm.get_global_func("testing.echo")(x)
for _ in range(900):
    y = y[0]
assert int(y[0]) == 7
print("OK")
""")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()


@pytest.mark.parametrize("obj", ["int", "float", "bool", "str", "list", "object", "type", "np.float32", "Num"])
@pytest.mark.parametrize("call", ["echo({O})", "echo([1, {O}])", "echo({{'k': {O}}})", "tvm.tir.const({O}, 'int32')",
                                  "tvm.tir.const(1, {O})", "tvm.nd.empty((2, 2), {O})", "tvm.nd.empty({O})"])
def test_type_objects_are_a_clear_error(obj, call):
    expect_error(f"""
import numpy as np
class Num:
    def __index__(self):
        return 1
echo = tvm.get_global_func("testing.echo")
{call.format(O=obj)}
""", "(TypeError, ValueError)", "")


def test_type_object_message_names_the_type():
    expect_error("tvm.get_global_func('testing.echo')(int)", "TypeError", "type object 'int'")


def test_a_user_class_still_passes_as_a_callable():
    res = run_case("""
import tessera as tvm
class Twice:
    def __new__(cls, x):
        return 2 * x
f = tvm.get_global_func("testing.echo")(Twice)
assert isinstance(f, tvm.runtime.PackedFunc) and f(21) == 42
print("OK")
""")
    assert res.returncode == 0 and "OK" in res.stdout, res.describe()
