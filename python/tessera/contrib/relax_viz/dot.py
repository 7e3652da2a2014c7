"""DotPlotter: draws a VizGraph with Graphviz (the ``graphviz`` Python package
driving Debian's ``dot``; arguments go to it as a list, never through a
shell) to PDF, PNG or SVG. Ops are boxes labelled with their output shape and
dtype and the constants they read; fused functions are clusters; with kernel
times each kernel is filled on a yellow-red scale and labelled with its time."""
import os

from ...error import TVMError, TVMValueError
from .timing import colour, font_colour, per_call, slowest_in, time_text, total_of

FORMATS = ("pdf", "png", "svg")


def _graphviz():
    try:
        import graphviz  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise TVMError("relax_viz.DotPlotter needs the 'graphviz' Python package (pip install graphviz) and "
                       "Graphviz's dot program (apt-get install graphviz)") from err
    return graphviz


def _escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n")


class DotPlotter:
    """``DotPlotter(format="pdf")``: ``render(filename)`` writes
    ``filename.<format>`` (or ``filename`` itself when it already ends in
    .pdf/.png/.svg) and returns its path. ``graph_attr`` / ``node_attr`` /
    ``edge_attr`` are Graphviz attributes; ``render_kwargs`` may give
    ``format``."""

    def __init__(self, graph_attr=None, node_attr=None, edge_attr=None, render_kwargs=None, format="pdf"):  # pylint: disable=redefined-builtin
        render_kwargs = dict(render_kwargs or {})
        fmt = render_kwargs.pop("format", format)
        if fmt not in FORMATS:
            raise TVMValueError(f"DotPlotter: format {fmt!r} is not one of {', '.join(FORMATS)}")
        if render_kwargs:
            raise TVMValueError(f"DotPlotter: unsupported render option(s) {', '.join(sorted(render_kwargs))}")
        self.format = fmt
        self.graph_attr = dict(graph_attr or {})
        self.node_attr = dict(node_attr or {})
        self.edge_attr = dict(edge_attr or {})
        self._graphs = []

    def add(self, graph, times):
        """Queues ``graph`` (a VizGraph) with ``times`` ({kernel: us})."""
        self._graphs.append((graph, times))

    def source(self):
        """The DOT text of the queued graphs."""
        return self._digraph().source

    def _digraph(self):
        graphviz = _graphviz()
        dot = graphviz.Digraph("relax", graph_attr={"rankdir": "TB", **self.graph_attr},
                               node_attr={"fontname": "Helvetica", "fontsize": "10", **self.node_attr},
                               edge_attr={"arrowsize": "0.6", **self.edge_attr})
        for graph, times in self._graphs:
            self._draw(dot, graph, times, prefix=graph.name + "_" if len(self._graphs) > 1 else "")
        return dot

    @staticmethod
    def _draw(dot, graph, times, prefix):
        slowest = slowest_in(graph, times)
        total = total_of(times)
        clustered = {nid for ids in graph.clusters.values() for nid in ids}
        by_id = {n.id: n for n in graph.nodes}

        def node_attrs(node):
            lines = [node.label]
            if node.detail:
                lines.append(node.detail)
            if len(node.collapsed) <= 2:
                lines += ["+ " + c for c in node.collapsed]
            else:
                lines.append(f"+ {len(node.collapsed)} constants")
            attrs = {"label": _escape("\n".join(lines)), "style": "filled"}
            if node.kind == "input":
                attrs.update(shape="ellipse", fillcolor="#c6dbef")
            elif node.kind == "output":
                attrs.update(shape="ellipse", fillcolor="#c7e9c0")
            else:
                attrs.update(shape="box", fillcolor="#f0f0f0", style="filled,rounded")
            if node.kernel in times:
                attrs["fillcolor"] = colour(per_call(times, node.kernel), slowest)
                attrs["fontcolor"] = font_colour(attrs["fillcolor"])
                attrs["label"] += _escape("\n" + time_text(times, node.kernel, total))
            return attrs

        for node in graph.nodes:
            if node.id not in clustered:
                dot.node(prefix + node.id, **node_attrs(node))
        for instance, ids in graph.clusters.items():
            name = graph.cluster_kernel[instance]
            with dot.subgraph(name=f"cluster_{prefix}{instance.replace('#', '_')}") as sub:
                label = name + ("\n" + time_text(times, name, total) if name in times else "")
                fill = colour(per_call(times, name), slowest) if name in times else "#fafafa"
                sub.attr(label=_escape(label), style="filled,rounded", fontname="Helvetica", fontsize="10",
                         fillcolor=fill, fontcolor=font_colour(fill))
                for nid in ids:
                    sub.node(prefix + nid, **node_attrs(by_id[nid]))
        for edge in graph.edges:
            dot.edge(prefix + edge.src, prefix + edge.dst)

    def render(self, filename=None):
        """Writes the picture; returns the path of the file written."""
        graphviz = _graphviz()
        filename = os.fspath(filename) if filename is not None else "graph"
        fmt = self.format
        stem, ext = os.path.splitext(filename)
        if ext[1:].lower() in FORMATS:
            filename, fmt = stem, ext[1:].lower()
        dot = self._digraph()
        try:
            return dot.render(filename=filename, format=fmt, cleanup=True)
        except graphviz.ExecutableNotFound as err:
            raise TVMError("relax_viz.DotPlotter: Graphviz's 'dot' program is not installed "
                           "(apt-get install graphviz)") from err
        except graphviz.CalledProcessError as err:
            raise TVMError(f"relax_viz.DotPlotter: dot failed writing {filename}.{fmt}: {err}") from err


__all__ = ["DotPlotter", "FORMATS"]
