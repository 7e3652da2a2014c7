"""Bad inputs to the PyTorch importers and detach_params: unsupported operators (named
with their fx node), models in training mode, wrong input_info, wrong argument kinds,
invalid shapes and indices; plus a check of the conversion table itself (every aten name,
Tensor method and module type it lists exists in this PyTorch)."""
import numpy as np
import pytest

import tessera as tvm
from tessera import relax

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from tessera.relax.frontend import detach_params  # noqa: E402
from tessera.relax.frontend.torch import from_fx, from_exported_program  # noqa: E402
from tessera.relax.frontend.torch.base_translator import OPS  # noqa: E402


def _fx(model, *shapes):
    return from_fx(torch.fx.symbolic_trace(model), [(s, "float32") for s in shapes])


def _ep(model, *shapes):
    return from_exported_program(torch.export.export(model, tuple(torch.rand(s) for s in shapes)))


class _Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


# --------------------------------------------------------------------------------------
# unsupported operators name the operator and the node
# --------------------------------------------------------------------------------------
def test_unsupported_function_names_op_and_node():
    model = _Lambda(lambda x: torch.fft.fft(torch.exp(x)).real)
    with pytest.raises(tvm.error.OpNotImplemented, match=r"fft_fft.*fx node 'fft_fft'") as info:
        _fx(model, (8,))
    assert isinstance(info.value, NotImplementedError)


def test_unsupported_aten_op_names_op_and_node():
    model = _Lambda(lambda x: torch.fft.fft(torch.exp(x)).real)
    with pytest.raises(tvm.error.OpNotImplemented, match=r"'aten\.fft_fft\.default'.*fx node 'fft_fft'"):
        _ep(model, (8,))
    with pytest.raises(tvm.error.OpNotImplemented, match=r"aten\.cumprod\.default.*fx node 'cumprod'"):
        _ep(_Lambda(lambda x: torch.cumprod(x, 0)), (8,))


def test_unsupported_method_and_module():
    with pytest.raises(tvm.error.OpNotImplemented, match=r"Tensor method 'cumprod'.*fx node 'cumprod'"):
        _fx(_Lambda(lambda x: x.cumprod(0)), (8,))

    class WithSoftshrink(nn.Module):
        def __init__(self):
            super().__init__()
            self.act = nn.Softshrink()

        def forward(self, x):
            return self.act(x)

    with pytest.raises(tvm.error.OpNotImplemented, match=r"Softshrink.*fx node 'act'"):
        _fx(WithSoftshrink(), (4, 3))


def test_unsupported_arguments_are_refused():
    with pytest.raises(tvm.error.OpNotImplemented, match=r"rounding_mode='trunc'.*fx node 'div'"):
        _fx(_Lambda(lambda x: torch.div(x, 2.0, rounding_mode="trunc")), (4,))
    with pytest.raises(tvm.error.OpNotImplemented, match=r"softmax without dim"):
        _fx(_Lambda(lambda x: nn.functional.softmax(x)), (4,))  # pylint: disable=not-callable
    # (true division of integer tensors is converted: a float32 result, as in torch; see
    # tests/python/reliability/test_torch_import_semantics.py)

    class Reflect(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 1, 3, padding=1, padding_mode="reflect")

        def forward(self, x):
            return self.conv(x)

    with pytest.raises(tvm.error.OpNotImplemented, match=r"padding_mode='reflect'.*fx node 'conv'"):
        _fx(Reflect(), (1, 1, 4, 4))


def test_training_mode_is_refused():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(x + 1)

    with pytest.raises(tvm.error.OpNotImplemented, match=r"training mode.*model\.eval\(\).*fx node 'drop'"):
        _fx(Model().train(), (4,))
    _fx(Model().eval(), (4,))  # eval: identity

    class BN(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(2)

        def forward(self, x):
            return self.bn(x)

    with pytest.raises(tvm.error.OpNotImplemented, match=r"BatchNorm2d in training mode.*fx node 'bn'"):
        _fx(BN().train(), (1, 2, 3, 3))
    with pytest.raises(tvm.error.OpNotImplemented, match=r"training mode.*model\.eval\(\).*fx node 'batch_norm'"):
        _ep(BN().train(), (1, 2, 3, 3))


# --------------------------------------------------------------------------------------
# wrong arguments to the importers
# --------------------------------------------------------------------------------------
def test_bad_importer_arguments():
    gm = torch.fx.symbolic_trace(_Lambda(lambda x: x + 1))
    with pytest.raises(TypeError, match="torch.fx.GraphModule"):
        from_fx(_Lambda(lambda x: x + 1), [((4,), "float32")])
    with pytest.raises(ValueError, match=r"1 inputs \(x\) but input_info describes 2"):
        from_fx(gm, [((4,), "float32"), ((4,), "float32")])
    with pytest.raises(TypeError, match=r"input_info\[0\] must be a \(shape, dtype\) pair"):
        from_fx(gm, [(4,)])
    with pytest.raises(TypeError, match=r"input_info\[0\]: the shape must be a list of non-negative ints"):
        from_fx(gm, [((4, -1), "float32")])
    with pytest.raises(TypeError, match="unsupported dtype 'complex64'"):
        from_fx(gm, [((4,), "complex64")])
    with pytest.raises(TypeError, match="list of"):
        from_fx(gm, "float32")
    with pytest.raises(TypeError, match="torch.export.ExportedProgram"):
        from_exported_program(gm)
    with pytest.raises(TypeError):
        from_exported_program(torch.export.export(_Lambda(lambda x: x + 1), (torch.rand(4),)), True)


def test_bad_shapes_and_indices_name_the_node():
    with pytest.raises(ValueError, match=r"fx node 'view'.*shape \[5, -1\] is invalid for an input of shape \[4, 3\]"):
        _fx(_Lambda(lambda x: x.view(5, -1)), (4, 3))
    with pytest.raises(ValueError, match=r"only one dimension can be -1"):
        _fx(_Lambda(lambda x: x.reshape(-1, -1)), (4, 3))
    with pytest.raises(IndexError, match=r"fx node 'getitem'.*index 7 is out of range for dim 1 of size 3"):
        _fx(_Lambda(lambda x: x[:, 7]), (4, 3))
    with pytest.raises(IndexError, match=r"too many indices"):
        _fx(_Lambda(lambda x: x[0, 0, 0]), (4, 3))
    with pytest.raises(IndexError, match=r"fx node 'transpose'.*dim1=2 is out of range"):
        _fx(_Lambda(lambda x: x.transpose(0, 2)), (4, 3))
    with pytest.raises(ValueError, match=r"not a permutation"):
        _fx(_Lambda(lambda x: x.permute(0, 0)), (4, 3))
    with pytest.raises(TypeError, match=r"fx node 'flatten'.*arguments do not fit torch op 'flatten'"):
        _fx(_Lambda(lambda x: x.flatten(0, 1, 2)), (4,))


def test_returning_a_non_tensor_is_refused():
    with pytest.raises(TypeError, match="output 1 is a dtype, not a tensor"):
        _fx(_Lambda(lambda x: (x + 1, x.dtype)), (4,))
    # A size is returned as an int32 scalar (TVM's form); one beyond int32 is refused.
    with pytest.raises(ValueError, match="output 1 is the integer 17592186044416"):
        _fx(_Lambda(lambda x: (x + 1, x.size(0) * 2**42)), (4,))


# --------------------------------------------------------------------------------------
# detach_params
# --------------------------------------------------------------------------------------
def test_detach_params_bad_inputs():
    with pytest.raises(TypeError, match="expected an IRModule"):
        detach_params(relax.Var("x"))
    mod = from_fx(torch.fx.symbolic_trace(_Lambda(lambda x: x + 1)), [((4,), "float32")])
    bad = tvm.IRModule({"main": mod["main"].with_attr("params", [1, 2])})
    with pytest.raises(ValueError, match=r"function 'main'.*list of NDArrays, element 0 is a int"):
        detach_params(bad)


def test_detach_params_of_module_with_params():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = nn.Parameter(torch.tensor([2.0, 3.0]))

        def forward(self, x):
            return x * self.s

    mod = from_fx(torch.fx.symbolic_trace(Scale()), [((2,), "float32")], keep_params_as_input=True)
    detached, params = detach_params(mod)
    assert [p.name_hint for p in detached["main"].params] == ["inp_0", "s"]
    np.testing.assert_array_equal(params["main"][0].numpy(), [2.0, 3.0])
    assert "params" in mod["main"].attrs  # the input module is left as it was


# --------------------------------------------------------------------------------------
# the conversion table
# --------------------------------------------------------------------------------------
def test_conversion_table_names_exist():
    for name in OPS.by_aten:
        op, overload = name.split(".", 1)
        packet = getattr(torch.ops.aten, op)
        assert overload in packet.overloads(), f"aten.{name} does not exist"
    # x.getattr(name) and x.astype(dtype) trace to call_method nodes (TVM's tests use them); Tensor has neither.
    for method in set(OPS.by_method) - {"getattr", "astype"}:
        assert hasattr(torch.Tensor, method), f"Tensor.{method} does not exist"
    for module_type in OPS.by_module:
        assert issubclass(module_type, nn.Module)
    for function in OPS.by_function:
        assert callable(function)


def test_registering_a_spelling_twice_is_an_error():
    with pytest.raises(ValueError, match=r"'relu\.default' is already converted by 'relu'"):
        OPS.register("my_relu", aten=["my_relu.default", "relu.default"])(lambda tr, input: input)
    assert "my_relu" not in OPS.entries and "my_relu.default" not in OPS.by_aten
    with pytest.raises(ValueError, match="registered twice"):
        OPS.register("relu")(lambda tr, input: input)
