"""Shared core of the PyTorch importers (fx_translator.py, exported_program_translator.py):
the conversion table (OpTable: one entry per operator, reachable by torch function,
Tensor method name, nn.Module type and aten op name), and BaseTranslator, which holds
the BlockBuilder and the node -> Relax value environment, converts one fx node through
the table and turns weights into constants or parameters. The converters are in converters.py."""
import inspect

from ....runtime.ndarray import array as _nd_array
from ...expr import Expr, ShapeExpr, Tuple as RelaxTuple, const
from ..common import GraphEmitter
from .aliasing import AliasTracker
from ....error import OpNotImplemented, TVMTypeError, TVMValueError


class OpEntry:
    """One operator: ``fn(tr, *args, **kwargs)`` emits its Relax form. ``fn``'s
    parameters follow the torch functional signature; ``modules`` maps an nn.Module
    type to ``adapter(tr, module) -> dict`` of the keyword arguments the module holds."""

    def __init__(self, name, fn, modules):
        self.name = name
        self.fn = fn
        self.modules = modules
        self.signature = inspect.signature(fn)


class OpTable:
    """The conversion table: every entry registered once with all its spellings."""

    def __init__(self):
        self.entries = {}
        self.by_function = {}   # torch / torch.nn.functional / operator callables (fx call_function)
        self.by_method = {}     # Tensor method names (fx call_method)
        self.by_module = {}     # nn.Module types (fx call_module)
        self.by_aten = {}       # aten op names "<op>.<overload>" (exported programs)

    def register(self, name, *, functions=(), methods=(), modules=None, aten=()):
        """Decorator adding converter ``name``; a spelling given twice is an error."""
        def deco(fn):
            if name in self.entries:
                raise TVMValueError(f"torch converter {name!r} is registered twice")
            entry = OpEntry(name, fn, dict(modules or {}))
            spellings = []
            for table, keys in ((self.by_function, functions), (self.by_method, methods),
                                (self.by_module, entry.modules), (self.by_aten, aten)):
                for key in keys:
                    if key is None or any(t is table and k == key for t, k in spellings):
                        continue  # absent in this torch build / an alias given twice (F.conv2d is torch.conv2d)
                    if key in table:
                        raise TVMValueError(f"torch converter {name!r}: {key!r} is already converted by "
                                            f"{table[key].name!r}")
                    spellings.append((table, key))
            # Checked first, then inserted: a refused registration leaves the table unchanged.
            self.entries[name] = entry
            for table, key in spellings:
                table[key] = entry
            return fn
        return deco


OPS = OpTable()


class NotComputed:
    """A tuple element of a torch op that the importer does not compute (e.g. the
    saved mean of aten.native_layer_norm); using it raises, naming the node."""

    def __init__(self, what, node):
        self.what = what
        self.node = node


def _torch():
    import torch  # pylint: disable=import-outside-toplevel
    return torch


def torch_dtype_to_str(dtype):
    """The Relax dtype string of a torch dtype or a dtype name."""
    torch = _torch()
    table = {torch.float32: "float32", torch.float16: "float16", torch.float64: "float64",
             torch.bfloat16: "bfloat16", torch.int64: "int64", torch.int32: "int32", torch.int16: "int16",
             torch.int8: "int8", torch.uint8: "uint8", torch.bool: "bool"}
    if isinstance(dtype, torch.dtype):
        if dtype not in table:
            raise TVMTypeError(f"torch dtype {dtype} has no Relax equivalent")
        return table[dtype]
    if isinstance(dtype, str):
        name = dtype.lower().replace("torch.", "")
        name = {"float": "float32", "half": "float16", "double": "float64", "long": "int64",
                "int": "int32"}.get(name, name)
        if name in table.values():
            return name
    raise TVMTypeError(f"unsupported dtype {dtype!r} (expected a torch.dtype or a name such as 'float32')")


class BaseTranslator(GraphEmitter):
    """State and helpers shared by the fx and exported-program translators (the
    BlockBuilder and the shape / dtype / axis queries come from frontend/common.py).

    Subclasses set ``self.env`` (fx node -> value: a Relax Expr, a Python number, or a
    tuple/list of those) and call ``convert_call`` for each call node."""

    importer_name = "the PyTorch importer"

    def __init__(self):
        super().__init__()
        self.env = {}
        self.node = None            # the node being converted (named in errors)
        self._weights = {}          # id(torch tensor) -> Relax Var / Constant
        self.last_inplace = False   # the last converted call had inplace=True
        self.last_entry = None      # the OpEntry of the last converted call
        self.aliases = AliasTracker(self)  # views and in-place writes (aliasing.py)

    # -- errors ---------------------------------------------------------------------------
    def node_desc(self, node=None):
        node = node if node is not None else self.node
        if node is None:
            return "<no node>"
        return f"fx node '{node.name}' ({node.op} {self.target_name(node)})"

    @staticmethod
    def target_name(node):
        target = node.target
        if isinstance(target, str):
            return target
        mod = getattr(target, "__module__", None)
        name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or str(target)
        if type(target).__name__ == "OpOverload":
            return f"aten.{target.__name__}" if str(target).startswith("aten.") else str(target)
        return f"{mod}.{name}" if mod and mod != "builtins" else name

    # -- values ---------------------------------------------------------------------------
    def retrieve(self, value):
        """A node argument with every fx Node replaced by its converted value."""
        torch = _torch()
        if isinstance(value, torch.fx.Node):
            if value not in self.env:
                raise TVMValueError(f"{self.node_desc()}: its argument '{value.name}' has not been converted")
            self.aliases.refresh(value)
            result = self.env[value]
            if isinstance(result, NotComputed):
                raise self.unsupported(f"using {result.what} (output of {self.node_desc(result.node)})")
            return result
        if isinstance(value, tuple):
            return tuple(self.retrieve(v) for v in value)
        if isinstance(value, list):
            return [self.retrieve(v) for v in value]
        if isinstance(value, dict):
            return {k: self.retrieve(v) for k, v in value.items()}
        if isinstance(value, slice):
            return slice(self.retrieve(value.start), self.retrieve(value.stop), self.retrieve(value.step))
        if isinstance(value, torch.dtype):
            return value
        if isinstance(value, torch.Tensor):
            return self.weight(value)
        return value

    def result_dims(self):
        """The result shape of the node being converted as the program records it (ints
        and tir PrimExprs), or None where it is not recorded (fx graphs)."""
        return None

    def weight(self, tensor, name=None):
        """The Relax value of a torch tensor held by the model: its parameter var
        (keep_params_as_input) or a constant."""
        key = id(tensor)
        if key not in self._weights:
            self._weights[key] = self.tensor_const(tensor)
        return self._weights[key]

    @staticmethod
    def tensor_const(tensor):
        data = tensor.detach().cpu()
        dtype = torch_dtype_to_str(data.dtype)
        if dtype == "bfloat16":
            raise TVMTypeError("bfloat16 weights cannot be imported as constants (NumPy has no bfloat16)")
        return const(data.numpy(), dtype)

    @staticmethod
    def tensor_ndarray(tensor):
        return _nd_array(tensor.detach().cpu().numpy())

    # -- dispatch -------------------------------------------------------------------------
    def call_entry(self, entry, args, kwargs, extra_kwargs=None):
        """Binds the converted ``args``/``kwargs`` (plus a module's ``extra_kwargs``) to
        ``entry``'s signature and runs it."""
        kwargs = dict(kwargs)
        if "self" in kwargs:  # aten spells the first operand 'self'
            kwargs["input"] = kwargs.pop("self")
        for key, value in (extra_kwargs or {}).items():
            kwargs.setdefault(key, value)
        try:
            bound = entry.signature.bind(self, *args, **kwargs)
        except TypeError as err:
            raise TVMTypeError(f"{self.node_desc()}: arguments do not fit torch op '{entry.name}': {err}") from None
        # In-place forms (inplace=True, Tensor methods ending in '_') write their first operand.
        self.last_inplace = bool(bound.arguments.get("inplace", False))
        self.last_entry = entry
        try:
            return entry.fn(*bound.args, **bound.kwargs)
        except OpNotImplemented:
            raise
        except Exception as err:  # pylint: disable=broad-except
            if hasattr(err, "add_note"):
                err.add_note(f"while converting {self.node_desc()} with torch op '{entry.name}'")
            raise

    def convert_function(self, node):
        entry = OPS.by_function.get(node.target) if _hashable(node.target) else None
        if entry is None and type(node.target).__name__ == "OpOverload":
            return self.convert_aten(node)  # torch.ops.aten.<op>.<overload> called in the model
        if entry is None:
            raise self.unsupported(f"torch function '{self.target_name(node)}'")
        return self.call_entry(entry, self.retrieve(node.args), self.retrieve(node.kwargs))

    def convert_aten(self, node):
        name = node.target.__name__
        entry = OPS.by_aten.get(name)
        if entry is None:
            raise self.unsupported(f"operator 'aten.{name}'")
        return self.call_entry(entry, self.retrieve(node.args), self.retrieve(node.kwargs))

    def convert_method(self, node):
        entry = OPS.by_method.get(node.target)
        if entry is None:
            raise self.unsupported(f"Tensor method '{node.target}'")
        return self.call_entry(entry, self.retrieve(node.args), self.retrieve(node.kwargs))

    def convert_module(self, node, module):
        entry = OPS.by_module.get(type(module))
        if entry is None:
            raise self.unsupported(f"module type '{type(module).__module__}.{type(module).__qualname__}'")
        extra = entry.modules[type(module)](self, module)
        return self.call_entry(entry, self.retrieve(node.args), self.retrieve(node.kwargs), extra)

    def track_aliases(self, node, module=None):
        """After converting call ``node``: an in-place call (Tensor.add_, torch.relu_,
        F.relu(inplace=True), aten.add_, x += y) writes its first operand, and through it
        the tensor it is a view of; a view op records what it aliases (aliasing.py).
        ``module`` is the nn.Module of a call_module node."""
        torch = _torch()
        if not node.op.startswith("call_"):
            return

        def replay(to_meta):
            args = torch.fx.node.map_arg(node.args, to_meta)
            kwargs = torch.fx.node.map_arg(node.kwargs, to_meta)
            if node.op == "call_method":
                return getattr(args[0], node.target)(*args[1:], **kwargs)
            if node.op == "call_module":
                return module(*args, **kwargs)
            return node.target(*args, **kwargs)

        entry_name = self.last_entry.name if self.last_entry is not None else None
        self.aliases.after_call(node, entry_name, self.last_inplace, replay)

    # -- outputs --------------------------------------------------------------------------
    def output_value(self, item, what):
        """A model output as a Relax value: a tensor; a size (``x.size()``, ``x.shape``) a
        shape value (R.shape); a Python int (``x.size(0)``, aten.sym_size.int) a bound 0-d
        int32 constant (TVM's forms)."""
        torch = _torch()
        if isinstance(item, Expr):
            return item
        if isinstance(item, torch.Size) and all(isinstance(d, int) for d in item):
            return ShapeExpr([int(d) for d in item])
        if isinstance(item, int) and not isinstance(item, bool):
            if not -2**31 <= item < 2**31:
                raise TVMValueError(f"{what} is the integer {item}, which does not fit the int32 scalar it is "
                                    "returned as")
            return self.bb.emit(const(item, "int32"))
        raise TVMTypeError(f"{what} is a {type(item).__name__}, not a tensor, a size or an int; only those "
                           "(or tuples of them) can be returned")

    def emit_outputs(self, result, unwrap_unit_return_tuple, no_bind_return_tuple):
        """Binds the model's result for the end of the dataflow block (TVM's rules: a unit
        tuple is unwrapped on request; with no_bind_return_tuple each element is bound
        and the function returns a tuple of them)."""
        torch = _torch()
        if isinstance(result, (tuple, list)) and not isinstance(result, torch.Size):
            result = [self.output_value(item, f"the model's output {i}") for i, item in enumerate(result)]
            if unwrap_unit_return_tuple and len(result) == 1:
                return self.bb.emit_output(result[0])
            if no_bind_return_tuple:
                return RelaxTuple([self.bb.emit_output(item) for item in result])
            return self.bb.emit_output(RelaxTuple(list(result)))
        return self.bb.emit_output(self.output_value(result, "the model's output"))


def _hashable(obj):
    try:
        hash(obj)
    except TypeError:
        return False
    return True


__all__ = ["OPS", "OpTable", "OpEntry", "BaseTranslator", "NotComputed", "torch_dtype_to_str"]
