"""In-place writes and aliasing for the PyTorch importers (base_translator.py). Torch
tensors share memory: a view (x.view(-1), x[1:], x.t(), x.contiguous()...) aliases its
base, and an in-place op (add_, torch.relu_, F.relu(inplace=True), aten.add_) writes
through it. Relax values are immutable, so AliasTracker functionalizes the graph: it
replays each view op on a meta tensor to learn which elements of its base the view
covers, turns a write into a new value of the base, and re-reads every alias of that
base that is read afterwards. A pattern it cannot follow raises, naming the node."""
import operator

import numpy as np

from ... import op as _op
from ....error import OpNotImplemented, TVMTypeError, TVMValueError
from ...expr import Expr, const
from ...struct_info import TensorStructInfo

# Converters whose result may be a view of (or the same tensor as) their first operand;
# each is replayed on meta tensors to find out (torch decides, e.g. reshape of a
# non-contiguous tensor copies, x[idx_tensor] copies, contiguous() of a contiguous x is x).
VIEW_CANDIDATES = frozenset({"reshape", "flatten", "permute", "transpose", "t", "unsqueeze", "squeeze", "expand",
                             "getitem", "slice", "select", "identity", "to", "to_copy", "float", "half",
                             "dropout"})

# Python's augmented assignments write a tensor in place.
_INPLACE_OPERATORS = frozenset({operator.iadd, operator.isub, operator.imul, operator.itruediv,
                                operator.ifloordiv, operator.ipow, operator.imod, operator.iand, operator.ior,
                                operator.ixor, operator.imatmul})


def _torch():
    import torch  # pylint: disable=import-outside-toplevel
    return torch


def is_inplace_call(node, bound_inplace):
    """Whether fx call ``node`` writes its first operand: an ``inplace=True`` argument,
    a Tensor method / torch function / aten op whose name ends in '_' (add_, relu_), or
    an augmented assignment (operator.iadd)."""
    if bound_inplace:
        return True
    if node.op == "call_method":
        name = node.target
    elif node.op == "call_function":
        if node.target in _INPLACE_OPERATORS:
            return True
        name = getattr(node.target, "__name__", "")
        if type(node.target).__name__ == "OpOverload":
            name = name.split(".")[0]
    else:
        return False
    return name.endswith("_") and not name.endswith("__")


class _Alias:
    """``node``'s value is elements of ``root``'s: ``meta`` is the node's view of the
    root's meta tensor (None: a view the importer could not follow); ``version`` is the
    root's version when the node's value was last computed."""

    def __init__(self, root, meta, version):
        self.root = root
        self.meta = meta
        self.version = version


class AliasTracker:
    """Alias bookkeeping of one translator ``tr`` (its ``env`` maps fx nodes to values)."""

    def __init__(self, tr):
        self.tr = tr
        self.aliases = {}        # fx node -> _Alias
        self.versions = {}       # root fx node -> number of writes to it so far
        self.stateful_roots = {}  # root fx node -> what it is (a weight or buffer: writes are refused)
        self.state_write = None   # the error of the first write to one, raised by check_state_writes

    # -- meta tensors -------------------------------------------------------------------
    def _tensor_sinfo(self, value):
        if isinstance(value, Expr) and isinstance(value.struct_info, TensorStructInfo):
            sinfo = value.struct_info
            if sinfo.shape is not None and all(hasattr(d, "value") for d in sinfo.shape.values):
                return [int(d.value) for d in sinfo.shape.values], str(sinfo.dtype)
        return None

    def _root_alias(self, node):
        """The alias record of ``node`` (a root of itself when it is no view)."""
        alias = self.aliases.get(node)
        if alias is None:
            spec = self._tensor_sinfo(self.tr.env.get(node))
            if spec is None:
                return None
            torch = _torch()
            shape, dtype = spec
            meta = torch.empty(shape, dtype=getattr(torch, dtype), device="meta")
            self.versions.setdefault(node, 0)
            alias = self.aliases[node] = _Alias(node, meta, self.versions[node])
        return alias

    def mark_stateful(self, node, what):
        """``node`` holds the model's state (a weight, a buffer): an in-place write to it
        would have to persist across calls, which a Relax function cannot do."""
        self.stateful_roots[node] = what

    def check_state_writes(self):
        """Raises the error of the first in-place write to the model's state, if any."""
        if self.state_write is not None:
            raise self.state_write

    def same_tensor(self, node, earlier):
        """``node`` is the very tensor ``earlier`` is (a second fx read of one attribute)."""
        alias = self._root_alias(earlier)
        if alias is not None:
            self.aliases[node] = _Alias(alias.root, alias.meta, alias.version)

    # -- after each call ----------------------------------------------------------------
    def after_call(self, node, entry_name, bound_inplace, replay):
        """Records what ``node`` aliases, or performs its in-place write. ``replay(fn)``
        runs the node's torch op with each fx-node argument replaced by ``fn(node)``."""
        torch = _torch()
        if not node.args or not isinstance(node.args[0], torch.fx.Node):
            return
        operand = node.args[0]
        if is_inplace_call(node, bound_inplace) and self._tensor_sinfo(self.tr.env.get(operand)) is not None:
            self._write(node, operand)
        elif entry_name in VIEW_CANDIDATES:
            self._record_view(node, operand, replay)

    def _record_view(self, node, operand, replay):
        torch = _torch()
        source = self._root_alias(operand)
        if source is None or self._tensor_sinfo(self.tr.env.get(node)) is None:
            return
        metas = {}

        def to_meta(arg):
            if arg is operand:
                return source.meta
            value = self.tr.env.get(arg)
            spec = self._tensor_sinfo(value)
            if spec is not None:
                if arg not in metas:
                    metas[arg] = torch.empty(spec[0], dtype=getattr(torch, spec[1]), device="meta")
                return metas[arg]
            if isinstance(value, Expr):
                raise _NotReplayable()
            return value

        root_meta = self.aliases[source.root].meta
        version = self.versions[source.root]
        try:
            out = replay(to_meta)
        except _NotReplayable:
            return
        except Exception:  # pylint: disable=broad-except  -- torch cannot run it on meta tensors
            # Unknown: reading it after a write to its base, or writing through it, raises.
            self.aliases[node] = _Alias(source.root, None, version)
            return
        if isinstance(out, torch.Tensor) and (out is root_meta or out._base is root_meta):
            self.aliases[node] = _Alias(source.root, out, version)

    # -- writes ---------------------------------------------------------------------------
    def _positions(self, meta, root_meta):
        """Flat positions in the root of every element of the view ``meta``."""
        torch = _torch()
        numel = root_meta.numel()
        base = torch.arange(numel, dtype=torch.int64)
        return base.as_strided(tuple(meta.shape), tuple(meta.stride()), meta.storage_offset()).numpy()

    def _write(self, node, operand):
        torch = _torch()
        tr = self.tr
        value = tr.env[node]
        target = tr.env[operand]
        new_spec, old_spec = self._tensor_sinfo(value), self._tensor_sinfo(target)
        if new_spec is None or new_spec[0] != old_spec[0]:
            raise TVMValueError(f"{tr.node_desc(node)}: the in-place result of shape "
                                f"{None if new_spec is None else new_spec[0]} does not fit the written tensor "
                                f"of shape {old_spec[0]}")
        if new_spec[1] != old_spec[1]:
            if not torch.can_cast(getattr(torch, new_spec[1]), getattr(torch, old_spec[1])):
                raise TVMTypeError(f"{tr.node_desc(node)}: the in-place result type {new_spec[1]} cannot be cast "
                                   f"to the written tensor's type {old_spec[1]} (as in PyTorch)")
            value = tr.emit(_op.astype(value, old_spec[1]))
        alias = self._root_alias(operand)
        root = alias.root
        if root in self.stateful_roots and self.state_write is None:
            # Raised once the graph is converted (check_state_writes), so that a more
            # specific error of a later node (batch_norm in training mode) comes first.
            self.state_write = OpNotImplemented(
                f"{tr.node_desc(node)} writes {self.stateful_roots[root]} in place; the imported Relax function "
                "keeps no state between calls (not supported by the PyTorch importer; in a model that updates "
                "buffers only in training, call model.eval() first)")
        if alias.meta is None:
            raise OpNotImplemented(f"{tr.node_desc(node)} writes in place through "
                                   f"'{operand.name}', a view of '{root.name}' whose layout the PyTorch importer "
                                   "cannot follow (not supported)")
        root_meta = self.aliases[root].meta
        if root is operand or alias.meta is root_meta:
            new_root = value
        else:
            new_root = self._scatter(node, value, alias.meta, root_meta, tr.env[root])
        self.versions[root] += 1
        version = self.versions[root]
        tr.env[root] = new_root
        self.aliases[root].version = version
        for n in (operand, node):
            tr.env[n] = value
            self.aliases[n] = _Alias(root, alias.meta, version)

    def _scatter(self, node, value, meta, root_meta, root_value):
        """The root's new value after writing ``value`` into its view ``meta``."""
        positions = self._positions(meta, root_meta)
        if np.unique(positions).size != positions.size:
            raise TVMValueError(f"{self.tr.node_desc(node)}: in-place write to a tensor whose elements overlap in "
                                "memory (an expand()ed view); PyTorch refuses it too")
        return scatter_positions(self.tr, root_value, list(root_meta.shape), positions, value)

    # -- reads ----------------------------------------------------------------------------
    def refresh(self, node):
        """Recomputes ``node``'s value when its base was written since it was read."""
        alias = self.aliases.get(node)
        if alias is None or alias.root is node or alias.version == self.versions.get(alias.root, 0):
            return
        tr = self.tr
        if alias.meta is None:
            raise OpNotImplemented(f"reading '{node.name}' ({tr.node_desc(node)}), a view of '{alias.root.name}' "
                                   "whose layout the PyTorch importer cannot follow, after an in-place write to "
                                   f"'{alias.root.name}' (not supported; {tr.node_desc()} reads it)")
        root_meta = self.aliases[alias.root].meta
        root_value = tr.env[alias.root]
        shape = list(alias.meta.shape)
        positions = self._positions(alias.meta, root_meta)
        numel = root_meta.numel()
        if positions.size == numel and np.array_equal(positions.reshape(-1), np.arange(numel)):
            value = root_value if shape == list(root_meta.shape) else tr.emit(_op.reshape(root_value, shape))
        else:
            flat_root = tr.emit(_op.reshape(root_value, [numel]))
            value = tr.emit(_op.take(flat_root, const(positions.reshape(-1), "int64"), axis=0))
            value = tr.emit(_op.reshape(value, shape))
        tr.env[node] = value
        alias.version = self.versions[alias.root]


def scatter_positions(tr, base, shape, positions, value):
    """``base`` (a tensor of ``shape``) with the element at flat position
    ``positions[i]`` replaced by ``value``'s element i (``positions`` has ``value``'s
    shape, no position twice): a gather from ``value`` where written, else ``base``."""
    positions = np.asarray(positions, dtype=np.int64).reshape(-1)
    numel = int(np.prod(shape, dtype=np.int64))
    if positions.size == 0:
        return base
    flat_value = tr.emit(_op.reshape(value, [positions.size]))
    if positions.size == numel and np.array_equal(positions, np.arange(numel)):
        return tr.emit(_op.reshape(flat_value, list(shape)))
    source = np.full(numel, -1, dtype=np.int64)
    source[positions] = np.arange(positions.size, dtype=np.int64)
    covered = source >= 0
    gathered = tr.emit(_op.take(flat_value, const(np.where(covered, source, 0), "int64"), axis=0))
    if not covered.all():
        flat_base = tr.emit(_op.reshape(base, [numel]))
        gathered = tr.emit(_op.where(const(covered, "bool"), gathered, flat_base))
    return tr.emit(_op.reshape(gathered, list(shape)))


class _NotReplayable(Exception):
    """A view candidate whose other arguments are Relax values other than tensors."""


__all__ = ["AliasTracker", "VIEW_CANDIDATES", "is_inplace_call", "scatter_positions"]
