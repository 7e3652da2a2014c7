"""Structural equality and hashing of IR (``tvm.ir.structural_equal``,
``structural_hash``, ``assert_structural_equal``).

Two IR nodes are structurally equal when they have the same shape, types,
constants and fields, with variables and buffers matched at their
definition points, so names do not matter.  The work is done in C++
(``src/ir/structural_equal.cc``); this module is the TVM-compatible front.
"""
from .._ffi.registry import get_global_func
from ..error import TVMValueError

__all__ = ["structural_equal", "structural_hash", "assert_structural_equal", "get_first_structural_mismatch"]


def structural_equal(lhs, rhs, map_free_vars=False):
    """Whether ``lhs`` and ``rhs`` are structurally equal.

    Variables defined inside the compared IR (function parameters, loop and
    block variables, let bindings, buffers) are matched by where they are
    defined.  Free variables must be the same object unless
    ``map_free_vars`` is true, in which case they are matched too.
    """
    return bool(get_global_func("ir.StructuralEqual")(lhs, rhs, bool(map_free_vars)))


def structural_hash(node, map_free_vars=False):
    """A hash consistent with :func:`structural_equal` (equal nodes hash
    alike); the same in every run for IR without free variables."""
    return int(get_global_func("ir.StructuralHash")(node, bool(map_free_vars)))


def get_first_structural_mismatch(lhs, rhs, map_free_vars=False):
    """``None`` when equal, otherwise ``(path, reason, lhs_text, rhs_text)``
    describing the first difference in depth-first order, e.g. path
    ``root.functions["mm_relu"].body.block.body.seq[0].body.extent``."""
    result = get_global_func("ir.GetFirstStructuralMismatch")(lhs, rhs, bool(map_free_vars))
    if result is None:
        return None
    path, reason, lhs_text, rhs_text = (str(x) for x in list(result)[:4])
    return path, reason, lhs_text, rhs_text


def _side(label, text):
    text = str(text)
    if "\n" not in text:
        return f"  {label}: {text}"
    body = "\n".join("    " + line for line in text.splitlines())
    return f"  {label}:\n{body}"


# Lines of context shown around the underlined mismatch ("..." for the rest).
_CONTEXT_LINES = 12


def _underlined(root, node):
    """``root`` printed with carets under ``node`` (the first mismatching
    node) and the lines around it, or ``None`` when it has no script form or
    ``node`` is not in it."""
    if node is None:
        return None
    try:
        text = str(get_global_func("script.RenderWithCulprit")(root, [node], "first mismatch", _CONTEXT_LINES))
    except Exception:  # pylint: disable=broad-except
        return None  # rendering is best effort; the path above names the place
    return text if "^" in text and "is not in the printed text" not in text else None


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    """Raises ``ValueError`` (:class:`tvm.error.TVMValueError`) unless ``lhs``
    and ``rhs`` are structurally equal; the message names the first
    mismatching path, shows both sides there and, when both are IR with a
    script form, both sides printed (the lines around the first mismatching
    node) with that node underlined."""
    result = get_global_func("ir.GetFirstStructuralMismatch")(lhs, rhs, bool(map_free_vars))
    if result is None:
        return
    items = list(result)
    path, reason, lhs_text, rhs_text = (str(x) for x in items[:4])
    message = f"StructuralEqual check failed at {path}: {reason}\n{_side('lhs', lhs_text)}\n{_side('rhs', rhs_text)}"
    if len(items) >= 6:
        lhs_full = _underlined(lhs, items[4])
        rhs_full = _underlined(rhs, items[5])
        if lhs_full is not None and rhs_full is not None:
            message += f"\n{_side('lhs, printed', lhs_full)}\n{_side('rhs, printed', rhs_full)}"
    raise TVMValueError(message)
