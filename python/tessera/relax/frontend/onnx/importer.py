"""``from_onnx``: loads an ONNX model (a ModelProto or a file), checks every node
against the conversion table (registry.py) before converting anything, then walks
the graph in order, emitting one dataflow block of high-level Relax ops into
``main``. Values are Relax expressions or import-time ``Known`` values (values.py):
constants and shape computations fold here; the converters are in ops_*.py."""
import os
import re

import numpy as np

from ....error import OpNotImplemented, TVMFileNotFoundError, TVMTypeError, TVMValueError, TVMImportError
from ....ir import PrimExpr
from ....runtime.ndarray import array as _nd_array
from ...expr import Expr, Tuple as RelaxTuple, Var, const
from ...struct_info import TensorStructInfo
from ....tir import Var as TIRVar
from ..common import GraphEmitter
from .registry import MAX_OPSET, lookup
from .values import Known

DEFAULT_OPSET = 1


def _onnx():
    try:
        import onnx  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise TVMImportError("from_onnx needs the onnx package (pip install onnx)") from err
    return onnx


def load_model(model):
    """A ModelProto from ``model`` (a ModelProto, a path or the serialized bytes); an
    unreadable, truncated or malformed file is a ValueError naming it."""
    onnx = _onnx()
    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, (bytes, bytearray)):
        what, loader = "the serialized model", lambda: onnx.load_from_string(bytes(model))
    elif isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise TVMFileNotFoundError(f"from_onnx: no ONNX model file at {path!r}")
        what, loader = f"file {path!r}", lambda: onnx.load(path)
    else:
        raise TVMTypeError(f"from_onnx: expected an onnx.ModelProto or a path, got {type(model).__name__}")
    try:
        proto = loader()
    except Exception as err:  # pylint: disable=broad-except  (protobuf DecodeError, external data, ...)
        raise TVMValueError(f"from_onnx: {what} is not a readable ONNX model "
                            f"({type(err).__name__}: {err})") from None
    if not proto.HasField("graph"):
        raise TVMValueError(f"from_onnx: {what} holds no graph (truncated or not an ONNX model)")
    return proto


def model_opset(model, opset):
    """The default-domain opset the model is converted under."""
    if opset is not None:
        if isinstance(opset, bool) or not isinstance(opset, (int, np.integer)) or opset < 1:
            raise TVMValueError(f"from_onnx: opset must be a positive int, got {opset!r}")
        return int(opset)
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    return DEFAULT_OPSET


def node_desc(node, index):
    name = f"'{node.name}'" if node.name else f"#{index}"
    return f"node {name} ({node.op_type})"


def attribute_values(node):
    """The node's attributes as Python values (strings decoded, tensors as NumPy arrays)."""
    onnx = _onnx()
    attrs = {}
    for attr in node.attribute:
        value = onnx.helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = value.decode("utf-8", errors="replace")
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode("utf-8", errors="replace") for v in value]
        elif isinstance(value, onnx.TensorProto):
            value = onnx.numpy_helper.to_array(value)
        attrs[attr.name] = value
    return attrs


def op_version(node, opset):
    """The version of the operator schema in effect at ``opset`` (None if onnx does not know it)."""
    onnx = _onnx()
    try:
        return onnx.defs.get_schema(node.op_type, opset, node.domain).since_version
    except Exception:  # pylint: disable=broad-except
        return None


def validate(model, opset):
    """Checks every node before converting: unsupported ops (all of them, each with its
    first node), unsupported attribute values, inputs used before they are defined."""
    graph = model.graph
    unsupported = {}
    problems = []
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    domain_opsets = {e.domain: int(e.version) for e in model.opset_import if e.domain not in ("", "ai.onnx")}
    for index, node in enumerate(graph.node):
        desc = node_desc(node, index)
        domain = node.domain or "ai.onnx"
        entry = lookup(node.domain, node.op_type)
        version = op_version(node, opset) if node.domain in ("", "ai.onnx") else None
        if entry is None or (version is not None and version > MAX_OPSET):
            key = (domain, node.op_type, version if version is not None else domain_opsets.get(node.domain, opset))
            unsupported.setdefault(key, desc)
        else:
            attrs = attribute_values(node)
            for name, allowed in entry.attr_values.items():
                if name in attrs:
                    value = attrs[name]
                    ok = allowed(value) if callable(allowed) else value in allowed
                    if not ok:
                        hint = "" if callable(allowed) else f" (supported: {', '.join(map(repr, allowed))})"
                        problems.append(f"{desc}: attribute {name}={value!r} is not supported{hint}")
            if len(node.output) > entry.max_outputs and any(node.output[entry.max_outputs:]):
                problems.append(f"{desc}: outputs {list(node.output[entry.max_outputs:])} are not computed by the "
                                f"importer (it computes {entry.max_outputs} of {node.op_type}'s outputs)")
        for name in node.input:
            if name and name not in defined:
                raise TVMValueError(f"from_onnx: {desc} uses {name!r}, which no graph input, initializer or earlier "
                                    "node defines (a malformed or truncated model)")
        defined.update(o for o in node.output if o)
    for out in graph.output:
        if out.name not in defined:
            raise TVMValueError(f"from_onnx: the graph output {out.name!r} is not computed by any node")
    if unsupported or problems:
        lines = []
        if unsupported:
            lines.append(f"{len(unsupported)} operator type(s) are not supported by the ONNX importer:")
            lines += [f"  {d}::{op} (opset {v}), first at {desc}" for (d, op, v), desc in unsupported.items()]
        lines += problems
        raise OpNotImplemented("from_onnx: " + "\n".join(lines))


def _elem_dtype(elem_type, what):
    onnx = _onnx()
    try:
        dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
    except Exception:  # pylint: disable=broad-except
        raise TVMTypeError(f"from_onnx: {what} has the element type {elem_type}, which has no Relax "
                           "equivalent") from None
    return "bool" if dtype == np.bool_ else str(dtype)


def _sanitize(name):
    name = re.sub(r"[^0-9A-Za-z_]", "_", name)
    return f"input_{name}" if not name or name[0].isdigit() else name


class OnnxImporter(GraphEmitter):
    """One import: the environment (ONNX value name -> Relax Expr or Known), the
    current node (named in errors) and the queries converters use."""

    importer_name = "the ONNX importer"

    def __init__(self, model, opset):
        super().__init__()
        self.model = model
        self.opset = opset
        self.env = {}
        self.node = None
        self.node_index = -1
        self.sym_vars = {}
        self.input_params = []
        self.param_names = set()

    def node_desc(self, node=None):
        if self.node is None:
            return "<no node>"
        return node_desc(self.node, self.node_index)

    # -- values ----------------------------------------------------------------------------
    def known(self, value):
        return value if isinstance(value, Known) else None

    def known_ints(self, value, what):
        """The elements of an import-time integer value (a constant or a shape value)."""
        if isinstance(value, Known):
            return value.tolist()
        raise self.unsupported(f"a {what} computed at run time (it must be a constant or a shape computation)")

    def expr(self, value, what="operand"):
        """A Relax expression of ``value`` (a Known becomes a constant)."""
        if isinstance(value, Expr):
            return value
        if isinstance(value, Known):
            if value.symbolic and value.array.ndim <= 1:
                return self.shape_tensor(value)
            if value.symbolic:
                raise self.unsupported(f"using the shape value {value.tolist()} (it holds a symbolic dimension) "
                                       f"as tensor data ({what})")
            return const(value.numeric(), value.dtype)
        raise TVMTypeError(f"{self.node_desc()}: {what} is missing or not a tensor ({value!r})")

    def shape_tensor(self, value):
        """A 0-d or 1-d shape value with symbolic elements as a run-time int tensor."""
        from .... import tir  # pylint: disable=import-outside-toplevel
        elems = [tir.const(v, "int64") if not isinstance(v, PrimExpr) else tir.Cast("int64", v)
                 for v in value.array.reshape(-1)]

        def pick(*args):
            idx, vals = (args[0], args[1:]) if value.array.ndim else (0, args)
            result = vals[-1]
            for k in range(len(vals) - 2, -1, -1):
                result = tir.if_then_else(idx == k, vals[k], result)
            return tir.Cast(value.dtype, result)
        return self.emit_generated(list(value.array.shape), pick, "shape_tensor", elems)

    def vdims(self, value, what="operand"):
        if isinstance(value, Known):
            return value.shape
        return self.dims(value, what)

    def vdtype(self, value, what="operand"):
        if isinstance(value, Known):
            return value.dtype
        return self.dtype(value, what)

    def vndim(self, value, what="operand"):
        return len(self.vdims(value, what))

    def emit_generated(self, shape, fn, name, values=()):
        """A tensor of ``shape`` (ints or symbolic PrimExprs) whose element at ``idx`` is
        ``fn(*idx, *values)``, as a TE kernel (``values``: PrimExprs it uses). Symbolic dims
        come from the graph inputs' shapes; the inputs that hold them are passed along
        (unused) so the kernel can name them."""
        from .... import te  # pylint: disable=import-outside-toplevel
        from ....tir import stmt_functor  # pylint: disable=import-outside-toplevel
        used = []
        for dim in list(shape) + list(values):
            if isinstance(dim, PrimExpr):
                stmt_functor.post_order_visit(dim, lambda n: used.append(n) if isinstance(n, TIRVar) else None)
        carriers = []
        for var in used:
            if any(var.same_as(v) for c in carriers for v in self._tir_vars(c)):
                continue
            carrier = next((p for p in self.input_params if any(var.same_as(v) for v in self._tir_vars(p))), None)
            if carrier is None:
                raise self.unsupported(f"the symbolic dimension {var} (not a graph input's dimension)")
            carriers.append(carrier)

        def compute(*args):
            dims, vals = args[-2], args[-1]
            return te.compute(list(dims), lambda *idx: fn(*idx, *vals), name=name)
        return self.bb.emit_te(compute, *carriers, list(shape), list(values), primfunc_name_hint=name)

    @staticmethod
    def _tir_vars(param):
        return [d for d in param.struct_info.shape.values if isinstance(d, TIRVar)]

    # -- graph -----------------------------------------------------------------------------
    def input_var(self, inp, shape_dict, dtype_dict, sanitize):
        ttype = inp.type.tensor_type
        if not inp.type.HasField("tensor_type"):
            raise OpNotImplemented(f"from_onnx: graph input {inp.name!r} is not a tensor")
        if isinstance(dtype_dict, dict) and inp.name in dtype_dict:
            dtype = str(dtype_dict[inp.name])
        elif ttype.elem_type:
            dtype = _elem_dtype(ttype.elem_type, f"graph input {inp.name!r}")
        else:
            dtype = dtype_dict if isinstance(dtype_dict, str) else "float32"
        if shape_dict and inp.name in shape_dict:
            shape = []
            for i, dim in enumerate(shape_dict[inp.name]):
                if isinstance(dim, str):
                    dim = self.sym_vars.setdefault(dim, TIRVar(dim, "int64"))
                elif isinstance(dim, (int, np.integer)) and not isinstance(dim, bool) and dim >= 0:
                    dim = int(dim)
                elif not isinstance(dim, PrimExpr):
                    raise TVMValueError(f"from_onnx: shape_dict[{inp.name!r}] dim {i} must be a non-negative int "
                                        f"or a name, got {dim!r}")
                shape.append(dim)
        else:
            if not ttype.HasField("shape"):
                raise TVMValueError(f"from_onnx: graph input {inp.name!r} has no shape in the model; give it in "
                                    "shape_dict")
            shape = []
            for i, dim in enumerate(ttype.shape.dim):
                if dim.HasField("dim_value"):
                    shape.append(int(dim.dim_value))
                elif dim.dim_param and dim.dim_param != "?":  # a named dim: one var per name
                    shape.append(self.sym_vars.setdefault(dim.dim_param, TIRVar(dim.dim_param, "int64")))
                else:  # unknown ("?" or unset): a dim of its own
                    shape.append(TIRVar(f"{_sanitize(inp.name)}_dim{i}", "int64"))
        return Var(self.param_name(inp.name, sanitize), TensorStructInfo(shape, dtype))

    def param_name(self, name, sanitize):
        """``name`` made a valid identifier (with ``sanitize``) and distinct from the
        parameter names given before (a repeat gets ``_1``, ``_2``, ...)."""
        name = _sanitize(name) if sanitize else name
        base, k = name, 0
        while name in self.param_names:
            k += 1
            name = f"{base}_{k}"
        self.param_names.add(name)
        return name

    def convert(self, shape_dict, dtype_dict, keep_params_in_input, sanitize):
        onnx = _onnx()
        graph = self.model.graph
        init_names = {t.name for t in graph.initializer}
        inputs = [i for i in graph.input if i.name not in init_names]
        if shape_dict is not None:
            if not isinstance(shape_dict, dict):
                raise TVMTypeError(f"from_onnx: shape_dict must be a dict, got {type(shape_dict).__name__}")
            unknown = sorted(set(shape_dict) - {i.name for i in inputs})
            if unknown:
                raise TVMValueError(f"from_onnx: shape_dict names {unknown}, which are not inputs of the model "
                                    f"(its inputs: {[i.name for i in inputs]})")
        params = []
        for inp in inputs:
            var = self.input_var(inp, shape_dict, dtype_dict, sanitize)
            self.env[inp.name] = var
            params.append(var)
        self.input_params = list(params)
        used = {name for node in graph.node for name in node.input} | {o.name for o in graph.output}
        weight_vars, weight_values = [], []
        for tensor in graph.initializer:
            try:
                array = onnx.numpy_helper.to_array(tensor)
            except Exception as err:  # pylint: disable=broad-except
                raise TVMValueError(f"from_onnx: initializer {tensor.name!r} cannot be read ({err})") from None
            dtype = "bool" if array.dtype == np.bool_ else str(array.dtype)
            if keep_params_in_input and tensor.name in used and dtype.startswith("float"):
                var = Var(self.param_name(tensor.name, sanitize), TensorStructInfo(list(array.shape), dtype))
                weight_vars.append(var)
                weight_values.append(_nd_array(array))
                self.env[tensor.name] = var
            else:
                self.env[tensor.name] = Known(array, dtype)
        attrs = {"num_input": len(params)}
        if keep_params_in_input:
            attrs["params"] = weight_values
        with self.bb.function("main", params + weight_vars, attrs=attrs if keep_params_in_input else None):
            with self.bb.dataflow():
                for index, node in enumerate(graph.node):
                    self.convert_node(node, index)
                outputs = [self.output_value(o.name) for o in graph.output]
                self.node = None
                result = outputs[0] if len(outputs) == 1 else RelaxTuple(outputs)
                out = self.bb.emit_output(result)
            self.bb.emit_func_output(out)
        return self.bb.get()

    def output_value(self, name):
        value = self.env[name]
        if isinstance(value, Known):
            return self.expr(value, f"graph output {name!r}")
        return value

    def convert_node(self, node, index):
        self.node, self.node_index = node, index
        entry = lookup(node.domain, node.op_type)
        inputs = [self.env[name] if name else None for name in node.input]
        attrs = attribute_values(node)
        try:
            result = entry.fn(self, inputs, attrs)
        except (OpNotImplemented, TVMValueError, TVMTypeError):
            raise
        except Exception as err:  # pylint: disable=broad-except
            if hasattr(err, "add_note"):
                err.add_note(f"while converting {self.node_desc()}")
            raise
        results = list(result) if isinstance(result, (list, tuple)) else [result]
        for name, value in zip(node.output, results):
            if name:
                self.env[name] = value
        missing = [n for n in node.output[len(results):] if n]
        if missing:
            raise self.unsupported(f"computing the outputs {missing}")


def from_onnx(model, shape_dict=None, dtype_dict="float32", opset=None, keep_params_in_input=False,
              sanitize_input_names=True):
    """Imports an ONNX model into an IRModule whose ``main`` takes the graph inputs
    (initializers are constants, or with ``keep_params_in_input`` the float ones follow
    the inputs as parameters, ``main`` getting the ``num_input`` and ``params``
    attributes as TVM's importer does). ``shape_dict`` overrides input shapes (a str dim
    is symbolic), ``dtype_dict`` input dtypes (a str is used where the model gives none),
    ``opset`` the model's opset."""
    from . import ops_elementwise, ops_nn, ops_tensor, ops_reduce, ops_more  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    proto = load_model(model)
    opset = model_opset(proto, opset)
    validate(proto, opset)
    return OnnxImporter(proto, opset).convert(shape_dict, dtype_dict, keep_params_in_input, sanitize_input_names)


__all__ = ["from_onnx", "load_model", "validate", "OnnxImporter"]
