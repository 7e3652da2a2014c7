"""``tvm.relax.expr_functor``: visitors and mutators of Relax IR written in
Python (``PyExprVisitor`` / ``PyExprMutator``, decorated with ``@visitor`` /
``@mutator``) over the C++ ExprVisitor / ExprMutator
(src/relax/py_expr_functor.cc). The walk runs in C++; it calls back into
Python only for the hooks a subclass overrides (found once per class), and
the base methods (``super().visit_call_(op)``) run the C++ default.

    @relax.expr_functor.mutator
    class AddToMul(relax.PyExprMutator):
        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)
            if call.op == tvm.ir.Op.get("relax.add"):
                return relax.op.multiply(*call.args)
            return call
"""
import functools
import threading
import weakref

from ..error import TVMTypeError, TVMValueError
from ..ir.base import Node
from ..ir.expr import RelaxExpr
from ..ir.op import Op
from .._ffi.registry import register_object
from .block_builder import BlockBuilder
from .expr import (Binding, BindingBlock, Call, Constant, DataflowBlock, DataflowVar, DataTypeImm, ExternFunc,
                   Function, GlobalVar, If, MatchCast, PrimValue, SeqExpr, ShapeExpr, StringImm, Tuple,
                   TupleGetItem, Var, VarBinding)
from . import _ffi_api
from ..error import OpNotImplemented, TVMTypeError

# The overridable hooks, in the order src/relax/py_expr_functor.cc reads them.
_HOOKS = (
    "visit_expr", "visit_constant_", "visit_tuple_", "visit_var_", "visit_dataflow_var_", "visit_shape_expr_",
    "visit_extern_func_", "visit_global_var_", "visit_function_", "visit_call_", "visit_seq_expr_", "visit_if_",
    "visit_op_", "visit_tuple_getitem_", "visit_prim_value_", "visit_string_imm_", "visit_data_type_imm_",
    "visit_binding", "visit_var_binding_", "visit_match_cast_", "visit_binding_block", "visit_binding_block_",
    "visit_dataflow_block_", "visit_var_def", "visit_var_def_", "visit_dataflow_var_def_", "visit_span",
)


@register_object("relax.PyExprVisitor")
class _PyExprVisitorHandle(Node):
    """The C++ visitor behind a PyExprVisitor (not user facing)."""


@register_object("relax.PyExprMutator")
class _PyExprMutatorHandle(Node):
    """The C++ mutator behind a PyExprMutator (not user facing)."""


class ExprFunctor:
    """A pure-Python functor over Relax expressions: ``visit_expr`` dispatches
    on the node type to ``visit_<node>_``, which subclasses define."""

    _DISPATCH = (
        (Constant, "visit_constant_"), (Tuple, "visit_tuple_"), (DataflowVar, "visit_dataflow_var_"),
        (Var, "visit_var_"), (ShapeExpr, "visit_shape_expr_"), (ExternFunc, "visit_extern_func_"),
        (GlobalVar, "visit_global_var_"), (Function, "visit_function_"), (Call, "visit_call_"),
        (SeqExpr, "visit_seq_expr_"), (If, "visit_if_"), (Op, "visit_op_"), (TupleGetItem, "visit_tuple_getitem_"),
        (PrimValue, "visit_prim_value_"), (StringImm, "visit_string_imm_"), (DataTypeImm, "visit_data_type_imm_"),
    )

    def visit_expr(self, expr):
        for cls, name in self._DISPATCH:
            if isinstance(expr, cls):
                return getattr(self, name)(expr)
        raise TVMTypeError(f"ExprFunctor.visit_expr: not a relax expression: {type(expr).__name__}")

    def visit_binding(self, binding):
        if isinstance(binding, MatchCast):
            return self.visit_match_cast_(binding)
        if isinstance(binding, VarBinding):
            return self.visit_var_binding_(binding)
        raise TVMTypeError(f"ExprFunctor.visit_binding: not a relax binding: {type(binding).__name__}")

    def visit_binding_block(self, block):
        if isinstance(block, DataflowBlock):
            return self.visit_dataflow_block_(block)
        if isinstance(block, BindingBlock):
            return self.visit_binding_block_(block)
        raise TVMTypeError(f"ExprFunctor.visit_binding_block: not a relax binding block: {type(block).__name__}")

    def visit_var_def(self, var):
        if isinstance(var, DataflowVar):
            return self.visit_dataflow_var_def_(var)
        if isinstance(var, Var):
            return self.visit_var_def_(var)
        raise TVMTypeError(f"ExprFunctor.visit_var_def: not a relax Var: {type(var).__name__}")


def _not_implemented(name):
    def method(self, node):
        raise OpNotImplemented(f"{type(self).__name__}.{name} is not implemented")
    method.__name__ = name
    return method


for _name in _HOOKS:
    if _name not in ("visit_expr", "visit_binding", "visit_binding_block", "visit_var_def"):
        setattr(ExprFunctor, _name, _not_implemented(_name))


def _short(node, limit=160):
    """A one-line rendering of ``node`` for error messages."""
    try:
        text = " ".join(str(node).split())
    except Exception:  # pylint: disable=broad-except
        text = "<unprintable>"
    text = text if len(text) <= limit else text[:limit] + " ..."
    return f"{type(node).__name__} `{text}`"


# What each mutator hook must return (None: anything, the result is ignored).
_MUTATOR_RESULT = {name: (RelaxExpr, "a relax.Expr") for name in _HOOKS if name.endswith("_") or name == "visit_expr"}
_MUTATOR_RESULT.update({
    "visit_binding": None, "visit_var_binding_": None, "visit_match_cast_": None,
    "visit_binding_block": (BindingBlock, "a relax.BindingBlock"),
    "visit_binding_block_": (BindingBlock, "a relax.BindingBlock"),
    "visit_dataflow_block_": (BindingBlock, "a relax.BindingBlock"),
    "visit_var_def": (Var, "a relax.Var"), "visit_var_def_": (Var, "a relax.Var"),
    "visit_dataflow_var_def_": (Var, "a relax.Var"), "visit_span": None,
})


def _make_hook(inst_ref, cls, name, expect):
    """The callable C++ calls for hook ``name``: runs ``cls.name`` on the
    instance (held weakly: the C++ functor must not keep its Python owner
    alive), checks the result's type and names the hook and the node in any
    error raised through it."""
    fn = getattr(cls, name)
    where = f"{cls.__name__}.{name}"

    def hook(node):
        inst = inst_ref()
        if inst is None:
            raise TVMValueError(f"{where}: the Python object of this functor was freed while C++ still held it")
        try:
            result = fn(inst, node)
        except BaseException as err:
            if not getattr(err, "_tessera_hook_noted", False):
                err.add_note(f"raised in the Relax {where} hook while visiting {_short(node)}")
                err._tessera_hook_noted = True
            raise
        if expect is not None and not isinstance(result, expect[0]):
            err = TVMTypeError(f"{where} must return {expect[1]}, got {type(result).__name__} "
                               f"(visiting {_short(node)})")
            err._tessera_hook_noted = True
            raise err
        return result

    hook.__qualname__ = where
    return hook


_LOCK_GUARD = threading.Lock()


class _PyFunctorBase:
    """What PyExprVisitor and PyExprMutator share: the C++ handle, made on first use."""

    _BASE = None  # the user-facing base class (PyExprVisitor / PyExprMutator)

    @classmethod
    def _overridden_hooks(cls):
        """The hooks ``cls`` overrides, computed once per class."""
        hooks = cls.__dict__.get("_tessera_overridden")
        if hooks is None:
            base = cls._BASE
            hooks = tuple(n for n in _HOOKS if getattr(cls, n) is not getattr(base, n))
            cls._tessera_overridden = hooks
        return hooks

    def _hook_functions(self, expectations):
        cls = type(self)
        overridden = set(cls._overridden_hooks())
        ref = weakref.ref(self)
        return [_make_hook(ref, cls, n, expectations.get(n)) if n in overridden else None for n in _HOOKS]

    def _instance_lock(self):
        """The re-entrant lock that serializes the walks of this object (its C++
        functor keeps per-walk state, such as the mutator's builder and var remap,
        so two threads sharing one instance take turns; hooks re-entering the
        walk on the same thread pass)."""
        lock = self.__dict__.get("_tessera_lock")
        if lock is None:
            with _LOCK_GUARD:
                lock = self.__dict__.setdefault("_tessera_lock", threading.RLock())
        return lock

    def _outer(self):
        """The C++ functor of this object."""
        handle = self.__dict__.get("_tessera_handle")
        if handle is None:
            handle = self._make_handle()
            self.__dict__["_tessera_handle"] = handle
        return handle


class PyExprVisitor(_PyFunctorBase):
    """A Relax visitor customized in Python: subclass it, override any of the
    ``visit_*`` hooks and decorate the class with ``@relax.expr_functor.visitor``.
    Overridden hooks are called for their nodes; the others run in C++."""

    def _make_handle(self):
        return _ffi_api.MakePyExprVisitor(type(self).__name__, *self._hook_functions({}))

    # Generic dispatchers (their overrides are hooks too).
    def visit_expr(self, expr):
        """Visits ``expr``, dispatching to the ``visit_<node>_`` hooks."""
        return _ffi_api.PyExprVisitorVisitExpr(self._outer(), expr)

    def visit_binding(self, binding):
        """Visits a binding (its value, then the var definition)."""
        return _ffi_api.PyExprVisitorVisitBinding(self._outer(), binding)

    def visit_binding_block(self, block):
        """Visits each binding of ``block``."""
        return _ffi_api.PyExprVisitorVisitBindingBlock(self._outer(), block)

    def visit_var_def(self, var):
        """Visits the definition site of ``var`` (a parameter or a binding's var)."""
        return _ffi_api.PyExprVisitorVisitVarDef(self._outer(), var)

    def visit_span(self, span):
        """Visits the span of each expression (does nothing by default)."""
        return _ffi_api.ExprVisitorVisitSpan(self._outer(), span)


class PyExprMutator(_PyFunctorBase):
    """A Relax mutator customized in Python: subclass it, override any of the
    ``visit_*`` hooks (returning the new node) and decorate the class with
    ``@relax.expr_functor.mutator``. ``builder_`` is the BlockBuilder the
    rewritten bindings are emitted to (new module functions go there too)."""

    def __init__(self, mod=None):
        self.builder_ = BlockBuilder(mod)

    def _make_handle(self):
        builder = self.__dict__.get("builder_")
        if builder is None:  # a subclass that did not call super().__init__()
            builder = self.builder_ = BlockBuilder()
        if not isinstance(builder, BlockBuilder):
            raise TVMTypeError(f"{type(self).__name__}.builder_ must be a relax.BlockBuilder, "
                               f"got {type(builder).__name__}")
        return _ffi_api.MakePyExprMutator(builder, type(self).__name__, *self._hook_functions(_MUTATOR_RESULT))

    def visit_expr(self, expr):
        """The rewritten ``expr`` (normalized), dispatching to the ``visit_<node>_`` hooks."""
        return _ffi_api.PyExprMutatorVisitExpr(self._outer(), expr)

    def visit_binding(self, binding):
        """Rewrites a binding and emits the result to ``builder_``."""
        return _ffi_api.PyExprMutatorVisitBinding(self._outer(), binding)

    def visit_binding_block(self, block):
        """The rewritten binding block."""
        return _ffi_api.PyExprMutatorVisitBindingBlock(self._outer(), block)

    def visit_var_def(self, var):
        """The var that replaces the definition ``var`` (itself by default)."""
        return _ffi_api.PyExprMutatorVisitVarDef(self._outer(), var)

    def visit_span(self, span):
        """Spans are not rewritten: as TVM, this hook is not implemented for mutators."""
        raise OpNotImplemented("PyExprMutator.visit_span is not implemented")

    def visit_expr_post_order(self, expr):
        """``expr`` with its children rewritten (hooks apply to them, not to
        ``expr`` itself), rebuilt and normalized."""
        return _ffi_api.PyExprMutatorVisitExprPostOrder(self._outer(), expr)

    def visit_with_new_scope(self, expr):
        """Rewrites ``expr`` in a new scope (as a function body or If branch)."""
        return _ffi_api.PyExprMutatorVisitWithNewScope(self._outer(), expr)

    def lookup_binding(self, var):
        """The value ``var`` is bound to in ``builder_`` (None for parameters and unknown vars)."""
        return _ffi_api.PyExprMutatorLookupBinding(self._outer(), var)

    def with_struct_info(self, var, struct_info):
        """``var`` when its struct info is ``struct_info``, else a new var of the same kind and name with it."""
        return _ffi_api.PyExprMutatorWithStructInfo(self._outer(), var, struct_info)

    def set_var_remap(self, vid, var):
        """Replaces later uses of the var ``vid`` (a Var or its ``.vid``) by ``var``."""
        _ffi_api.PyExprMutatorSetVarRemap(self._outer(), vid, var)

    def get_var_remap(self, vid):
        """The var that replaces the var ``vid`` (None when it is not remapped)."""
        return _ffi_api.PyExprMutatorGetVarRemap(self._outer(), vid)


PyExprVisitor._BASE = PyExprVisitor
PyExprMutator._BASE = PyExprMutator


def _base_method(ffi_name):
    def method(self, node):
        return getattr(_ffi_api, ffi_name)(self._outer(), node)
    return method


# The node hooks' defaults: the C++ implementation for that node (children still go through the hooks).
for _name in _HOOKS:
    if _name.endswith("_") and _name != "visit_span":
        if _name in ("visit_var_binding_", "visit_match_cast_"):
            _v, _m = "ExprVisitorVisitBinding", "ExprMutatorVisitBinding"
        elif _name in ("visit_binding_block_", "visit_dataflow_block_"):
            _v, _m = "ExprVisitorVisitBindingBlock", "ExprMutatorVisitBindingBlock"
        elif _name in ("visit_var_def_", "visit_dataflow_var_def_"):
            _v, _m = "ExprVisitorVisitVarDef", "ExprMutatorVisitVarDef"
        else:
            _v, _m = "ExprVisitorVisitExpr", "ExprMutatorVisitExpr"
        for _cls, _ffi in ((PyExprVisitor, _v), (PyExprMutator, _m)):
            _method = _base_method(_ffi)
            _method.__name__ = _method.__qualname__ = _name
            _method.__doc__ = f"The default {_name}: the C++ implementation (override to customize)."
            setattr(_cls, _name, _method)


def _check_subclass(cls, base, decorator):
    if not isinstance(cls, type) or not issubclass(cls, base):
        raise TVMTypeError(f"@relax.expr_functor.{decorator} expects a subclass of relax.{base.__name__}, "
                           f"got {cls!r}")
    for parent in cls.__mro__[1:]:
        if "_cls" in parent.__dict__:
            # As TVM: a decorated class is a wrapper; subclass the class it wraps.
            raise TVMTypeError(f"Inheritance from a decorated object `{cls.__name__}` is not allowed. Please "
                               f"inherit from `{cls.__name__}._cls`. (`{parent.__name__}` is decorated with "
                               f"@relax.expr_functor.{decorator}: derive from `{parent.__name__}._cls`)")
    cls._overridden_hooks()
    # The decorated class, as in TVM, is a wrapper whose `_cls` is the class
    # as written: subclasses derive from `_cls` (see the check above).
    wrapper = type(cls)(cls.__name__, (cls,), {"_cls": cls, "__module__": cls.__module__,
                                               "__qualname__": cls.__qualname__, "__doc__": cls.__doc__})
    wrapper._overridden_hooks()
    return wrapper


def _serialized(method):
    @functools.wraps(method)
    def entry(self, *args):
        with self._instance_lock():
            return method(self, *args)
    return entry


# The entry points of a walk: one instance shared by threads walks for one thread at a time.
for _cls in (PyExprVisitor, PyExprMutator):
    for _entry in ("visit_expr", "visit_binding", "visit_binding_block", "visit_var_def", "visit_expr_post_order",
                   "visit_with_new_scope"):
        if _entry in _cls.__dict__:
            setattr(_cls, _entry, _serialized(_cls.__dict__[_entry]))


def visitor(visitor_cls):
    """Class decorator for a PyExprVisitor subclass (finds its overridden hooks
    once). Returns a wrapper class; ``Wrapper._cls`` is the class as written,
    the one to derive further visitors from."""
    return _check_subclass(visitor_cls, PyExprVisitor, "visitor")


def mutator(mutator_cls):
    """Class decorator for a PyExprMutator subclass (finds its overridden hooks
    once). Returns a wrapper class; ``Wrapper._cls`` is the class as written,
    the one to derive further mutators from."""
    return _check_subclass(mutator_cls, PyExprMutator, "mutator")


__all__ = ["ExprFunctor", "PyExprVisitor", "PyExprMutator", "visitor", "mutator"]
