"""The graph model behind relax_viz and the parser that builds it from a
Relax function: one node per operator call (with its output shape and dtype),
graph inputs and outputs; weights and constants are collapsed into the label
of the op that reads them; calls of fused functions become clusters of their
inner calls. Plotters (dot.py, term.py) draw a VizGraph."""
from dataclasses import dataclass, field
from typing import List, Optional

from ... import relax
from ...ir.expr import GlobalVar
from ...ir.op import Op


@dataclass
class VizNode:
    """One node: ``kind`` is "input", "op", "tuple", "if" or "output";
    ``collapsed`` lists the weights/constants it reads; ``kernel`` is the
    compiled kernel's name when known (matched against a vm.profile report)."""
    id: str
    kind: str
    label: str
    detail: str = ""
    collapsed: List[str] = field(default_factory=list)
    cluster: Optional[str] = None
    kernel: Optional[str] = None


@dataclass
class VizEdge:
    src: str
    dst: str


@dataclass
class VizGraph:
    """The nodes (in definition order), edges and clusters of one Relax
    function: ``clusters`` maps each call of a fused function (an id such as
    "fused_relu#2": a fused function may be called several times) to its node
    ids, ``cluster_kernel`` that id to the function's (kernel's) name."""
    name: str
    nodes: List[VizNode] = field(default_factory=list)
    edges: List[VizEdge] = field(default_factory=list)
    clusters: dict = field(default_factory=dict)
    cluster_kernel: dict = field(default_factory=dict)


def _dim(d):
    return str(int(d.value)) if hasattr(d, "value") else str(d)


def describe_sinfo(sinfo):
    """"(1, 3, 224, 224) float32" for a tensor, "tuple of 3" for a tuple."""
    if isinstance(sinfo, relax.TensorStructInfo):
        shape = sinfo.shape
        dims = "(" + ", ".join(_dim(d) for d in shape.values) + ")" if shape is not None and \
            hasattr(shape, "values") else f"ndim={sinfo.ndim}"
        return f"{dims} {sinfo.dtype}"
    if isinstance(sinfo, relax.TupleStructInfo):
        first = f": {describe_sinfo(sinfo.fields[0])}" + (", ..." if len(sinfo.fields) > 1 else "") \
            if sinfo.fields else ""
        return f"tuple of {len(sinfo.fields)}{first}"
    return type(sinfo).__name__.replace("StructInfo", "").lower()


class VizParser:
    """Turns the Relax function ``mod[func_name]`` into a VizGraph; parameters
    named in ``weights`` are collapsed like constants."""

    def parse(self, mod, func_name="main", weights=()):
        func = mod[func_name]
        self._mod = mod
        self._graph = VizGraph(func_name)
        self._weights = set(weights)
        env = {}
        for param in func.params:
            if param.name_hint in self._weights:
                env[param] = ("const", f"{param.name_hint} {describe_sinfo(param.struct_info)}")
            else:
                env[param] = ("node", self._add("input", param.name_hint, describe_sinfo(param.struct_info)))
        result = self._walk(func.body, env, None)
        out = self._add("output", "output", describe_sinfo(func.body.struct_info))
        self._connect(result, out)
        return self._graph

    # -- building -----------------------------------------------------------
    def _add(self, kind, label, detail="", cluster=None, kernel=None):
        node = VizNode(f"n{len(self._graph.nodes)}", kind, label, detail, cluster=cluster, kernel=kernel)
        self._graph.nodes.append(node)
        if cluster is not None:
            self._graph.clusters.setdefault(cluster, []).append(node.id)
        return node.id

    def _node(self, node_id):
        return self._graph.nodes[int(node_id[1:])]

    def _connect(self, entry, dst):
        kind, value = entry
        if kind == "node":
            self._graph.edges.append(VizEdge(value, dst))
        elif kind == "const":
            self._node(dst).collapsed.append(value)
        elif kind == "tuple":
            for item in value:
                self._connect(item, dst)

    def _resolve(self, expr, env):
        if isinstance(expr, relax.Var):
            return env.get(expr, ("const", expr.name_hint))
        if isinstance(expr, relax.Constant):
            return ("const", f"const {describe_sinfo(expr.struct_info)}")
        if isinstance(expr, relax.Tuple):
            return ("tuple", [self._resolve(f, env) for f in expr.fields])
        if isinstance(expr, relax.TupleGetItem):
            source = self._resolve(expr.tuple, env)
            if source[0] == "tuple" and expr.index < len(source[1]):
                return source[1][expr.index]
            return source
        if isinstance(expr, relax.ShapeExpr):
            return ("const", "shape (" + ", ".join(_dim(v) for v in expr.values) + ")")
        return ("const", type(expr).__name__)

    # -- walking ------------------------------------------------------------
    def _walk(self, seq, env, cluster):
        """Adds the bindings of SeqExpr ``seq``; returns the entry of its result."""
        for block in seq.blocks:
            for binding in block.bindings:
                env[binding.var] = self._binding(binding.var, binding.value, env, cluster)
        return self._resolve(seq.body, env)

    def _binding(self, var, value, env, cluster):
        detail = describe_sinfo(var.struct_info)
        if isinstance(value, relax.Call):
            return self._call(value, detail, env, cluster)
        if isinstance(value, relax.Tuple):
            node = self._add("tuple", "tuple", detail, cluster)
            self._connect(self._resolve(value, env), node)
            return ("node", node)
        if isinstance(value, relax.If):
            node = self._add("if", "if", detail, cluster)
            self._connect(self._resolve(value.cond, env), node)
            return ("node", node)
        return self._resolve(value, env)

    def _call(self, call, detail, env, cluster):
        op, args = call.op, list(call.args)
        if isinstance(op, Op) and op.name in ("relax.call_tir", "relax.call_dps_packed") and args:
            callee = args[0]
            label = callee.name_hint if isinstance(callee, GlobalVar) else str(getattr(callee, "global_symbol",
                                                                                         callee))
            node = self._add("op", label, detail, cluster, kernel=label if cluster is None else None)
            for arg in args[1:2]:
                self._connect(self._resolve(arg, env), node)
            return ("node", node)
        if isinstance(op, GlobalVar) and cluster is None and op in self._mod and \
                isinstance(self._mod[op], relax.Function):
            callee = self._mod[op]
            inner = {p: self._resolve(a, env) for p, a in zip(callee.params, args)}
            instance = f"{op.name_hint}#{len(self._graph.cluster_kernel)}"
            self._graph.cluster_kernel[instance] = op.name_hint
            return self._walk(callee.body, inner, instance)
        if isinstance(op, Op):
            label = op.name[len("relax."):] if op.name.startswith("relax.") else op.name
        elif isinstance(op, GlobalVar):
            label = op.name_hint
        elif isinstance(op, relax.ExternFunc):
            label = str(op.global_symbol)
        else:
            label = "call"
        node = self._add("op", label, detail, cluster, kernel=label if not isinstance(op, Op) else None)
        for arg in args:
            self._connect(self._resolve(arg, env), node)
        return ("node", node)


__all__ = ["VizNode", "VizEdge", "VizGraph", "VizParser", "describe_sinfo"]
