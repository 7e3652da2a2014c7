"""``from_exported_program``: imports a torch.export.ExportedProgram into a Relax IRModule.
The graph's aten nodes are converted through the shared table (converters.py) by aten
op name; user inputs become the parameters of "main", weights and buffers constants,
or (keep_params_as_input) the model parameters follow the inputs (TVM v0.18's semantics)."""
from ...expr import Var
from ...struct_info import TensorStructInfo
from .base_translator import BaseTranslator, torch_dtype_to_str
from . import converters  # noqa: F401  pylint: disable=unused-import  (fills the table)
from ....error import OpNotImplemented, TVMTypeError, TVMValueError


class ExportedProgramTranslator(BaseTranslator):
    """Translates one torch.export.ExportedProgram. A dynamic dimension (torch.export.Dim)
    is a symbolic Relax dimension: one int64 tir.Var per torch symbol (named after it),
    an expression of symbols (2 * s0) the same expression over those vars."""

    def __init__(self):
        super().__init__()
        self.sym_vars = {}  # torch symbol name -> tir.Var

    def _user_input_var(self, node):
        import torch  # pylint: disable=import-outside-toplevel
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            raise self.unsupported(f"the non-tensor input '{node.name}' ({type(val).__name__})")
        shape = [self.sym_size(dim, f"dimension {i} of input '{node.name}'") for i, dim in enumerate(val.shape)]
        return Var(node.name, TensorStructInfo(shape, torch_dtype_to_str(val.dtype)))

    def result_dims(self):
        import torch  # pylint: disable=import-outside-toplevel
        val = self.node.meta.get("val") if self.node is not None else None
        if not isinstance(val, torch.Tensor):
            return None
        return [self.sym_size(d, f"the result of {self.node_desc()}") for d in val.shape]

    def sym_size(self, value, what):
        """An int, or the tir PrimExpr of a torch SymInt (its sympy expression over the
        program's symbols)."""
        import torch  # pylint: disable=import-outside-toplevel
        if isinstance(value, torch.SymInt):
            expr = value.node.expr
            if expr.is_number:
                return int(expr)
            return sympy_to_prim(expr, self.sym_vars, lambda: self.unsupported(f"the size {expr} of {what}"))
        return int(value)

    def from_exported_program(self, program, keep_params_as_input, unwrap_unit_return_tuple, no_bind_return_tuple):
        import torch  # pylint: disable=import-outside-toplevel
        from torch.export.graph_signature import InputKind, OutputKind  # pylint: disable=import-outside-toplevel
        if not isinstance(program, torch.export.ExportedProgram):
            raise TVMTypeError(f"from_exported_program: expected a torch.export.ExportedProgram "
                               f"(torch.export.export(model, args)), got {type(program).__name__}")
        signature = program.graph_signature
        # A functionalized program returns its writes to inputs first: the caller's input
        # arrays are not written (the Relax function is pure, its results are right); a
        # write to a buffer or parameter is state kept between calls, which is refused.
        user_outputs = []
        for i, spec in enumerate(signature.output_specs):
            if spec.kind == OutputKind.USER_OUTPUT:
                user_outputs.append(i)
            elif spec.kind != OutputKind.USER_INPUT_MUTATION:
                raise OpNotImplemented(
                    f"from_exported_program: the program writes '{spec.target}' ({spec.kind.name}); the imported "
                    "Relax function keeps no state between calls (export the model in eval mode, model.eval(), "
                    "and without in-place updates of its buffers)")
        placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
        inputs, weight_vars, params = [], [], []
        by_name = {}
        stateful = {}  # placeholder name -> what it holds (written in place: refused)
        for spec in signature.input_specs:
            name = spec.arg.name
            node = placeholders[name]
            self.node = node
            if spec.kind == InputKind.USER_INPUT:
                var = self._user_input_var(node)
                inputs.append(var)
                by_name[name] = var
                continue
            stateful[name] = f"the model's {spec.kind.name.lower().replace('_', ' ')} '{spec.target}'"
            if spec.kind == InputKind.PARAMETER:
                tensor = program.state_dict[spec.target]
            elif spec.kind == InputKind.BUFFER:
                tensor = program.state_dict[spec.target] if spec.persistent else program.constants[spec.target]
            elif spec.kind == InputKind.CONSTANT_TENSOR:
                tensor = program.constants[spec.target]
            else:
                raise self.unsupported(f"the program input '{name}' of kind {spec.kind.name}")
            if keep_params_as_input and spec.kind == InputKind.PARAMETER:
                var = Var(name, TensorStructInfo(list(tensor.shape), torch_dtype_to_str(tensor.dtype)))
                weight_vars.append(var)
                params.append(self.tensor_ndarray(tensor))
                by_name[name] = var
            elif node.users:
                by_name[name] = self.weight(tensor)
        self.node = None
        attrs = {"num_input": len(inputs)} if keep_params_as_input else None

        with self.bb.function("main", params=inputs + weight_vars, attrs=attrs):
            output = None
            with self.bb.dataflow():
                for node in program.graph.nodes:
                    self.node = node
                    if node.op == "placeholder":
                        if node.name in by_name:
                            self.env[node] = by_name[node.name]
                            if node.name in stateful:
                                self.aliases.mark_stateful(node, stateful[node.name])
                    elif node.op == "get_attr":
                        value = getattr(program.graph_module, node.target)
                        if not isinstance(value, torch.Tensor):
                            raise self.unsupported(f"reading the attribute '{node.target}' of type "
                                                   f"{type(value).__name__}")
                        self.env[node] = self.weight(value)
                    elif node.op == "call_function" and isinstance(node.meta.get("val"), torch.SymInt):
                        # a size computed from dynamic dims (aten.sym_size, operator.mul, ...)
                        self.env[node] = self.sym_size(node.meta["val"], f"fx node '{node.name}'")
                    elif node.op == "call_function":
                        if isinstance(node.target, torch._ops.OpOverload):  # pylint: disable=protected-access
                            self.env[node] = self.convert_aten(node)
                        else:
                            self.env[node] = self.convert_function(node)
                        self.track_aliases(node)
                    elif node.op == "output":
                        result = self.retrieve(node.args[0])
                        if isinstance(result, (tuple, list)) and len(result) == len(signature.output_specs):
                            result = [result[i] for i in user_outputs]
                        output = self.emit_outputs(tuple(result) if isinstance(result, list) else result,
                                                   unwrap_unit_return_tuple, no_bind_return_tuple)
                        break
                    else:
                        raise self.unsupported(f"fx node kind '{node.op}'")
            self.node = None
            self.aliases.check_state_writes()
            if output is None:
                raise TVMValueError("from_exported_program: the graph has no output node")
            self.bb.emit_func_output(output)

        mod = self.bb.get()
        if keep_params_as_input:
            mod["main"] = mod["main"].with_attr("params", params)
        return mod


def sympy_to_prim(expr, sym_vars, refuse):
    """The tir PrimExpr (int64) of a sympy size expression of torch.export: symbols
    (one tir.Var each, kept in ``sym_vars``), integers, +, *, floor division and
    modulo (torch's FloorDiv / Mod / PythonMod); anything else: ``refuse()`` raised."""
    import sympy  # pylint: disable=import-outside-toplevel
    from .... import tir  # pylint: disable=import-outside-toplevel

    def walk(e):
        if e.is_Symbol:
            if e.name not in sym_vars:
                sym_vars[e.name] = tir.Var(e.name, "int64")
            return sym_vars[e.name]
        if e.is_Integer:
            return tir.IntImm("int64", int(e))
        args = [walk(a) for a in e.args]
        kind = type(e).__name__
        if isinstance(e, sympy.Add):
            out = args[0]
            for a in args[1:]:
                out = out + a
            return out
        if isinstance(e, sympy.Mul):
            out = args[0]
            for a in args[1:]:
                out = out * a
            return out
        if kind == "FloorDiv" and len(args) == 2:
            return tir.floordiv(args[0], args[1])
        if kind in ("Mod", "PythonMod") and len(args) == 2:
            return tir.floormod(args[0], args[1])
        raise refuse()

    return walk(expr)


def from_exported_program(exported_program, *, keep_params_as_input=False, unwrap_unit_return_tuple=False,
                          no_bind_return_tuple=False):
    """Converts a torch.export.ExportedProgram to a Relax IRModule (TVM's
    ``relax.frontend.torch.from_exported_program``).

    "main" takes the program's user inputs (named as in the program). Its result is the
    tuple of the program's outputs (a one-element tuple for a model returning one
    tensor) unless unwrap_unit_return_tuple is set. keep_params_as_input: the model
    parameters follow the inputs, "main" gets the attributes "num_input" and "params"
    (see ``relax.frontend.detach_params``); buffers and constants are constants in any
    case. no_bind_return_tuple: as in from_fx.

    Both the program of torch.export.export and its run_decompositions() (core aten)
    are accepted. An operator the importer does not know raises
    tvm.OpNotImplemented naming it and its fx node."""
    return ExportedProgramTranslator().from_exported_program(exported_program, keep_params_as_input,
                                                             unwrap_unit_return_tuple, no_bind_return_tuple)


__all__ = ["from_exported_program"]
