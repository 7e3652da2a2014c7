"""The TVMScript parser for TensorIR, as users reach it: @T.prim_func,
@I.ir_module / tvm.script.ir_module, from_source. Expected IR is written by
hand (fields checked explicitly) or as an equivalent TVMScript spelling
compared with structural equality."""
import ast
import glob
import os

import pytest

import tessera as tvm
from tessera import tir
from tessera.script import tir as T, ir as I, relax as R
import tessera.script

# The course's conformance files live in ../shared beside the repository.
CONFORMANCE = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "conformance"))


def assert_same(a, b):
    mismatch = tvm.get_global_func("ir.GetFirstStructuralMismatch")(a, b, False)
    assert mismatch is None, mismatch


def not_same(a, b):
    return not tvm.get_global_func("ir.StructuralEqual")(a, b, False)


# ---------------------------------------------------------------------------
# Basic shapes of the result
# ---------------------------------------------------------------------------


def make_vector_add_subscript():
    @T.prim_func
    def main(A: T.Buffer[128, "float32"], B: T.Buffer[128, "float32"], C: T.Buffer[128, "float32"]):
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                C[vi] = A[vi] + B[vi]

    return main


def make_vector_add_call():
    @T.prim_func
    def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                C[vi] = A[vi] + B[vi]

    return main


def test_prim_func_fields():
    f = make_vector_add_subscript()
    assert isinstance(f, tir.PrimFunc)
    assert len(f.params) == 3
    assert [f.buffer_map[p].name for p in f.params] == ["A", "B", "C"]
    for p in f.params:
        assert p.dtype == "handle"
        buf = f.buffer_map[p]
        assert [int(x) for x in buf.shape] == [128]
        assert buf.dtype == "float32"
    # A non-private prim_func gets its name as global symbol, as in TVM.
    assert f.attrs["global_symbol"] == "main"
    # The body is wrapped in the implicit root block.
    root = f.body
    assert isinstance(root, tir.BlockRealize)
    assert root.block.name_hint == "root" and len(root.block.iter_vars) == 0
    loop = root.block.body
    assert isinstance(loop, tir.For) and int(loop.extent) == 128 and int(loop.min) == 0
    assert loop.kind == tir.ForKind.SERIAL
    realize = loop.body
    assert isinstance(realize, tir.BlockRealize)
    block = realize.block
    assert block.name_hint == "C"
    assert len(block.iter_vars) == 1 and int(block.iter_vars[0].dom.extent) == 128
    assert realize.iter_values[0].same_as(loop.loop_var)
    store = block.body
    assert isinstance(store, tir.BufferStore)
    assert store.buffer.same_as(f.buffer_map[f.params[2]])
    assert store.indices[0].same_as(block.iter_vars[0].var)
    assert isinstance(store.value, tir.Add)
    # Regions are inferred when the script omits T.reads / T.writes.
    assert [r.buffer.name for r in block.reads] == ["A", "B"]
    assert [w.buffer.name for w in block.writes] == ["C"]
    assert "tir.script_infer_regions" not in dict(block.annotations)


def test_subscript_buffer_syntax_equals_call_syntax():
    assert_same(make_vector_add_subscript(), make_vector_add_call())


def make_mm(remap):
    if remap:
        @I.ir_module
        class Module:
            @T.prim_func
            def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                        C: T.Buffer((128, 128), "float32")):
                T.func_attr({"global_symbol": "mm_relu", "tir.noalias": True})
                Y = T.alloc_buffer((128, 128), dtype="float32")
                for i, j, k in T.grid(128, 128, 128):
                    with T.block("Y"):
                        vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                        with T.init():
                            Y[vi, vj] = T.float32(0)
                        Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
                for i, j in T.grid(128, 128):
                    with T.block("C"):
                        vi, vj = T.axis.remap("SS", [i, j])
                        C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
        return Module

    @tvm.script.ir_module
    class Module:
        @T.prim_func
        def mm_relu(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"),
                    C: T.Buffer((128, 128), "float32")):
            T.func_attr({"global_symbol": "mm_relu", "tir.noalias": T.bool(True)})
            # with T.block("root"):
            Y = T.alloc_buffer((128, 128))
            for i, j, k in T.grid(128, 128, 128):
                with T.block("Y"):
                    vi = T.axis.spatial(128, i)
                    vj = T.axis.spatial(128, j)
                    vk = T.axis.reduce(128, k)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(Y[vi, vj])
                    with T.init():
                        Y[vi, vj] = 0.0
                    Y[vi, vj] += A[vi, vk] * B[vk, vj]
            for i, j in T.grid(128, 128):
                with T.block("C"):
                    vi = T.axis.spatial(128, i)
                    vj = T.axis.spatial(128, j)
                    T.reads(Y[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0))
    return Module


def test_ir_module_fields():
    mod = make_mm(remap=True)
    assert isinstance(mod, tvm.IRModule)
    assert [gv.name_hint for gv in mod.get_global_vars()] == ["mm_relu"]
    f = mod["mm_relu"]
    assert f.attrs["global_symbol"] == "mm_relu"
    assert bool(f.attrs["tir.noalias"])
    root = f.body.block
    assert root.name_hint == "root"
    assert [b.name for b in root.alloc_buffers] == ["Y"]
    y_loop = root.body.seq[0]
    y_block = y_loop.body.body.body.block
    assert y_block.name_hint == "Y"
    assert [iv.iter_type for iv in y_block.iter_vars] == [tir.IterVar.DataPar, tir.IterVar.DataPar,
                                                          tir.IterVar.CommReduce]
    assert isinstance(y_block.init, tir.BufferStore)
    assert isinstance(y_block.init.value, tir.FloatImm) and y_block.init.value.dtype == "float32"


def test_remap_sugar_and_augassign_and_explicit_regions_are_equivalent():
    assert_same(make_mm(remap=True), make_mm(remap=False))


def test_private_prim_func_has_no_global_symbol_and_module_names_functions():
    @I.ir_module
    class Mod:
        @T.prim_func(private=True)
        def helper(A: T.Buffer((4,), "int32")):
            for i in T.serial(4):
                with T.block("b"):
                    vi = T.axis.spatial(4, i)
                    A[vi] = vi

        @T.prim_func
        def main(A: T.Buffer((4,), "int32")):
            T.evaluate(0)

    assert sorted(gv.name_hint for gv in Mod.get_global_vars()) == ["helper", "main"]
    assert "global_symbol" not in dict(Mod["helper"].attrs or {})
    assert Mod["main"].attrs["global_symbol"] == "main"
    # A function with no blocks keeps its body as written (no root block).
    assert isinstance(Mod["main"].body, tir.Evaluate)


def test_handle_params_match_buffer_and_symbolic_vars():
    @T.prim_func
    def f(x: T.handle, y: T.handle, s: T.int32):
        n = T.int64()
        m = T.var("int64")
        X = T.match_buffer(x, (n, m), "float32")
        Y = T.match_buffer(y, (n, 128), "float16", offset_factor=16, scope="shared")
        for i, j in T.grid(n, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.Cast("float16", X[vi, vj] * T.float32(2))

    x, y, s = f.params
    assert x.dtype == "handle" and s.dtype == "int32"
    X, Y = f.buffer_map[x], f.buffer_map[y]
    n, m = X.shape
    assert isinstance(n, tir.Var) and n.dtype == "int64" and n.name_hint == "n"
    assert m.dtype == "int64" and m.name_hint == "m"
    assert Y.shape[0].same_as(n) and int(Y.shape[1]) == 128
    assert Y.dtype == "float16" and Y.scope() == "shared" and Y.offset_factor == 16
    assert isinstance(Y.elem_offset, tir.Var)
    loop_i = f.body.block.body
    assert loop_i.loop_var.dtype == "int64" and loop_i.extent.same_as(n)
    assert loop_i.body.loop_var.dtype == "int32"


def test_closure_and_global_names_resolve():
    scope = "local"
    size = 16

    @T.prim_func
    def f(A: T.Buffer((size,), "float32")):
        B = T.alloc_buffer((size,), scope=scope)
        for i in range(size):
            with T.block("B"):
                vi = T.axis.spatial(size, i)
                B[vi] = A[vi] * 2
        for i in range(size):
            with T.block("C"):
                vi = T.axis.spatial(size, i)
                A[vi] = B[vi]

    buf = f.body.block.alloc_buffers[0]
    assert buf.scope() == "local" and [int(x) for x in buf.shape] == [16]


def test_loops_kinds_thread_binding_and_annotations():
    @T.prim_func
    def f(A: T.Buffer((1024,), "float32")):
        for bx in T.thread_binding(8, thread="blockIdx.x"):
            for tx in T.thread_binding(128, "threadIdx.x"):
                for v in T.vectorized(1):
                    with T.block("A"):
                        vi = T.axis.spatial(1024, bx * 128 + tx + v)
                        T.where(bx * 128 + tx < 1000)
                        T.block_attr({"meta_schedule.unroll": 16})
                        A[vi] = T.float32(1)
        for p in T.parallel(2, 6):
            for u in T.unroll(3, annotations={"pragma": 1}):
                with T.block("B"):
                    vi = T.axis.opaque((2, 6), p)
                    A[vi + u] = T.float32(0)

    bx = f.body.block.body.seq[0]
    assert bx.kind == tir.ForKind.THREAD_BINDING and bx.thread_binding.thread_tag == "blockIdx.x"
    tx = bx.body
    assert tx.thread_binding.thread_tag == "threadIdx.x" and int(tx.extent) == 128
    assert tx.body.kind == tir.ForKind.VECTORIZED
    realize = tx.body.body
    assert isinstance(realize.predicate, tir.LT)
    assert int(realize.block.annotations["meta_schedule.unroll"]) == 16
    p = f.body.block.body.seq[1]
    assert p.kind == tir.ForKind.PARALLEL and int(p.min) == 2 and int(p.extent) == 4
    assert p.body.kind == tir.ForKind.UNROLLED and int(p.body.annotations["pragma"]) == 1
    iv = p.body.body.block.iter_vars[0]
    assert iv.iter_type == tir.IterVar.Opaque and int(iv.dom.min) == 2 and int(iv.dom.extent) == 4


def test_expressions_operators_and_intrinsics():
    @T.prim_func
    def f(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("A"):
                vi = T.axis.spatial(8, i)
                A[vi] = (vi // 3) + (vi % 3) + (vi / 2) + T.truncdiv(vi, 2) + T.floormod(vi, 4) - T.abs(vi - 4)
                B[vi] = T.exp(B[vi]) + T.sqrt(T.float32(4)) + T.tanh(B[vi]) * T.sigmoid(B[vi])
                B[vi] = T.if_then_else(vi < 4, T.max(B[vi], 0.0), T.min(B[vi], T.float32(1)))
                B[vi] = T.Select(vi == 2 and vi != 3, B[vi], T.cast(vi, "float32"))

    seq = f.body.block.body.body.block.body.seq
    v0 = seq[0].value
    # Subtraction of a Select (abs) from a sum whose leaves are floordiv/floormod/div.
    assert isinstance(v0, tir.Sub) and isinstance(v0.b, tir.Select)
    ops = []
    tir.post_order_visit(v0, lambda n: ops.append(type(n).__name__))
    for name in ("FloorDiv", "FloorMod", "Div"):
        assert name in ops
    assert isinstance(seq[1].value, tir.Add)
    call = seq[2].value
    assert isinstance(call, tir.Call) and call.op.name == "tir.if_then_else"
    sel = seq[3].value
    assert isinstance(sel, tir.Select) and isinstance(sel.condition, tir.And)


def test_python_constant_folding_and_let_bindings():
    @T.prim_func
    def f(A: T.Buffer((16,), "int32")):
        n = 4 * 4          # Python-level: substituted
        for i in range(n):
            with T.block("A"):
                vi = T.axis.spatial(16, i)
                x = vi * 2     # a PrimExpr: becomes a LetStmt
                y: T.int32 = 3
                A[vi] = x + y

    loop = f.body.block.body
    assert int(loop.extent) == 16
    let = loop.body.block.body
    assert isinstance(let, tir.LetStmt) and let.var.name_hint == "x" and isinstance(let.value, tir.Mul)
    inner = let.body
    assert isinstance(inner, tir.LetStmt) and inner.var.name_hint == "y" and int(inner.value) == 3
    assert isinstance(inner.body, tir.BufferStore)
    assert inner.body.value.a.same_as(let.var)


def test_if_else_while_and_evaluate_call_extern():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), n: T.int32):
        if n > 2:
            A[0] = T.float32(1)
        else:
            A[1] = T.float32(2)
        if True:
            A[2] = T.float32(3)
        while n < 10:
            T.evaluate(T.call_extern("int32", "tick", n, A.data))

    seq = f.body.seq
    assert isinstance(seq[0], tir.IfThenElse) and isinstance(seq[0].else_case, tir.BufferStore)
    assert isinstance(seq[1], tir.BufferStore)  # Python-level `if True`
    w = seq[2]
    assert isinstance(w, tir.While)
    call = w.body.value
    assert call.op.name == "tir.call_extern" and call.args[0].value == "tick" and call.dtype == "int32"


def test_reads_writes_slices_and_whole_buffers():
    @T.prim_func
    def f(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
        for i0, k0 in T.grid(4, 4):
            with T.block("blk"):
                vi0, vk0 = T.axis.remap("SR", [i0, k0])
                T.reads(A[vi0 * 16:vi0 * 16 + 16, 0:64], C)
                T.writes([C[vi0 * 16:vi0 * 16 + 16, vk0]])
                T.evaluate(0)

    block = f.body.block.body.body.body.block
    region = block.reads[0].region
    assert int(region[0].extent) == 16 and int(region[1].extent) == 64 and int(region[1].min) == 0
    assert [int(r.extent) for r in block.reads[1].region] == [64, 64]
    assert int(block.writes[0].region[0].extent) == 16 and int(block.writes[0].region[1].extent) == 1


def test_explicit_root_block_and_access_ptr():
    @T.prim_func
    def f(a: T.handle, c: T.handle):
        sa = T.int32()
        A = T.match_buffer(a, (16, 16), "float32", offset_factor=16, strides=[sa, 1])
        C = T.match_buffer(c, (16, 16), "float32", offset_factor=16)
        with T.block("root"):
            T.reads(A[0:16, 0:16])
            T.writes(C[0:16, 0:16])
            T.evaluate(T.call_extern("int32", "kernel", C.access_ptr("w"), A.access_ptr("r"), sa))

    root = f.body
    assert isinstance(root, tir.BlockRealize) and root.block.name_hint == "root"
    call = root.block.body.value
    ptr = call.args[1]
    assert ptr.op.name == "tir.tvm_access_ptr" and int(ptr.args[4]) == 2
    A = f.buffer_map[f.params[0]]
    assert A.strides[0].name_hint == "sa"


# ---------------------------------------------------------------------------
# Every TIR module of the course's conformance files parses
# ---------------------------------------------------------------------------


def _conformance_tir_sources():
    out = []
    for path in sorted(glob.glob(os.path.join(CONFORMANCE, "test_ch*.py"))):
        src = open(path).read()
        lines = src.splitlines()
        for node in ast.walk(ast.parse(src)):
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or not node.decorator_list:
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if not any("prim_func" in d or "ir_module" in d for d in decorators):
                continue
            text = "\n".join(lines[node.decorator_list[0].lineno - 1:node.end_lineno])
            if "@R." in text:
                continue  # Relax is parsed elsewhere (not yet)
            out.append(pytest.param(text, node.decorator_list[0].lineno - 1,
                                    id=f"{os.path.basename(path)}:{node.decorator_list[0].lineno}"))
    return out


@pytest.mark.skipif(not os.path.isdir(CONFORMANCE), reason="conformance files not available")
@pytest.mark.parametrize("text,line_offset", _conformance_tir_sources())
def test_every_conformance_tir_module_parses(text, line_offset):
    scopes = {"a_scope": "global", "b_scope": "global", "c_scope": "global"}
    result = tessera.script.from_source(text, scopes)
    assert isinstance(result, (tir.PrimFunc, tvm.IRModule))
    # Round trip: parse(print(m)) == m, and printing is a fixed point.
    printed = result.script()
    reparsed = tessera.script.from_source(printed)
    assert_same(reparsed, result)
    assert reparsed.script() == printed


# ---------------------------------------------------------------------------
# from_source and the printer
# ---------------------------------------------------------------------------


def test_from_source_of_printed_module_round_trips():
    mod = make_mm(remap=False)
    text = mod.script()
    assert text.lstrip().startswith("# from tvm.script import")
    reparsed = tvm.script.from_source(text)
    assert_same(reparsed, mod)
    assert reparsed.script() == text


def test_from_source_prim_func_text():
    text = '''
# from tvm.script import tir as T
@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("A"):
            vi = T.axis.spatial(4, i)
            A[vi] = T.float32(0)
'''
    f = tvm.script.from_source(text)
    assert isinstance(f, tir.PrimFunc) and f.attrs["global_symbol"] == "main"


def test_relax_function_parses_beside_prim_funcs():
    # The Relax dialect is registered: @R.function builds a relax.Function
    # (its own tests: test_relax_script.py).
    @R.function
    def f(x: R.Tensor((1,), "float32")):
        return x

    assert isinstance(f, tvm.relax.Function)
    assert [p.name_hint for p in f.params] == ["x"]


# ---------------------------------------------------------------------------
# Errors: ParseError with file:line:column, the line and a caret
# ---------------------------------------------------------------------------

ERROR_CASES = [
    # (body lines, expected message fragment, culprit text)
    (["A[0] = undefined_name + 1"], "undefined name 'undefined_name'", "undefined_name"),
    (["A[0, 1] = T.float32(0)"], "has 1 dimension but is indexed with 2 indices", "A[0, 1]"),
    (["for i in T.grd(4):", "    A[i] = T.float32(0)"], "unknown TVMScript function 'T.grd'", "T.grd"),
    (["for i, j in T.grid(4):", "    A[i] = T.float32(0)"], "iterates over 1 range but names 2 variables", "i, j"),
    (["x = T.float32(0)", "x[0] = T.float32(1)"], "only buffer elements can be assigned", "x"),
    (["A[0] = T.float32(0", ""], "was never closed", "("),
    (["A[0] = T.max(A[0])"], "T.max() takes 2 arguments but 1 was given", "T.max(A[0])"),
    (["for i in 5:", "    pass"], "a for loop must iterate over range()", "5"),
    (["A[0] = A"], "buffer 'A' cannot be used as a value", "A"),
    (["with T.block('b'):", "    vi, vj = T.axis.remap('SX', [0, 1])"], "unknown axis kind 'X'", "'SX'"),
    (["T.reads(A[0])"], "must be used directly inside a T.block", "T.reads(A[0])"),
    (["A[0] = T.alloc_buffer((4,), scope=3)"], "expected the storage scope (a string)", "3"),
    (["A[0] = T.float32(0)", "  A[1] = T.float32(0)"], "unexpected indent", "A"),
    (["A[0] = 1 +* 2"], "expected an expression", "*"),
    (["for i in range(4):", "    with T.block('b'):", "        vi = T.axis.spatial(4, i, 1, 2)"],
     "takes at most 3 positional arguments", "2"),
    (["A[0] = T.float32(0)", "return 1"], "'return' is not supported", "return 1"),
]


def _make_source(body):
    lines = ["@T.prim_func", 'def f(A: T.Buffer((4,), "float32")):'] + ["    " + l if l else "" for l in body]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("body,fragment,culprit", ERROR_CASES, ids=[c[1][:40] for c in ERROR_CASES])
def test_errors_point_at_the_culprit(body, fragment, culprit):
    source = _make_source(body)
    with pytest.raises(tvm.error.ParseError) as info:
        tvm.get_global_func("script.ParseTIR")(source, "prog.py", 10, None)
    message = str(info.value)
    assert fragment in message, message
    header, shown, carets = message.split("\n")[:3]
    # file:line:col with the line in the original file (offset 10).
    file_, line, col = header.split(": error:")[0].rsplit(":", 2)
    assert file_ == "prog.py"
    line, col = int(line), int(col)
    src_line = source.splitlines()[line - 10 - 1]
    assert shown.strip() == src_line.strip()
    caret_start = carets.index("^")
    caret_len = carets.count("^")
    # The caret sits under the culprit (4 spaces of margin in the rendering).
    assert caret_start - 4 == col - 1
    if culprit:
        assert src_line[col - 1:col - 1 + caret_len] == culprit, (src_line, col, caret_len)


def test_decorated_function_errors_use_the_file_and_line():
    with pytest.raises(tvm.error.ParseError) as info:
        @T.prim_func
        def f(A: T.Buffer((4,), "float32")):
            A[0] = T.no_such_thing(1)

    message = str(info.value)
    here = os.path.abspath(__file__)
    first = message.split("\n")[0]
    assert first.startswith(here + ":")
    line = int(first[len(here) + 1:].split(":")[0])
    assert open(here).read().splitlines()[line - 1].strip() == "A[0] = T.no_such_thing(1)"
    assert "T.no_such_thing" in message


def test_parse_error_is_a_syntax_error_and_tvm_error():
    with pytest.raises(SyntaxError):
        tvm.script.from_source("@T.prim_func\ndef f(:\n    pass\n")
    with pytest.raises(tvm.TVMError):
        tvm.script.from_source("@T.prim_func\ndef f(A: T.Buffer((4,), 'float32')):\n    A[0] = q\n")


# ---------------------------------------------------------------------------
# Module functions calling each other (cls.f / the class name, any order)
# ---------------------------------------------------------------------------


def test_module_functions_call_each_other_in_any_order():
    @I.ir_module
    class Module:
        @T.prim_func
        def main(A: T.Buffer((4,), "int32")):
            for i in range(4):
                A[i] = cls.twice(i) + Module.twice(i + 1)

        @T.prim_func
        def twice(x: T.int32) -> T.int32:
            T.evaluate(x * 2)

    twice = Module.get_global_var("twice")
    assert Module["twice"].ret_type == "int32"
    store = Module["main"].body.body
    assert isinstance(store.value.a, tir.Call) and store.value.a.op.same_as(twice)
    assert store.value.b.op.same_as(twice) and store.value.a.dtype == "int32"
    # The printer writes the calls as cls.f(...), and that text parses back.
    text = Module.script()
    assert "cls.twice(i)" in text
    again = tvm.script.from_source(text)
    assert_same(Module, again)
    assert again.script() == text


def test_module_function_call_errors():
    with pytest.raises(tvm.error.ParseError, match="module 'M' has no function 'nope'"):
        tvm.script.from_source("@I.ir_module\nclass M:\n    @T.prim_func\n    def main():\n        T.evaluate(cls.nope())\n")
    with pytest.raises(tvm.error.ParseError, match=r"f\(\) takes 1 argument but 2 were given"):
        tvm.script.from_source("@I.ir_module\nclass M:\n    @T.prim_func\n    def main():\n"
                               "        T.evaluate(cls.f(1, 2))\n"
                               "    @T.prim_func\n    def f(x: T.int32):\n        T.evaluate(x)\n")


# ---------------------------------------------------------------------------
# global_var= on a module function: a GlobalVar name that cannot be a def name
# ---------------------------------------------------------------------------

_GV_MODULE = '''
@I.ir_module
class Module:
    @T.prim_func(global_var="{name}")
    def from_1(A: T.Buffer((4,), "int32")):
        A[0] = 1

    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        T.evaluate(cls.from_1(A.data))
'''


def test_global_var_names_the_module_function():
    mod = tvm.script.from_source(_GV_MODULE.format(name="from"))
    names = sorted(gv.name_hint for gv in mod.get_global_vars())
    assert names == ["from", "main"]
    # cls.from_1 (the def name) resolves to the GlobalVar "from".
    call = mod["main"].body.value
    assert call.op.same_as(mod.get_global_var("from"))
    assert mod["from"].attrs["global_symbol"] == "from"


@pytest.mark.parametrize("decorator,fragment", [
    ('@T.prim_func(global_var=3)', r"expected the GlobalVar name \(a string\)"),
    ('@T.prim_func(global_var="")', "the GlobalVar name must not be empty"),
    ('@T.prim_func(global_var="main")', "two functions of the module are named 'main'"),
])
def test_global_var_bad_values(decorator, fragment):
    text = _GV_MODULE.replace('@T.prim_func(global_var="{name}")', decorator)
    with pytest.raises(tvm.error.ParseError, match=fragment):
        tvm.script.from_source(text)


def test_global_var_outside_a_module_is_refused():
    with pytest.raises(tvm.error.ParseError, match="unexpected decorator argument 'global_var'"):
        tvm.script.from_source('@T.prim_func(global_var="x")\ndef f():\n    T.evaluate(0)\n')
