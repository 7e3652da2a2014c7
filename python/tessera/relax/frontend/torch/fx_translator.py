"""``from_fx``: imports a torch.fx.GraphModule (torch.fx.symbolic_trace of an nn.Module)
into a Relax IRModule whose "main" runs the graph in one dataflow block of high-level
relax.op calls. Nodes are converted through the shared table (converters.py) by
torch function, Tensor method or nn.Module type; weights become constants, or
parameters after the inputs with keep_params_as_input (TVM v0.18's semantics)."""
from ...expr import Var
from ...struct_info import TensorStructInfo
from .base_translator import BaseTranslator, torch_dtype_to_str
from . import converters  # noqa: F401  pylint: disable=unused-import  (fills the table)
from ....error import TVMAttributeError, TVMTypeError, TVMValueError


def _check_input_info(input_info):
    if not isinstance(input_info, (list, tuple)):
        raise TVMTypeError("from_fx: input_info must be a list of (shape, dtype) pairs, got "
                           f"{type(input_info).__name__}")
    checked = []
    for i, item in enumerate(input_info):
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise TVMTypeError(f"from_fx: input_info[{i}] must be a (shape, dtype) pair, got {item!r}")
        shape, dtype = item
        if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                                          for d in shape):
            raise TVMTypeError(f"from_fx: input_info[{i}]: the shape must be a list of non-negative ints, got "
                               f"{shape!r}")
        checked.append(([int(d) for d in shape], torch_dtype_to_str(dtype)))
    return checked


class FXTranslator(BaseTranslator):
    """Translates one torch.fx.GraphModule."""

    def _fetch_attr(self, model, target):
        value = model
        for i, atom in enumerate(target.split(".")):
            if not hasattr(value, atom):
                raise TVMAttributeError(f"{self.node_desc()}: the model has no attribute "
                                        f"'{'.'.join(target.split('.')[:i + 1])}'")
            value = getattr(value, atom)
        return value

    def _note_attribute_read(self, node, value):
        """A tensor attribute is the model's state; two reads of one attribute are one tensor."""
        import torch  # pylint: disable=import-outside-toplevel
        if not isinstance(value, torch.Tensor):
            return
        earlier = self._attribute_nodes.setdefault(id(value), node)
        if earlier is node:
            self.aliases.mark_stateful(node, f"the model attribute '{node.target}'")
        else:
            self.aliases.same_tensor(node, earlier)

    def from_fx(self, model, input_info, keep_params_as_input, unwrap_unit_return_tuple, no_bind_return_tuple):
        import torch  # pylint: disable=import-outside-toplevel
        if not isinstance(model, torch.fx.GraphModule):
            raise TVMTypeError(f"from_fx: expected a torch.fx.GraphModule (torch.fx.symbolic_trace(model)), got "
                               f"{type(model).__name__}")
        input_info = _check_input_info(input_info)
        placeholders = [n for n in model.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(input_info):
            raise TVMValueError(f"from_fx: the graph has {len(placeholders)} inputs "
                                f"({', '.join(n.name for n in placeholders)}) but input_info describes "
                                f"{len(input_info)}")
        inputs = [Var(f"inp_{i}", TensorStructInfo(shape, dtype)) for i, (shape, dtype) in enumerate(input_info)]
        func_params = list(inputs)
        attrs = None
        params = []
        if keep_params_as_input:
            attrs = {"num_input": len(inputs)}
            for name, param in sorted(model.named_parameters(), key=lambda kv: kv[0]):
                var = Var(name, TensorStructInfo(list(param.shape), torch_dtype_to_str(param.dtype)))
                self._weights[id(param)] = var
                func_params.append(var)
                params.append(self.tensor_ndarray(param))
        named_modules = dict(model.named_modules())
        self._attribute_nodes = {}  # id(attribute tensor) -> its first get_attr node

        with self.bb.function("main", params=func_params, attrs=attrs):
            output = None
            with self.bb.dataflow():
                next_input = iter(inputs)
                for node in model.graph.nodes:
                    self.node = node
                    if node.op == "placeholder":
                        self.env[node] = next(next_input)
                    elif node.op == "get_attr":
                        value = self._fetch_attr(model, node.target)
                        if not isinstance(value, (torch.Tensor, int, float, bool)):
                            raise self.unsupported(f"reading the attribute '{node.target}' of type "
                                                   f"{type(value).__name__}")
                        self.env[node] = self.retrieve(value)
                        self._note_attribute_read(node, value)
                    elif node.op == "call_module":
                        self.env[node] = self.convert_module(node, named_modules[node.target])
                    elif node.op == "call_function":
                        self.env[node] = self.convert_function(node)
                    elif node.op == "call_method":
                        self.env[node] = self.convert_method(node)
                    elif node.op == "output":
                        output = self.emit_outputs(self.retrieve(node.args[0]), unwrap_unit_return_tuple,
                                                   no_bind_return_tuple)
                        break
                    else:
                        raise self.unsupported(f"fx node kind '{node.op}'")
                    self.track_aliases(node, named_modules.get(node.target) if node.op == "call_module" else None)
            self.node = None
            self.aliases.check_state_writes()
            if output is None:
                raise TVMValueError("from_fx: the graph has no output node")
            self.bb.emit_func_output(output)

        mod = self.bb.get()
        if keep_params_as_input:
            mod["main"] = mod["main"].with_attr("params", params)
        return mod


def from_fx(model, input_info, keep_params_as_input=False, unwrap_unit_return_tuple=False,
            no_bind_return_tuple=False):
    """Converts a PyTorch fx GraphModule to a Relax IRModule (TVM's
    ``relax.frontend.torch.from_fx``).

    model: the torch.fx.GraphModule (``torch.fx.symbolic_trace(module)``; put the module
    in eval mode first). input_info: one ``(shape, dtype)`` per graph input; the inputs
    are named ``inp_0``, ``inp_1``... keep_params_as_input: the weights (named
    parameters, sorted by name) become parameters of "main" after the inputs, which gets
    the attributes "num_input" and "params" (their values; see
    ``relax.frontend.detach_params``); otherwise they are constants.
    unwrap_unit_return_tuple: a model returning a one-element tuple returns its element.
    no_bind_return_tuple: a returned tuple is built from separately bound elements
    instead of being bound itself.

    An operator the importer does not know raises tvm.error.OpNotImplemented naming it
    and its fx node."""
    return FXTranslator().from_fx(model, input_info, keep_params_as_input, unwrap_unit_return_tuple,
                                  no_bind_return_tuple)


__all__ = ["from_fx"]
