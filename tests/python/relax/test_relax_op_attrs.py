"""Attributes of Relax op calls: TVMScript takes them positionally in TVM's
signature order (`R.permute_dims(x, [1, 0])`) or as keywords, fills defaults,
refuses unknown or repeated ones; Python reads them as `call.attrs.axes`; a
call built in Python equals the parsed one; the printer's keyword form parses
back."""
import pytest
import tessera as tvm
from tessera import relax
from tessera.script import relax as R, ir as I

from relax_op_helpers import roundtrip


def _first_call(func):
    return func.body.blocks[0].bindings[0].value


def test_positional_and_keyword_attrs_parse_to_the_same_call():
    @R.function
    def pos(x: R.Tensor((2, 3), "float32")):
        gv = R.permute_dims(x, [1, 0])
        return gv

    @R.function
    def kw(x: R.Tensor((2, 3), "float32")):
        gv = R.permute_dims(x, axes=[1, 0])
        return gv

    call = _first_call(pos)
    tvm.ir.assert_structural_equal(call.attrs, _first_call(kw).attrs)
    assert [int(a) for a in call.attrs.axes] == [1, 0]
    assert [int(a) for a in call.attrs["axes"]] == [1, 0]


def test_python_constructor_equals_parsed_call_with_defaults_filled():
    @R.function
    def f(x: R.Tensor((2, 3), "float32")):
        gv = R.sum(x, [1])
        return gv

    call = _first_call(f)
    assert bool(call.attrs.keepdims) is False  # default filled in by the parser
    x = f.params[0]
    tvm.ir.assert_structural_equal(call.attrs, relax.op.sum(x, axis=[1]).attrs)
    built = relax.op.sum(x, [1])
    assert [int(a) for a in built.attrs.axis] == [1] and bool(built.attrs.keepdims) is False


def test_printer_keyword_form_round_trips():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.permute_dims(x, [1, 0])
                b = R.sum(a, [0], True)
                c = R.astype(b, "float16")
                R.output(c)
            return c

    text = roundtrip(Mod)
    assert "R.permute_dims(x, axes=[1, 0])" in text
    assert "keepdims=True" in text and 'dtype="float16"' in text


def test_unknown_attribute_is_refused_naming_it():
    with pytest.raises(Exception, match=r"R.sum has no attribute 'axes'.*axis, keepdims"):
        @R.function
        def f(x: R.Tensor((2, 3), "float32")):
            gv = R.sum(x, axes=[1])
            return gv


def test_too_many_positional_arguments_refused():
    with pytest.raises(Exception, match=r"R.permute_dims takes 1 operand\(s\) and 1 attribute\(s\), got 3"):
        @R.function
        def f(x: R.Tensor((2, 3), "float32")):
            gv = R.permute_dims(x, [1, 0], 5)
            return gv


def test_attribute_given_twice_and_missing_required():
    with pytest.raises(Exception, match=r"attribute 'axis' is given twice"):
        @R.function
        def f(x: R.Tensor((2, 3), "float32")):
            gv = R.sum(x, [1], axis=[0])
            return gv
    with pytest.raises(Exception, match=r"R.astype needs its attribute 'dtype'"):
        @R.function
        def g(x: R.Tensor((2, 3), "float32")):
            gv = R.astype(x)
            return gv


def test_attr_access_of_missing_field_is_attribute_error():
    x = relax.Var("x", relax.TensorStructInfo((2, 3), "float32"))
    call = relax.op.permute_dims(x, [1, 0])
    with pytest.raises(AttributeError, match="no field 'axis'.*axes"):
        call.attrs.axis  # pylint: disable=pointless-statement


def test_signature_is_an_op_attribute():
    sig = tvm.ir.Op.get("relax.sum").get_attr("TScriptAttrSignature")
    assert [item[0] for item in sig] == ["axis", "keepdims"]
    assert [item[0] for item in tvm.ir.Op.get("relax.strided_slice").get_attr("TScriptAttrSignature")] == [
        "axes", "begin", "end", "strides", "assume_inbound"]


def test_python_op_constructors_in_tvmscript_are_the_ops():
    """The course writes relax.op.multiply(x, y) inside an R.function: it is R.multiply(x, y)."""
    @I.ir_module
    class Py:
        @R.function
        def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                lv0 = relax.op.multiply(x, y)
                lv1 = relax.op.sum(lv0, [1], keepdims=True)
                gv0 = relax.op.add(lv1, y)
                R.output(gv0)
            return gv0

    @I.ir_module
    class Script:
        @R.function
        def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                lv0 = R.multiply(x, y)
                lv1 = R.sum(lv0, axis=[1], keepdims=True)
                gv0 = R.add(lv1, y)
                R.output(gv0)
            return gv0

    tvm.ir.assert_structural_equal(Py, Script)


def test_unknown_python_op_in_tvmscript_is_refused():
    with pytest.raises(Exception, match=r"unknown TVMScript function 'relax.op.unique'"):
        @R.function
        def f(x: R.Tensor((3,), "float32")):
            gv = relax.op.unique(x)
            return gv


# ---- one constructor of attrs (relax.op.MakeAttrs, src/relax/op/op_attrs.cc) ----

def _make_attrs(op_name, given):
    return tvm.get_global_func("relax.op.MakeAttrs")(op_name, given)


def test_make_attrs_fills_defaults_and_normalizes():
    attrs = _make_attrs("relax.nn.dropout", {})
    assert list(attrs.keys()) == ["rate"] and float(attrs["rate"].value) == 0.5
    got = _make_attrs("relax.nn.conv2d", {"groups": 2, "strides": [2, 2]})
    assert list(got.keys()) == ["strides", "padding", "dilation", "groups", "data_layout", "kernel_layout",
                                "out_layout", "out_dtype"]
    assert isinstance(got["groups"], tvm.tir.IntImm) and str(got["groups"].dtype) == "int32"
    assert [int(v) for v in got["padding"]] == [0, 0, 0, 0]
    flag = _make_attrs("relax.sum", {"axis": [1], "keepdims": True})["keepdims"]
    assert str(flag.dtype) == "bool" and int(flag.value) == 1


def test_make_attrs_refuses_unknown_and_missing_required_naming_them():
    with pytest.raises(TypeError, match=r"relax.nn.dropout has no attribute 'p' \(attributes: rate\)"):
        _make_attrs("relax.nn.dropout", {"p": 0.1})
    with pytest.raises(ValueError, match=r"relax.nn.batch_norm needs its attribute 'axis'"):
        _make_attrs("relax.nn.batch_norm", {})
    from tessera.relax.op._op_attrs import make_attrs  # pylint: disable=import-outside-toplevel

    with pytest.raises(TypeError, match=r"relax.nn.dropout has no attribute 'p'"):
        make_attrs("relax.nn.dropout", p=0.1)


def test_parser_python_constructor_and_signature_agree_on_defaults():
    """dropout's rate and batch_norm's epsilon are written once (the C++
    signature): the Python constructor's defaults, the parser's filled-in
    attrs and the struct-info inference all read it."""
    import inspect  # pylint: disable=import-outside-toplevel

    @R.function
    def f(x: R.Tensor((2, 3), "float32")):
        gv = R.nn.dropout(x)
        return gv

    x = f.params[0]
    tvm.ir.assert_structural_equal(_first_call(f).attrs, relax.op.nn.dropout(x).attrs)
    assert inspect.signature(relax.op.nn.dropout).parameters["rate"].default == 0.5
    bn = inspect.signature(relax.op.nn.batch_norm).parameters
    assert bn["axis"].default is inspect.Parameter.empty and bn["epsilon"].default == pytest.approx(1e-5)


def test_every_python_constructor_default_matches_the_signature():
    """For each op with an attribute signature and a relax.op constructor, the
    constructor's parameters named as attributes default to the signature's
    value (or are required where it is); guards against a second copy."""
    import inspect  # pylint: disable=import-outside-toplevel
    from tessera.relax.op._op_attrs import _REQUIRED, attr_signature  # pylint: disable=import-outside-toplevel

    namespaces = {"relax.": relax.op, "relax.nn.": relax.op.nn}
    checked = 0
    # API-level defaults that TVM's signatures give in another spelling of the same value.
    same = [(None, "void"), ((1, 1), [1, 1]), ((0, 0), [0, 0, 0, 0]), (None, "NCHW")]
    for prefix, ns in namespaces.items():
        for name in dir(ns):
            func = getattr(ns, name)
            if not inspect.isfunction(func):
                continue
            op_name = prefix + name
            try:
                sig = attr_signature(op_name)
            except Exception:  # pylint: disable=broad-except
                continue
            params = inspect.signature(func).parameters
            for attr, default in sig:
                if attr not in params:
                    continue
                got = params[attr].default
                if default is _REQUIRED:
                    continue  # TVM gives some required attributes a Python default (axis=None)
                ok = got == default or (got, default) in same or (
                    isinstance(got, tuple) and list(got) == default)
                assert ok, f"{op_name}: parameter {attr!r} defaults to {got!r}, its signature to {default!r}"
                checked += 1
    assert checked > 20
