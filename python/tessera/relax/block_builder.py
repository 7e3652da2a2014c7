"""``tvm.relax.BlockBuilder``: builds Relax functions binding by binding
through the C++ BlockBuilder (src/relax/block_builder.h), whose normalizer
binds nested calls to fresh vars and infers struct info.

    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.call_tir(gv, [x], out_sinfo))
            gv0 = bb.emit_output(lv)
        bb.emit_func_output(gv0)
    mod = bb.get()
"""
import threading

from .._ffi.registry import register_object
from ..error import TVMError, TVMTypeError
from ..ir.base import Node
from ..ir.expr import GlobalVar
from ..ir.function import BaseFunc
from .expr import Expr, Var, Tuple, SeqExpr, Function, Binding
from .struct_info import StructInfo, as_struct_info
from . import _ffi_api


class FunctionScope:
    """``with bb.function(...)``: collects the blocks of one function."""

    def __init__(self, block_builder, name, params, attrs, is_pure):
        self._bb = block_builder
        self._name = name
        self._params = params
        self._attrs = attrs
        self._is_pure = is_pure
        self._blocks = []
        self._is_emit_func_output_called = False
        # What this scope opened in the C++ builder and has not closed yet
        # (closed on exit when an exception cut the function short).
        self._block_open = False
        self._scope_open = False

    def __enter__(self):
        self._bb._enter_function_scope(self)

    def __exit__(self, exc_type, exc_val, exc_tb):
        self._bb._exit_function_scope(exc_type, exc_val, exc_tb)


class DataflowScope:
    """``with bb.dataflow()``: a dataflow block inside a function."""

    def __init__(self, block_builder):
        self._bb = block_builder

    def __enter__(self):
        block = self._bb._end_block()
        if len(block.bindings) > 0:
            self._bb._func._blocks.append(block)
        self._bb._begin_dataflow_block()

    def __exit__(self, ptype, value, trace):
        block = self._bb._end_block()
        if len(block.bindings) > 0:
            self._bb._func._blocks.append(block)
        self._bb._begin_binding_block()


class TestingScope:
    """``with bb.testing_scope(def_vars)``: a dataflow block whose symbolic vars ``def_vars`` count as defined."""

    def __init__(self, block_builder, def_vars):
        self._bb = block_builder
        shape_vars = []
        for var in def_vars:
            from ..tir.expr import Var as TIRVar  # pylint: disable=import-outside-toplevel
            if not isinstance(var, TIRVar):
                raise TVMTypeError(f"testing_scope: {var!r} is not a tir.Var")
            shape_vars.append(var)
        from .struct_info import ShapeStructInfo  # pylint: disable=import-outside-toplevel
        self._params = [Var("_testing_scope_defs", ShapeStructInfo(shape_vars))] if shape_vars else []

    def __enter__(self):
        self._bb.begin_scope(self._params)
        self._bb._begin_dataflow_block()

    def __exit__(self, ptype, value, trace):
        self._bb._end_block()
        self._bb.end_scope()


def _as_params(params):
    if params is None:
        return None
    if isinstance(params, Var):
        return [params]
    if isinstance(params, (list, tuple)):
        for param in params:
            if not isinstance(param, Var):
                raise TVMTypeError(f"each function parameter must be a tvm.relax.Var, got {type(param).__name__}")
        return list(params)
    raise TVMTypeError(f"function parameters must be a Var or a list of Vars, got {type(params).__name__}")


@register_object("relax.BlockBuilder")
class BlockBuilder(Node):
    """Builds Relax IR; see the module docstring."""

    # The builders whose ``with bb.function(...)`` is open, innermost last:
    # one stack per thread, so builders used in separate threads never see
    # (or pop) each other.
    _local = threading.local()

    @staticmethod
    def _scope_stack():
        stack = getattr(BlockBuilder._local, "stack", None)
        if stack is None:
            stack = BlockBuilder._local.stack = []
        return stack

    @staticmethod
    def current():
        """The innermost BlockBuilder inside a ``with bb.function(...)`` of this thread, or None."""
        stack = BlockBuilder._scope_stack()
        return stack[-1] if stack else None

    def __init__(self, mod=None):
        self._func_stack = []
        self.__init_handle_by_constructor__(_ffi_api.BlockBuilderCreate, mod)

    def _begin_dataflow_block(self):
        _ffi_api.BlockBuilderBeginDataflowBlock(self)

    def _begin_binding_block(self):
        _ffi_api.BlockBuilderBeginBindingBlock(self)

    def _end_block(self):
        return _ffi_api.BlockBuilderEndBlock(self)

    @property
    def _func(self):
        if self._func_stack:
            return self._func_stack[-1]
        raise TVMError("Cannot access BlockBuilder._func when outside a bb.function() block")

    def _enter_function_scope(self, func_scope):
        BlockBuilder._scope_stack().append(self)
        self._func_stack.append(func_scope)
        try:
            self.begin_scope(func_scope._params)
            func_scope._scope_open = True
            self._begin_binding_block()
            func_scope._block_open = True
        except BaseException as err:  # __exit__ will not run: undo what was opened
            self._exit_function_scope(type(err), err, err.__traceback__)
            raise

    def _exit_function_scope(self, exc_type, exc_val, exc_tb):  # pylint: disable=unused-argument
        func = self._func
        self._func_stack.pop()
        stack = BlockBuilder._scope_stack()
        # Scopes of one thread nest, so this builder is the innermost; remove
        # it wherever it is all the same, so that no failure leaves it behind.
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is self:
                del stack[i]
                break
        # Leave the C++ builder as it was before the scope, whatever cut it short.
        if func._block_open:
            self._end_block()
            func._block_open = False
        if func._scope_open:
            self.end_scope()
            func._scope_open = False
        if exc_type is None and not func._is_emit_func_output_called:
            raise TVMError(f"bb.function({func._name!r}) ended without emit_func_output: emit_func_output must be called "
                           "in a relax function.")

    def function(self, name, params=None, attrs=None, pure=True, private=False):
        """A scope building function ``name``; ``params`` may instead be given to emit_func_output."""
        if not isinstance(name, str):
            raise TVMTypeError(f"BlockBuilder.function: name must be a str, got {type(name).__name__}")
        params = _as_params(params)
        attrs = dict(attrs) if attrs is not None else {}
        if not private:
            attrs["global_symbol"] = name
        return FunctionScope(self, name, params, attrs, is_pure=pure)

    def testing_scope(self, def_vars):
        return TestingScope(self, def_vars)

    def dataflow(self):
        """A scope building a dataflow block."""
        return DataflowScope(self)

    @staticmethod
    def _normalize_python_tuple(expr):
        if isinstance(expr, (list, tuple)):
            return Tuple([BlockBuilder._normalize_python_tuple(e) for e in expr])
        return expr

    def emit(self, expr, name_hint=""):
        """Normalizes ``expr`` and binds it to a new var (a DataflowVar inside a dataflow block)."""
        expr = self._normalize_python_tuple(expr)
        if not isinstance(expr, Expr):
            raise TVMTypeError(f"BlockBuilder.emit: expected a relax Expr, got {type(expr).__name__}")
        return _ffi_api.BlockBuilderEmit(self, expr, name_hint)

    def call_te(self, func, *args, **kwargs):
        """Calls TE function ``func`` on Relax tensors: each tensor argument becomes a
        te.placeholder (its symbolic dims kept), the result is turned into a PrimFunc
        (te.create_prim_func) added to the module once (structurally equal functions are
        shared; named after ``primfunc_name_hint`` or ``func``) and the call_tir of it is
        returned. Keyword arguments other than primfunc_name_hint go to ``func``."""
        from .. import te  # pylint: disable=import-outside-toplevel
        from ..ir import structural_equal  # pylint: disable=import-outside-toplevel
        from .struct_info import PrimStructInfo, TensorStructInfo  # pylint: disable=import-outside-toplevel
        from .expr import PrimValue, ShapeExpr  # pylint: disable=import-outside-toplevel
        from .op.base import call_tir  # pylint: disable=import-outside-toplevel
        from ..tir.stmt_functor import substitute as stmt_functor_substitute  # pylint: disable=import-outside-toplevel
        from ..ir import PrimExpr  # pylint: disable=import-outside-toplevel
        name_hint = kwargs.pop("primfunc_name_hint", None)
        if not callable(func):
            raise TVMTypeError(f"BlockBuilder.call_te: func must be callable, got {type(func).__name__}")
        inputs = []
        # Each PrimFunc gets its own copies of the symbolic dims (a tir.Var belongs to one function).
        fresh = []  # (relax-level var, the PrimFunc's var)

        def own_dim(dim):
            from ..tir import Var as TIRVar, stmt_functor  # pylint: disable=import-outside-toplevel

            def visit(node):
                if isinstance(node, TIRVar) and not any(v.same_as(node) for v, _ in fresh):
                    fresh.append((node, TIRVar(node.name, node.dtype)))
            stmt_functor.post_order_visit(dim, visit)
            return stmt_functor.substitute(dim, dict(fresh)) if fresh else dim

        def collect(arg, prims):
            if prims and isinstance(arg, PrimExpr):
                own_dim(arg)
            elif (not prims and isinstance(arg, Expr) and isinstance(arg.struct_info_, TensorStructInfo)
                  and arg.struct_info_.shape):
                for d in arg.struct_info_.shape.values:
                    own_dim(d)
            elif isinstance(arg, (list, tuple)):
                for a in arg:
                    collect(a, prims)
            elif isinstance(arg, dict):
                for a in arg.values():
                    collect(a, prims)

        # The tensors' symbolic dims first, so PrimExpr arguments can name them too; then the
        # variables of PrimExpr arguments (a size given alone: arange(n)).
        for prims in (False, True):
            for a in list(args) + list(kwargs.values()):
                collect(a, prims)

        def convert(arg):
            if isinstance(arg, PrimExpr) and fresh:
                return stmt_functor_substitute(arg, dict(fresh))
            if isinstance(arg, Expr):
                sinfo = arg.struct_info_ if arg.struct_info_ is not None else self.normalize(arg).struct_info_
                # A literal shape (ShapeExpr) or scalar (PrimValue) enters as its PrimExpr value(s), as TVM's call_te.
                if isinstance(arg, ShapeExpr):
                    return [convert(v) for v in arg.values]
                if isinstance(arg, PrimValue):
                    return convert(arg.value)
                # A scalar known only at run time: a scalar parameter of the PrimFunc (TVM's form).
                if isinstance(sinfo, PrimStructInfo) and sinfo.value is None:
                    from ..tir import Var as TIRVar  # pylint: disable=import-outside-toplevel
                    scalar = TIRVar(arg.name_hint if isinstance(arg, Var) else f"s{len(inputs)}", sinfo.dtype)
                    inputs.append((arg, scalar))
                    return scalar
                if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
                    raise TVMTypeError(f"BlockBuilder.call_te: argument {len(inputs)} must be a tensor of known "
                                    f"shape, got {sinfo}")
                ph = te.placeholder([own_dim(d) for d in sinfo.shape.values], sinfo.dtype,
                                    arg.name_hint if isinstance(arg, Var) else f"A{len(inputs)}")
                inputs.append((arg, ph))
                return ph
            if isinstance(arg, (list, tuple)):
                return type(arg)(convert(a) for a in arg)
            if isinstance(arg, dict):
                return {k: convert(v) for k, v in arg.items()}
            return arg

        te_args = [convert(a) for a in args]
        te_kwargs = {k: convert(v) for k, v in kwargs.items()}
        out = func(*te_args, **te_kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        if not outs or not all(isinstance(o, te.Tensor) for o in outs):
            raise TVMTypeError("BlockBuilder.call_te: func must return a te.Tensor or a list of them")
        # Relax shapes are int64: loops and indices follow (as TVM's call_te).
        prim = te.create_prim_func([ph for _, ph in inputs] + outs, index_dtype_override="int64")
        prim = prim.without_attr("global_symbol")  # private: the build attaches the symbol
        # A symbolic dim used only inside expressions (a (b * s, 8) tensor) is no buffer's
        # extent: the PrimFunc takes it as a trailing int64 parameter, passed as tir_vars (as TVM).
        unbound = _unbound_dims(fresh, [ph for _, ph in inputs] + outs)
        if unbound:
            from ..tir import PrimFunc  # pylint: disable=import-outside-toplevel
            prim = PrimFunc(list(prim.params) + [own for _, own in unbound], prim.body,
                            buffer_map=prim.buffer_map, attrs=prim.attrs)
        name = name_hint or getattr(func, "__name__", "te_func")
        gvar = None
        mod = self.get()
        for gv in mod.get_global_vars():
            if structural_equal(mod[gv], prim):
                gvar = gv
                break
        if gvar is None:
            gvar = self.add_func(prim, name)
        back = {own: orig for orig, own in fresh}
        out_sinfo = [TensorStructInfo([stmt_functor_substitute(d, back) for d in o.shape], o.dtype) for o in outs]
        return call_tir(gvar, [a for a, _ in inputs], out_sinfo if len(out_sinfo) > 1 else out_sinfo[0],
                        tir_vars=[orig for orig, _ in unbound] or None)

    def emit_te(self, func, *args, **kwargs):
        """``emit(call_te(func, *args, **kwargs))``."""
        name_hint = kwargs.pop("name_hint", "")
        return self.emit(self.call_te(func, *args, **kwargs), name_hint)

    def match_cast(self, value, struct_info, name_hint=""):
        """Binds ``value`` cast to ``struct_info`` (checked at run time), defining its new symbolic vars."""
        if not isinstance(value, Expr):
            raise TVMTypeError(f"BlockBuilder.match_cast: value must be a relax Expr, got {type(value).__name__}")
        struct_info = as_struct_info(struct_info)
        if not isinstance(struct_info, StructInfo):
            raise TVMTypeError(f"BlockBuilder.match_cast: struct_info must be a StructInfo, got "
                            f"{type(struct_info).__name__}")
        return _ffi_api.BlockBuilderEmitMatchCast(self, value, struct_info, name_hint)

    def emit_output(self, output, name_hint=""):
        """Binds ``output`` to a var visible after the dataflow block."""
        output = self._normalize_python_tuple(output)
        if not isinstance(output, Expr):
            raise TVMTypeError(f"BlockBuilder.emit_output: expected a relax Expr, got {type(output).__name__}")
        return _ffi_api.BlockBuilderEmitOutput(self, output, name_hint)

    def emit_func_output(self, output, params=None):
        """Ends the function: ``output`` is its result; returns its GlobalVar."""
        if self._func._is_emit_func_output_called:
            raise TVMError("emit_func_output must be called exactly once in a relax function.")
        params = _as_params(params)
        if self._func._params is not None and params is not None:
            raise TVMError("function parameters have been initialized in the function with scope.")
        if self._func._params is None and params is None:
            raise TVMError("Relax function must have parameter.")
        if BlockBuilder.current() is not self:
            raise TVMError("BlockBuilder.current() must be self.")
        self._func._is_emit_func_output_called = True
        if self._func._params is None:
            self._func._params = params
        output = self._normalize_python_tuple(output)
        if not isinstance(output, Expr):
            raise TVMTypeError(f"emit_func_output: expected a relax Expr, got {type(output).__name__}")
        block = self._end_block()
        self._func._block_open = False
        if len(block.bindings) > 0:
            self._func._blocks.append(block)
        seqe = SeqExpr(self._func._blocks, output)
        # Parameters given only now define their symbolic vars for the body.
        self.begin_scope(self._func._params)
        try:
            seqe = self.normalize(seqe)
        finally:
            self.end_scope()
        func = Function(self._func._params, seqe, is_pure=self._func._is_pure)
        for key, value in self._func._attrs.items():
            func = func.with_attr(key, value)
        self.end_scope()
        self._func._scope_open = False
        return self.add_func(func, self._func._name)

    def normalize(self, expr):
        """``expr`` normalized: struct info filled, nested calls bound (into the open block)."""
        if not isinstance(expr, Expr):
            raise TVMTypeError(f"BlockBuilder.normalize: expected a relax Expr, got {type(expr).__name__}")
        return _ffi_api.BlockBuilderNormalize(self, expr)

    def get(self):
        """The IRModule built so far (Relax and TIR functions)."""
        return _ffi_api.BlockBuilderGetContextIRModule(self)

    def finalize(self):
        return self.get()

    def get_unique_name(self, name_prefix):
        return _ffi_api.BlockBuilderGetUniqueName(self, name_prefix)

    def add_func(self, func, func_name):
        """Adds ``func`` to the module under a fresh name derived from ``func_name``."""
        if not isinstance(func, BaseFunc):
            raise TVMTypeError(f"BlockBuilder.add_func: expected a function, got {type(func).__name__}")
        return _ffi_api.BlockBuilderAddFunction(self, func, func_name)

    def update_func(self, gv, updated_func):
        """Replaces the function of ``gv``."""
        if not isinstance(gv, GlobalVar):
            raise TVMTypeError(f"BlockBuilder.update_func: gv must be a GlobalVar, got {type(gv).__name__}")
        if not isinstance(updated_func, BaseFunc):
            raise TVMTypeError(f"BlockBuilder.update_func: expected a function, got {type(updated_func).__name__}")
        _ffi_api.BlockBuilderUpdateFunction(self, gv, updated_func)

    def current_block_is_dataflow(self):
        return bool(_ffi_api.BlockBuilderCurrentBlockIsDataFlow(self))

    def emit_normalized(self, binding):
        if not isinstance(binding, Binding):
            raise TVMTypeError(f"emit_normalized: expected a Binding, got {type(binding).__name__}")
        _ffi_api.BlockBuilderEmitNormalized(self, binding)

    def lookup_binding(self, var):
        return _ffi_api.BlockBuilderLookupBinding(self, var)

    def begin_scope(self, params=None):
        _ffi_api.BlockBuilderBeginScope(self, _as_params(params))

    def end_scope(self):
        _ffi_api.BlockBuilderEndScope(self)


def _unbound_dims(fresh, tensors):
    """The (relax var, PrimFunc var) pairs of ``fresh`` that no tensor of ``tensors`` has
    as a whole dimension (they appear only inside expressions such as b * s)."""
    from ..tir import Var as TIRVar  # pylint: disable=import-outside-toplevel
    from ..te import Tensor  # pylint: disable=import-outside-toplevel
    # Scalar arguments (a tir.Var for an R.Prim operand) have no dimensions.
    bound = [d for t in tensors if isinstance(t, Tensor) for d in t.shape if isinstance(d, TIRVar)]
    return [(orig, own) for orig, own in fresh if not any(own.same_as(d) for d in bound)]


__all__ = ["BlockBuilder"]
