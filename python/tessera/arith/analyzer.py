"""The arithmetic analyzer (``tvm.arith.Analyzer``): simplification, constant
bounds, modular sets, integer sets and proofs over integer expressions, with
facts about variables added by ``bind`` / ``update``."""
from .._ffi.registry import register_object
from ..ir.base import Node
from ..ir.expr import Range
from . import _ffi_api
from ..error import OpNotImplemented, TVMTypeError


@register_object("arith.ConstIntBound")
class ConstIntBound(Node):
    """Constant bound ``[min_value, max_value]``; unbounded ends are ``POS_INF`` / ``NEG_INF``."""

    POS_INF = (1 << 63) - 1
    NEG_INF = -POS_INF

    def __init__(self, min_value, max_value):
        self.__init_handle_by_constructor__(_ffi_api.ConstIntBound, int(min_value), int(max_value))

    def __repr__(self):
        return f"ConstIntBound(min_value={self.min_value}, max_value={self.max_value})"


@register_object("arith.ModularSet")
class ModularSet(Node):
    """The fact ``value = coeff * k + base`` (``coeff == 0``: the value is ``base``)."""

    def __init__(self, coeff, base):
        self.__init_handle_by_constructor__(_ffi_api.ModularSet, int(coeff), int(base))

    def __repr__(self):
        return f"ModularSet(coeff={self.coeff}, base={self.base})"


class ProofStrength:
    """TVM's proof strengths; Analyzer.can_prove supports DEFAULT only."""

    DEFAULT = 0
    SYMBOLIC_BOUND = 1


class Analyzer:
    """Integer arithmetic analyzer. Facts added with :meth:`bind` and
    :meth:`update` hold for the analyzer's lifetime."""

    def __init__(self):
        self._handle = _ffi_api.CreateAnalyzer()

    def const_int_bound(self, expr):
        """The :class:`ConstIntBound` of ``expr``."""
        return _ffi_api.AnalyzerConstIntBound(self._handle, expr)

    def modular_set(self, expr):
        """The :class:`ModularSet` of ``expr``."""
        return _ffi_api.AnalyzerModularSet(self._handle, expr)

    def simplify(self, expr, steps=2):
        """``expr`` simplified (its value is unchanged)."""
        return _ffi_api.AnalyzerSimplify(self._handle, expr, int(steps))

    def rewrite_simplify(self, expr):
        return _ffi_api.AnalyzerRewriteSimplify(self._handle, expr)

    def canonical_simplify(self, expr):
        return _ffi_api.AnalyzerCanonicalSimplify(self._handle, expr)

    def int_set(self, expr, dom_map):
        """The :class:`IntervalSet` of values of ``expr`` when each variable in
        ``dom_map`` ranges over its IntSet (or Range)."""
        return _ffi_api.AnalyzerIntSet(self._handle, expr, dict(dom_map))

    def can_prove(self, expr, strength=ProofStrength.DEFAULT):
        """True only when ``expr`` provably holds (the default strength only)."""
        if strength != ProofStrength.DEFAULT:
            raise OpNotImplemented(f"can_prove(strength={strength!r}) is not supported; only "
                                      "ProofStrength.DEFAULT")
        return bool(_ffi_api.AnalyzerCanProve(self._handle, expr))

    def can_prove_equal(self, lhs, rhs):
        return bool(_ffi_api.AnalyzerCanProveEqual(self._handle, lhs, rhs))

    def bind(self, var, expr):
        """``var`` equals ``expr`` (a PrimExpr) or lies in ``expr`` (a Range)."""
        _ffi_api.AnalyzerBind(self._handle, var, expr, False)

    def update(self, var, info, override=False):
        """Records a :class:`ConstIntBound` or :class:`ModularSet` fact about ``var``."""
        if isinstance(info, ConstIntBound):
            _ffi_api.AnalyzerUpdateConstIntBound(self._handle, var, info, bool(override))
        elif isinstance(info, ModularSet):
            _ffi_api.AnalyzerUpdateModularSet(self._handle, var, info)
        else:
            raise TVMTypeError(f"Analyzer.update: expected ConstIntBound or ModularSet, got {type(info).__name__}")


__all__ = ["ConstIntBound", "ModularSet", "ProofStrength", "Analyzer", "Range"]
