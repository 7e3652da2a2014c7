"""The pass infrastructure from Python (tvm.transform, tvm.ir.instrument,
tvm.tir.transform.prim_func_pass): contexts, config validation, Sequential
semantics, instrument hook order, printing and timing instruments,
Python passes inside C++ Sequentials, and the errors of bad inputs."""
import numpy as np
import pytest

import tessera as tvm
from tessera.script import tir as T


@T.prim_func
def row_sum(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, k in T.grid(4, 8):
        with T.block("s"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


@T.prim_func
def scale(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in T.vectorized(16):
        with T.block("b"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi] * T.float32(2)


PIPELINE = ["LowerCrossThreadReduction", "LowerInitBlock", "ConvertBlocksToOpaque", "LowerOpaqueBlock", "CompactBufferAllocation",
            "HoistNestPredicates", "LoopPartition", "FlattenBuffer", "VectorizeLoop", "UnrollLoop",
            "MakePackedAPI"]


def _mod(f=row_sum):
    return tvm.IRModule({"main": f})


def _logging_pass(name, log, opt_level=0, required=None):
    @tvm.transform.module_pass(opt_level=opt_level, name=name, required=required)
    def _pass(mod, ctx):
        log.append(name)
        return mod

    return _pass


def test_transform_is_exported_twice():
    assert tvm.transform is tvm.ir.transform
    import tessera.transform  # noqa: F401  pylint: disable=import-outside-toplevel

    assert tvm.transform.PassContext is tvm.ir.transform.PassContext


def test_pass_context_current_and_nesting():
    outer = tvm.transform.PassContext.current()
    assert outer.opt_level == 2
    with tvm.transform.PassContext(opt_level=1) as a:
        assert tvm.transform.PassContext.current().same_as(a)
        with tvm.transform.PassContext(opt_level=3, disabled_pass=["X"]) as b:
            cur = tvm.transform.PassContext.current()
            assert cur.same_as(b) and cur.opt_level == 3 and list(cur.disabled_pass) == ["X"]
        assert tvm.transform.PassContext.current().same_as(a)
    assert tvm.transform.PassContext.current().opt_level == 2


def test_pass_context_exception_inside_with_still_exits():
    outer = tvm.transform.PassContext.current()
    with pytest.raises(KeyError):
        with tvm.transform.PassContext(opt_level=0):
            raise KeyError("inside")
    assert tvm.transform.PassContext.current().same_as(outer)


def test_config_validation():
    with tvm.transform.PassContext(config={"tir.disable_vectorize": True}) as ctx:
        assert ctx.config["tir.disable_vectorize"] is True
    assert "tir.disable_vectorize" in tvm.transform.PassContext.list_configs()
    assert tvm.transform.PassContext.list_configs()["tir.disable_vectorize"]["type"] == "bool"
    with pytest.raises(AttributeError, match="tir.no_such_option"):
        tvm.transform.PassContext(config={"tir.no_such_option": 1})
    with pytest.raises(TypeError, match="tir.disable_vectorize"):
        tvm.transform.PassContext(config={"tir.disable_vectorize": "yes"})
    with pytest.raises(tvm.TVMError):  # the classes also derive from TVMError
        tvm.transform.PassContext(config={"tir.disable_vectorize": [1]})
    with pytest.raises(TypeError):
        tvm.transform.PassContext(config=[("tir.disable_vectorize", True)])
    with pytest.raises(TypeError):
        tvm.transform.PassContext(disabled_pass="VectorizeLoop")  # a string is not a list of names
    with pytest.raises(TypeError):
        tvm.transform.PassContext(instruments=[1])


def test_sequential_opt_level_required_disabled():
    log = []
    prep = _logging_pass("Prep", log)
    seq = tvm.transform.Sequential([
        _logging_pass("A", log, 0),
        _logging_pass("B", log, 3),
        _logging_pass("C", log, 1, required=["tir.transform.LowerInitBlock"]),
        _logging_pass("D", log, 2),
    ])
    mod = _mod()

    def run(**kwargs):
        log.clear()
        with tvm.transform.PassContext(**kwargs):
            out = seq(mod)
        return list(log), out

    assert run()[0] == ["A", "C", "D"]
    assert run(opt_level=3)[0] == ["A", "B", "C", "D"]
    assert run(opt_level=0, required_pass=["D"])[0] == ["A", "D"]
    assert run(opt_level=3, disabled_pass=["B", "C"])[0] == ["A", "D"]
    # C's required LowerInitBlock ran before it: the init is gone in the result
    _, out = run()
    assert "T.init()" not in out.script() and "T.init()" in mod.script()
    _, out = run(disabled_pass=["C"])
    assert "T.init()" in out.script()
    assert prep.info.name == "Prep"


def test_sequential_bad_inputs():
    with pytest.raises(TypeError, match="item #1"):
        tvm.transform.Sequential([tvm.tir.transform.LowerInitBlock(), lambda m, c: m])
    with pytest.raises(TypeError):
        tvm.transform.Sequential(tvm.tir.transform.LowerInitBlock())
    with pytest.raises(TypeError, match="IRModule"):
        tvm.tir.transform.LowerInitBlock()(row_sum)  # a PrimFunc is not a module
    seq = tvm.transform.Sequential([_logging_pass("X", [], required=["NoSuchPassAnywhere"])])
    with pytest.raises(ValueError, match="NoSuchPassAnywhere"):
        seq(_mod())


def test_module_pass_forms():
    # decorator with arguments on a function
    @tvm.transform.module_pass(opt_level=1)
    def add_attr(mod, ctx):
        assert isinstance(ctx, tvm.transform.PassContext)
        return mod.with_attr("visited", 1)

    assert isinstance(add_attr, tvm.transform.ModulePass)
    assert add_attr.info.name == "add_attr" and add_attr.info.opt_level == 1
    assert add_attr(_mod()).attrs["visited"] == 1

    # direct call form
    p = tvm.transform.module_pass(lambda mod, ctx: mod.with_attr("k", 2), opt_level=0, name="Direct")
    assert p.info.name == "Direct" and p(_mod()).attrs["k"] == 2

    # class with transform_module, with constructor arguments
    @tvm.transform.module_pass(opt_level=0, name="Tagger")
    class Tagger:
        def __init__(self, value):
            self.value = value

        def transform_module(self, mod, ctx):
            return mod.with_attr("tag", self.value)

    t = Tagger(7)
    assert isinstance(t, tvm.transform.Pass) and t.info.name == "Tagger"
    assert t.value == 7  # attributes of the instance are reachable
    assert t(_mod()).attrs["tag"] == 7

    with pytest.raises(ValueError, match="opt_level"):
        tvm.transform.module_pass(lambda mod, ctx: mod)
    with pytest.raises(TypeError, match="transform_module"):
        tvm.transform.module_pass(opt_level=0)(type("NoMethod", (), {}))
    with pytest.raises(TypeError):
        tvm.transform.module_pass(opt_level=0, name="x")(42)


def test_python_pass_returning_non_module_is_a_type_error():
    bad = tvm.transform.module_pass(lambda mod, ctx: 3, opt_level=0, name="ReturnsInt")
    with pytest.raises(TypeError, match="ReturnsInt"):
        bad(_mod())
    bad_pf = tvm.tir.transform.prim_func_pass(lambda f, mod, ctx: "x", opt_level=0, name="ReturnsStr")
    with pytest.raises(TypeError, match="ReturnsStr"):
        bad_pf(_mod())


def test_python_exception_propagates_unchanged():
    class MyError(Exception):
        pass

    err = MyError("from the pass")

    @tvm.transform.module_pass(opt_level=0)
    def raising(mod, ctx):
        raise err

    seq = tvm.transform.Sequential([tvm.tir.transform.LowerInitBlock(), raising])
    with pytest.raises(MyError) as info:
        seq(_mod())
    assert info.value is err
    assert tvm.transform.PassContext.current().opt_level == 2


def test_prim_func_pass_forms_inside_cpp_sequential():
    seen = []

    @tvm.tir.transform.prim_func_pass(opt_level=0)
    def record(func, mod, ctx):
        seen.append(func.script())
        return func.with_attr("recorded", True)

    @tvm.tir.transform.prim_func_pass(opt_level=0, name="Dropper")
    class Dropper:
        def transform_function(self, func, mod, ctx):
            return None if "drop" in func.attrs else func

    assert isinstance(record, tvm.tir.transform.PrimFuncPass)
    seq = tvm.transform.Sequential([tvm.tir.transform.LowerInitBlock(), record, tvm.tir.transform.ConvertBlocksToOpaque()])
    out = seq(_mod())
    assert len(seen) == 1 and "T.init()" not in seen[0]  # ran after LowerInitBlock
    assert out["main"].attrs["recorded"]
    two = tvm.IRModule({"main": row_sum, "other": scale.with_attr("global_symbol", "other").with_attr("drop", 1)})
    kept = Dropper()(two)
    assert [gv.name_hint for gv in kept.get_global_vars()] == ["main"]
    assert len(two.get_global_vars()) == 2


def test_instrument_hook_order():
    events = []

    @tvm.ir.instrument.pass_instrument
    class Recorder:
        def __init__(self, tag):
            self.tag = tag

        def enter_pass_ctx(self):
            events.append(f"{self.tag}:enter")

        def exit_pass_ctx(self):
            events.append(f"{self.tag}:exit")

        def should_run(self, mod, info):
            events.append(f"{self.tag}:should_run:{info.name}")
            return info.name != "Skip"

        def run_before_pass(self, mod, info):
            events.append(f"{self.tag}:before:{info.name}")

        def run_after_pass(self, mod, info):
            events.append(f"{self.tag}:after:{info.name}")

    seq = tvm.transform.Sequential([_logging_pass("P1", events), _logging_pass("Skip", events)], name="seq")
    with tvm.transform.PassContext(instruments=[Recorder("a"), Recorder("b")]):
        seq(_mod())
    assert events == [
        "a:enter", "b:enter",
        "a:should_run:seq", "b:should_run:seq", "a:before:seq", "b:before:seq",
        "a:should_run:P1", "b:should_run:P1", "a:before:P1", "b:before:P1", "P1", "a:after:P1", "b:after:P1",
        "a:should_run:Skip",
        "a:after:seq", "b:after:seq",
        "a:exit", "b:exit",
    ]


def test_subclassing_pass_instrument_calls_only_defined_hooks():
    names = []

    class AfterOnly(tvm.ir.instrument.PassInstrument):
        def run_after_pass(self, mod, info):
            names.append(info.name)

    with tvm.transform.PassContext(instruments=[AfterOnly()]):
        tvm.lower(_mod())
    assert names == PIPELINE + ["tir.default_pipeline"]
    with pytest.raises(TypeError):
        tvm.ir.instrument.pass_instrument(type("NoHooks", (), {}))


def test_print_after_all_shows_each_pass(capsys):
    with tvm.transform.PassContext(instruments=[tvm.ir.instrument.PrintAfterAll()]):
        tvm.build(_mod(), target="llvm")
    out = capsys.readouterr().out
    positions = [out.find(f"After Running Pass: The meta data of the pass - pass name: {name},") for name in PIPELINE]
    assert all(p >= 0 for p in positions), out[:2000]
    assert positions == sorted(positions)
    # the module after FlattenBuffer is flat: A is indexed as A_1[i * 8 + k]
    after_flatten = out[positions[PIPELINE.index("FlattenBuffer")]:positions[PIPELINE.index("VectorizeLoop")]]
    assert "i * 8 + k" in after_flatten
    assert "T.block" not in out[positions[PIPELINE.index("LowerOpaqueBlock")]:]


def test_print_before_all_and_named_printing(capsys):
    with tvm.transform.PassContext(instruments=[tvm.ir.instrument.PrintBeforeAll()]):
        tvm.lower(_mod())
    out = capsys.readouterr().out
    assert all(f"Before Running Pass: The meta data of the pass - pass name: {n}," in out for n in PIPELINE)
    assert "T.init()" in out  # the module before LowerInitBlock
    printer = tvm.ir.instrument.PassPrintingInstrument(print_before_pass_names=["FlattenBuffer"],
                                                       print_after_pass_names=["FlattenBuffer", "UnrollLoop"])
    with tvm.transform.PassContext(instruments=[printer]):
        tvm.lower(_mod())
    out = capsys.readouterr().out
    assert out.count("Print IR before:") == 1 and "Print IR before: FlattenBuffer" in out
    assert out.count("Print IR after:") == 2 and "Print IR after: UnrollLoop" in out
    with pytest.raises(TypeError):
        tvm.ir.instrument.PassPrintingInstrument("FlattenBuffer", [])


def test_timing_instrument():
    timing = tvm.ir.instrument.PassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing]):
        tvm.lower(_mod())
        text = timing.render()
    lines = text.splitlines()
    assert lines[0].startswith("tir.default_pipeline: ")
    assert [line.split(":")[0].strip() for line in lines[1:]] == PIPELINE
    assert all(line.startswith("  ") and line.endswith("%)") for line in lines[1:])
    assert timing.render() == ""  # the record is cleared when the context exits


def test_build_honours_disabled_and_config():
    a = np.arange(16, dtype="float32")
    for kwargs in ({"disabled_pass": ["VectorizeLoop"]}, {"config": {"tir.disable_vectorize": True}}, {}):
        with tvm.transform.PassContext(**kwargs):
            lowered = tvm.lower(_mod(scale))
            rt = tvm.build(_mod(scale), target="llvm")
        vectorized = "B_1[0:16] = A_1[0:16]" in lowered.script()
        assert vectorized == (not kwargs), (kwargs, lowered.script())
        A, B = tvm.nd.array(a), tvm.nd.array(np.zeros(16, "float32"))
        rt["main"](A, B)
        np.testing.assert_allclose(B.numpy(), a * 2)
    for name in ("FlattenBuffer", "LowerOpaqueBlock", "LowerInitBlock"):
        with tvm.transform.PassContext(disabled_pass=[name]):
            with pytest.raises(ValueError, match=name):
                tvm.build(_mod(), target="llvm")
    with tvm.transform.PassContext(opt_level=1):  # LoopPartition (opt_level 2) is skipped
        lowered = tvm.lower(_mod())
    assert "range(1, 8)" not in lowered.script()
    assert "range(1, 8)" in tvm.lower(_mod()).script()


def test_lower_and_default_pipeline():
    pipeline = tvm.tir.get_default_tir_pipeline()
    assert isinstance(pipeline, tvm.transform.Sequential)
    assert pipeline.info.name == "tir.default_pipeline"
    assert [p.info.name for p in pipeline.passes] == PIPELINE
    lowered = tvm.lower(row_sum)
    assert isinstance(lowered, tvm.IRModule)
    tvm.ir.assert_structural_equal(lowered, pipeline(_mod()))
    simple = tvm.lower(row_sum, simple_mode=True)
    assert "range(1, 8)" not in simple.script()
    with pytest.raises(NotImplementedError):
        tvm.lower(row_sum, args=[])
    with pytest.raises(TypeError):
        tvm.lower("not a module")
    assert tvm.tir.transform.VectorizeLoop(False).info.name == "VectorizeLoop"
    assert str(tvm.tir.transform.LowerInitBlock()) == "tir.PrimFuncPass(LowerInitBlock, opt_level=0)"
    with pytest.raises(TypeError):
        pipeline(None)
    with pytest.raises(TypeError):
        tvm.transform.PassContext(opt_level="3")
    with pytest.raises(TypeError):
        tvm.tir.transform.VectorizeLoop("no")
