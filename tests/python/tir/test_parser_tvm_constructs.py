"""TVMScript constructs that TVM's own test programs use and the parser now
reads: lambdas and T.comm_reducer, T.attr / T.env_thread / T.launch_thread /
T.LetStmt scopes, dtype= on intrinsics, T.type_annotation(dtype=), A[()] and
A[(i, j)], storage scopes of T.allocate and T.handle, registered tensor-core /
PTX / profiling intrinsics, T.target, T.ceildiv / T.ramp / T.broadcast, host
Python functions called while parsing. Each construct: the parsed IR checked
against hand-built IR or its fields, the printed text against a hand-written
expectation, parse(print(f)) == f, and bad inputs raising ParseError at the
culprit."""
import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T  # noqa: F401  (names the namespace the texts use)


def parse(text, extra_vars=None):
    return tvm.script.from_source(text, extra_vars)


def roundtrip(f):
    again = parse(f.script())
    tvm.ir.assert_structural_equal(f, again)
    return again


def body_of(text):
    """The statements of a prim_func body given without the def line."""
    lines = ["@T.prim_func", "def f(A: T.Buffer((16,), \"float32\"), x: T.float32, n: T.int32):"]
    lines += ["    " + line for line in text.strip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def bad(text, match):
    with pytest.raises(tvm.error.ParseError, match=match):
        parse(text)


# ---------------------------------------------------------------------------
# lambdas and T.comm_reducer, T.attr
# ---------------------------------------------------------------------------

REDUCE = body_of('''
with T.attr(T.comm_reducer(lambda a, b: a + b, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
    A[0] = x
''')


def test_comm_reducer_in_attr_builds_the_reducer():
    f = parse(REDUCE)
    attr = f.body
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "reduce_scope"
    red = attr.node
    assert isinstance(red, tir.CommReducer)
    assert len(red.lhs) == 1 and len(red.rhs) == 1 and red.lhs[0].dtype == "float32"
    # The combiner is lhs + rhs over the reducer's own variables; the identity is 0.0f.
    tvm.ir.assert_structural_equal(red.result[0], tir.Add(red.lhs[0], red.rhs[0]))
    assert red.identity_element[0].value == 0.0 and red.identity_element[0].dtype == "float32"
    assert attr.value.op.name == "tir.reinterpret" and attr.value.dtype == "handle"


def test_comm_reducer_prints_as_a_lambda_and_round_trips():
    f = parse(REDUCE)
    text = f.script()
    assert 'T.attr(T.comm_reducer(lambda a, b: a + b, [T.float32(0)]), "reduce_scope", ' in text
    roundtrip(f)


def test_comm_reducer_over_two_values():
    f = parse(body_of('''
with T.attr(T.comm_reducer(lambda x0, i0, x1, i1: (T.Select(x0 >= x1, x0, x1), T.Select(x0 >= x1, i0, i1)), [T.float32(-3.0), -1]), "reduce_scope", 0):
    A[0] = x
'''))
    red = f.body.node
    assert [v.dtype for v in red.lhs] == ["float32", "int32"] and [v.dtype for v in red.rhs] == ["float32", "int32"]
    assert len(red.result) == 2 and red.identity_element[1].value == -1
    assert "lambda x0, i0, x1, i1: (T.Select(" in f.script()
    roundtrip(f)


def test_comm_reducer_equality_maps_the_lambda_variables():
    a = parse(REDUCE)
    b = parse(REDUCE.replace("lambda a, b: a + b", "lambda p, q: p + q"))
    tvm.ir.assert_structural_equal(a, b)
    c = parse(REDUCE.replace("lambda a, b: a + b", "lambda p, q: q + p"))
    assert not tvm.ir.structural_equal(a, c)


def test_comm_reducer_bad_inputs():
    bad(REDUCE.replace("lambda a, b: a + b", "lambda a: a"), r"takes 2 parameters for 1 identity element, got 1")
    bad(REDUCE.replace("lambda a, b: a + b", "lambda a, b: (a, b)"), "returns 2 values for 1 identity element")
    bad(REDUCE.replace("lambda a, b: a + b", "3"), "expects a lambda")
    bad(REDUCE.replace("[T.float32(0)]", "T.float32(0)"), "list of identity elements")
    bad(REDUCE.replace("lambda a, b: a + b", "lambda *a: a"), "lambda parameters must be plain names")
    bad(REDUCE.replace("lambda a, b: a + b", "lambda a, b: c"), "undefined name 'c'")


def test_bare_attr_encloses_the_rest_of_the_body():
    f = parse(body_of('''
T.attr(A.data, "storage_alignment", 128)
A[0] = x
A[1] = x
'''))
    attr = f.body
    assert isinstance(attr, tir.AttrStmt) and attr.attr_key == "storage_alignment" and attr.value.value == 128
    assert isinstance(attr.body, tir.SeqStmt) and len(attr.body.seq) == 2
    roundtrip(f)


def test_attr_bad_inputs():
    bad(body_of('T.attr(A.data, 5, 1)\nA[0] = x'), "expected the attribute key")
    bad(body_of('T.attr(A.data, "k")\nA[0] = x'), "missing the required argument 'value'")
    bad(body_of('with T.attr(A.data, "k", 1) as y:\n    A[0] = x'), r"T.attr\(\) defines no value for 'as'")


# ---------------------------------------------------------------------------
# threads: T.env_thread + T.launch_thread
# ---------------------------------------------------------------------------

LAUNCH = body_of('''
tx = T.env_thread("threadIdx.x")
bx = T.env_thread("blockIdx.x")
with T.launch_thread(bx, 4):
    T.launch_thread(tx, 4)
    A[bx * 4 + tx] = x
with T.launch_thread(tx, 4):
    A[tx] = x
''')


def test_launch_thread_makes_thread_extent_attrs():
    f = parse(LAUNCH)
    first, second = f.body.seq
    assert first.attr_key == "thread_extent" and first.node.thread_tag == "blockIdx.x"
    assert first.value.value == 4 and first.node.iter_type == tir.IterVar.ThreadIndex
    inner = first.body
    assert inner.attr_key == "thread_extent" and inner.node.thread_tag == "threadIdx.x"
    # One IterVar per env_thread variable, however often it is launched.
    assert inner.node.same_as(second.node)
    assert inner.node.dom.extent.value == 4


def test_launch_thread_prints_env_threads_first_and_round_trips():
    f = parse(LAUNCH)
    text = f.script()
    assert 'tx = T.env_thread("threadIdx.x")' in text and 'bx = T.env_thread("blockIdx.x")' in text
    assert "with T.launch_thread(bx, 4):" in text and "T.launch_thread(tx, 4)\n" in text
    roundtrip(f)


def test_launch_thread_by_tag_binds_a_new_variable():
    f = parse(body_of('''
with T.launch_thread("threadIdx.x", 8) as t:
    A[t] = x
v = T.launch_thread("vthread", 2)
A[v] = x
'''))
    first, second = f.body.seq
    assert first.node.thread_tag == "threadIdx.x" and first.node.var.dtype == "int32"
    assert second.attr_key == "virtual_thread"
    tvm.ir.assert_structural_equal(first.body.indices[0], first.node.var)
    roundtrip(f)


def test_launch_thread_bad_inputs():
    bad(body_of('T.launch_thread(5, 4)\nA[0] = x'), "expects a thread tag")
    bad(body_of('T.launch_thread(n, 4)\nA[0] = x'), "made by T.env_thread")
    bad(body_of('t = T.env_thread("threadIdx.x", dtype="float32")\nA[0] = x'), "scalar integer")
    bad(body_of('t = T.env_thread("threadIdx.x")\nT.launch_thread(t, x)\nA[0] = x'), "scalar integer")


# ---------------------------------------------------------------------------
# T.LetStmt scopes
# ---------------------------------------------------------------------------


def test_letstmt_with_forms():
    f = parse(body_of('''
with T.LetStmt(n + 1) as m:
    A[m] = x
k = T.int32()
with T.LetStmt(n * 2, var=k):
    A[k] = x
'''))
    first, second = f.body.seq
    assert isinstance(first, tir.LetStmt) and first.var.dtype == "int32"
    assert isinstance(second, tir.LetStmt) and second.var.name_hint == "k"
    roundtrip(f)
    bad(body_of('k = T.float32()\nwith T.LetStmt(n, var=k):\n    A[0] = x'), "has dtype int32 but the variable is float32")


# ---------------------------------------------------------------------------
# dtype= on intrinsics and builtins; T.type_annotation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("with_kw,without", [
    ("T.exp(x, dtype=\"float32\")", "T.exp(x)"),
    ("T.sqrt(x, dtype=\"float32\")", "T.sqrt(x)"),
    ("T.if_then_else(n > 0, x, x, dtype=\"float32\")", "T.if_then_else(n > 0, x, x)"),
    ("T.max(x, x, dtype=\"float32\")", "T.max(x, x)"),
    ("T.reinterpret(n, dtype=\"float32\")", "T.reinterpret(\"float32\", n)"),
    ("T.call_extern(\"f\", x, dtype=\"float32\")", "T.call_extern(\"float32\", \"f\", x)"),
])
def test_dtype_keyword_gives_the_same_call(with_kw, without):
    a = parse(body_of(f"A[0] = {with_kw}"))
    b = parse(body_of(f"A[0] = {without}"))
    tvm.ir.assert_structural_equal(a, b)


def test_dtype_keyword_void_and_likely():
    f = parse(body_of('T.evaluate(T.call_extern("sync", dtype=""))\nif T.likely(n > 0, dtype="bool"):\n    A[0] = x'))
    call = f.body.seq[0].value
    assert call.dtype == "void" and call.args[0].value == "sync"
    roundtrip(f)


def test_dtype_keyword_must_match_the_result():
    bad(body_of('A[0] = T.exp(x, dtype="float16")'), r'T.exp\(\): dtype="float16" does not match the dtype of the result, float32')
    bad(body_of('A[0] = T.max(x, x, dtype="int32")'), "does not match the dtype of the result")
    bad(body_of('A[0] = T.exp(x, precision="high")'), "unexpected keyword argument 'precision'")
    bad(body_of('A[0] = T.call_extern("f", x, name="g")'), "unexpected keyword argument 'name'")


def test_type_annotation_with_dtype_keyword():
    f = parse(body_of('T.evaluate(T.type_annotation(dtype="float16"))'))
    g = parse(body_of('T.evaluate(T.type_annotation("float16"))'))
    tvm.ir.assert_structural_equal(f, g)
    assert f.body.value.dtype == "float16"
    bad(body_of('T.evaluate(T.type_annotation())'), "missing the required argument 'dtype'")


# ---------------------------------------------------------------------------
# Indexing with a tuple
# ---------------------------------------------------------------------------


def test_tuple_indices():
    f = parse('''@T.prim_func
def f(A: T.Buffer((2, 2), "float32"), B: T.Buffer((), "float32")):
    A[(0, 1)] = B[()]
    B[()] = A[(1, 0)] + A[1, 1]
''')
    g = parse('''@T.prim_func
def f(A: T.Buffer((2, 2), "float32"), B: T.Buffer((), "float32")):
    A[0, 1] = B[()]
    B[()] = A[1, 0] + A[1, 1]
''')
    tvm.ir.assert_structural_equal(f, g)
    assert len(f.body.seq[0].value.indices) == 0
    roundtrip(f)
    bad('@T.prim_func\ndef f(A: T.Buffer((2, 2), "float32")):\n    A[(0,)] = 1.0\n', "has 2 dimensions but is indexed with 1 index")


# ---------------------------------------------------------------------------
# Storage scopes: T.allocate, T.handle, T.decl_buffer
# ---------------------------------------------------------------------------


def test_allocate_with_a_scope_types_its_variable():
    f = parse(body_of('''
buf = T.allocate([16], "float32", "shared")
B = T.Buffer((16,), data=buf, scope="shared")
B[0] = x
'''))
    alloc = f.body
    ann = alloc.buffer_var.type_annotation
    assert isinstance(ann, tvm.ir.PointerType) and ann.storage_scope == "shared"
    assert ann.element_type.dtype == "float32"
    assert 'T.allocate([16], "float32", "shared")' in f.script()
    roundtrip(f)
    # The same without a scope has no annotation, and is a different program.
    g = parse(body_of('buf = T.allocate([16], "float32")\nB = T.Buffer((16,), data=buf)\nB[0] = x'))
    assert g.body.buffer_var.type_annotation is None
    assert not tvm.ir.structural_equal(f, g)


def test_handle_parameters_with_pointer_types():
    f = parse('''@T.prim_func
def f(a: T.handle("float32", "shared"), b: T.handle("int8"), c: T.handle):
    T.evaluate(0)
''')
    a, b, c = f.params
    assert a.type_annotation.storage_scope == "shared" and a.type_annotation.element_type.dtype == "float32"
    assert b.type_annotation.storage_scope == "global" and c.type_annotation is None
    text = f.script()
    assert 'a: T.handle("float32", "shared"), b: T.handle("int8"), c: T.handle' in text
    roundtrip(f)
    bad('@T.prim_func\ndef f(a: T.handle("float32", "")):\n    T.evaluate(0)\n', "storage scope cannot be empty")


def test_decl_buffer_in_a_scope_round_trips():
    f = parse(body_of('B = T.decl_buffer((16,), "float32", scope="local")\nB[0] = x'))
    assert f.body.buffer_var.type_annotation.storage_scope == "local"
    assert 'T.decl_buffer((16,), scope="local")' in f.script()
    roundtrip(f)


# ---------------------------------------------------------------------------
# Registered intrinsics
# ---------------------------------------------------------------------------


def test_tensor_core_and_profiling_intrinsics():
    f = parse('''@T.prim_func
def f(a: T.handle, c: T.handle):
    T.tvm_fill_fragment(c, 16, 16, 16, 0, T.float32(0))
    T.tvm_mma_sync(c, 0, a, 0, a, 0, c, 0)
    T.tvm_load_matrix_sync(a, 16, 16, 16, 0, a, 16, "row_major")
    T.tvm_store_matrix_sync(c, 16, 16, 16, 0, c, 16, "row_major")
    T.start_profile_intrinsic(3)
    T.end_profile_intrinsic(3)
    T.ptx_commit_group()
    T.ptx_wait_group(0)
    T.evaluate(T.ptx_ldmatrix("float16", T.bool(False), 4, ".b16", a, 0, a, 0))
''')
    calls = [s.value for s in f.body.seq]
    assert [c.op.name for c in calls][:4] == ["tir.tvm_fill_fragment", "tir.tvm_mma_sync", "tir.tvm_load_matrix_sync",
                                             "tir.tvm_store_matrix_sync"]
    assert all(c.dtype == "handle" for c in calls[:6])
    assert calls[6].dtype == "void" and calls[8].dtype == "float16" and len(calls[8].args) == 7
    text = f.script()
    assert 'T.ptx_ldmatrix("float16", T.bool(False), 4, ".b16", a, 0, a, 0)' in text
    assert "T.tvm_mma_sync(c, 0, a, 0, a, 0, c, 0)" in text
    roundtrip(f)
    bad('@T.prim_func\ndef f(c: T.handle):\n    T.tvm_mma_sync(c, 0)\n', r"T.tvm_mma_sync\(\) takes 8 arguments but 2 were given")
    bad('@T.prim_func\ndef f(c: T.handle):\n    T.evaluate(T.ptx_ldmatrix())\n', "needs the result dtype first")


def test_ceildiv_ramp_broadcast():
    f = parse(body_of('A[T.ceildiv(n, 4)] = x\nT.evaluate(T.ramp(n, 1, 4) + T.broadcast(n, 4))'))
    store = f.body.seq[0]
    tvm.ir.assert_structural_equal(store.indices[0], tir.FloorDiv(tir.Sub(tir.Add(f.params[2], 4), 1), 4))
    roundtrip(f)
    bad(body_of('A[T.ceildiv(x, 4.0)] = x'), "integer operands")


# ---------------------------------------------------------------------------
# T.target, host functions, if on integers
# ---------------------------------------------------------------------------


def test_target_attribute_with_host():
    f = parse('''@T.prim_func
def f():
    T.func_attr({"target": T.target("cuda", host="llvm")})
    T.evaluate(0)
''')
    target = f.attrs["target"]
    assert isinstance(target, tvm.target.Target) and target.kind.name == "cuda" and target.host.kind.name == "llvm"
    assert 'T.target("cuda", host="llvm")' in f.script()
    roundtrip(f)
    g = parse('@T.prim_func\ndef f():\n    T.func_attr({"target": T.target({"kind": "cuda", "arch": "sm_80"})})\n    T.evaluate(0)\n')
    assert g.attrs["target"].attrs["arch"] == "sm_80"
    bad('@T.prim_func\ndef f():\n    T.func_attr({"target": T.target("gpu9")})\n    T.evaluate(0)\n', "unknown target kind 'gpu9'")
    bad('@T.prim_func\ndef f():\n    T.func_attr({"target": T.target("llvm", host="c")})\n    T.evaluate(0)\n',
        "for CPU targets the host is the target itself")
    bad('@T.prim_func\ndef f():\n    T.func_attr({"target": T.target(3)})\n    T.evaluate(0)\n', "expects a target string")


def test_host_python_functions_are_called_while_parsing():
    seen = []

    def scale(v, k):
        seen.append(k)
        return v * k

    f = parse(body_of('A[0] = scale(x, 2.0)'), {"scale": scale})
    g = parse(body_of('A[0] = x * T.float32(2)'))
    tvm.ir.assert_structural_equal(f, g)
    assert seen == [2.0]

    def broken(v):
        raise ValueError("no")

    bad_text = body_of('A[0] = broken(x)')
    with pytest.raises(tvm.error.ParseError, match="no"):
        parse(bad_text, {"broken": broken})


def test_if_on_an_integer_means_not_zero():
    f = parse(body_of('if n:\n    A[0] = x'))
    g = parse(body_of('if n != 0:\n    A[0] = x'))
    tvm.ir.assert_structural_equal(f, g)


def test_parse_error_carries_msg_and_location_for_tracebacks():
    with pytest.raises(tvm.error.ParseError) as info:
        parse(body_of('A[0] = T.exp(x, dtype="float16")'))
    err = info.value
    assert err.msg == str(err) and "does not match the dtype" in err.msg
    assert err.lineno == 3 and err.offset > 0 and err.filename == "<string>"
    import traceback  # pylint: disable=import-outside-toplevel

    shown = "".join(traceback.format_exception_only(type(err), err))
    assert "<no detail available>" not in shown and "does not match the dtype" in shown


# ---------------------------------------------------------------------------
# T.Let, raw node constructors, warp intrinsics, typed handle lets
# ---------------------------------------------------------------------------


def test_let_expression_with_where():
    f = parse(body_of('y = T.float32()\nA[0] = T.Let(y * 2.0, where={y: x + 1.0})'))
    let = f.body.value
    assert isinstance(let, tir.Let) and let.var.dtype == "float32"
    tvm.ir.assert_structural_equal(let.value, tir.Add(f.params[1], tir.FloatImm("float32", 1.0)))
    roundtrip(f)
    bad(body_of('A[0] = T.Let(x, where={"y": x})'), "the key of where= must be a variable")
    bad(body_of('A[0] = T.Let(x, where=3)'), "one binding")


def test_raw_node_constructors_do_not_fold():
    f = parse(body_of('A[T.Div(n * 4, 4)] = T.Max(x, x)'))
    store = f.body
    assert isinstance(store.indices[0], tir.Div) and isinstance(store.value, tir.Max)
    roundtrip(f)
    bad(body_of('A[0] = T.Add(x, n)'), "Add: operands have different dtypes float32 and int32")


def test_warp_intrinsics_take_the_value_dtype():
    f = parse(body_of('mask = T.tvm_warp_activemask()\nA[0] = T.tvm_warp_shuffle(mask, x, 0, 32, 32)'))
    let = f.body
    assert let.var.dtype == "uint32"
    assert let.body.value.dtype == "float32" and let.body.value.op.name == "tir.tvm_warp_shuffle"
    roundtrip(f)


def test_typed_handle_let():
    f = parse(body_of('p: T.handle("float32") = T.address_of(A[2])\nB = T.decl_buffer((4,), data=p)\nB[0] = x'))
    assert f.body.var.type_annotation.element_type.dtype == "float32"
    assert 'p: T.handle("float32") = T.address_of(A[2])' in f.script()
    roundtrip(f)


def test_host_function_returning_a_script_placeholder_is_an_error_not_a_hang():
    def helper(v):
        return T.reinterpret("float32", v)  # T.* are placeholders outside TVMScript

    with pytest.raises(tvm.error.ParseError, match="expected a value to store"):
        parse(body_of('A[0] = helper(n)'), {"helper": helper})


def test_buffer_over_a_let_bound_pointer_prints_after_the_let():
    f = parse('''@T.prim_func
def f(args: T.handle):
    a_data: T.handle("float32") = T.tvm_struct_get(args, 0, 1, dtype="handle")
    A = T.Buffer((16,), data=a_data)
    b_data: T.handle("float32") = T.tvm_struct_get(args, 1, 1, dtype="handle")
    B = T.Buffer((16,), data=b_data)
    B[0] = A[0]
''')
    text = f.script()
    assert text.index('a_data: T.handle("float32") = T.tvm_struct_get("handle", args, 0, 1)') < \
        text.index("A = T.Buffer((16,), data=a_data)")
    roundtrip(f)


def test_one_name_over_a_grid_binds_the_tuple_of_loop_vars():
    packed = parse('''
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for iters in T.grid(4, 8):
        with T.block("b"):
            i, j = T.axis.remap("SS", iters)
            B[i, j] = A[i, j] * T.float32(2)
''')
    named = parse('''
@T.prim_func
def f(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for a, b in T.grid(4, 8):
        with T.block("b"):
            i, j = T.axis.remap("SS", [a, b])
            B[i, j] = A[i, j] * T.float32(2)
''')
    tvm.ir.assert_structural_equal(packed, named)
    assert packed.body.block.body.loop_var.name == "iters_0"
    with pytest.raises(tvm.error.ParseError, match="iterates over 2 ranges but names 3 variables"):
        parse('''
@T.prim_func
def g(A: T.Buffer((4, 8), "float32")):
    for a, b, c in T.grid(4, 8):
        A[a, b] = T.float32(0)
''')
