"""``relax.transform.FuseOpsByPattern``, ``FusionPattern`` and
``PatternCheckContext`` (TVM v0.18's names); the pass is C++
(src/relax/transform/fuse_ops_by_pattern.cc)."""
from ...error import TVMTypeError
from ..dpl.pattern import DFPattern
from . import _ffi_api
from ...error import OpNotImplemented


class PatternCheckContext:
    """What a fusion pattern's ``check`` sees: ``matched_expr`` (the root
    call), ``annotated_expr`` (annotation name -> matched expression) and
    ``root_var`` (the var bound to the root)."""

    def __init__(self, matched_expr, annotated_expr, root_var):
        self.matched_expr = matched_expr
        self.annotated_expr = dict(annotated_expr)
        self.root_var = root_var


class FusionPattern:
    """A named pattern for FuseOpsByPattern; ``annotation_patterns`` name
    sub-patterns for ``check(PatternCheckContext) -> bool``."""

    def __init__(self, name, pattern, annotation_patterns=None, check=None):
        if not isinstance(name, str):
            raise TVMTypeError(f"FusionPattern: name must be a str, got {type(name).__name__}")
        if not isinstance(pattern, DFPattern):
            raise TVMTypeError(f"FusionPattern {name!r}: pattern must be a DFPattern, got {type(pattern).__name__}")
        annotation_patterns = dict(annotation_patterns or {})
        for key, value in annotation_patterns.items():
            if not isinstance(key, str) or not isinstance(value, DFPattern):
                raise TVMTypeError(f"FusionPattern {name!r}: annotation_patterns must map str -> DFPattern, got "
                                   f"{type(key).__name__} -> {type(value).__name__}")
        if check is not None and not callable(check):
            raise TVMTypeError(f"FusionPattern {name!r}: check must be callable, got {type(check).__name__}")
        self.name, self.pattern = name, pattern
        self.annotation_patterns, self.check = annotation_patterns, check


def _fusion_pattern(spec, i):
    if isinstance(spec, FusionPattern):
        return spec
    if isinstance(spec, (tuple, list)) and 2 <= len(spec) <= 4:
        return FusionPattern(*spec)
    raise TVMTypeError(f"FuseOpsByPattern: patterns[{i}] must be a FusionPattern or a tuple (name, pattern"
                       f"[, annotation_patterns[, check]]), got {type(spec).__name__}")


def FuseOpsByPattern(patterns, bind_constants=True, annotate_codegen=False, entry_function_names=None):
    """Groups the bindings each pattern matches into a private function
    ``{"Composite": name, "Primitive": 1}`` called in their place; earlier
    patterns take priority. ``bind_constants=False`` passes constants as
    arguments; ``annotate_codegen=True`` wraps each composite function in an
    outer function ``{"Codegen": <name before the first '.'>}``."""
    if entry_function_names is not None:
        raise OpNotImplemented("FuseOpsByPattern: entry_function_names is not supported; every Relax function "
                                  "is fused")
    if isinstance(patterns, (FusionPattern, tuple)) or not hasattr(patterns, "__iter__"):
        raise TVMTypeError(f"FuseOpsByPattern: patterns must be a list, got {type(patterns).__name__}")
    specs = []
    for i, spec in enumerate(patterns):
        fp = _fusion_pattern(spec, i)
        check = None
        if fp.check is not None:
            user_check = fp.check

            def check(matched_expr, annotated, root_var, user_check=user_check):
                return bool(user_check(PatternCheckContext(matched_expr, annotated, root_var)))
        specs.append([fp.name, fp.pattern, fp.annotation_patterns, check])
    return _ffi_api.FuseOpsByPattern(specs, bool(bind_constants), bool(annotate_codegen))
